"""`widthbench report --format md|csv|latex`: the paper's tables, every number the summary's.

The Table 3 grid is one `solve` command with lists (8 configurations x 2 thinking modes) on
sim:noisy; its folder's LaTeX table is parsed (the tabular's column count, the row labels, every
cell against the run's summary.json) and compiled with pdflatex where it is installed. Table 1
(headline only, either reader) and Table 2 come from a score run, in md, csv and LaTeX.
"""

from __future__ import annotations

import csv
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import missing_part

from widthbench.cli import main
from widthbench.subtasks.results.stats import wilson

from .conftest import score_run, summary

MODES = {("Standard", "Normal"): ("pddl", "off"), ("Standard", "Thinking"): ("pddl", "on"),
         ("Natural Language", "Normal"): ("nl", "off"), ("Natural Language", "Thinking"): ("nl", "on")}
PAPER_T1 = ["Action Generation", "Action Generation Single Valid", "Action Generation Single Optimal",
            "Successor State Mapping", "Successor State Mapping Separate", "Goal State Verification",
            "Novelty Pruning", "Novelty Pruning NDAP"]
SEARCH = {"tot-dfs": "DFS", "tot-bfs": "BFS"}


@pytest.fixture(scope="module")
def scored(tmp_path_factory) -> Path:
    return score_run(tmp_path_factory.mktemp("paper-score") / "run", "sim:noisy:0.3", count=4)


def _tex_rows(text: str) -> tuple[int, list[list[str]]]:
    """(the tabular's column count, the body rows between \\midrule and \\bottomrule, split on &)."""
    spec = re.search(r"\\begin\{tabular\}\{([lcr]+)\}", text).group(1)
    body = text.split("\\midrule", 1)[1].split("\\bottomrule", 1)[0]
    rows = [[c.strip() for c in line.removesuffix("\\\\").split("&")]
            for line in body.strip().splitlines() if line.strip().endswith("\\\\")]
    return len(spec), rows


def _atu_value(text: str) -> float:
    return float(text[:-1]) * {"k": 1e3, "M": 1e6}[text[-1]] if text[-1] in "kM" else float(text)


def test_one_solve_command_runs_the_table3_grid_and_its_latex_has_the_papers_rows_and_columns(grid, tmp_path):
    runs = json.loads((grid / "grid.json").read_text())["runs"]
    assert len(runs) == 16
    assert main(["report", str(grid), "--out", str(tmp_path), "--format", "latex"]) == 0
    tex = (tmp_path / "paper-table3.tex").read_text()
    assert "\\toprule" in tex and "\\bottomrule" in tex and "SIMULATED" in tex
    ncols, rows = _tex_rows(tex)
    assert ncols == 2 + 2 * 2 * 2  # Search, Method; Normal/Thinking x Base/Nov. pruning x Perf./ATU
    for line in tex.splitlines():
        if line.endswith("\\\\") and "multicolumn" not in line:
            assert line.count("&") + 1 == ncols, line
    assert [r[:2] for r in rows] == [["DFS", "Direct"], ["DFS", "ESA"], ["BFS", "Direct"], ["BFS", "ESA"]]
    heads = re.findall(r"\\multicolumn\{(\d)\}\{c\}\{([^}]*)\}", tex)
    assert heads == [("4", "Normal"), ("4", "Thinking")] + [("2", "Base"), ("2", "Nov. pruning")] * 2
    cols = [(t, nov) for t in (False, True) for nov in ("off", "llm")]
    checked = 0
    for entry in runs:
        c = entry["config"]
        s = summary(grid / entry["folder"])
        row = next(r for r in rows if r[:2] == [SEARCH[c["method"]], "Direct" if c["mapping"] == "direct" else "ESA"])
        j = 2 + 2 * cols.index((c["thinking"], c["novelty"]))
        perf = re.fullmatch(r"(\d+)/(\d+) \{\\scriptsize \[(\d+), (\d+)\]\}", row[j])
        k, n, lo, hi = map(int, perf.groups())
        assert (k, n) == (s["solved"], s["n"])
        wlo, whi = wilson(k, n)
        assert (lo, hi) == (round(100 * wlo), round(100 * whi))
        atu = _atu_value(row[j + 1])
        assert abs(atu - s["mean_tokens"]) <= 0.05 * s["mean_tokens"] + 0.5
        checked += 1
    assert checked == 16


def test_table3_md_and_csv_carry_the_same_numbers(grid, tmp_path):
    assert main(["report", str(grid), "--out", str(tmp_path), "--format", "md,csv"]) == 0
    lines = list(csv.DictReader((tmp_path / "paper-table3.csv").open()))
    assert [(r["search"], r["method"]) for r in lines] == [("DFS", "Direct"), ("DFS", "ESA"), ("BFS", "Direct"),
                                                           ("BFS", "ESA")]
    names = {(False, "off"): "Normal Base", (False, "llm"): "Normal Nov. pruning",
             (True, "off"): "Thinking Base", (True, "llm"): "Thinking Nov. pruning"}
    for entry in json.loads((grid / "grid.json").read_text())["runs"]:
        c, s = entry["config"], summary(grid / entry["folder"])
        r = next(x for x in lines if x["search"] == SEARCH[c["method"]]
                 and x["method"] == ("Direct" if c["mapping"] == "direct" else "ESA"))
        col = names[(c["thinking"], c["novelty"])]
        assert (int(r[f"{col} solved"]), int(r[f"{col} n"])) == (s["solved"], s["n"])
        assert float(r[f"{col} mean_tokens"]) == s["mean_tokens"]
    md = (tmp_path / "paper-table3.md").read_text()
    assert "SIMULATED" in md and md.count("| DFS |") == 2


def test_table3_latex_compiles(grid, tmp_path):
    if shutil.which("pdflatex") is None:  # .ci/run installs Debian's texlive-latex-base and -recommended
        missing_part("pdflatex not found (apt-get install texlive-latex-base texlive-latex-recommended)")
    assert main(["report", str(grid), "--out", str(tmp_path), "--format", "latex"]) == 0
    doc = tmp_path / "doc.tex"
    doc.write_text("\\documentclass{article}\\usepackage{booktabs}\\begin{document}\\input{paper-table3.tex}"
                   "\\end{document}\n")
    got = subprocess.run(["pdflatex", "-interaction=nonstopmode", doc.name], cwd=tmp_path, capture_output=True)
    assert got.returncode == 0, got.stdout[-2000:]


def _cells_t1(rows_of_summary: list[dict], reader: str) -> dict:
    """(label, style, thinking) -> summary row of Table 1's expected cells."""
    from widthbench.subtasks.results.tables import label

    out = {}
    for r in rows_of_summary:
        if r["reader"] == reader and not r["extension"] and r["aggregate"] == "per-item" \
                and not (r["subtask"] == "action-generation" and r["metric"] != "exact"):
            out[(label({**r, "_secondary": False}), r["style"], r["thinking"])] = r
    return out


@pytest.fixture(scope="module")
def paper_tables(scored, tmp_path_factory) -> Path:
    """`report RUN --format md,csv,latex` of the score run (the run's own reader, flexible): one
    command's output, read by the Table 1 (flexible) and the Table 2 tests."""
    out = tmp_path_factory.mktemp("paper-tables")
    assert main(["report", str(scored), "--out", str(out), "--format", "md,csv,latex"]) == 0
    return out


@pytest.mark.parametrize("reader", ["flexible", "strict"])
def test_table1_headline_only_in_md_csv_and_latex_equal_the_summary_rows(scored, tmp_path, reader, request):
    from widthbench.subtasks.results.rows import all_rows

    if reader == "strict":
        out = tmp_path
        assert main(["report", str(scored), "--out", str(out), "--format", "md,csv,latex", "--reader", "strict"]) == 0
    else:
        out = request.getfixturevalue("paper_tables")
    want = _cells_t1(all_rows(summary(scored)), reader)
    assert {k[0] for k in want} == set(PAPER_T1)
    # csv
    lines = list(csv.DictReader((out / "paper-table1.csv").open()))
    assert [r["sub-task"] for r in lines] == PAPER_T1
    for line in lines:
        for (style_name, mode_name), (style, thinking) in MODES.items():
            r = want[(line["sub-task"], style, thinking)]
            col = f"{style_name} {mode_name}"
            assert (int(line[f"{col} correct"]), int(line[f"{col} n"])) == (r["correct"], r["n"])
            assert (float(line[f"{col} ci_low"]), float(line[f"{col} ci_high"])) == (r["ci_low"], r["ci_high"])
        assert line["reader"] == reader
    # latex
    tex = (out / "paper-table1.tex").read_text()
    ncols, rows = _tex_rows(tex)
    assert ncols == 5 and [r[0] for r in rows] == PAPER_T1
    order = [("pddl", "off"), ("pddl", "on"), ("nl", "off"), ("nl", "on")]
    for row in rows:
        for cell, (style, thinking) in zip(row[1:], order):
            r = want[(row[0], style, thinking)]
            m = re.fullmatch(r"(\d+)\\% \{\\scriptsize (\d+)/(\d+) \[(\d+), (\d+)\]\}", cell)
            acc, k, n, lo, hi = map(int, m.groups())
            assert (k, n) == (r["correct"], r["n"])
            assert (acc, lo, hi) == (round(100 * r["accuracy"]), round(100 * r["ci_low"]), round(100 * r["ci_high"]))
    # md: one row per sub-task, no strict twin, no Table 2 row
    md = (out / "paper-table1.md").read_text()
    body = [line for line in md.splitlines() if line.startswith("| ") and not line.startswith("| Sub-task")]
    assert [line.split(" | ")[0][2:] for line in body] == PAPER_T1
    assert "strict reader]" not in md and "extension" not in md.lower().split("reader:")[0]


def test_table2_on_its_own_has_the_extension_off_and_on(scored, paper_tables):
    from widthbench.subtasks.results.rows import all_rows

    lines = list(csv.DictReader((paper_tables / "paper-table2.csv").open()))
    assert [(r["sub-task"], r["extension"]) for r in lines] == [
        ("Action Generation Single Valid", "off"), ("Action Generation Single Valid", "on"),
        ("Action Generation Single Optimal", "off"), ("Action Generation Single Optimal", "on")]
    rows = {(r["metric"], r["extension"], r["style"], r["thinking"]): r for r in all_rows(summary(scored))
            if r["subtask"] == "action-single" and r["reader"] == "flexible"}
    for line in lines:
        metric = "valid" if "Valid" in line["sub-task"] else "optimal"
        for (style_name, mode_name), (style, thinking) in MODES.items():
            r = rows[(metric, line["extension"] == "on", style, thinking)]
            assert int(line[f"{style_name} {mode_name} correct"]) == r["correct"]
            assert int(line[f"{style_name} {mode_name} n"]) == r["n"]


def test_two_runs_each_get_their_block_under_their_label(scored, tmp_path):
    other = score_run(tmp_path / "oracle", "sim:oracle", count=4)
    assert main(["report", str(scored), str(other), "--out", str(tmp_path / "rep"), "--format", "latex,csv"]) == 0
    tex = (tmp_path / "rep" / "paper-table1.tex").read_text()
    assert "model sim:noisy:0.3" in tex and "model sim:oracle" in tex
    lines = list(csv.DictReader((tmp_path / "rep" / "paper-table1.csv").open()))
    assert sorted({r["run"] for r in lines}) == ["model sim:noisy:0.3", "model sim:oracle"]
    oracle = [r for r in lines if r["run"] == "model sim:oracle"]
    assert all(r["Standard Normal correct"] == r["Standard Normal n"] for r in oracle)


def test_bad_format_and_reader_without_format_are_one_line(scored, tmp_path, capsys):
    assert main(["report", str(scored), "--out", str(tmp_path), "--format", "docx"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "docx" in err[0] and "latex" in err[0]
    assert main(["report", str(scored), "--out", str(tmp_path), "--reader", "strict"]) == 2
    assert "--format" in capsys.readouterr().err


def test_without_format_no_paper_tables(scored, tmp_path):
    assert main(["report", str(scored), "--out", str(tmp_path)]) == 0
    assert not list(tmp_path.glob("paper-table*"))
