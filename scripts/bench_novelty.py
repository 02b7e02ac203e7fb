"""Benchmark: the novelty computations behind IW(k >= 3) and the novelty items, against the obvious
implementation measured in the same run.

1. IW(k) for k = 3, 4 on problems derived from ACPBench samples (the sizes the novelty sub-tasks meet
   on floor-tile, rover and ferry), with our `NoveltyTable` and with `ReferenceNoveltyTable` (every
   tuple of at most k atoms a frozenset in a set). Both runs must give the same counters.
2. Exact novelty of a state against a list of states (`subtasks.exact.novelty_of`, a hitting-set
   search) against enumerating the state's subsets by size, on the novelty-estimate items of those
   problems. Both must give the same numbers.

A benchmark, not a test: times are CPU seconds of this process, best of --repeat.

    .venv/bin/python scripts/bench_novelty.py                  # floor-tile, rover, ferry
    .venv/bin/python scripts/bench_novelty.py --domains ferry --k 3
"""

from __future__ import annotations

import argparse
import itertools
import os
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
ACP = REPO.parent / "shared" / "data" / "acpbench-domains"


def best(fn, repeat: int):
    out, times = None, []
    for _ in range(repeat):
        t0 = time.process_time()
        out = fn()
        times.append(time.process_time() - t0)
    return min(times), out


def subset_novelty(state: int, previous) -> int | None:
    atoms = [1 << i for i in range(state.bit_length()) if state >> i & 1]
    for size in range(1, len(atoms) + 1):
        for combo in itertools.combinations(atoms, size):
            m = sum(combo)
            if not any(p & m == m for p in previous):
                return size
    return None


def main() -> int:
    from widthbench.generators.instance import read_instance_set, walk_instances
    from widthbench.planners.iw import iw
    from widthbench.planners.state_model import StripsModel
    from widthbench.planners.novelty import ReferenceNoveltyTable
    from widthbench.subtasks.items import ItemOptions, Pool, build_items
    from widthbench.subtasks.exact import novelty_of

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--domains", nargs="+", default=["floor-tile", "rover", "ferry"])
    ap.add_argument("--problems", type=int, default=3, help="derived problems per domain (default 3)")
    ap.add_argument("--k", type=int, nargs="+", default=[3, 4])
    ap.add_argument("--items", type=int, default=10, help="novelty-estimate items per domain (default 10)")
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()

    print(f"load average {os.getloadavg()[0]:.1f}; CPU seconds, best of {args.repeat}")
    print("| domain | problem | atoms | k | kept | ours (s) | reference table (s) | ratio |")
    print("|---|---|---|---|---|---|---|---|")
    totals = {k: [0.0, 0.0] for k in args.k}
    pools = {}
    for name in args.domains:
        samples = read_instance_set(ACP / name, validate=False)
        insts = walk_instances(samples, args.problems, args.seed)
        pools[name] = insts
        for inst in insts:
            model = StripsModel(inst.task())
            for k in args.k:
                t_ours, r = best(lambda: iw(model, k, trace=True), args.repeat)
                t_ref, ref = best(lambda: iw(model, k, trace=True, table=ReferenceNoveltyTable(k)), args.repeat)
                assert (r.counts, r.solved) == (ref.counts, ref.solved), (inst.id, k)
                totals[k][0] += t_ours
                totals[k][1] += t_ref
                print(f"| {name} | {inst.id} | {model.task.n_atoms} | {k} | {r.kept} | {t_ours:.2f} | {t_ref:.2f} "
                      f"| {t_ref / max(t_ours, 1e-9):.1f}x |")
    for k, (a, b) in totals.items():
        print(f"IW({k}) in all: ours {a:.2f} s, reference table {b:.2f} s: {b / max(a, 1e-9):.1f}x")

    print("\n| domain | items | mean listed states | mean state atoms | ours (s) | subset enumeration (s) | ratio |")
    print("|---|---|---|---|---|---|---|")
    for name, insts in pools.items():
        more = walk_instances(read_instance_set(ACP / name, validate=False), 6 * args.items, args.seed + 1)
        items = build_items("novelty-estimate", Pool(None, 0, instances=insts + more), args.items, ItemOptions())
        cases = [(it.state, it.previous) for it in items]
        t_ours, a = best(lambda: [novelty_of(s, p) for s, p in cases], args.repeat)
        t_sub, b = best(lambda: [subset_novelty(s, p) for s, p in cases], args.repeat)
        assert a == b == [it.truth for it in items], name
        mean_list = sum(len(p) for _, p in cases) / len(cases)
        mean_atoms = sum(s.bit_count() for s, _ in cases) / len(cases)
        print(f"| {name} | {len(cases)} | {mean_list:.0f} | {mean_atoms:.0f} | {t_ours:.3f} | {t_sub:.3f} "
              f"| {t_sub / max(t_ours, 1e-9):.1f}x |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
