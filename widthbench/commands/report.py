"""`widthbench report RUN [RUN2 ...]`: tables, chart and error analysis of finished runs."""

from __future__ import annotations

import argparse

HELP = "write tables (markdown, CSV), a chart and an error analysis for score or solve runs"
DESCRIPTION = (
    "Read RUN/summary.json of each run and write the report. Score runs (kind 'score'): "
    "table.md and table.csv in seed 000's Table 1 layout (cells k/n), rows.csv, table.png with 95%% "
    "CI bars and an error analysis (most frequent wrong or missing actions and facts, pick-up/unstack "
    "confusions), written to --out (default: the first RUN). Solve runs (kind 'solve'): the search report."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("runs", nargs="+", metavar="RUN", help="run folder(s) holding summary.json")
    parser.add_argument("--out", default=None, metavar="DIR",
                        help="score runs: folder for the combined report (default: the first RUN)")


def _kind(run_dir: str) -> str:
    import json
    from pathlib import Path

    from widthbench.errors import UserError

    path = Path(run_dir) / "summary.json"
    if not path.is_file():
        raise UserError(f"{run_dir}: no summary.json (not a finished run folder)")
    try:
        return json.loads(path.read_text(encoding="utf-8")).get("kind", "")
    except json.JSONDecodeError as exc:
        raise UserError(f"{path}: not valid JSON ({exc.msg}, line {exc.lineno})") from None


def run(args: argparse.Namespace) -> int:
    from widthbench.errors import UserError

    kinds = {r: _kind(r) for r in args.runs}
    score = [r for r, k in kinds.items() if k == "score"]
    solve = [r for r, k in kinds.items() if k == "solve"]
    other = [f"{r} ({k!r})" for r, k in kinds.items() if k not in ("score", "solve")]
    if other:
        raise UserError(f"unknown summary kind in {', '.join(other)}: expected 'score' or 'solve'")
    if score:
        from widthbench.subtasks.report import write_report

        for path in write_report(score, args.out):
            print(f"wrote {path}")
    if solve:  # Table 3/4 compares configurations, so all solve runs go into one report
        from widthbench.reports.search import write_report as write_search_report

        for path in write_search_report(solve, args.out) or ():
            print(f"wrote {path}")
    return 0
