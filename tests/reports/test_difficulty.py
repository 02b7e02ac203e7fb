"""`widthbench report RUN --by FEATURE`: the difficulty tables, CSVs and PNGs, two runs overlaid,
bad options refused; and in report.html (headless Chromium) the curves' points equal difficulty.csv."""

from __future__ import annotations

import csv
import json

import pytest

from tests.reports.conftest import records
from tests.reports.test_html_browser import _css, _errors, _open, _tab, browser  # noqa: F401 (fixture)
from widthbench.cli import main
from widthbench.subtasks.results.difficulty import breakdown, parse_bins


def _csv(path) -> list[dict]:
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


@pytest.fixture(scope="module")
def reported(runs, tmp_path_factory):
    out = tmp_path_factory.mktemp("difficulty")
    assert main(["report", str(runs["noisy"]), "--out", str(out), "--by", "plan-length,width,list-length"]) == 0
    return out


def test_report_by_writes_tables_that_equal_the_records(reported, runs):
    recs = records(runs["noisy"])
    rows = _csv(reported / "difficulty.csv")
    assert {r["feature"] for r in rows} == {"plan-length", "width", "list-length"}
    for feature in ("plan-length", "list-length"):
        mine = [r for r in rows if r["feature"] == feature]
        for r in mine:
            lo, hi = int(r["bin_lo"]), int(r["bin_hi"])
            cell = [x for x in recs if x["subtask"] == r["subtask"] and x["mode"] == r["mode"]
                    and x["features"].get(feature) is not None and lo <= x["features"][feature] <= hi
                    and not x.get("request_error")]
            assert int(r["n"]) == len(cell)
            assert int(r["correct"]) == sum(int(bool(x["metrics"][r["metric"]])) for x in cell)
            if cell:
                assert float(r["ci_low"]) <= float(r["accuracy"]) <= float(r["ci_high"])
        # every answered record of a sub-task carrying the feature is in exactly one bin of its mode
        carrying = [x for x in recs if x["features"].get(feature) is not None]
        assert sum(int(r["n"]) for r in mine) == len(carrying) > 0
    assert {r["subtask"] for r in rows if r["feature"] == "list-length"} == {"novelty", "novelty-hard"}
    slopes = _csv(reported / "difficulty-slopes.csv")
    assert {(s["subtask"], s["mode"], s["feature"]) for s in slopes} == \
        {(r["subtask"], r["mode"], r["feature"]) for r in rows}
    for s in slopes:
        assert s["slope"] == "" and s["note"] or float(s["slope_low"]) <= float(s["slope"]) <= float(s["slope_high"])
    md = (reported / "difficulty.md").read_text()
    assert "SIMULATED" in md and "### plan-verification (accuracy) by plan-length" in md
    for f in ("plan-length", "width", "list-length"):
        assert (reported / f"difficulty-{f}.png").stat().st_size > 5000


def test_given_bins_and_two_runs_overlay_their_curves(runs, tmp_path):
    out = tmp_path / "two"
    assert main(["report", str(runs["oracle"]), str(runs["noisy"]), "--out", str(out), "--by", "plan-length",
                 "--bins", "1-6,7-20"]) == 0
    rows = _csv(out / "difficulty.csv")
    assert {r["bin"] for r in rows} == {"1-6", "7-20"}
    # each run's label says how it differs from the other: the model
    labels = {"oracle": "model sim:oracle", "noisy": "model sim:noisy:0.3"}
    assert {r["run"] for r in rows} == set(labels.values())
    assert {r["line"].split(": ")[0] for r in rows} == set(labels.values())
    oracle = [r for r in rows if r["run"] == labels["oracle"] and int(r["n"])]
    assert oracle and all(r["accuracy"] == "1.0" for r in oracle)
    # the same breakdown from the library
    both = [{**x, "_run": labels[name]} for name in ("oracle", "noisy") for x in records(runs[name])]
    lib = breakdown(both, "plan-length", parse_bins("1-6,7-20"))["rows"]
    assert sorted((r["run"], r["subtask"], r["mode"], r["bin"], r["n"], r["correct"]) for r in lib) == \
        sorted((r["run"], r["subtask"], r["mode"], r["bin"], int(r["n"]), int(r["correct"])) for r in rows)


@pytest.mark.parametrize("argv, message", [
    (["--by", "size"], "unknown difficulty feature 'size'"),
    (["--bins", "2-4"], "--bins needs --by"),
    (["--by", "width", "--bins", "2-5,4-6"], "overlap"),
])
def test_bad_difficulty_options_exit_2_with_one_line(runs, tmp_path, capsys, argv, message):
    code = main(["report", str(runs["noisy"]), "--out", str(tmp_path), *argv])
    err = capsys.readouterr().err.strip()
    assert code == 2 and message in err and len(err.splitlines()) == 1 and "Traceback" not in err


def test_report_html_curves_equal_difficulty_csv(browser, reported, runs):  # noqa: F811
    _open(browser, reported / "report.html")
    _tab(browser, "difficulty")
    charts = _css(browser, "svg.difficulty-chart")
    rows = [r for r in _csv(reported / "difficulty.csv") if int(r["n"])]
    want = {(r["feature"], r["subtask"]) for r in rows}
    assert {(c.get_attribute("data-feature"), c.get_attribute("data-subtask")) for c in charts} == want
    points = []
    for c in charts:
        for p in c.find_elements("css selector", "circle.point"):
            points.append((c.get_attribute("data-feature"), c.get_attribute("data-subtask"),
                           p.get_attribute("data-mode"), p.get_attribute("data-bin"), int(p.get_attribute("data-n")),
                           int(p.get_attribute("data-correct")), float(p.get_attribute("data-accuracy")),
                           float(p.get_attribute("data-ci-low")), float(p.get_attribute("data-ci-high"))))
    assert sorted(points) == sorted((r["feature"], r["subtask"], r["mode"], r["bin"], int(r["n"]), int(r["correct"]),
                                     float(r["accuracy"]), float(r["ci_low"]), float(r["ci_high"])) for r in rows)
    # the points sit where their accuracy says: higher accuracy, smaller y
    for c in charts[:3]:
        ps = c.find_elements("css selector", "circle.point")
        ys = sorted((float(p.get_attribute("data-accuracy")), -float(p.get_attribute("cy"))) for p in ps)
        assert [y for _, y in ys] == sorted(y for _, y in ys)
    assert len(_css(browser, "svg.difficulty-chart polygon.band")) > 0
    assert "SIMULATED" in _css(browser, "#view-difficulty")[0].text
    assert not _errors(browser)
    data = json.loads(browser.execute_script("return document.getElementById('report-data').textContent"))
    assert [p["feature"] for p in data["difficulty"]] == ["plan-length", "width", "list-length"]


def test_report_computes_the_accuracy_by_difficulty_once_for_its_table_and_its_page(runs, tmp_path, monkeypatch):
    from widthbench.reports import curves

    calls = []
    real = curves.breakdown

    def counting(records, feature, *args, **kwargs):
        calls.append(feature)
        return real(records, feature, *args, **kwargs)

    monkeypatch.setattr(curves, "breakdown", counting)
    assert main(["report", str(runs["noisy"]), "--out", str(tmp_path), "--by", "plan-length,list-length"]) == 0
    assert sorted(calls) == ["list-length", "plan-length"]  # once each, not once per writer
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert (tmp_path / "difficulty.csv").exists() and '"feature":"plan-length"' in page
