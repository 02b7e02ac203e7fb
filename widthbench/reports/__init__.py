"""Reports of finished runs: the top layer (it may import any package; none imports it).

- `widthbench.reports.search` — solve runs: the paper's Table 3/4 layout and Figures 2-3 (markdown,
  CSV, PNG).
- `widthbench.reports.html` — one self-contained report.html for score and solve runs, one or
  several side by side (docs/report.md).
- `widthbench.reports.compare_tables` — compare.md, compare.csv and compare.tex of two runs compared item
  by item (the rows: `widthbench.subtasks.results.comparison`; docs/compare.md).

Score runs' markdown tables and error analysis live in `widthbench.subtasks.results.tables`. Every writer
takes the runs loaded once by `widthbench.subtasks.results.loader.load_runs` (each labelled by how its
identity differs from the others'), and keys its tables, csvs and charts by that label.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from widthbench.core.discovery import keyed, records_in

REPORTS_PACKAGE = "widthbench.reports"


@dataclass(frozen=True, slots=True)
class ReportOptions:
    """What `widthbench report` was asked beside the runs: --figures, --by's features and --bins,
    --format's formats, --reader, and what several writers show, computed once: the run pairs'
    significance and the accuracy by difficulty."""

    figures: bool = False
    features: tuple[str, ...] | None = None
    bins: tuple | None = None
    formats: tuple[str, ...] = ()
    reader: str | None = None
    significance: dict | None = None  # pairs of score runs compared item by item (`html.pair_significance`)
    difficulty: list | None = None    # the score runs' accuracy by difficulty (`curves.tables`), computed once


@dataclass(frozen=True, slots=True)
class Report:
    """One report writer of `widthbench report`, found by scanning `widthbench.reports`: a module
    defines ``REPORTS = (Report(...), ...)``.

    name    what it writes, in prose ("the search tables")
    kinds   the run kinds it reads ("score", "solve"); it is called only when some run is of one
    write   write(runs, out, options) -> [paths written]: the loaded runs of those kinds
            (`widthbench.subtasks.results.loader.Run`, each keyed by ``Run.label``), the report
            folder and the `ReportOptions`; nothing asked of it: no paths
    order   its place in the report (the order the paths are said)
    """

    name: str
    kinds: tuple[str, ...]
    write: Callable[[list, str, ReportOptions], Iterable[Path]]
    order: int = 100


@functools.cache
def report_writers() -> tuple[Report, ...]:
    """Every report writer of the package's modules, in report order."""
    found = keyed(records_in(REPORTS_PACKAGE, "REPORTS"), "name", "report")
    return tuple(sorted(found.values(), key=lambda r: (r.order, r.name)))


def write_reports(runs, out, options: ReportOptions, writers: Iterable[Report] | None = None) -> list[Path]:
    """Every writer's files for the runs of its kinds, in report order."""
    paths: list[Path] = []
    for report in (report_writers() if writers is None else writers):
        mine = [r for r in runs if r.kind in report.kinds]
        if mine:
            paths += list(report.write(mine, out, options) or ())
    return paths
