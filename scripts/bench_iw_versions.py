"""Two versions of `planners/iw.py` timed against each other in one process, on the goals of
scripts/bench_iw.py (22 single Blocksworld goals on 15-30 blocks, 12 Logistics goals, LAPKT's
successor order), IW(1..2) as `iterated_width(model, 2, min_k=1)`, and optionally the exhaustive
`iw(model, None)` on the 8-block space. The other version is a file (for instance the previous
commit's: ``git show HEAD~1:planners/iw.py > /tmp/iw_old.py``) loaded as a second module beside
the installed one; each version gets its own models (so its own successor tables, built untimed).
The versions alternate, best of --repeat, CPU time, and every run's widths, counters, plans, depths
and flags must be equal, or the script stops. A benchmark, not a test.

    python scripts/bench_iw_versions.py /tmp/iw_old.py --repeat 8
    python scripts/bench_iw_versions.py /tmp/iw_old.py --sets Logistics --full
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_iw  # noqa: E402  (the bench's goal sets)

from widthbench.generators import generate  # noqa: E402
from widthbench.planners import iw as current  # noqa: E402
from widthbench.planners.state_model import StripsModel  # noqa: E402


def load(path: str, name: str = "iw_other"):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def counts(c):
    return None if c is None else (c.generated, c.expanded, c.pruned_duplicate, c.pruned_novelty, c.kept)


def summary(r):
    return (counts(r.counts), counts(r.at_goal), r.plan, r.goal_state, r.max_depth, r.exhausted, r.truncated)


def run_iw(mod, models):
    for m in models:
        mod.strips_tables(m)
    gc.collect()
    t0 = time.process_time()
    out = [mod.iterated_width(m, 2, min_k=1) for m in models]
    t = time.process_time() - t0
    return t, [(r.width, tuple(summary(x) for x in r.runs)) for r in out]


def run_full(mod, model):
    mod.strips_tables(model)
    gc.collect()
    t0 = time.process_time()
    r = mod.iw(model, None)
    return time.process_time() - t0, summary(r)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("other", help="the other version of planners/iw.py (a file)")
    ap.add_argument("--repeat", type=int, default=6)
    ap.add_argument("--sets", default="Blocksworld,Logistics")
    ap.add_argument("--full", action="store_true", help="also iw(model, None) on the 8-block space")
    args = ap.parse_args(argv)
    other = load(args.other)

    class Goals:
        seed, bw_blocks, log_instances, log_packages, goals_per_instance = 7, [15, 20, 25, 30], 2, "10-12", 6

    print(f"load average {os.getloadavg()[0]:.2f} at start; CPU time, best of {args.repeat}, alternating")
    work = []
    for name, _insts, goals in bench_iw.single_goal_sets(Goals):
        if name not in args.sets.split(","):
            continue
        lists = []
        for _ in range(2):  # one set of models (and tables) per version
            bases: dict = {}
            lists.append([bases.setdefault(id(task), StripsModel(task, order="lapkt")).single_goal(g)
                          for _iid, task, g, _dom in goals])
        work.append((f"{name} IW(1..2), {len(goals)} goals", run_iw, lists))
    if args.full:
        task = generate("blocksworld", 1, 7, blocks="8", optimal=False)[0].task()
        never = sum(1 << task.atom_index[a] for a in ("(on a b)", "(on b a)"))
        work.append(("8-block iw(model, None)", run_full, [StripsModel(task, goal=never) for _ in range(2)]))
    for label, fn, (mine, theirs) in work:
        best_cur = best_other = float("inf")
        for i in range(args.repeat):
            pair = [(current, mine), (other, theirs)]
            if i % 2:
                pair.reverse()
            res = {}
            for mod, arg in pair:
                t, r = fn(mod, arg)
                res[mod is current] = (t, r)
            if res[True][1] != res[False][1]:
                print(f"{label}: the versions' results differ")
                return 1
            best_cur, best_other = min(best_cur, res[True][0]), min(best_other, res[False][0])
        print(f"{label}: other {best_other:.3f} s, current {best_cur:.3f} s, current/other = "
              f"{best_cur / best_other:.3f} (same results)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
