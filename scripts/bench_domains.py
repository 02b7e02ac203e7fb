"""Any typed STRIPS domain, measured: grounding size, time to build sub-task items, sim:oracle scores.

For each domain folder (default: ../shared/data/acpbench-domains/*; any folder holding domain.pddl
and problem files works):

1. load every sample problem (a rejection is listed with the engine's reason) and record the
   grounding size (fluent atoms, ground actions, static atoms) and the time to ground;
2. derive ``--problems`` (default 3 x ``--count``) problems from the samples by seeded random walks
   (`generators.instance.walk_instances`: non-goal states with a plan) and write them as an instance
   set under OUT/sets/<domain>/ (domain.pddl, problems, manifest.jsonl);
3. build ``--count`` items of every sub-task on that set on one pool, as ``score --subtask all``
   does, and time each sub-task (what it adds to the pool's shared ground truth, widths and traces);
4. with ``--score N``, run ``widthbench score --domain D --instances SET --model sim:oracle
   --subtask all --count N --thinking off`` (both styles) and check every cell is 100%;
5. with ``--solve N``, run ``widthbench solve --model sim:oracle --count N`` with every search method
   (naive, ToT BFS with and without LLM novelty pruning, ToT DFS, MCTS, Caterpillar) and record
   solved/n (a simulated oracle still searches within each method's budget: not every method solves
   every problem).

Writes OUT/bench_domains.json and prints a Markdown table. Example (the figures in docs/domains.md):

    .venv/bin/python scripts/bench_domains.py --out /tmp/bench-domains --count 50 --score 3 --solve 3
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DEFAULT_ROOT = REPO.parent / "shared" / "data" / "acpbench-domains"


def _timeout(signum, frame):
    raise TimeoutError


def measure(folder: Path, out: Path, count: int, seed: int, score: int, subtasks: str,
            problems: int | None = None, max_seconds: float = 1800, subtask_seconds: float = 600,
            score_seconds: float = 1200, solve: int = 0) -> dict:
    from widthbench.core.errors import UserError
    from widthbench.generators.instance import _defines_domain, read_instance_set, walk_instances, write_instance_set
    from widthbench.planners import strips
    from widthbench.subtasks.items import ItemOptions, Pool, build_items
    from widthbench.subtasks.score_run import expand_subtasks

    row: dict = {"domain": folder.name, "rejected": []}
    try:
        dom = strips.load_domain(folder / "domain.pddl")
    except UserError as exc:
        row["rejected"].append({"file": "domain.pddl", "reason": str(exc)})
        return row
    row["pddl_name"] = dom.name
    sizes = []
    for p in sorted(folder.glob("*.pddl")):
        if p.name == "domain.pddl" or _defines_domain(p):
            continue
        t0 = time.perf_counter()
        try:
            task = strips.load_task(dom, p)
        except UserError as exc:
            row["rejected"].append({"file": p.name, "reason": str(exc)})
            continue
        sizes.append({"problem": p.name, "objects": len(task.objects), "atoms": task.n_atoms,
                      "actions": len(task.actions), "static_atoms": len(task.static_atoms),
                      "ground_seconds": round(time.perf_counter() - t0, 3)})
    row["samples"] = sizes
    if not sizes:
        return row
    samples = [i for i in read_instance_set(folder, validate=False)]
    t0 = time.perf_counter()
    try:
        derived = walk_instances(samples, problems or 3 * max(count, score, solve, 1), seed)
    except UserError as exc:
        row["rejected"].append({"file": "(derived set)", "reason": str(exc)})
        return row
    row["derive_seconds"] = round(time.perf_counter() - t0, 2)
    set_dir = out / "sets" / folder.name
    write_instance_set(set_dir, dom, derived)
    row["set"] = str(set_dir)
    # Items of every sub-task built on one pool, as `widthbench score --subtask all` builds them
    # (the ground truth, widths and IW traces of an instance are computed once and shared); the
    # seconds of a sub-task are what it added. A sub-task the set cannot feed is listed with why.
    row["items"], row["items_seconds_by_subtask"] = {}, {}
    pool = Pool(None, seed, instances=read_instance_set(set_dir))
    t_all = time.perf_counter()
    for sub in expand_subtasks(subtasks) if count else ():
        if time.perf_counter() - t_all > max_seconds:
            row["rejected"].append({"file": f"(items {sub})", "reason": f"not built: over --max-seconds {max_seconds}"})
            continue
        t0 = time.perf_counter()
        signal.signal(signal.SIGALRM, _timeout)
        signal.alarm(int(subtask_seconds))
        try:
            items = build_items(sub, pool, count, ItemOptions())
        except UserError as exc:
            row["rejected"].append({"file": f"(items {sub})", "reason": str(exc)})
            continue
        except TimeoutError:
            row["rejected"].append({"file": f"(items {sub})",
                                    "reason": f"not built within --subtask-seconds {subtask_seconds:g}"})
            continue
        finally:
            signal.alarm(0)
        row["items_seconds_by_subtask"][sub] = round(time.perf_counter() - t0, 2)
        row["items"][sub] = len(items)
    row["items_seconds"] = round(sum(row["items_seconds_by_subtask"].values()), 2)
    if score:
        row["score"] = run_score(set_dir, out / "runs" / folder.name, score, seed, subtasks, score_seconds)
    if solve:
        row["solve"] = {label: run_solve(set_dir, out / "solve" / folder.name / label.replace(" ", "_"), solve,
                                         seed, flags, score_seconds)
                        for label, flags in SOLVE_METHODS.items()}
    return row


# Every search method of `widthbench solve` (ToT BFS also with the LLM novelty pruning of the paper).
SOLVE_METHODS = {"naive": ["--method", "naive"], "tot-bfs": ["--method", "tot-bfs"],
                 "tot-bfs novelty": ["--method", "tot-bfs", "--novelty", "llm"],
                 "tot-dfs": ["--method", "tot-dfs"], "mcts": ["--method", "mcts"], "cat": ["--method", "cat"]}


def run_widthbench(args: list[str], run_dir: Path, seconds: float) -> tuple[dict, dict | None]:
    """Run ``widthbench ARGS --out RUN_DIR --quiet`` afresh: ({"command", "exit", "seconds"} or
    {"command", "error"}, the run's summary.json or None when it failed)."""
    import shutil
    import subprocess

    shutil.rmtree(run_dir, ignore_errors=True)
    cmd = [sys.executable, "-m", "widthbench", *args, "--out", str(run_dir), "--quiet"]
    out = {"command": " ".join(cmd[1:])}
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=seconds)
    except subprocess.TimeoutExpired:
        return {**out, "error": f"not finished within --score-seconds {seconds:g}"}, None
    out.update(exit=proc.returncode, seconds=round(time.perf_counter() - t0, 1))
    summary = run_dir / "summary.json"
    if proc.returncode != 0 or not summary.is_file():
        out["error"] = (proc.stderr.strip().splitlines() or ["?"])[-1]
        return out, None
    return out, json.loads(summary.read_text())


def run_solve(set_dir: Path, run_dir: Path, count: int, seed: int, flags: list[str], seconds: float) -> dict:
    out, summary = run_widthbench(["solve", "--domain", str(set_dir / "domain.pddl"), "--instances", str(set_dir),
                                   "--model", "sim:oracle", *flags, "--count", str(count), "--seed", str(seed)],
                                  run_dir, seconds)
    if summary is not None:
        out.update(solved=summary["solved"], n=summary["n"], plan_valid=summary.get("plan_valid"))
    return out


def run_score(set_dir: Path, run_dir: Path, count: int, seed: int, subtasks: str, seconds: float) -> dict:
    out, summary = run_widthbench(["score", "--domain", str(set_dir / "domain.pddl"), "--instances", str(set_dir),
                                   "--model", "sim:oracle", "--subtask", subtasks, "--count", str(count),
                                   "--seed", str(seed), "--thinking", "off"], run_dir, seconds)
    if summary is None:
        return out
    cells = [r for r in summary["rows"] if r.get("n")]
    out["cells"] = len(cells)
    out["not_100"] = [f"{r['subtask']}/{r['metric']}/{r['style']}/{r.get('reader', '')}: {r['correct']}/{r['n']}"
                      for r in cells if r["correct"] != r["n"]]
    out["context"] = json.loads((run_dir / "config.json").read_text())["identity"].get("context")
    return out


def table(rows: list[dict]) -> str:
    lines = ["| domain | samples | atoms | actions | derive problems (s) | sub-tasks built | item build (s) | sim:oracle "
             "| solve (sim:oracle, solved/n per method) | not built / rejected |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        s = r.get("samples") or []
        rng = lambda k: (f"{min(x[k] for x in s)}–{max(x[k] for x in s)}" if s and min(x[k] for x in s) != max(x[k] for x in s)
                         else (str(s[0][k]) if s else "—"))
        sc = r.get("score")
        if sc is None:
            score = "—"
        elif "error" in sc:
            score = "error: " + sc["error"]
        else:
            score = "100% of {} cells".format(sc["cells"]) if not sc["not_100"] else f"{len(sc['not_100'])} cells below 100%"
        rej = "; ".join(f"{x['file']}: {x['reason']}" for x in r["rejected"]) or "none"
        solved = ", ".join(f"{m} " + (f"{x['solved']}/{x['n']}" if "solved" in x else "error: " + x["error"])
                           for m, x in (r.get("solve") or {}).items()) or "—"
        lines.append(f"| {r['domain']} | {len(s)} | {rng('atoms')} | {rng('actions')} | "
                     f"{r.get('derive_seconds', '—')} | {len(r.get('items', {}))} | "
                     f"{r.get('items_seconds', '—')} | {score} | {solved} | {rej} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("folders", nargs="*", help="domain folders (default: every ACPBench domain)")
    ap.add_argument("--out", required=True, help="output folder")
    ap.add_argument("--count", type=int, default=50,
                    help="items per sub-task (default 50; 0 builds none, e.g. with --solve alone)")
    ap.add_argument("--problems", type=int, default=None,
                    help="derived problems per domain (default 3 x --count: the novelty sub-tasks skip "
                    "problems without a qualifying state)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--score", type=int, default=0, metavar="N",
                    help="also score sim:oracle on N items per sub-task and check 100%% (default: off)")
    ap.add_argument("--solve", type=int, default=0, metavar="N",
                    help="also run `widthbench solve` with sim:oracle on N problems with every search method "
                    "(default: off)")
    ap.add_argument("--subtask", default="all", help="sub-tasks (default all)")
    ap.add_argument("--max-seconds", type=float, default=1800,
                    help="stop building further sub-tasks of a domain after this long (default 1800)")
    ap.add_argument("--subtask-seconds", type=float, default=600,
                    help="give up building one sub-task's items after this long (default 600)")
    ap.add_argument("--score-seconds", type=float, default=1200,
                    help="give up the sim:oracle score run of a domain after this long (default 1200)")
    args = ap.parse_args(argv)
    folders = [Path(f) for f in args.folders] or sorted(p for p in DEFAULT_ROOT.iterdir() if p.is_dir())
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    for f in folders:
        t0 = time.perf_counter()
        row = measure(f, out, args.count, args.seed, args.score, args.subtask, args.problems, args.max_seconds,
                      args.subtask_seconds, args.score_seconds, args.solve)
        row["total_seconds"] = round(time.perf_counter() - t0, 1)
        rows.append(row)
        print(json.dumps(row), file=sys.stderr, flush=True)
        (out / "bench_domains.json").write_text(json.dumps(rows, indent=2) + "\n")
    print(table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
