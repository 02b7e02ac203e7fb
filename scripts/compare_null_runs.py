"""How often `widthbench compare` calls two runs of one model different: docs/compare.md, "Calibration".

    python scripts/compare_null_runs.py --pairs 30 --items 200     # about 2 minutes on 2 busy cores

One simulated model (default sim:noisy:0.3) answers the same plan-verification items 2 x PAIRS times
(`score --samples`, each sample with its own seeded requests); samples 2i and 2i+1 are taken as
the two runs of pair i, so every pair is two runs of the same model on the same items with seeds
differing: the null hypothesis holds. Each pair is compared as `compare` compares a cell (items
aligned by id, exact McNemar), and the script prints the share of pairs with p < 0.05 (at most 5%
expected, up to sampling noise) and the share whose 95% interval misses the true difference 0.
It also prints McNemar's share over every pair of the 2 x PAIRS samples (less noisy, though the
pairs share samples) and the spread of the samples' right counts against the binomial spread the
items' own rates give: a ratio above 1 means the answers of one sample are not independent across
items, which a paired test over items does not allow for.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import statistics
import tempfile
from pathlib import Path

from widthbench.cli import main as widthbench
from widthbench.subtasks.results.comparison import ComparedCell, CellOutcomes, Outcome, compare_cells
from widthbench.subtasks.results.paired import mcnemar_exact


def run_samples(out: Path, model: str, items: int, samples: int, seed: int) -> list[dict]:
    code = widthbench(["score", "--model", model, "--subtask", "plan-verification", "--count", str(items),
                       "--style", "pddl", "--thinking", "off", "--samples", str(samples), "--seed", str(seed),
                       "--no-cache", "--quiet", "--out", str(out)])
    if code != 0:
        raise SystemExit(code)
    return [json.loads(x) for x in (out / "items.jsonl").read_text().splitlines() if x.strip()]


def pair_rows(records: list[dict], pairs: int, seed: int):
    cell = ComparedCell("plan-verification", "pddl", "off", "off", "blocksworld", "accuracy")
    by_sample: dict[int, list[Outcome]] = {}
    for r in records:
        by_sample.setdefault(r["sample"], []).append(Outcome(r["item_id"], float(bool(r["correct"])), 1.0))
    for i in range(pairs):
        a, b = by_sample[2 * i], by_sample[2 * i + 1]
        [row] = compare_cells([CellOutcomes(cell, tuple(a), tuple(b))], seed=seed + i, resamples=2000)
        yield row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pairs", type=int, default=50)
    ap.add_argument("--items", type=int, default=200)
    ap.add_argument("--model", default="sim:noisy:0.3")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        records = run_samples(Path(tmp) / "run", args.model, args.items, 2 * args.pairs, args.seed)
    rows = list(pair_rows(records, args.pairs, args.seed))
    hits = sum(r.p < 0.05 for r in rows)
    misses = sum(not (r.ci_low <= 0 <= r.ci_high) for r in rows)
    print(f"{args.model}, {args.items} plan-verification items, {args.pairs} pairs of runs (seeds differing): "
          f"McNemar p < 0.05 in {hits} ({hits / args.pairs:.0%}); the 95% interval misses 0 in {misses} "
          f"({misses / args.pairs:.0%})")
    right: dict[int, dict[str, bool]] = {}
    for r in records:
        right.setdefault(r["sample"], {})[r["item_id"]] = bool(r["correct"])
    ids = sorted(right[0])
    every = [mcnemar_exact(sum(not right[s][i] and right[t][i] for i in ids),
                           sum(right[s][i] and not right[t][i] for i in ids))
             for s, t in itertools.combinations(sorted(right), 2)]
    print(f"over all {len(every)} pairs of the {len(right)} samples: McNemar p < 0.05 in "
          f"{sum(p < 0.05 for p in every) / len(every):.1%}")
    totals = [sum(v.values()) for v in right.values()]
    rates = [sum(right[s][i] for s in right) / len(right) for i in ids]
    expected = math.sqrt(sum(q * (1 - q) for q in rates))
    print(f"right answers per sample: sd {statistics.pstdev(totals):.2f} against {expected:.2f} for answers "
          f"independent across items (variance ratio {(statistics.pstdev(totals) / expected) ** 2:.2f})")


if __name__ == "__main__":
    main()
