"""The report writers are a registry: `widthbench report` calls every module's REPORTS; adding a
report is adding one module under widthbench/reports/ (docs/design.md, "Extension paths")."""

from __future__ import annotations

from pathlib import Path

import pytest

from widthbench.reports import Report, ReportOptions, report_writers, write_reports

PACKAGE_DIR = Path(__file__).resolve().parents[2] / "widthbench" / "reports"
TOY_FILE = PACKAGE_DIR / "toy_record_counts.py"
TOY_MODULE = '''
"""A toy report: records.txt, how many records each score run holds, by run label."""
from pathlib import Path

from widthbench.reports import Report


def write(runs, out, options):
    path = Path(out) / "records.txt"
    path.write_text("".join(f"{r.label}: {len(r.records)} records\\n" for r in runs))
    return [path]


REPORTS = (Report("record-counts", ("score",), write, order=35),)
'''


def test_the_builtin_writers_in_report_order():
    assert [r.name for r in report_writers()] == ["tables", "difficulty", "search", "html", "run summaries", "paper"]
    assert {r.name: r.kinds for r in report_writers()}["search"] == ("solve",)


def test_a_writer_is_called_with_the_runs_of_its_kinds_only(tmp_path):
    class Run:
        def __init__(self, kind):
            self.kind = kind

    seen = []
    writers = [Report("a", ("solve",), lambda runs, out, o: seen.append(("a", [r.kind for r in runs])) or ["a"]),
               Report("b", ("score",), lambda runs, out, o: seen.append(("b", o.figures)) or ["b"])]
    assert write_reports([Run("score")], tmp_path, ReportOptions(figures=True), writers) == ["b"]
    assert seen == [("b", True)]  # no solve run: the solve writer is not called


def test_a_toy_report_is_one_module(toy_files, fresh_cli, tmp_path):
    toy_files({TOY_FILE: TOY_MODULE})
    for seed in ("1", "2"):
        made = fresh_cli("score", "--model", "sim:oracle", "--subtask", "action-single", "--style", "pddl", "--thinking",
                    "off", "--count", "3", "--seed", seed, "--out", f"run{seed}", "--no-cache", cwd=tmp_path)
        assert made.returncode == 0, made.stderr
    done = fresh_cli("report", "run1", "run2", "--out", "rep", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    said = [line.split("/")[-1] for line in done.stdout.splitlines() if line.startswith("wrote ")]
    # in report order: after the score tables and curves, before the page
    assert said.index("records.txt") == said.index("report.html") - 1
    assert (tmp_path / "rep" / "records.txt").read_text() == "seed 1: 3 records\nseed 2: 3 records\n"


def test_the_design_card_lists_the_toy_reports_file(extension_files):
    assert {str(TOY_FILE.relative_to(PACKAGE_DIR.parents[1]))} == extension_files("report", "toy_record_counts")


def test_the_toy_report_is_gone_after_its_test():
    assert not TOY_FILE.exists() and "record-counts" not in [r.name for r in report_writers()]
