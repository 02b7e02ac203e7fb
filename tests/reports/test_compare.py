"""compare.md, compare.csv and compare.tex: every number is a row's, the csv has exactly the
contract's columns, the markers follow Holm's p, and the LaTeX compiles."""

from __future__ import annotations

import csv
import shutil
import subprocess

import pytest

from tests.conftest import missing_part

from widthbench.reports.compare_tables import significant, write_compare
from widthbench.subtasks.results.comparison import AMOUNT, CSV_COLUMNS, ComparedCell, CellOutcomes, Outcome, compare_cells


def _rows():
    ids = [f"id_{k}" for k in range(60)]
    a = [1] * 40 + [0] * 20
    strong = [1] * 55 + [0] * 5          # B much better: significant
    close = [1] * 39 + [0] * 20 + [1]    # one item swapped each way: not significant
    cells = [CellOutcomes(ComparedCell("plan-verification", "pddl", "off", "off", "blocksworld", "exact"),
                          tuple(Outcome(i, x, 1) for i, x in zip(ids, a)),
                          tuple(Outcome(i, x, 1) for i, x in zip(ids, strong))),
             CellOutcomes(ComparedCell("plan-verification", "nl", "on", "off", "blocksworld", "exact"),
                          tuple(Outcome(i, x, 1) for i, x in zip(ids, a)),
                          tuple(Outcome(i, x, 1) for i, x in zip(ids, close))),
             CellOutcomes(ComparedCell("successor", "nl", "on", "off", "blocksworld", "completion_tokens"),
                          tuple(Outcome(i, 100.0 + k, 1) for k, i in enumerate(ids)),
                          tuple(Outcome(i, 150.0 + k, 1) for k, i in enumerate(ids[:50])), kind=AMOUNT),
             CellOutcomes(ComparedCell("novelty", "pddl", "off", "off", "logistics", "exact"),
                          tuple(Outcome(i, 1, 1) for i in ids[:5]), ())]
    return compare_cells(cells, seed=4)


def test_write_compare_writes_the_three_files_from_the_rows(tmp_path):
    rows = _rows()
    paths = write_compare(rows, tmp_path / "cmp", label_a="model sim:noisy:0.4", label_b="model sim:noisy:0.1",
                          seed=4, notes=["Simulated models (sim:...), not LLMs."])
    assert [p.name for p in paths] == ["compare.md", "compare.csv", "compare.tex"]
    with open(tmp_path / "cmp" / "compare.csv", newline="") as f:
        got = list(csv.DictReader(f))
        assert tuple(next(csv.reader(open(tmp_path / "cmp" / "compare.csv")))) == CSV_COLUMNS
    assert len(got) == len(rows) == 4
    for line, row in zip(got, rows):
        want = row.csv_row()
        assert line == {k: "" if v is None else str(v) for k, v in want.items()}
    assert got[0]["a"] == "40" and got[0]["b"] == "55" and got[0]["test"] == "mcnemar-exact"
    assert got[2]["n"] == "50" and float(got[2]["diff"]) == pytest.approx(50.0)
    assert got[3]["n"] == "0" and got[3]["p"] == "" and got[3]["test"] == "none"

    md = (tmp_path / "cmp" / "compare.md").read_text()
    assert "A: model sim:noisy:0.4. B: model sim:noisy:0.1." in md and "Holm's correction over the 3 tests" in md
    assert "**Simulated models (sim:...), not LLMs.**" in md
    lines = [ln for ln in md.splitlines() if ln.startswith("| plan-verification")]
    assert significant(rows[0]) and not significant(rows[1])
    assert lines[0].count(" * |") == 1 and " * |" not in lines[1]
    assert "40/60 (66.7%)" in lines[0] and "+25.0 [" in lines[0] and "15/0;" in lines[0]
    assert "novelty exact (pddl, thinking off, extension off, logistics): 5 only in A, 0 only in B (no common item" in md
    tex = (tmp_path / "cmp" / "compare.tex").read_text()
    assert r"\toprule" in tex and r"\bottomrule" in tex and tex.count(r"$^{*}$") == 2  # verification, tokens
    assert r"plan-verification & exact & pddl" in tex and r"completion\_tokens" in tex


def test_compare_latex_compiles(tmp_path):
    if shutil.which("pdflatex") is None:  # .ci/run installs Debian's texlive-latex-base and -recommended
        missing_part("pdflatex not found (apt-get install texlive-latex-base texlive-latex-recommended)")
    write_compare(_rows(), tmp_path, label_a="run_a & co", label_b="50% run #2", seed=4, notes=["SIMULATED_"])
    doc = tmp_path / "doc.tex"
    doc.write_text("\\documentclass{article}\\usepackage{booktabs}\\begin{document}\\input{compare.tex}"
                   "\\end{document}\n")
    got = subprocess.run(["pdflatex", "-interaction=nonstopmode", doc.name], cwd=tmp_path, capture_output=True)
    assert got.returncode == 0, got.stdout[-2000:]
