"""Planetarium's own labelled problems, judged by widthbench (issue 44; docs/formalization.md).

    .venv/bin/python scripts/planetarium_conformance.py [--data DIR] [--max-states N]

Every pair of problems that Planetarium's tests label equivalent or not (tests/planners/data/
planetarium/pairs.csv, from its tests/test_evaluate.py and tests/test_metric.py) is judged by
`widthbench equivalent DOMAIN TRUTH CANDIDATE --json`, run in this process; every problem its tests
label solvable or not (solvable.csv, from tests/test_planner.py and tests/test_evaluate.py) by the
engine's breadth-first search. Prints one line per pair and per problem, the agreement figures, and
the disagreements. The data (Planetarium's fixtures and domains, BSD-3-Clause) and where they come
from: tests/planners/data/planetarium/SOURCE.md.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import io
import json
import sys
from pathlib import Path

DATA = Path(__file__).resolve().parent.parent / "tests" / "planners" / "data" / "planetarium"
DOMAINS = {"blocksworld": "blocksworld", "gripper": "gripper", "rover": "rover-single", "floortile": "floor-tile"}


def domain_file(data: Path, problem: str) -> Path:
    """The fixture's domain, by the prefix of its name (as Planetarium names them)."""
    return data / "domains" / f"{DOMAINS[problem.split('_')[0]]}.pddl"


def judge_pairs(data: Path = DATA, max_states: int | None = None) -> list[dict]:
    """One row per labelled pair: the label, the command's verdict (its --json object) and exit code."""
    from widthbench.cli import main

    rows = []
    with open(data / "pairs.csv", newline="") as f:
        for r in csv.DictReader(f):
            argv = ["equivalent", str(domain_file(data, r["truth"])), str(data / "problems" / f"{r['truth']}.pddl"),
                    str(data / "problems" / f"{r['candidate']}.pddl"), "--json"]
            if max_states is not None:
                argv += ["--max-states", str(max_states)]
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                code = main(argv)
            verdict = json.loads(out.getvalue())
            ours = {True: "equivalent", False: "not-equivalent", None: "unknown"}[verdict["equivalent"]]
            rows.append({**r, "ours": ours, "reason": verdict["reason"], "exit": code, "verdict": verdict,
                         "agree": ours == r["planetarium"]})
    return rows


def judge_solvability(data: Path = DATA) -> list[dict]:
    from widthbench.planners.bfs import shortest_plan
    from widthbench.planners.strips import load_task

    rows = []
    with open(data / "solvable.csv", newline="") as f:
        for r in csv.DictReader(f):
            task = load_task(domain_file(data, r["problem"]), data / "problems" / f"{r['problem']}.pddl")
            ours = "solvable" if shortest_plan(task).plan is not None else "unsolvable"
            rows.append({**r, "ours": ours, "agree": ours == r["planetarium"]})
    return rows


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data", type=Path, default=DATA, help=f"the data folder (default {DATA})")
    p.add_argument("--max-states", type=int, default=None, help="passed to widthbench equivalent")
    args = p.parse_args(argv)
    pairs = judge_pairs(args.data, args.max_states)
    for r in pairs:
        mark = "  " if r["agree"] else "!!"
        print(f"{mark} {r['truth']} vs {r['candidate']}: Planetarium {r['planetarium']}, widthbench {r['ours']} "
              f"({r['reason']}, {r['verdict']['method']})")
    solv = judge_solvability(args.data)
    for r in solv:
        print(f"{'  ' if r['agree'] else '!!'} {r['problem']}: Planetarium {r['planetarium']}, engine {r['ours']}")
    agree = sum(r["agree"] for r in pairs)
    distinct = [r for r in pairs if r["truth"] != r["candidate"]]
    print(f"pairs: {agree}/{len(pairs)} agree ({sum(r['agree'] for r in distinct)}/{len(distinct)} of the pairs of "
          f"two different problems); unknown: {sum(r['ours'] == 'unknown' for r in pairs)}")
    print(f"solvability: {sum(r['agree'] for r in solv)}/{len(solv)} agree")
    for r in pairs:
        if not r["agree"]:
            print(f"disagreement: {r['truth']} vs {r['candidate']}: {r['verdict']['message']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
