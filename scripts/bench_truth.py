#!/usr/bin/env python
"""Benchmark the ground truth: h* and the optimal-next-action set of initial states.

    python scripts/bench_truth.py [--sets bw,hard,logistics,acpbench] [--bw-count 500] [--fd-timeout 60]
                                  [--instances 1-286/10] [--h-only] [--verbose] [--json FILE]
                                  [--domains ferry,rover] [--derived 2]

- ``acpbench``: the sample problems of the 13 ACPBench domains (../shared/data/acpbench-domains)
  and ``--derived`` problems per domain derived from them by ``generators.instance.walk_instances``
  (seed ``--seed``). Seconds are CPU seconds of this process and of the Fast Downward processes it
  ran (``--clock cpu``, the default; ``--clock wall`` for elapsed time). Per item, three fresh ``GroundTruth``s per method time h*, an optimal plan and
  the optimal next actions (each from scratch, h* included), first by the per-successor method
  (``next_actions="per-successor"``: one planner call per successor, Fast Downward through
  unified-planning; the slow path, "before") then by the joint one (the default, "after"); the
  answers must agree (h*, plan length, next-action set), else the item is a MISMATCH. Prints per
  domain the median and max seconds per item of each quantity, before and after, in one run.

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
    from widthbench.planners.ground_truth import GroundTruth

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


ACP = PB.parent / "acpbench-domains"
QUANTITIES = ("h_star", "plan", "next")


def acp_items(domains, derived: int, seed: int):
    """(domain, item id, task) for the sample problems and ``derived`` derived problems per domain."""
    from widthbench.generators.instance import read_instance_set, walk_instances

    for d in domains:
        samples = read_instance_set(ACP / d)
        for inst in samples:
            yield d, inst.id, inst.task()
        if derived:
            for inst in walk_instances(samples, derived, seed):
                yield d, inst.id, inst.task()


def cpu_seconds() -> float:
    """CPU time of this process and of its finished children (Fast Downward's processes): robust
    to the other jobs of a shared machine, unlike wall time."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


CLOCKS = {"cpu": cpu_seconds, "wall": time.perf_counter}


def acp_measure(task, method: str, timeout: float, clock=cpu_seconds) -> dict:
    """Seconds and answers for h*, an optimal plan and the optimal next actions, each from a fresh
    ``GroundTruth`` (``next_actions=method``)."""
    from widthbench.planners.optimal import PlanningTimeout
    from widthbench.planners.strips import execute_plan
    from widthbench.planners.ground_truth import GroundTruth

    out = {}
    for q in QUANTITIES:
        gt = GroundTruth(task, timeout=timeout, next_actions=method)
        t0 = clock()
        try:
            if q == "h_star":
                value = gt.h_star()
            elif q == "plan":
                plan = gt.optimal_plan() if gt.h_star() != float("inf") else ()
                assert not plan or execute_plan(task, plan).valid
                value = len(plan) if plan or gt.h_star() == 0 else float("inf")
            else:
                value = [str(a) for a in gt.optimal_next_actions()]
        except PlanningTimeout:
            value = "timeout"
        out[q] = (clock() - t0, value)
    return out


def bench_acpbench(domains, derived: int, seed: int, timeout: float, verbose: bool, clock: str = "cpu"):
    rows = []
    for d, iid, task in acp_items(domains, derived, seed):
        before = acp_measure(task, "per-successor", timeout, CLOCKS[clock])
        after = acp_measure(task, "joint", timeout, CLOCKS[clock])
        ok = all(before[q][1] == after[q][1] for q in QUANTITIES) and "timeout" not in (after["next"][1],)
        rows.append({"domain": d, "item": iid, "atoms": task.n_atoms, "actions": len(task.actions),
                     "h_star": after["h_star"][1], "next": after["next"][1], "status": "ok" if ok else "MISMATCH",
                     "before": {q: before[q][0] for q in QUANTITIES}, "after": {q: after[q][0] for q in QUANTITIES},
                     "before_answers": {q: before[q][1] for q in QUANTITIES}})
        if verbose:
            r = rows[-1]
            print(f"  {d:<17} {iid[:34]:<34} h*={r['h_star']} next={len(r['next'])} "
                  + " ".join(f"{q} {r['before'][q]:.2f}->{r['after'][q]:.2f}" for q in QUANTITIES)
                  + f" {r['status']}", flush=True)
    return rows


def acp_table(rows) -> str:
    lines = [f"{'domain':<17} {'items':>5}  " + "  ".join(f"{q + ' median/max s, before -> after':<40}"
                                                          for q in QUANTITIES) + "  mismatches"]
    for d in dict.fromkeys(r["domain"] for r in rows):
        rs = [r for r in rows if r["domain"] == d]
        cells = []
        for q in QUANTITIES:
            b = [r["before"][q] for r in rs]
            a = [r["after"][q] for r in rs]
            cells.append(f"{statistics.median(b):6.2f}/{max(b):6.2f} -> {statistics.median(a):6.2f}/{max(a):6.2f}"
                         + " " * 12)
        lines.append(f"{d:<17} {len(rs):>5}  " + "  ".join(cells)
                     + f"  {sum(r['status'] != 'ok' for r in rs)}")
    return "\n".join(lines)


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
    p.add_argument("--domains", help="acpbench: a comma-separated subset of the 13 domains (default: all)")
    p.add_argument("--derived", type=int, default=2, help="acpbench: derived problems per domain (default 2)")
    p.add_argument("--clock", choices=tuple(CLOCKS), default="cpu",
                   help="acpbench: CPU seconds of this process and its FD children (default) or wall seconds")
    args = p.parse_args(argv)
    out = {}
    lines = []
    for name in args.sets.split(","):
        nxt = not args.h_only
        if name == "acpbench":
            domains = args.domains.split(",") if args.domains else sorted(
                p.name for p in ACP.iterdir() if (p / "domain.pddl").is_file())
            rows = bench_acpbench(domains, args.derived, args.seed, args.fd_timeout, args.verbose, args.clock)
            out[name] = rows
            lines.append(acp_table(rows))
            print(lines[-1], flush=True)
            for r in rows:
                if r["status"] != "ok":
                    print(f"  MISMATCH: {r['domain']} {r['item']}: before {r['before_answers']} after "
                          f"h*={r['h_star']} next={r['next']}", flush=True)
            continue
        if name == "bw":
            rows, prep, total = bench_bw(args.bw_count, args.seed, args.fd_timeout, nxt)
        elif name in ("hard", "logistics"):
            rows, prep, total = bench_planbench(name, args.fd_timeout, _indices(args.instances), nxt, args.verbose)
        else:
            p.error(f"unknown set {name!r} (bw, hard, logistics, acpbench)")
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
