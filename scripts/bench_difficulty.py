"""Benchmark: what recording the difficulty features costs when items are built, against building
the same items without them, measured in the same run.

Every sub-task's items (`build_items`, --count per sub-task) on a fresh pool of generated instances,
once with `subtasks.difficulty.item_features` and once with it replaced by a function returning {}
(after one warm-up run, alternating which goes first, best of --repeat each). The features reuse the pool's caches (h* from the ground
truth's enumeration, the width IW computes for the novelty items), so the ratio stays near 1.

    .venv/bin/python scripts/bench_difficulty.py
    .venv/bin/python scripts/bench_difficulty.py --domains blocksworld --count 20
"""

from __future__ import annotations

import argparse
import time


def build_all(domain: str, count: int, with_features: bool) -> float:
    from widthbench.subtasks.results import difficulty
    from widthbench.subtasks import items as items_mod
    from widthbench.subtasks.registry import Registry

    real = difficulty.item_features
    if not with_features:
        difficulty.item_features = lambda pool, i, item: {}
    try:
        pool = items_mod.Pool(domain, 0, initial=count)
        start = time.process_time()
        for sub in Registry.default().names:
            items_mod.build_items(sub, pool, count)
        return time.process_time() - start
    finally:
        difficulty.item_features = real


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--domains", default="blocksworld,logistics")
    p.add_argument("--count", type=int, default=50)
    p.add_argument("--repeat", type=int, default=2)
    args = p.parse_args()
    for domain in args.domains.split(","):
        without, with_ = [], []
        build_all(domain, args.count, True)  # warm-up: imports and process-wide caches
        for r in range(args.repeat):
            for flag in ((False, True) if r % 2 == 0 else (True, False)):
                (with_ if flag else without).append(build_all(domain, args.count, flag))
        a, b = min(without), min(with_)
        print(f"{domain}: items of every sub-task, {args.count} each: without features {a:.2f} s, "
              f"with {b:.2f} s CPU; ratio {b / a:.2f}")


if __name__ == "__main__":
    main()
