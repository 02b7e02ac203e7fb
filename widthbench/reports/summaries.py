"""The figures of the runs no table is drawn for (widths, rescore, traces runs): runs.md and runs.csv.

    write_summaries(runs, out) -> [paths]

Each such run's summary.json is listed field by field (nested fields dotted, as the run labels name
them: ``histogram.1``, ``overall.flexible.read``), one section per run in runs.md and one line per
field in runs.csv (``run``, ``kind``, ``field``, ``value``), the values as the run recorded them.
Score and solve runs have their own tables (`widthbench.subtasks.results.tables`,
`widthbench.reports.search`).
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

from widthbench.core.runstore import flatten
from widthbench.reports import Report
from widthbench.subtasks.results.loader import Run

TABLED = ("score", "solve")
# what every file holds about its layout, not a figure of the run
_LAYOUT = ("schema", "kind")


def listed(runs: list[Run]) -> list[Run]:
    """The runs this module writes: those of a kind without a table of its own."""
    return [r for r in runs if r.kind not in TABLED]


def fields(run: Run) -> list[tuple[str, str]]:
    """(dotted field, value as text) of the run's summary, in its order."""
    return [(k, _text(v)) for k, v in flatten(run.summary).items() if k not in _LAYOUT]


def _text(value) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def write_summaries(runs: list[Run], out: str | Path) -> list[Path]:
    runs = listed(runs)
    if not runs:
        return []
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    md = ["# Runs", ""]
    rows = []
    for run in runs:
        simulated = " (simulated)" if run.simulated else ""
        md += [f"## {run.label}: a {run.kind} run{simulated}", "", f"Folder: `{run.dir}`", "",
               "| field | value |", "|---|---|"]
        for key, value in fields(run):
            cell = value.replace("|", "\\|")
            md.append(f"| {key} | {cell} |")
            rows.append({"run": run.label, "kind": run.kind, "field": key, "value": value})
        md.append("")
    p_md, p_csv = out / "runs.md", out / "runs.csv"
    p_md.write_text("\n".join(md), encoding="utf-8")
    with p_csv.open("w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=["run", "kind", "field", "value"], lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
    return [p_md, p_csv]


def _write(runs, out, options) -> list[Path]:
    return write_summaries(runs, out)


# a report writer of `widthbench report` (widthbench.reports): the runs of the kinds without a table
REPORTS = (Report("run summaries", ("widths", "rescore", "traces"), _write, order=45),)
