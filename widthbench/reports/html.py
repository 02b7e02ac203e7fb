"""One self-contained report.html for finished runs: the tables, the charts and every item behind
each cell, readable from a file:// URL with no server and no network.

    build_html(load_runs(["runs/a", "runs/b"])) -> str     # data in, one HTML string out
    write_html(["runs/a", "runs/b"], out=None) -> Path     # out/report.html (loaded runs or folders)

Runs come loaded (`widthbench.subtasks.results.loader.Run`: each file of a run folder parsed once) and
labelled by how their identities differ; every table, chart and item list of the page names its
run by that label, and every row carries it as ``run``. The page shows the rows it is given
(summary.json's rows of every reader, `subtasks.results`): it computes no row.

The page is a small vanilla-JS app (``assets/report.js``, ``assets/report.css``, ``assets/report.html``
inlined) over one JSON payload embedded in the page:

- score runs (summary kind "score"): the summary rows, labelled and ordered as Table 1
  (`widthbench.subtasks.results.tables.label`; unknown sub-tasks get a generic label), the run's token
  ledger, and every record of items.jsonl with its prompt. Prompt messages repeat (the system
  message is the domain context; thinking on and off ask the same user message), so every message
  text is stored once in a string table and records point into it.
- solve runs (kind "solve"): the summary, the Table 3/4 layout of all solve runs together
  (`widthbench.reports.search.table`), and each instance with its search tree (nodes with status,
  note, values and, when the run recorded them, tokens).

Records may carry a second reader (``"reader"`` names the one behind the headline fields,
``"readings"`` holds each reader's parsed/correct/metrics/parse_error, the flexible one with the
``span`` it read and the ``rule``; the page gets them as score wrote them); summary rows may carry
``"reader"``. Records and rows without
these keys have one reader. Each score run carries ``"unread"``: per cell, the answers the headline
reader could not read, grouped by the reason it gave up, with a count and an example each. Simulated runs say SIMULATED in the page title and on every table.
"""

from __future__ import annotations

import json
import os
import re
from datetime import datetime, timezone
from importlib import resources
from pathlib import Path

from widthbench.reports import search
from widthbench.reports.compare_tables import significance
from widthbench.reports import curves as difficulty
from widthbench.core.runfiles import make_output_dir
from widthbench.subtasks.results import tables as score_report
from widthbench.subtasks.results.loader import Run, as_runs, headline_reader, load_run, load_runs  # noqa: F401  (load_run, load_runs: the page's input)
from widthbench.subtasks.score_run import not_built_reason
from widthbench.subtasks.results.cells import Cell
from widthbench.subtasks.results.comparison import ComparedCell
from widthbench.subtasks.results.rows import record_readers, verdicts_of
from widthbench.subtasks.results.unread import unread_by_reason

REPORT = "report.html"


# ---- the payload ------------------------------------------------------------------------------

class _Strings:
    """A table of distinct texts; records refer to them by index."""

    def __init__(self) -> None:
        self.texts: list[str] = []
        self._index: dict[str, int] = {}

    def add(self, text: str) -> int:
        i = self._index.get(text)
        if i is None:
            i = self._index[text] = len(self.texts)
            self.texts.append(text)
        return i


def _messages(messages, strings: _Strings):
    """[{"role", "content"}, ...] -> [[role, text index], ...]; a list of such lists (one per request)
    stays a list of lists."""
    if not isinstance(messages, list):
        return messages
    if messages and isinstance(messages[0], list):
        return [_messages(m, strings) for m in messages]
    out = []
    for m in messages:
        if isinstance(m, dict) and isinstance(m.get("content"), str):
            out.append([m.get("role", "?"), strings.add(m["content"])])
        else:
            out.append([m.get("role", "?") if isinstance(m, dict) else "?", strings.add(json.dumps(m))])
    return out


def _not_built(summary: dict) -> dict[str, str]:
    return {sub: not_built_reason(sub, why) for sub, why in (summary.get("not_built") or {}).items()}


def _labelled_rows(rows: list[dict]) -> list[dict]:
    """The summary rows with Table 1's ``label`` and their position ``order`` (the markdown report's
    labels and order, `widthbench.subtasks.results.tables`; rows of sub-tasks no registry knows get a
    generic label, after the known ones)."""
    ranked = sorted(range(len(rows)), key=lambda i: score_report.sort_key(rows[i]))
    out: list[dict | None] = [None] * len(rows)
    first: dict[str, int] = {}
    for rank, i in enumerate(ranked):
        label = score_report.label(rows[i])
        out[i] = {**rows[i], "label": label, "order": first.setdefault(label, rank)}
    return out


def _score_run(run: Run, strings: _Strings) -> dict:
    summary = run.summary
    # every reader's rows (the strict one beside the flexible headline), each with its cell's key
    rows = [_page_row(r) for r in _labelled_rows(run.rows())]
    readers = list(dict.fromkeys([headline_reader(summary, run.records), *record_readers(run.records)]))
    records = []
    for rec in run.records:
        rec = dict(rec)
        if "prompt" in rec:
            rec["prompt"] = _messages(rec["prompt"], strings)
        records.append(_page_record(rec, readers))
    return {"kind": "score", "dir": run.dir, "name": run.label, "label": run.label,
            "unread": _unread(run.records),
            "model": summary.get("model"), "simulated": run.simulated,
            "config": summary.get("config", {}), "timing": summary.get("timing"),
            "headline": summary.get("headline", {}), "not_built": _not_built(summary),
            "headline_reader": headline_reader(summary, run.records),  # the loader's decision (one function)
            "traces": summary.get("traces"),
            "ledger": run.tokens, "rows": rows, "records": records}


def _page_row(row: dict) -> dict:
    """A summary row as the page gets it: with its cell's key and its comparison's key."""
    cell = Cell.of(row)
    return {**row, "cell": cell.text, "compare_key": ComparedCell.at(cell, row["metric"]).text}


def _page_record(rec: dict, readers: list[str]) -> dict:
    """A record as the page gets it: its cell's key, its own key, its thinking as "on"/"off", and
    what each reader made of it by each metric (`results.rows.verdicts_of`); the page computes none."""
    cell = Cell.of(rec)
    return {**rec, "thinking": cell.mode, "cell": cell.text,
            "key": "|".join((cell.subtask, str(rec.get("item_id")), cell.style, cell.mode,
                             str(cell.extension).lower(), str(rec.get("sample", 0)))),
            "verdicts": verdicts_of(rec, readers)}


def _unread(records: list[dict]) -> list[dict]:
    """The unread answers of each cell by the reason the reader gave up (`subtasks.unread`), with the
    fields the page keys its cells by."""
    by_run_part: dict[tuple, list[dict]] = {}
    for rec in records:
        by_run_part.setdefault((rec.get("domain"), rec.get("model")), []).append(rec)
    out = []
    for (domain, model), recs in by_run_part.items():
        for cell, reasons in unread_by_reason(recs).items():
            out.append({**cell.to_json(), "cell": cell.text, "model": model,
                        "unread": sum(e["count"] for e in reasons), "reasons": reasons})
    return out


# per-instance call entries (the run ledger's source): tokens_by_purpose already says what they cost
_SOLVE_DROP = ("calls",)


def _solve_run(run: Run) -> dict:
    summary = dict(run.summary)
    items = [{k: v for k, v in item.items() if k not in _SOLVE_DROP} for item in run.records]
    return {"kind": "solve", "dir": run.dir, "name": run.label, "run_label": run.label,
            "model": summary.get("model"), "simulated": run.simulated,
            "label": summary.get("label", ""), "summary": summary, "ledger": run.tokens,
            # Figure 3's points, counted where search_states.png counts them (the GraphML trees)
            "states_per_instance": search.states_per_instance({**summary, "_dir": run.dir}),
            "items": items}


def _solve_tables(runs: list[Run]) -> dict | None:
    """Table 3/4 of the solve runs (`widthbench.reports.search.layout`, as search_table.md has it),
    with the run behind each cell, so that a click opens its instances."""
    solve = [r for r in runs if r.kind == "solve"]
    if not solve:
        return None
    summaries = search.summaries_of(solve)
    got = search.layout(summaries)
    rh, rr = search.runs_table(summaries)
    return {**got, "runs_header": rh, "runs_rows": rr, "short": [search.short(s) for s in summaries]}


def _difficulty(runs: list[Run], features=None, bins=None) -> list[dict] | None:
    """Accuracy by difficulty of the score runs (`widthbench.reports.curves.tables`): the points
    of the page's curves, the same numbers as difficulty.csv."""
    score = [r for r in runs if r.kind == "score"]
    return difficulty.tables(score, features, bins) if score else None


def payload(runs, features=None, bins=None, significance: dict | None = None, difficulty: list | None = None) -> dict:
    """The data the page shows (JSON-serialisable) of loaded runs (or run folders);
    ``features``/``bins``: the difficulty curves' (default: `subtasks.difficulty.DEFAULT_FEATURES`,
    automatic bins); ``significance``: `pair_significance` of these runs, ``difficulty``: their
    `curves.tables`, when already computed (`widthbench report` computes each once for every writer)."""
    runs = as_runs(runs)
    strings = _Strings()
    out_runs = []
    for run in runs:
        out_runs.append(_score_run(run, strings) if run.kind == "score" else _solve_run(run))
    simulated = any(r["simulated"] for r in out_runs)
    models = list(dict.fromkeys(str(r.get("model")) for r in out_runs))
    return {"title": title(out_runs), "simulated": simulated, "models": models,
            "generated": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "strings": strings.texts, "runs": out_runs, "solve_tables": _solve_tables(runs),
            "difficulty": _difficulty(runs, features, bins) if difficulty is None else difficulty, "significance": pair_significance(runs) if significance is None else significance}


def pair_significance(runs: list[Run]) -> dict:
    """{"i|j": `compare_tables.significance` of runs i and j (i < j, indices into the page's runs)}
    for every pair of score runs: the run comparison marks the cells whose difference is significant."""
    score = [i for i, r in enumerate(runs) if r.kind == "score"]
    return {f"{i}|{j}": significance(runs[i], runs[j]) for n, i in enumerate(score) for j in score[n + 1:]}


def title(runs: list[dict]) -> str:
    kinds = {r["kind"] for r in runs}
    what = " and ".join(k for k in ("score", "solve") if k in kinds)
    models = ", ".join(dict.fromkeys(str(r.get("model")) for r in runs))
    sim = any(r.get("simulated") for r in runs)
    return (("SIMULATED — " if sim else "") + f"widthbench {what} report: {models}"
            + (f" ({len(runs)} runs)" if len(runs) > 1 else ""))


# ---- the page ---------------------------------------------------------------------------------

def _asset(name: str) -> str:
    return (resources.files("widthbench.reports") / "assets" / name).read_text(encoding="utf-8")


def _html_escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def _script_json(data) -> str:
    # Inside <script> nothing may look like a closing tag or a comment opener: escape every "<".
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")


def build_html(runs, features=None, bins=None, significance: dict | None = None, difficulty: list | None = None) -> str:
    """The whole page for loaded runs (`load_runs`): one HTML string, nothing outside it."""
    if not runs:
        raise ValueError("no runs")
    data = payload(runs, features, bins, significance, difficulty)
    # difficulty.js (the curves by difficulty) defines a view that report.js adds as a tab.
    parts = {"TITLE": _html_escape(data["title"]), "CSS": _asset("report.css"),
             "JS": _asset("difficulty.js") + "\n" + _asset("report.js"), "DATA": _script_json(data)}
    return re.sub(r"\{\{(TITLE|CSS|JS|DATA)\}\}", lambda m: parts[m.group(1)], _asset("report.html"))


def write_html(run_dirs, out: str | os.PathLike | None = None, features=None, bins=None,
               significance: dict | None = None, difficulty: list | None = None) -> Path:
    """Write ``report.html`` for loaded runs or run folders into ``out`` (default: the first run)."""
    runs = as_runs(run_dirs)
    dest = make_output_dir(out if out is not None else runs[0].dir)
    path = dest / REPORT
    path.write_text(build_html(runs, features, bins, significance, difficulty), encoding="utf-8")
    return path
