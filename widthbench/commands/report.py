"""`widthbench report RUN [RUN2 ...]`: tables, charts, error analysis and report.html of finished runs."""

from __future__ import annotations

import argparse

HELP = "write tables (markdown, CSV), charts, an error analysis and report.html for score or solve runs (and the figures of any run)"
DESCRIPTION = """Read each run (RUN/items.jsonl and summary.json) and write the report, to --out
(default: the first RUN); every number is computed from the run's records (a summary.json that says
otherwise is said once on stderr). Score runs (kind 'score'): table.md and table.csv in the paper's
Table 1 layout (cells k/n), rows.csv and an error analysis (most frequent wrong or missing actions and
facts, pick-up/unstack confusions); with --figures also table.png/.pdf with 95% CI bars. Solve runs
(kind 'solve'): the search report (Table 3/4 layout, Figures 2 and 3). Widths, rescore and traces runs:
runs.md and runs.csv, their summary's figures field by field. Score and solve runs always also get
report.html: one self-contained page with the tables, the charts and every item behind each cell
(several runs side by side). Several runs: every table, csv (a run column) and chart is keyed by run,
each labelled by how its settings differ from the others' ("seed 1" / "seed 2"); no cell is merged.
Score runs also get accuracy by difficulty (--by): per sub-task x mode, accuracy per feature bin with
Wilson 95% intervals, curves and a logistic slope per mode (the curves as PNG and PDF for the features
of --by, or every feature with --figures). --format md|csv|latex also writes the paper's tables
(paper-table1: Table 1 headline only; paper-table2: prompt extension off/on; paper-table3: Tables 3-5 of
solve runs), LaTeX with booktabs; every chart is written as PNG and PDF."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("runs", nargs="+", metavar="RUN",
                        help="run folder(s) holding summary.json, or a `solve --thinking both` folder (its "
                        "thinking-on and thinking-off runs) or a `solve` grid folder (RUN/grid.json: its runs), or harness logs: an lm-eval --log_samples "
                        "folder, an inspect log file or folder (re-judged into RUN.widthbench; docs/inspect.md); "
                        "several runs are keyed by a label saying how their settings differ")
    parser.add_argument("--out", default=None, metavar="DIR",
                        help="folder for the combined report (default: the first RUN)")
    parser.add_argument("--by", default=None, metavar="FEATURE[,FEATURE...]",
                        help="score runs: accuracy per bin of these difficulty features (objects, atoms, "
                        "h-star, plan-length, width, list-length, novelty-level, atoms-changed) in "
                        "difficulty.md/.csv/-slopes.csv/-FEATURE.png and report.html (default: "
                        "plan-length, width, objects, list-length, atoms-changed)")
    parser.add_argument("--bins", default=None, metavar="LO-HI,...",
                        help="with --by: the feature bins, e.g. 2-4,5-8,9-12 (default: one bin per value, "
                        "or 8 ranges of about equal counts)")
    parser.add_argument("--figures", action="store_true",
                        help="score runs: also draw the charts as PNG and PDF (table.png, difficulty-FEATURE.png "
                        "for every feature shown; matplotlib, about a second per figure); without it only the "
                        "features of --by are drawn, and report.html shows every chart in the page either way "
                        "(solve runs' figures are always drawn)")
    parser.add_argument("--html", action="store_true",
                        help="report.html is always written; the flag is accepted for clarity")
    # ---- paper-ready tables (issue 32) ----
    parser.add_argument("--format", default=None, metavar="md|csv|latex[,...]",
                        help="also write the paper's tables in these formats: paper-table1 (Table 1, headline "
                        "metrics only), paper-table2 (prompt extension off/on), paper-table3 (Tables 3-5 of "
                        "solve runs or a solve grid folder), .md/.csv/.tex (booktabs); default: the report only")
    parser.add_argument("--reader", default=None, choices=("flexible", "strict"),
                        help="with --format: the reader whose numbers Tables 1 and 2 show (default: the "
                        "run's headline reader, flexible unless score --reader strict)")
    # ---- end paper-ready tables ----


def run(args: argparse.Namespace) -> int:
    import sys

    from widthbench.core.errors import UserError, one_line
    from widthbench.reports import ReportOptions, curves, write_reports
    from widthbench.reports.html import pair_significance
    from widthbench.reports.records import from_records
    from widthbench.core.runfiles import check_output_dir
    from widthbench.subtasks.harness.logs import import_runs
    from widthbench.subtasks.results.loader import load_runs

    if args.out is not None:
        check_output_dir(args.out, "--out")
    features, bins = difficulty_options(args)
    formats = paper_formats(args)
    # Harness logs: each is re-judged into a score run folder and reported like any run.
    folders = import_runs(args.runs)
    for log, run in zip(args.runs, folders):
        if log != run:
            print(f"imported {log} as {run}")
    # each run folder read once (a `solve --thinking both` folder: its two runs); every writer gets
    # these, their summaries computed from their records (a summary.json that disagrees is said once)
    runs, notes = from_records(load_runs(grid_runs(folders)))
    for note in notes:
        print(one_line(f"widthbench report: note: {note}"), file=sys.stderr)
    out = args.out if args.out is not None else folders[0]  # a thinking-both folder: the folder itself
    if args.by and not any(r.kind == "score" for r in runs):
        raise UserError("--by applies to score runs (summary kind 'score')")
    paged = [r for r in runs if r.kind in ("score", "solve")]  # report.html's runs: its indices
    significance = pair_significance(paged)
    for line in significance_lines(paged, significance):
        print(line)
    # every report writer of `widthbench.reports` (a module's REPORTS) writes what it reads
    score = [r for r in runs if r.kind == "score"]
    options = ReportOptions(figures=args.figures, features=features, bins=bins, formats=formats, reader=args.reader,
                            significance=significance,
                            difficulty=curves.tables(score, features, bins) if score else None)
    for path in write_reports(runs, out, options):
        print(f"wrote {path}")
    return 0


def significance_lines(runs, significance: dict) -> list[str]:
    """Per pair of score runs (issue 43): how many cells differ significantly after Holm's correction
    and the differences their items can detect at 80% power (report.html marks the cells)."""
    out = []
    for pair, s in significance.items():
        i, j = map(int, pair.split("|"))
        head = f"compare {runs[i].label} -> {runs[j].label}: "
        if s.get("error"):
            out.append(head + f"not compared ({s['error']})")
            continue
        cells = s["cells"].values()
        exact = [c for c in cells if c["test"] == "mcnemar-exact"]  # the cells power is planned for
        detect = [100 * c["detectable"] for c in exact if c["detectable"] is not None]
        reach = (f"; detectable at 80% power: ±{min(detect):.1f} to ±{max(detect):.1f} points" if detect
                 else "; no cell's items detect a difference at 80% power at their discordance" if exact else "")
        out.append(head + f"{sum(c['significant'] for c in cells)} of {s['tests']} cells differ significantly "
                   f"(Holm), {s['common']} items in common{reach} (widthbench compare: the full table)")
    return out


# ---- paper-ready tables (issue 32) ----
def paper_formats(args) -> tuple:
    """--format's formats (empty without it); --reader without --format is one line."""
    from widthbench.core.errors import UserError
    from widthbench.reports.paper import parse_formats

    if args.format is None:
        if args.reader is not None:
            raise UserError("--reader chooses the numbers of the paper tables: give --format md|csv|latex too")
        return ()
    return parse_formats(args.format)


def grid_runs(folders) -> list:
    """The run folders of ``folders``, a `solve` grid folder (RUN/grid.json, no summary.json) standing
    for its configurations' runs in the grid's order."""
    import json
    from pathlib import Path

    from widthbench.core.errors import UserError
    from widthbench.searches.grid import GRID

    out = []
    for folder in folders:
        grid = Path(folder) / GRID
        if (Path(folder) / "summary.json").is_file() or not grid.is_file():
            out.append(folder)
            continue
        try:
            parts = [Path(folder) / r["folder"] for r in json.loads(grid.read_text(encoding="utf-8"))["runs"]]
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise UserError(f"{grid}: not a grid file ({exc})") from None
        missing = [p.name for p in parts if not (p / "summary.json").is_file()]
        if missing:
            raise UserError(f"{folder}: {len(missing)} of the grid's {len(parts)} runs are not finished "
                            f"({missing[0]}{', ...' if len(missing) > 1 else ''}); rerun the same solve command")
        out += [str(p) for p in parts]
    return out
# ---- end paper-ready tables ----


def difficulty_options(args) -> tuple:
    """(features or None for the default set, bins or None) of --by and --bins."""
    from widthbench.core.errors import UserError
    from widthbench.subtasks.results.difficulty import check_feature, parse_bins

    features = None
    if args.by:
        features = [check_feature(f.strip()) for f in args.by.split(",") if f.strip()]
    if args.bins and not args.by:
        raise UserError("--bins needs --by FEATURE (bins are ranges of one feature's values)")
    return features, (parse_bins(args.bins) if args.bins else None)
