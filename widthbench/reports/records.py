"""A report shows the numbers of the records behind it, never a summary.json that says otherwise.

    from_records(runs) -> (runs, notes)

`widthbench report` passes the runs it loaded (`subtasks.loader.load_runs`) through `from_records`
before any writer sees them. Each run's summary is computed again from its records (items.jsonl):
a score run's rows, every reader's rows and its trace aggregates by `subtasks.results.summarise`,
a solve run's summary by `searches.results.summarise`, the same functions `score` and `solve`
wrote summary.json with. The run keeps the records' values; where summary.json says otherwise (a
file edited by hand, or left by an earlier invocation of a run killed since) one note per run says
so, for the command to print once. A field summary.json lacks (a run made before it existed), at any depth, is
taken from the records without a note. Computing a summary is one pass over the records (about
10 ms of CPU for two 5-item paper runs). This sits in the reports layer because it needs both
kinds of run, and the loader sits below the searches.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from widthbench.searches.config import SearchConfig
from widthbench.searches.summary import summarise as summarise_solve
from widthbench.subtasks.results.cells import Cell
from widthbench.subtasks.results.loader import Run
from widthbench.subtasks.registry import Registry
from widthbench.subtasks.results.rows import summarise as summarise_score


def from_records(runs: list[Run]) -> tuple[list[Run], list[str]]:
    """The runs with their summaries computed from their records, and one note per run whose
    summary.json disagreed (see the module docstring)."""
    out, notes = [], []
    for run in runs:
        fresh = _summary(run)
        if fresh is None:
            out.append(run)
            continue
        differ = [k for k in fresh if k in run.summary and _plain(run.summary[k]) != _plain(_known(fresh[k], run.summary[k]))]
        if differ:
            notes.append(_note(run, differ, fresh))
        out.append(dataclasses.replace(run, summary={**run.summary, **fresh}))
    return out, notes


def _summary(run: Run) -> dict | None:
    """The part of the run's summary that its records decide, computed from them."""
    s = run.summary
    if run.kind == "score":
        fresh = summarise_score(run.records, model_spec=s.get("model", ""), simulated=run.simulated,
                                registry=Registry.default(), reader=s.get("headline_reader"))
        return {"rows": fresh["rows"], "reader_rows": fresh["reader_rows"], "traces": fresh.get("traces")}
    if run.kind == "solve" and isinstance(s.get("config"), dict):
        fresh = summarise_solve(_in_run_order(run), SearchConfig.from_dict(s["config"]), s.get("model", ""),
                                run.simulated, s.get("source"))
        return {k: v for k, v in fresh.items() if k not in ("kind", "simulated", "model", "config", "source")}
    return None


def _in_run_order(run: Run) -> list[dict]:
    """A solve run's records in the order of its problems (its identity's ``problems.ids``), the
    order `solve` summarises them in, whatever order they finished in."""
    ids = (run.identity.get("problems") or {}).get("ids") if isinstance(run.identity, dict) else None
    if not isinstance(ids, list):
        return list(run.records)
    order = {i: n for n, i in enumerate(ids)}
    return sorted(run.records, key=lambda r: order.get(r.get("id"), len(order)))


def _known(fresh, old):
    """``fresh`` without the nested fields ``old`` lacks (a field added to a summary since the run was
    made, such as a trace aggregate: taken from the records, no disagreement)."""
    if isinstance(fresh, dict) and isinstance(old, dict):
        return {k: _known(v, old[k]) for k, v in fresh.items() if k in old}
    return fresh


def _plain(value):
    """A value as JSON gives it back (tuples are lists, keys are strings): the form summary.json holds."""
    return json.loads(json.dumps(value, sort_keys=True))


def _note(run: Run, differ: list[str], fresh: dict) -> str:
    where = Path(run.dir) / "summary.json"
    rows = _rows_differ(_rows(run.summary, differ), _rows(fresh, differ)) if run.kind == "score" else None
    k = next((k for k in differ if run.kind != "score" or k == "traces"), None)
    if rows or k is None:
        what = rows or "the order of its rows"
    else:
        what = f"{k}: {_short(run.summary.get(k))} in summary.json, {_short(fresh[k])} in the records"
        if len(differ) > 1:
            what += f"; and {len(differ) - 1} more field(s)"
    # the verdict before the detail: a long path cuts the line's end (one_line), never what it means
    return f"{where} disagrees with items.jsonl; the report shows the records' numbers ({what})"


def _rows(summary: dict, fields: list[str]) -> list[dict]:
    """The score rows of ``fields`` ("rows", "reader_rows"), every reader's in one list."""
    rows = list(summary["rows"]) if "rows" in fields else []
    if "reader_rows" in fields:
        rows += [r for more in (summary["reader_rows"] or {}).values() for r in more]
    return [r for r in rows if isinstance(r, dict)]


def _rows_differ(old: list[dict], new: list[dict]) -> str | None:
    """How many rows differ, and what differs in the first one (its k/n, else its first field)."""
    def key(r):
        return Cell.of(r), r.get("metric"), r.get("reader")

    a, b = {key(r): _plain(r) for r in old}, {key(r): _plain(r) for r in new}
    keys = [k for k in dict.fromkeys([*b, *a]) if a.get(k) != b.get(k)]
    if not keys:
        return None
    cell, metric, reader = keys[0]
    sub, style, thinking, ext = cell.subtask, cell.style, cell.mode, cell.extension
    x, y = a.get(keys[0]) or {}, b.get(keys[0]) or {}
    field = "k/n" if (x.get("correct"), x.get("n")) != (y.get("correct"), y.get("n")) else \
        next(f for f in dict.fromkeys([*y, *x]) if x.get(f) != y.get(f))
    shown = (lambda r: f"{r.get('correct')}/{r.get('n')}" if r else "no row") if field == "k/n" else \
        (lambda r: _short(r.get(field)))
    return (f"{len(keys)} of {len(b)} rows differ; {sub} {metric} {style}/thinking {thinking}"
            f"{' +extension' if ext else ''} ({reader} reader) {field}: {shown(x)} in summary.json, "
            f"{shown(y)} in the records")


def _short(value) -> str:
    text = json.dumps(value, sort_keys=True)
    return text if len(text) <= 40 else text[:37] + "..."
