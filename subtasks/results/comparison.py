"""Two runs compared item by item: the rows of `widthbench compare` (compare.md, .csv, .tex).

The input is narrow on purpose: per cell (sub-task, style, thinking, extension, domain, metric),
each run's per-item outcomes, named by item id. How runs are stored and loaded is the caller's
business; this module aligns the items by id, compares, corrects for the grid, and plans.

    compare_cells([CellOutcomes, ...], seed=, target=None) -> [Comparison, ...]
    Comparison.csv_row() -> {column: value} over CSV_COLUMNS (the compare.csv contract)

Per cell: both runs' values on the common items, B − A with a 95% interval from a seeded paired
bootstrap over items (`paired.paired_bootstrap`), and a p-value: the exact McNemar test when every
common item has one 0/1 outcome in each run, else the paired permutation (sign-flip) test
(`paired.swap_test`: samples, counts, tokens). Over the whole grid, Holm's correction
(`p_adjusted`). For McNemar cells, what the item count can detect at 80% power given the observed
discordance, and the items a target difference needs. docs/compare.md.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass, replace
from typing import Sequence

from widthbench.core.errors import UserError
from widthbench.llm.types import on_off
from widthbench.subtasks.results.cells import Cell
from widthbench.subtasks.results.paired import (RESAMPLES, detectable_difference, holm, items_needed, mcnemar_exact,
                                        paired_bootstrap, ratio_difference, swap_test)

RATE = "rate"      # right answers (or units) over answers (or units): accuracy
AMOUNT = "amount"  # an amount (tokens) over answers: a mean
KINDS = (RATE, AMOUNT)
CSV_COLUMNS = ("subtask", "style", "thinking", "extension", "domain", "metric", "n", "a", "b", "diff",
               "ci_low", "ci_high", "p", "p_adjusted", "test")
MCNEMAR, SIGN_FLIP_EXACT, SIGN_FLIP_MC, NO_TEST = "mcnemar-exact", "sign-flip-exact", "sign-flip-mc", "none"
POWER = 0.8
ALPHA = 0.05


@dataclass(frozen=True, slots=True)
class ComparedCell:
    """Where a comparison row sits: a summary row's cell (`cells.Cell`) and the metric, written as
    compare.csv writes them (thinking and extension "on"/"off"; a solve run's "-")."""

    subtask: str
    style: str
    thinking: str
    extension: str
    domain: str
    metric: str

    @classmethod
    def at(cls, cell: Cell, metric: str) -> ComparedCell:
        """The comparison cell of a score run's cell and metric."""
        return cls(cell.subtask, cell.style, cell.mode, on_off(cell.extension), cell.domain, metric)

    @property
    def text(self) -> str:
        """subtask|metric|style|thinking|extension|domain: how report.html finds a cell's comparison."""
        return "|".join((self.subtask, self.metric, self.style, self.thinking, self.extension, self.domain))


@dataclass(frozen=True, slots=True)
class Outcome:
    """One item of one cell in one run: ``right`` over ``n``. One answer: 0/1 over 1; N samples:
    the right ones over N; a count metric: right units over units (summed over samples); an
    amount (tokens): the amount over answers. Only answered items: an item whose request failed
    is left out, and is then not common to the two runs."""

    item_id: str
    right: float
    n: float


@dataclass(frozen=True, slots=True)
class CellOutcomes:
    """A cell's outcomes in run A and run B (``kind``: `RATE` or `AMOUNT`)."""

    cell: ComparedCell
    a: tuple[Outcome, ...]
    b: tuple[Outcome, ...]
    kind: str = RATE

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"kind {self.kind!r} is not one of {KINDS}")


@dataclass(frozen=True, slots=True)
class Comparison:
    """One row: ``a`` and ``b`` are the right counts (`RATE`) or mean amounts (`AMOUNT`) on the
    ``n`` common items, ``value_a`` / ``value_b`` the accuracies (or means), ``diff`` = value_b −
    value_a with its 95% interval. ``discordant`` = (b01: A wrong and B right, b10: the reverse)
    for McNemar cells; ``detectable`` the smallest |diff| these items detect at 80% power given the
    observed discordance (None: no difference is, at this discordance), ``needed`` the items for
    ``target`` (the asked target difference, else the observed |diff|)."""

    cell: ComparedCell
    kind: str
    n: int
    only_a: int
    only_b: int
    a: float | None
    b: float | None
    value_a: float | None
    value_b: float | None
    diff: float | None
    ci_low: float | None
    ci_high: float | None
    p: float | None
    p_adjusted: float | None
    test: str
    discordant: tuple[int, int] | None = None
    detectable: float | None = None
    target: float | None = None
    needed: int | None = None

    def csv_row(self) -> dict:
        c = self.cell
        return {"subtask": c.subtask, "style": c.style, "thinking": c.thinking, "extension": c.extension,
                "domain": c.domain, "metric": c.metric, "n": self.n, "a": _round(self.a), "b": _round(self.b),
                "diff": _round(self.diff), "ci_low": _round(self.ci_low), "ci_high": _round(self.ci_high),
                "p": _significant(self.p), "p_adjusted": _significant(self.p_adjusted), "test": self.test}


def _round(x, places: int = 4):
    if x is None:
        return None
    return int(x) if float(x).is_integer() else round(float(x), places)


def _significant(p: float | None) -> float | None:
    """A p-value to 4 significant digits (a tiny p stays visible: 3.1e-15, not 0)."""
    return None if p is None else float(f"{p:.4g}")


def cell_seed(seed: int, cell: ComparedCell) -> int:
    """The seed of one cell's resampling: from the run-level seed and the cell itself, so a cell's
    interval does not depend on which other cells the grid holds or their order."""
    text = "\x1f".join([str(seed), cell.subtask, cell.style, cell.thinking, cell.extension, cell.domain, cell.metric])
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


def _by_id(outcomes: Sequence[Outcome], cell: ComparedCell, run: str) -> dict[str, Outcome]:
    counts = Counter(o.item_id for o in outcomes)
    dup = next((i for i, k in counts.items() if k > 1), None)
    if dup is not None:
        raise UserError(f"run {run}: item {dup} appears {counts[dup]} times in {_where(cell)}")
    return {o.item_id: o for o in outcomes}


def _where(cell: ComparedCell) -> str:
    return (f"{cell.subtask} {cell.metric} ({cell.style}, thinking {cell.thinking}, extension {cell.extension}, "
            f"{cell.domain})")


def _compare(co: CellOutcomes, seed: int, target: float | None, resamples: int) -> Comparison:
    a, b = _by_id(co.a, co.cell, "A"), _by_id(co.b, co.cell, "B")
    # sorted by id: the resampling must not depend on the order a run lists its items in
    common = sorted(i for i in a if i in b and (a[i].n > 0 or b[i].n > 0))
    only_a, only_b = len(set(a) - set(b)), len(set(b) - set(a))
    empty = dict(a=None, b=None, value_a=None, value_b=None, diff=None, ci_low=None, ci_high=None, p=None,
                 p_adjusted=None)
    if not common:
        return Comparison(co.cell, co.kind, 0, only_a, only_b, test=NO_TEST, **empty)
    ra, na = [a[i].right for i in common], [a[i].n for i in common]
    rb, nb = [b[i].right for i in common], [b[i].n for i in common]
    if sum(na) <= 0 or sum(nb) <= 0:
        return Comparison(co.cell, co.kind, len(common), only_a, only_b, test=NO_TEST, **empty)
    s = cell_seed(seed, co.cell)
    value_a, value_b = sum(ra) / sum(na), sum(rb) / sum(nb)
    diff = ratio_difference(ra, na, rb, nb)
    lo, hi = paired_bootstrap(ra, na, rb, nb, seed=s, resamples=resamples)
    total_a, total_b = (sum(ra), sum(rb)) if co.kind == RATE else (value_a, value_b)
    binary = co.kind == RATE and all(x == 1 for x in na + nb) and all(x in (0, 1) for x in ra + rb)
    if binary:
        b01 = sum(1 for x, y in zip(ra, rb) if x == 0 and y == 1)
        b10 = sum(1 for x, y in zip(ra, rb) if x == 1 and y == 0)
        discordance = (b01 + b10) / len(common)
        aim = target if target is not None else abs(diff)
        return Comparison(co.cell, co.kind, len(common), only_a, only_b, total_a, total_b, value_a, value_b,
                          diff, lo, hi, mcnemar_exact(b01, b10), None, MCNEMAR, discordant=(b01, b10),
                          detectable=detectable_difference(len(common), discordance, POWER, ALPHA),
                          target=aim, needed=items_needed(aim, discordance, POWER, ALPHA) if aim > 0 else None)
    test = swap_test(ra, na, rb, nb, seed=s, resamples=resamples)
    return Comparison(co.cell, co.kind, len(common), only_a, only_b, total_a, total_b, value_a, value_b, diff,
                      lo, hi, test.p, None, SIGN_FLIP_EXACT if test.exact else SIGN_FLIP_MC)


def compare_cells(cells: Sequence[CellOutcomes], *, seed: int, target: float | None = None,
                  resamples: int = RESAMPLES) -> list[Comparison]:
    """One `Comparison` per cell, in the given order, with Holm's correction over every row that
    has a test (the whole grid is one family). ``target``: the difference the item-count advice
    aims at (default: each cell's observed |diff|). Refuses (`UserError`, one line) when no cell
    has an item in common, or a run names an item twice in a cell."""
    if target is not None and not 0 < target <= 1:
        raise UserError(f"target difference {target} is not in (0, 1]")
    seen = Counter(co.cell for co in cells)
    twice = next((c for c, k in seen.items() if k > 1), None)
    if twice is not None:
        raise ValueError(f"cell given twice: {_where(twice)}")
    rows = [_compare(co, seed, target, resamples) for co in cells]
    if not any(r.n for r in rows):
        ids_a = {o.item_id for co in cells for o in co.a}
        ids_b = {o.item_id for co in cells for o in co.b}
        raise UserError(f"no item in common between the runs in any of {len(cells)} cells ({len(ids_a)} item ids "
                        f"in A, {len(ids_b)} in B): nothing to compare")
    adjusted = holm([r.p for r in rows])
    return [replace(r, p_adjusted=q) for r, q in zip(rows, adjusted)]
