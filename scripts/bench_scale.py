#!/usr/bin/env python
"""Per-item costs behind docs/scale.md: IW(k) by k and atoms, item building (ground truth) per
sub-task, tokens per sub-task.

    python scripts/bench_scale.py [--budget 15] [--count 10] [--acpbench DIR]

1. IW(k), k = 1..4, run to exhaustion (``stop_at_goal=False``: what a width search costs at a k that
   does not solve the problem, the most it can cost) on generated Blocksworld problems of 5-8 blocks
   and on the first problem of each ACPBench domain folder: atoms, states generated, seconds. A k
   is not tried once the k before took over ``--budget`` seconds (each k costs more than the last);
   a run is cut at ``--cap`` generated states (shown as ">N").
2. Building ``--count`` items of every sub-task on generated Blocksworld (4-5 blocks) and
   Logistics, as ``score --subtask all`` does (one pool: sub-tasks after the first reuse its ground
   truth and widths): seconds per sub-task and per item.
3. Tokens per item-mode of every sub-task (``score --subtask all --count N --model sim:oracle``, both
   styles, thinking off): the prompt and answer tokens as the ledger counts them for a simulated
   model (word pieces; docs/llm.md).

One process, one core: the figures are per core.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ACPBENCH = ROOT.parent / "shared" / "data" / "acpbench-domains"


def iw_costs(budget: float, acpbench: Path, cap: int) -> None:
    from widthbench.generators import generate, read_instance_set
    from widthbench.planners.iw import iw
    from widthbench.planners.state_model import StripsModel

    problems = []
    for n in (5, 6, 7, 8):
        inst = generate("blocksworld", 1, 0, optimal=False, blocks=str(n))[0]
        problems.append((f"blocksworld {n} blocks", inst.task()))
    if acpbench.is_dir():
        for d in sorted(p for p in acpbench.iterdir() if p.is_dir()):
            try:
                inst = read_instance_set(d, validate=False)[0]
                problems.append((f"acpbench {d.name}", inst.task()))
            except Exception as exc:  # noqa: BLE001 (a folder that does not load is reported, not fatal)
                print(f"  {d.name}: not loaded ({type(exc).__name__})")
    print("IW(k) run to exhaustion: problem, atoms, then per k: states generated / seconds")
    for name, task in problems:
        model = StripsModel(task)
        cells = []
        for k in (1, 2, 3, 4):
            t = time.perf_counter()
            r = iw(model, k, stop_at_goal=False, max_generated=cap)
            s = time.perf_counter() - t
            cut = ">" if r.truncated else " "
            cells.append(f"IW({k}) {cut}{r.counts.generated:>9,} / {s:7.2f} s")
            if s > budget or r.truncated:
                break
        print(f"  {name:<28} {task.n_atoms:>4} atoms  " + "  ".join(cells), flush=True)


def item_costs(count: int) -> None:
    from widthbench.subtasks.items import ItemOptions, Pool, build_items
    from widthbench.subtasks.registry import Registry

    subtasks = Registry.default().expand("all")
    print(f"\nBuilding {count} items of each sub-task on one pool (seconds; per item in brackets)")
    for domain in ("blocksworld", "logistics"):
        pool = Pool(domain, 0, initial=count)
        cells, total = [], 0.0
        for s in subtasks:
            t = time.perf_counter()
            build_items(s, pool, count, ItemOptions())
            dt = time.perf_counter() - t
            total += dt
            cells.append(f"{s} {dt:.2f} ({dt / count:.3f})")
        print(f"  {domain}: total {total:.1f} s; " + "; ".join(cells), flush=True)


def token_costs(count: int) -> None:
    from widthbench.llm.model import open_model
    from widthbench.simulated import Simulator
    from widthbench.subtasks.registry import Registry
    from widthbench.subtasks.score_run import ScoreConfig, run_score

    config = ScoreConfig(subtasks=Registry.default().expand("all"), thinking=(False,), count=count)
    model = open_model("sim:oracle", simulator=Simulator(), use_cache=False)
    with tempfile.TemporaryDirectory() as out:
        summary = run_score(config, model, out, quiet=True)
    model.close()
    print(f"\nTokens per item-mode (sim:oracle, Blocksworld 4-5 blocks, {count} items, thinking off): "
          "prompt / answer")
    seen = set()
    for row in summary["rows"]:
        key = (row["subtask"], row["style"])
        if key in seen:
            continue
        seen.add(key)
        print(f"  {row['subtask']:<20} {row['style']:<4} {row['mean_prompt_tokens']:>9} / "
              f"{row['mean_completion_tokens']}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--budget", type=float, default=15.0, help="seconds an IW(k) may take before k+1 is skipped")
    ap.add_argument("--cap", type=int, default=300_000, help="generated states at most per IW(k) run")
    ap.add_argument("--count", type=int, default=10, help="items per sub-task (parts 2 and 3)")
    ap.add_argument("--acpbench", type=Path, default=ACPBENCH, help="ACPBench domain folders")
    ap.add_argument("--part", choices=("iw", "items", "tokens", "all"), default="all")
    args = ap.parse_args(argv)
    if args.part in ("iw", "all"):
        iw_costs(args.budget, args.acpbench, args.cap)
    if args.part in ("items", "all"):
        item_costs(args.count)
    if args.part in ("tokens", "all"):
        token_costs(args.count)
    return 0


if __name__ == "__main__":
    sys.exit(main())
