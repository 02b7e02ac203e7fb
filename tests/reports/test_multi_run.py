"""Reports of several runs keep every run: pairs of runs that differ in one identity field each show
both runs' numbers in table.md, table.csv, rows.csv, the search tables and report.html, under
labels that name the differing field; a `solve --thinking both` folder is one `report` argument."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import pytest

from widthbench.cli import main
from widthbench.subtasks.results.loader import differing_fields, flatten, load_runs, run_labels
from widthbench.subtasks.results.rows import all_rows


def _score(out: Path, *extra: str) -> Path:
    argv = ["score", "--subtask", "plan-verification", "--count", "6", "--seed", "1", "--model", "sim:noisy:0.3",
            "--style", "pddl", "--thinking", "off", "--out", str(out), "--quiet",
            "--cache-dir", str(out.parent / "cache")]
    # a later option overrides the base one (argparse keeps the last)
    assert main(argv + list(extra)) == 0
    return out


def _solve(out: Path, *extra: str) -> Path:
    argv = ["solve", "--method", "tot-bfs", "--novelty", "off", "--domain", "blocksworld", "--count", "2",
            "--seed", "1", "--max-plan-length", "4", "--model", "sim:noisy:0.2", "--out", str(out), "--quiet",
            "--cache-dir", str(out.parent / "cache")]
    assert main(argv + list(extra)) == 0
    return out


def _csv(path: Path) -> list[dict]:
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def _payload(path: Path) -> dict:
    page = path.read_text(encoding="utf-8")
    return json.loads(re.search(r'<script type="application/json" id="report-data">(.*?)</script>', page, re.S).group(1))


def _summary(run: Path) -> dict:
    return json.loads((run / "summary.json").read_text(encoding="utf-8"))


# ---------------------------------------------------------------------------------------------
# Score runs


def _root_with_base(tmp_path_factory, name: str, make) -> Path:
    """A folder holding the base run ``make`` writes (``base``), beside which the variants go."""
    root = tmp_path_factory.mktemp(name)
    make(root / "base")
    return root


@pytest.fixture(scope="module")
def score_root(tmp_path_factory) -> Path:
    return _root_with_base(tmp_path_factory, "multi-score", _score)


# one score option changed from the base run -> the identity field its label names
SCORE_FIELDS = {
    "seed": ("--seed", "2"),
    "model": ("--model", "sim:oracle"),
    "count": ("--count", "5"),
    "styles": ("--style", "nl"),
    "thinking": ("--thinking", "on"),
    "domain": ("--domain", "logistics"),
    "max_tokens": ("--max-tokens", "900"),
    "reader": ("--reader", "strict"),
    "prompt_extension": ("--prompt-extension", "on"),
    "invalid_kind": ("--invalid-kind", "inapplicable"),
}


def _check_score_pair(base: Path, other: Path, out: Path, field: str | None = None) -> list[str]:
    """report BASE OTHER --out OUT; both runs' rows everywhere under their labels; returns the labels."""
    assert main(["report", str(base), str(other), "--out", str(out)]) == 0
    runs = load_runs([base, other])
    labels = [r.label for r in runs]
    assert len(set(labels)) == 2
    if field is not None:
        assert all(re.search(rf"(^|, ){re.escape(field)} ", text) for text in labels), labels
    md = (out / "table.md").read_text(encoding="utf-8")
    table = _csv(out / "table.csv")
    rows = _csv(out / "rows.csv")
    page = _payload(out / "report.html")
    assert [r["name"] for r in page["runs"]] == labels
    for run, label, folder in zip(runs, labels, (base, other)):
        want = all_rows(_summary(folder))
        assert want and f"## Run {label}: " in md
        # rows.csv: every summary row of the run, with its numbers, under its label
        mine = [r for r in rows if r["run"] == label]
        assert sorted((r["subtask"], r["metric"], r["style"], r["thinking"], r["reader"], int(r["correct"]), int(r["n"]))
                      for r in mine) == \
            sorted((r["subtask"], r["metric"], r["style"], r["thinking"], r["reader"], r["correct"], r["n"]) for r in want)
        # table.csv: the headline k/n of each of its rows in the run's lines
        cells = {c for line in table if line["run"] == label for k, c in line.items()
                 if k not in ("run", "model", "domain", "simulated", "sub-task") and c}
        assert {f"{r['correct']}/{r['n']}" for r in want} <= {c.split(" ")[0] for c in cells}
        # report.html: the run's rows as summary.json has them, each carrying the run's label
        shown = next(r for r in page["runs"] if r["dir"] == str(folder))
        assert {r["run"] for r in shown["rows"]} == {label}
        assert sorted((r["subtask"], r["metric"], r["style"], r["reader"], r["correct"], r["n"]) for r in shown["rows"]) == \
            sorted((r["subtask"], r["metric"], r["style"], r["reader"], r["correct"], r["n"]) for r in want)
    return labels


def test_two_seeds_keep_both_runs_in_every_table(score_root, tmp_path):
    """The issue's first case: 14/20 and 13/20 on plan verification, seeds 1 and 2."""
    s1 = _score(tmp_path / "pv-s1", "--count", "20", "--seed", "1")
    s2 = _score(tmp_path / "pv-s2", "--count", "20", "--seed", "2")
    labels = _check_score_pair(s1, s2, tmp_path / "cmp", "seed")
    assert labels == ["seed 1", "seed 2"]
    scores = [next(r for r in _summary(s)["rows"] if r["metric"] == "accuracy") for s in (s1, s2)]
    table = _csv(tmp_path / "cmp" / "table.csv")
    for label, row in zip(labels, scores):
        line = next(x for x in table if x["run"] == label and x["sub-task"] == "Goal State Verification")
        assert line["Standard Normal"] == f"{row['correct']}/{row['n']}"
    md = (tmp_path / "cmp" / "table.md").read_text(encoding="utf-8")
    assert all(f"| Goal State Verification | {r['correct']}/{r['n']} |" in md for r in scores)


@pytest.mark.parametrize("field", list(SCORE_FIELDS))
def test_score_runs_differing_in_one_field_both_appear_labelled_by_it(score_root, field):
    option, value = SCORE_FIELDS[field]
    other = _score(score_root / f"by-{field}", option, value)
    _check_score_pair(score_root / "base", other, score_root / f"report-{field}", field)


def test_identical_settings_are_told_apart_by_folder(score_root, tmp_path):
    again = _score(tmp_path / "again")
    labels = _check_score_pair(score_root / "base", again, tmp_path / "rep")
    assert labels == ["base", "again"]


# ---------------------------------------------------------------------------------------------
# Solve runs


@pytest.fixture(scope="module")
def solve_root(tmp_path_factory) -> Path:
    return _root_with_base(tmp_path_factory, "multi-solve", _solve)


SOLVE_FIELDS = {
    "model": ("--model", "sim:oracle"),
    "extension": ("--no-prompt-extension",),
    "seed": ("--seed", "2"),
    "count": ("--count", "3"),
    "max_tokens": ("--max-tokens", "700"),
    "thinking": ("--thinking", "on"),
    "novelty": ("--novelty", "oracle"),
}


def _check_solve_pair(folders: list[Path], out: Path, field: str | None = None) -> list[str]:
    assert main(["report", *map(str, folders), "--out", str(out)]) == 0
    runs = load_runs(folders)
    labels = [r.label for r in runs]
    assert len(set(labels)) == len(runs)
    if field is not None:
        assert all(re.search(rf"(^|, ){re.escape(field)} ", text) for text in labels), labels
    summaries = [r.summary for r in runs]
    want = sorted(f"{s['solved']}/{s['n']}" for s in summaries)
    # search_table.csv / .md: one filled Perf. cell per run, none merged
    table = _csv(out / "search_table.csv")
    perf = sorted(v for line in table for k, v in line.items() if k.endswith("Perf.") and v != "–")
    assert perf == want
    md = (out / "search_table.md").read_text(encoding="utf-8")
    assert sum(line.count(" | ") for line in md.splitlines() if "BFS" in line) >= 1
    assert sorted(c for line in md.splitlines() if line.startswith("| ") and "BFS" in line
                  for c in line.split(" | ") if re.fullmatch(r"\d+/\d+", c)) == want
    assert all(line["run"] for line in table)
    # search_runs.csv: every run by its label
    assert [line["run"] for line in _csv(out / "search_runs.csv")] == labels
    # report.html: each run named by its label, each cell pointing at one run
    page = _payload(out / "report.html")
    assert [r["name"] for r in page["runs"]] == labels
    filled = sorted(i for line in page["solve_tables"]["cell_runs"] for i in line if i is not None)
    assert filled == list(range(len(runs)))
    return labels


@pytest.mark.parametrize("field", list(SOLVE_FIELDS))
def test_solve_runs_differing_in_one_field_both_appear_labelled_by_it(solve_root, field):
    other = _solve(solve_root / f"by-{field}", *SOLVE_FIELDS[field])
    _check_solve_pair([solve_root / "base", other], solve_root / f"report-{field}", field)


def test_model_and_prompt_extension_cells_are_all_kept(solve_root, tmp_path):
    """The issue's second case: solve twice differing in --model, and in --prompt-extension."""
    a = _solve(tmp_path / "a")
    b = _solve(tmp_path / "b", "--model", "sim:oracle")
    c = _solve(tmp_path / "c", "--no-prompt-extension")
    labels = _check_solve_pair([a, b, c], tmp_path / "rep")
    assert labels == ["model sim:noisy:0.2, extension on", "model sim:oracle, extension on",
                      "model sim:noisy:0.2, extension off"]
    md = (tmp_path / "rep" / "search_table.md").read_text(encoding="utf-8")
    assert md.count("| BFS | Direct |") == 3 and "| Run |" in md


def test_thinking_both_folder_is_one_report_argument(tmp_path):
    both = _solve(tmp_path / "R", "--thinking", "both")
    assert not (both / "summary.json").exists()
    assert main(["report", str(both)]) == 0
    runs = load_runs([both])
    assert [r.label for r in runs] == ["thinking off", "thinking on"]
    page = _payload(both / "report.html")
    assert [r["name"] for r in page["runs"]] == ["thinking off", "thinking on"]
    runs_md = (both / "search_runs.md").read_text(encoding="utf-8")
    assert "| thinking off |" in runs_md and "| thinking on |" in runs_md
    assert "thinking-off" not in runs_md.replace(str(both), "")
    header = _csv(both / "search_table.csv")[0]
    assert header["Normal Base Perf."] != "–" and header["Thinking Base Perf."] != "–"


def test_score_and_solve_runs_report_side_by_side(score_root, solve_root, tmp_path):
    out = tmp_path / "both"
    assert main(["report", str(score_root / "base"), str(solve_root / "base"), "--out", str(out)]) == 0
    assert (out / "table.md").is_file() and (out / "search_table.md").is_file()
    assert [r["kind"] for r in _payload(out / "report.html")["runs"]] == ["score", "solve"]


# ---------------------------------------------------------------------------------------------
# Labels


def test_labels_name_every_differing_field_and_only_those():
    ids = [{"model": "a", "seed": 1, "items": {"folder": "x", "digest": "d1"}},
           {"model": "a", "seed": 2, "items": {"folder": "x", "digest": "d2"}}]
    assert flatten(ids[0]) == {"model": "a", "seed": 1, "items.folder": "x", "items.digest": "d1"}
    assert differing_fields(ids) == ["seed", "items.digest"]
    assert run_labels(ids, ["r1", "r2"]) == ["seed 1, digest d1", "seed 2, digest d2"]  # shortest clear names
    # file digests that follow from a differing setting are left out; alone, they name the difference
    dom = [{"items": {"domain": d}, "prompts": {"domain": h, "context": h}} for d, h in
           (("blocksworld", "0123456789abcdef"), ("logistics", "fedcba9876543210"))]
    assert run_labels(dom, ["a", "b"]) == ["domain blocksworld", "domain logistics"]
    edited = [{"prompts": {"templates": h}} for h in ("0123456789abcdef", "fedcba9876543210")]
    assert run_labels(edited, ["a", "b"]) == ["templates 0123456789abcdef", "templates fedcba9876543210"]
    # a field on one side only differs; a run alone is named by its folder
    assert run_labels([{"m": 1}, {"m": 1, "constrained": True}], ["a", "b"]) == ["constrained none", "constrained on"]
    assert run_labels([{"m": 1}], ["only"]) == ["only"]
    assert run_labels([{"m": 1}, {"m": 1}], ["x", "x"]) == ["x", "x #2"]
