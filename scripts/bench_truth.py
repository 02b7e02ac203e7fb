#!/usr/bin/env python
"""Benchmark the ground truth: h* and the optimal-next-action set of initial states.

    python scripts/bench_truth.py [--sets bw,hard,logistics] [--bw-count 500] [--fd-timeout 60]
                                  [--instances 1-286/10] [--h-only] [--verbose] [--json FILE]

- ``bw``: ``--bw-count`` Blocksworld instances with 4-5 blocks from ``widthbench.generators``
  (seed ``--seed``; generated without optimal plans, generation timed apart). Target: < 60 s.
- ``hard``: PlanBench's 110 Blocksworld-hard instances (6-15 blocks, h* 20-40); h* is checked
  against ``info.json``.
- ``logistics``: PlanBench's 286 Logistics instances; h* is checked against the gold plan length.
  Instances beyond breadth-first range use Fast Downward (one call for h*, then one bounded call
  per successor that LM-cut cannot rule out), each call limited to ``--fd-timeout`` seconds.

Each instance gets a fresh ``GroundTruth`` (planner "auto"); task loading is timed apart. Prints a
table (instances, total / median / max seconds, planner calls, mismatches, timeouts) and writes
per-instance rows with ``--json``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PB = Path(os.environ.get("WIDTHBENCH_SHARED", REPO.parent / "shared")).resolve() / "data" / "planbench"


def truth_of_init(task, expected, timeout, next_actions=True):
    from widthbench.planners.optimal import PlanningTimeout
    from widthbench.planners.truth import GroundTruth

    gt = GroundTruth(task, timeout=timeout)
    t0 = time.perf_counter()
    try:
        h = gt.h_star()
        best = gt.optimal_next_actions() if next_actions else []
        status = "ok" if expected is None or h == expected else "MISMATCH"
    except PlanningTimeout:
        h, best, status = None, [], "timeout"
    return {"instance": task.problem_name, "h_star": h, "expected": expected, "status": status,
            "optimal_next_actions": [str(a) for a in best], "seconds": time.perf_counter() - t0,
            "planner_calls": gt.planner_calls, "exhaustive": gt.exhaustive}


def bench_bw(count: int, seed: int, timeout: float, next_actions: bool = True, verbose: bool = False):
    from widthbench.generators import generate

    t0 = time.perf_counter()
    tasks = [i.task() for i in generate("blocksworld", count, seed, blocks="4-5", optimal=False)]
    prep = time.perf_counter() - t0
    t0 = time.perf_counter()
    rows = [truth_of_init(t, None, timeout, next_actions) for t in tasks]
    return rows, prep, time.perf_counter() - t0


def bench_planbench(which: str, timeout: float, indices=None, next_actions: bool = True, verbose: bool = False):
    from widthbench.planners.strips import load_domain, load_task

    if which == "hard":
        d = PB / "llm_planning_analysis" / "instances" / "blocksworld_hard"
        info = json.loads((d / "info.json").read_text())
        files = [(d / "generated" / f"instance-{i}.pddl", info[f"instance-{i}.pddl"]["length"]) for i in range(1, 111)]
    else:
        d = PB / "plan-bench" / "instances" / "logistics"
        gold = json.loads((PB / "derived" / "logistics_generated_basic_gold_plans.json").read_text())
        files = [(d / "generated_basic" / f"instance-{i}.pddl", gold.get(f"instance-{i}.pddl", {}).get("length"))
                 for i in range(1, 287)]
    if indices is not None:
        files = [files[i - 1] for i in indices if 1 <= i <= len(files)]
    t0 = time.perf_counter()
    dom = load_domain(d / "generated_domain.pddl")
    tasks = [(load_task(dom, f), exp) for f, exp in files]
    prep = time.perf_counter() - t0
    t0 = time.perf_counter()
    rows = []
    for (f, _), (task, exp) in zip(files, tasks):
        row = truth_of_init(task, exp, timeout, next_actions)
        row["file"] = f.name
        rows.append(row)
        if verbose:
            print(f"  {f.name} h*={row['h_star']} (expected {exp}) next={len(row['optimal_next_actions'])} "
                  f"{row['seconds']:.2f} s, {row['planner_calls']} planner calls, {row['status']}", flush=True)
    return rows, prep, time.perf_counter() - t0


def _indices(spec: str | None):
    if not spec:
        return None
    rng, _, step = spec.partition("/")
    lo, _, hi = rng.partition("-")
    return list(range(int(lo), int(hi or lo) + 1, int(step or 1)))


def summary(name: str, rows: list[dict], prep: float, total: float) -> str:
    secs = [r["seconds"] for r in rows]
    bad = sum(r["status"] == "MISMATCH" for r in rows)
    timeouts = sum(r["status"] == "timeout" for r in rows)
    calls = sum(r["planner_calls"] for r in rows)
    sizes = [len(r["optimal_next_actions"]) for r in rows if r["status"] == "ok"] or [0]
    return (f"{name:<10} {len(rows):>4} instances  truth {total:7.1f} s (median {statistics.median(secs):.3f}, "
            f"max {max(secs):.2f})  load {prep:5.1f} s  planner calls {calls:>5}  "
            f"mean |optimal next| {statistics.mean(sizes):.2f}  "
            f"mismatches {bad}  timeouts {timeouts}")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sets", default="bw,hard,logistics")
    p.add_argument("--bw-count", type=int, default=500)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--fd-timeout", type=float, default=60.0, help="seconds per planner call (default 60)")
    p.add_argument("--instances", help="PlanBench sets only: instance numbers, e.g. 1-286 or 1-286/10 (every 10th)")
    p.add_argument("--h-only", action="store_true", help="h* only, no optimal-next-action sets")
    p.add_argument("--verbose", action="store_true", help="one line per PlanBench instance")
    p.add_argument("--json", type=Path, help="write per-instance rows here")
    args = p.parse_args(argv)
    out = {}
    lines = []
    for name in args.sets.split(","):
        nxt = not args.h_only
        if name == "bw":
            rows, prep, total = bench_bw(args.bw_count, args.seed, args.fd_timeout, nxt)
        elif name in ("hard", "logistics"):
            rows, prep, total = bench_planbench(name, args.fd_timeout, _indices(args.instances), nxt, args.verbose)
        else:
            p.error(f"unknown set {name!r} (bw, hard, logistics)")
        out[name] = rows
        lines.append(summary(name, rows, prep, total))
        print(lines[-1], flush=True)
        for r in rows:
            if r["status"] != "ok":
                print(f"  {r['status']}: {r['instance']} h*={r['h_star']} expected {r['expected']}", flush=True)
    if args.json:
        args.json.write_text(json.dumps(out, indent=1))
    return 1 if any(r["status"] == "MISMATCH" for rows in out.values() for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
