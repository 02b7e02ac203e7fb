"""The results model of score runs: summary rows, computed here and nowhere else.

A score run's record (one line of items.jsonl per item and mode: the item as its sub-task
serialises it, the replies, and one reading per reader in ``readings``) is turned into summary rows
by `summarise`: one row per (sub-task, metric, style, thinking, extension, domain) and reader. How a
metric's values add up is the sub-task's declaration (`registry.Metric.aggregate`: 0/1 per item, or
[right, n] counts), never its name. `score` writes these rows into summary.json; the tables
(`subtasks.report`), the difficulty curves (`subtasks.difficulty`: `cell_stats` per bin), the lm-eval
export (`subtasks.lmeval`) and report.html (`widthbench.reports.html`) all take them from here.

    summarise(records, model_spec=..., simulated=..., registry=None, reader=None) -> summary
    all_rows(summary) -> [row, ...]          the headline reader's rows, then every other reader's
    cell_stats(correct, n) -> {"n", "correct", "accuracy", "ci_low", "ci_high"}
    record_readers(records), reading(record, reader), metrics_of(subtask, records, registry)
    verdict(record, metric, reader) -> "correct" | "wrong" | "request-error" | "skipped"
    verdicts_of(record, readers) -> {reader: {metric: verdict}}   what report.html shows per item

The runs a report reads are loaded once each by `widthbench.subtasks.results.loader.load_runs`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field, fields

from widthbench.subtasks.registry import PER_ITEM, Metric, Registry, add_up, inferred_metric
from widthbench.subtasks.results.cells import Cell
from widthbench.subtasks.results.sampled import Samples, summarise_samples
from widthbench.subtasks.results.stats import cell_stats, clustered_wilson
from widthbench.subtasks.traces import summarise_traces

NO_THINKING = "thinking requested, none produced"


@dataclass(frozen=True, slots=True)
class Row:
    """One summary row: a metric of a cell as one reader read it (`summarise`). The fields every
    row has are typed here; what a sub-task adds (`SubTask.row_extras`), what a --samples run adds
    (`sampled_fields`) and the flags of a few rows (``only_flexible``, ``thinking_produced``,
    ``note``) are its ``extras``. `to_json` is the row as summary.json writes it (one flat object),
    `from_json` reads it back: ``Row.from_json(row.to_json()) == row``."""

    cell: Cell
    metric: str
    aggregate: str
    model: str
    simulated: bool
    reader: str
    n: int
    correct: int
    accuracy: float | None
    ci_low: float
    ci_high: float
    items: int
    parse_errors: int
    request_errors: int
    skipped: int
    truncated: int
    mean_prompt_tokens: float | None
    mean_completion_tokens: float | None
    mean_thinking_tokens: float | None
    extras: Mapping[str, object] = field(default_factory=dict)

    _CELL = ("subtask", "style", "thinking", "extension", "domain")

    def to_json(self) -> dict:
        cell = self.cell.to_json()
        out = {"subtask": cell["subtask"], "metric": self.metric, "aggregate": self.aggregate,
               **{k: cell[k] for k in self._CELL[1:]}}
        for f in fields(self)[1:]:
            if f.name not in ("metric", "aggregate", "extras"):
                out[f.name] = getattr(self, f.name)
        return {**out, **self.extras}

    @classmethod
    def from_json(cls, data: Mapping) -> Row:
        known = {f.name for f in fields(cls)} - {"cell", "extras"}
        return cls(cell=Cell.of(data), **{k: data[k] for k in known},
                   extras={k: v for k, v in data.items() if k not in known and k not in cls._CELL})


def mean(values) -> float | None:
    values = [v for v in values if v is not None]
    return round(sum(values) / len(values), 4) if values else None


def reading(rec: dict, reader: str) -> dict | None:
    """The fields of ``rec`` as read by ``reader`` (records from before the readers: one reader)."""
    readings = rec.get("readings")
    if readings is None:
        return rec if reader == rec.get("reader", "strict") else None
    got = readings.get(reader)
    return None if got is None else {**rec, **got}


def record_readers(records: list[dict]) -> list[str]:
    """The readers the records were read with, headline first."""
    seen: dict[str, None] = {}
    for r in records:
        seen.setdefault(r.get("reader", "strict"))
        for name in r.get("readings") or ():
            seen.setdefault(name)
    return list(seen) or ["strict"]


def verdict(rec: dict, metric: Metric | None, reader: str) -> str:
    """What ``reader`` made of one record, by ``metric`` (None: the reading's ``correct``):
    "request-error", "skipped", "correct" or "wrong" (a parse error is wrong; it is counted apart by
    its own field). A metric is right on an item as it declares (`Metric.right`); an item whose
    reading lacks the metric falls back on the reading's ``correct``. The page shows these and
    computes none (`widthbench.reports.html`)."""
    if rec.get("request_error"):
        return "request-error"
    if rec.get("skipped"):
        return "skipped"
    got = reading(rec, reader) or rec
    value = (got.get("metrics") or {}).get(metric.name) if metric is not None else None
    right = metric.right(value) if value is not None else bool(got.get("correct"))
    return "correct" if right else "wrong"


def verdicts_of(rec: dict, readers: list[str], registry: Registry | None = None) -> dict[str, dict[str, str]]:
    """{reader: {metric name: verdict, "": the reading's own verdict}} of one record, for every
    reader in ``readers`` that read it (`verdict`)."""
    metrics = metrics_of(rec["subtask"], [rec], registry)
    out = {}
    for rd in readers:
        if reading(rec, rd) is None:
            continue
        out[rd] = {"": verdict(rec, None, rd), **{m.name: verdict(rec, m, rd) for m in metrics}}
    return out


def metrics_of(subtask: str, records: list[dict], registry: Registry | None = None) -> tuple[Metric, ...]:
    """The sub-task's declared metrics; for a sub-task no registry knows, those its records carry
    (`registry.inferred_metric`: a [right, n] value counts, a number is 0/1 per item)."""
    registry = registry or Registry.default()
    if subtask in registry:
        return registry.get(subtask).metrics
    found: dict[str, Metric] = {}
    for r in records:
        for name, value in (r.get("metrics") or {}).items():
            if name not in found and (isinstance(value, (list, tuple)) or
                                      (isinstance(value, (int, bool)) and value in (0, 1))):
                found[name] = inferred_metric(name, value)
    return tuple(found.values())


def tally(metric: Metric, records: list[dict]) -> tuple[int, int]:
    """(right, n) of ``metric`` over answered records, as the metric declares it adds up (`add_up`)."""
    return add_up(metric, ((r.get("metrics") or {}).get(metric.name) for r in records))


def summarise(records: list[dict], *, model_spec: str, simulated: bool, registry: Registry | None = None,
              reader: str | None = None) -> dict:
    """Rows: one per (sub-task, metric, style, thinking, extension, domain), with n, correct,
    accuracy, Wilson 95% CI, parse errors, request errors and mean tokens, as read by the headline
    reader (``rows``); the same rows for every other reader in ``reader_rows[reader]``. Flexible rows
    count ``only_flexible``, the answers that only the flexible reader read. Records whose thinking
    was checked on the engine add ``traces`` (`subtasks.traces.summarise_traces`, docs/traces.md)."""
    registry = registry or Registry.default()
    readers = record_readers(records)
    if reader is not None and reader in readers:
        readers = [reader] + [r for r in readers if r != reader]
    headline = readers[0]
    groups: dict[Cell, list[dict]] = {}
    for r in records:
        groups.setdefault(Cell.of(r), []).append(r)
    order = {s: i for i, s in enumerate(registry.names)}
    by_reader: dict[str, list[dict]] = {rd: [] for rd in readers}
    for cell, recs in sorted(groups.items(), key=lambda kv: (order.get(kv[0].subtask, 99), kv[0].domain,
                                                              kv[0].extension, kv[0].style != "pddl",
                                                              kv[0].thinking)):
        record = registry.get(cell.subtask) if cell.subtask in registry else None
        answered_all = [r for r in recs if not r.get("request_error") and not r.get("skipped")]
        for metric in metrics_of(cell.subtask, recs, registry):
            for rd in readers:
                answered = [x for x in (reading(r, rd) for r in answered_all) if x is not None]
                if not answered and rd != headline:
                    continue
                extras = record.row_extras(answered, metric.name) if record and record.row_extras else {}
                by_reader[rd].append(_row(metric, cell, model_spec, simulated, rd, recs, answered, extras))
    return {"kind": "score", "simulated": bool(simulated), "model": model_spec,
            "headline": table1_headlines(registry), "headline_reader": headline, "readers": readers,
            "rows": by_reader[headline],
            "reader_rows": {rd: rows for rd, rows in by_reader.items() if rd != headline},
            **({"traces": summarise_traces(records)} if any(r.get("trace") for r in records) else {})}


def table1_headlines(registry: Registry) -> dict[str, str]:
    """{sub-task: its Table-1 metric} of the sub-tasks with a per-item metric left out of Table 1
    (`Metric.in_table1`): summary.json's ``headline``, for readers of the summary alone."""
    out = {}
    for name in registry.names:
        metrics = registry.get(name).metrics
        if any(m.aggregate == PER_ITEM and not m.in_table1 for m in metrics):
            chosen = next((m for m in metrics if m.in_table1), None)
            if chosen is not None:
                out[name] = chosen.name
    return out


def _row(metric: Metric, cell: Cell, model_spec, simulated, reader, recs, answered, extras) -> dict:
    correct, n = tally(metric, answered)
    more: dict = {}
    if cell.thinking and answered and all(r.get("thinking_produced") is False for r in answered):
        more.update(thinking_produced=False, note=NO_THINKING)
    stats = cell_stats(correct, n)
    if any("sample" in r for r in answered):
        sampled = sampled_fields(metric, answered)  # its items, interval and pass@k (the row's own)
        stats.update({k: sampled.pop(k) for k in ("items", "ci_low", "ci_high") if k in sampled})
        more.update(sampled)
    if reader == "flexible":
        more["only_flexible"] = sum(1 for r in answered if not r.get("parse_error")
                                    and (r.get("readings") or {}).get("strict", {}).get("parse_error"))
    return Row(
        cell=cell, metric=metric.name, aggregate=metric.aggregate, model=model_spec, simulated=bool(simulated),
        reader=reader, n=n, correct=correct, accuracy=stats["accuracy"], ci_low=stats["ci_low"],
        ci_high=stats["ci_high"], items=stats.get("items", len(answered)),
        parse_errors=sum(1 for r in answered if r.get("parse_error")),
        request_errors=sum(1 for r in recs if r.get("request_error")),
        skipped=sum(1 for r in recs if r.get("skipped")),
        truncated=sum(1 for r in answered if r.get("truncated")),
        mean_prompt_tokens=mean(r["tokens"]["prompt"] for r in answered),
        mean_completion_tokens=mean(r["tokens"]["completion"] for r in answered),
        mean_thinking_tokens=mean(r["tokens"]["thinking"] for r in answered),
        extras={**more, **extras}).to_json()


def _reading_key(rec: dict):
    """A sample's reading as a vote of maj@k: equal readings, equal keys; None when unread."""
    if rec.get("parse_error") or rec.get("parsed") is None:
        return None
    return json.dumps(rec["parsed"], sort_keys=True, default=str)


def sampled_fields(metric: Metric, answered: list[dict]) -> dict:
    """The fields of a row of a --samples run (`sampled.summarise_samples`): ``items`` (distinct
    items) and ``answers`` (their answered samples), ``samples`` (k goes up to the fewest answered
    samples of an item), the row's k/n interval clustered by item (``ci_low``, ``ci_high``, said in
    ``interval``), ``mean_accuracy``, and ``pass@k``, ``pass^k``, ``maj@k`` for every
    k <= samples, each with its 95% interval clustered by item (``<name>_ci``); a sample is right
    when the metric is entirely right on it. In maj@k a tie between readings is wrong, and the
    share of k-draws that tied is ``maj@k_ties``."""
    by_item: dict[str, list[dict]] = {}
    for r in answered:
        by_item.setdefault(r["item_id"], []).append(r)
    if not by_item:
        return {}
    cells = [Samples(item_id, tuple(_reading_key(r) for r in recs),
                     tuple(metric.right((r.get("metrics") or {}).get(metric.name)) for r in recs))
             for item_id, recs in by_item.items()]
    # the row's own k/n interval, clustered by item too (its samples are not independent answers)
    counts = [tally(metric, recs) for recs in by_item.values()]
    lo, hi = clustered_wilson([c for c, _ in counts], [n for _, n in counts],
                              samples=[len(recs) for recs in by_item.values()])
    return {"items": len(by_item), "answers": len(answered), "ci_low": round(lo, 4), "ci_high": round(hi, 4),
            "interval": "clustered by item", **summarise_samples(cells).as_row(), "maj_ties": "counted wrong"}


def all_rows(summary: dict) -> list[dict]:
    """The headline reader's rows, then every other reader's (``reader_rows``)."""
    rows = list(summary["rows"])
    for extra in (summary.get("reader_rows") or {}).values():
        rows += extra
    return rows
