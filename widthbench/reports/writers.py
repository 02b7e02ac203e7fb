"""The built-in writers of `widthbench report`, in the order the report is written: score runs'
Table-1 tables and error analysis, their accuracy by difficulty, solve runs' search tables and
figures, report.html of every run, and the paper's tables when --format asks for them. Each writer's
module is imported when it writes (matplotlib and the page assets only load for a report)."""

from __future__ import annotations

from widthbench.reports import Report, ReportOptions


def write_tables(runs, out, options: ReportOptions):
    from widthbench.subtasks.results.tables import write_report

    return write_report(runs, out, figures=options.figures)


def write_difficulty(runs, out, options: ReportOptions):
    from widthbench.reports.curves import write_difficulty

    # figures cost about a second each: drawn when asked for (--figures, or the features of --by)
    return write_difficulty(runs, out, options.features, options.bins,
                            figures=options.figures or options.features is not None, parts=options.difficulty)


def write_search(runs, out, options: ReportOptions):
    from widthbench.reports.search import write_report

    return write_report(runs, out, figures_asked=options.figures) or ()  # Table 3/4 compares configurations: all solve runs in one report


def write_page(runs, out, options: ReportOptions):
    from widthbench.reports.html import write_html

    return [write_html(runs, out, features=options.features, bins=options.bins, significance=options.significance,
                       difficulty=options.difficulty)]


def write_paper_tables(runs, out, options: ReportOptions):
    if not options.formats:
        return ()
    from widthbench.reports.paper import write_paper

    return write_paper(runs, out, options.formats, reader=options.reader)


REPORTS = (
    Report("tables", ("score",), write_tables, order=10),
    Report("difficulty", ("score",), write_difficulty, order=20),
    Report("search", ("solve",), write_search, order=30),
    Report("html", ("score", "solve"), write_page, order=40),
    Report("paper", ("score", "solve"), write_paper_tables, order=50),
)
