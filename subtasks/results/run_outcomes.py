"""Two loaded runs as the cells `comparison.compare_cells` compares: `widthbench compare` (docs/compare.md).

    compare_runs(run_a, run_b, *, seed, target=None) -> RunComparison   rows and what to say about them
    cell_outcomes(run, key)  -> {(ComparedCell, kind): [Outcome, ...]}          one run's per-item outcomes

A score run's cells are its summary rows' (sub-task, style, thinking, extension, domain) and metric,
read by the run's headline reader; each item contributes its right answers over its answers (one
answer, or the N samples of ``score --samples N``), and a cell ``completion_tokens`` compares the
tokens per answer. A solve run's cells are its domain with ``success`` (a valid plan, or no plan on a
certified unsolvable instance, as its ``success_rate`` counts) and ``completion_tokens``.
Items are named by their stable id (`subtasks.item_ids`); a run made before ids were stable names
them by place, which names the same question only when both runs built the same items (equal
item identities): such runs are aligned by place, and otherwise refused with one line.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, replace

from widthbench.core.errors import UserError
from widthbench.subtasks import item_ids
from widthbench.subtasks.results.cells import Cell
from widthbench.subtasks.results.comparison import (AMOUNT, RATE, CellOutcomes, ComparedCell, Comparison, Outcome,
                                                    compare_cells)
from widthbench.subtasks.results.paired import RESAMPLES
from widthbench.subtasks.results.rows import metrics_of, reading, record_readers

TOKENS = "completion_tokens"  # the amount metric: completion tokens per answer
# --across DIM: A's cells with the first value against B's with the second (the same run or two)
ACROSS = {"style": ("pddl", "nl"), "thinking": ("off", "on"), "extension": ("off", "on")}
SUCCESS = "success"  # a solve run's right answers, as its success_rate counts them


@dataclass(frozen=True)
class RunComparison:
    """The rows of `compare_cells` and the lines compare.md opens with (``notes``)."""

    rows: tuple[Comparison, ...]
    notes: tuple[str, ...]
    items_a: int
    items_b: int
    common: int


def _answered(rec: dict) -> bool:
    return not rec.get("request_error") and not rec.get("skipped")


def _stable_key(rec: dict) -> str:
    return rec["item_id"]


def _place_key(rec: dict) -> str:
    return item_ids.positional_id(rec["subtask"], rec["index"])


def _solve_key(rec: dict) -> str:
    return rec["item_id"]


def headline_reader(run) -> str:
    return run.summary.get("headline_reader") or record_readers(run.records)[0]


def cell_outcomes(run, key=_stable_key, reader: str | None = None) -> dict[tuple[ComparedCell, str], list[Outcome]]:
    """Per (cell, kind): one `Outcome` per item of ``run`` (its samples summed), named by ``key``."""
    sums: dict[tuple[ComparedCell, str], dict[str, list[float]]] = defaultdict(lambda: defaultdict(lambda: [0.0, 0.0]))
    if run.kind == "solve":
        for rec in run.records:
            if rec.get("request_error"):
                continue
            where = dict(subtask="solve", style="-", thinking="-", extension="-", domain=str(rec.get("domain")))
            right = int(bool(rec.get("correct", rec.get("solved"))))  # no plan is right on an unsolvable instance
            for metric, kind, right, n in ((SUCCESS, RATE, right, 1),
                                           (TOKENS, AMOUNT, _tokens(rec.get("tokens_detail")), 1)):
                acc = sums[(ComparedCell(metric=metric, **where), kind)][key(rec)]
                acc[0] += right
                acc[1] += n
        return _outcomes(sums)
    reader = reader or headline_reader(run)
    groups: dict[Cell, list[dict]] = defaultdict(list)
    for rec in run.records:
        if _answered(rec):
            groups[Cell.of(rec)].append(rec)
    for where, recs in groups.items():
        read = [x for x in (reading(r, reader) for r in recs) if x is not None]
        for metric in metrics_of(where.subtask, recs):
            cell = sums[(ComparedCell.at(where, metric.name), RATE)]
            for rec in read:
                right, n = metric.count((rec.get("metrics") or {}).get(metric.name))
                acc = cell[key(rec)]
                acc[0] += right
                acc[1] += n
        tokens = sums[(ComparedCell.at(where, TOKENS), AMOUNT)]
        for rec in recs:
            acc = tokens[key(rec)]
            acc[0] += _tokens(rec.get("tokens"))
            acc[1] += 1
    return _outcomes(sums)


def _tokens(tokens: dict | None) -> float:
    return float((tokens or {}).get("completion") or 0)


def _outcomes(sums) -> dict[tuple[ComparedCell, str], list[Outcome]]:
    return {ck: [Outcome(i, right, n) for i, (right, n) in items.items()] for ck, items in sums.items()}


def _key_for(run_a, run_b):
    """How items are named across the two runs: stable ids, or places when a run predates them."""
    if run_a.kind == "solve":
        old = [r for r in (run_a, run_b) if any("item_id" not in rec for rec in r.records)]
        part = "problems"
    else:
        old = [r for r in (run_a, run_b) if any(item_ids.is_positional(rec) for rec in r.records)]
        part = "items"
    if not old:
        return (_solve_key if run_a.kind == "solve" else _stable_key), None
    if run_a.kind == "solve":  # its records name instances by their set's ids (bw-0001)
        same = run_a.identity.get(part) is not None and run_a.identity.get(part) == run_b.identity.get(part)
        if not same:
            raise UserError(f"{old[0].dir} was made before item ids were stable and its problems differ from "
                            "the other run's: its instances cannot be aligned by id (solve them again to compare)")
        return (lambda rec: rec["id"]), (f"{', '.join(r.dir for r in old)} was made before item ids were stable: "
                                         "its instances are aligned by their ids in the set, which name the same "
                                         "problems here because both runs read the same problems")
    items_a, items_b = run_a.identity.get(part), run_b.identity.get(part)
    if items_a is None or items_a != items_b:
        raise UserError(f"{old[0].dir} was made before item ids were stable and its items differ from the other "
                        "run's: its items cannot be aligned by id (score it again to compare it)")
    return _place_key, (f"{', '.join(r.dir for r in old)} was made before item ids were stable: its items are "
                        "aligned by their place, which names the same questions here because both runs built "
                        "the same items")


def _across(outcomes: dict, dim: str, value: str, label: str) -> dict:
    """The cells of ``outcomes`` whose ``dim`` is ``value``, with ``dim`` relabelled ``label``."""
    return {(replace(cell, **{dim: label}), kind): outs for (cell, kind), outs in outcomes.items()
            if getattr(cell, dim) == value}


def compare_runs(run_a, run_b, *, seed: int = 0, target: float | None = None,
                 resamples: int = RESAMPLES, across: str | None = None) -> RunComparison:
    """Every cell and metric the two runs share, compared item by item (`compare_cells`).
    ``across`` (a key of `ACROSS`): each of A's cells with that setting's first value against B's
    same cell with the second (thinking off against on; A and B may be one run), the setting's
    column reading "off->on"."""
    if across is not None and across not in ACROSS:
        raise UserError(f"--across must be one of {', '.join(ACROSS)}, got {across!r}")
    if across is not None and run_a.kind != "score":
        raise UserError("--across compares the modes of score runs; solve runs are one mode each")
    if run_a.kind != run_b.kind:
        raise UserError(f"cannot compare a {run_a.kind} run ({run_a.dir}) with a {run_b.kind} run ({run_b.dir})")
    key, note = _key_for(run_a, run_b)
    reader = headline_reader(run_a)
    if run_a.kind == "score" and reader not in record_readers(run_b.records):
        reader = headline_reader(run_b)
    a = cell_outcomes(run_a, key, reader)
    b = cell_outcomes(run_b, key, reader)
    if across is not None:
        first, second = ACROSS[across]
        a = _across(a, across, first, f"{first}->{second}")
        b = _across(b, across, second, f"{first}->{second}")
    shared = [ck for ck in a if ck in b]
    if not shared:
        raise UserError(f"no cell in common: A ({run_a.dir}) has {_cells_text(a)}; B ({run_b.dir}) has "
                        f"{_cells_text(b)}")
    order = sorted(shared, key=lambda ck: (ck[1] == AMOUNT, ck[0].subtask, ck[0].domain, ck[0].extension,
                                           ck[0].style != "pddl", ck[0].thinking, ck[0].metric))
    rows = compare_cells([CellOutcomes(c, tuple(a[(c, k)]), tuple(b[(c, k)]), kind=k) for c, k in order],
                         seed=seed, target=target, resamples=resamples)
    ids_a = {o.item_id for outs in a.values() for o in outs}
    ids_b = {o.item_id for outs in b.values() for o in outs}
    common = len(ids_a & ids_b)
    notes = [f"{common} items in common ({len(ids_a)} answered in A, {len(ids_b)} in B); each cell compares "
             "its items answered in both runs"]
    if run_a.kind == "score":
        notes.append(f"read by the {reader} reader")
    if across is not None:
        first, second = ACROSS[across]
        notes.append(f"across {across}: A's cells with {across} {first} against B's with {across} {second}")
    only = sorted({f"{c.subtask} ({c.style}, thinking {c.thinking})" for c, _ in set(a) ^ set(b)})
    if only:
        notes.append(f"cells in one run only, not compared: {', '.join(only)}")
    if note:
        notes.append(note)
    return RunComparison(tuple(rows), tuple(notes), len(ids_a), len(ids_b), common)


def _cells_text(cells) -> str:
    names = sorted({f"{c.subtask} ({c.style}, thinking {c.thinking}, extension {c.extension}, {c.domain})"
                    for c, _ in cells})
    return f"{len(names)} cell(s): " + ", ".join(names[:4]) + (" ..." if len(names) > 4 else "")
