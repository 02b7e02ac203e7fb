"""Every file a run writes says its layout ("schema"), and a run folder of the previous layout is
read through the one migration (`widthbench.core.schema.migrate`) or refused in one line (issue 41).

The folders under tests/fixtures/runs-c1767de/ were written by widthbench at commit c1767de (the
layout before "schema": score, solve, solve --thinking both, widths, rescore, traces, and a
generated instance set, which is no run); the score run's prompt texts are cut to keep the fixture
small (a report never reads them)."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pytest

from widthbench.cli import main
from widthbench.core.runstore import flatten
from widthbench.core.schema import SCHEMA
from widthbench.subtasks.results.loader import load_runs

FIXTURES = Path(__file__).parent / "fixtures" / "runs-c1767de"


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _csv(path: Path) -> list[dict]:
    with path.open(encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def _copy(name: str, tmp_path: Path) -> Path:
    dest = tmp_path / name
    shutil.copytree(FIXTURES / name, dest)
    return dest


def test_every_file_a_score_widths_and_traces_run_writes_says_its_schema(tmp_path, capsys):
    score, widths, traces = tmp_path / "score", tmp_path / "widths", tmp_path / "traces"
    assert main(["score", "--subtask", "successor-mapping", "--count", "1", "--style", "nl", "--thinking", "on",
                 "--model", "sim:oracle", "--out", str(score), "--quiet", "--no-cache"]) == 0
    assert main(["widths", "blocksworld", "--count", "2", "--seed", "1", "--max-width", "2", "--quiet",
                 "--out", str(widths)]) == 0
    assert main(["traces", str(score), "--quiet", "--out", str(traces)]) == 0
    capsys.readouterr()
    for folder, files, records in ((score, ("config.json", "summary.json", "tokens.json"), ("items.jsonl",)),
                                   (widths, ("config.json", "summary.json"), ("widths.jsonl", "widths.jobs.jsonl")),
                                   (traces, ("config.json", "summary.json"), ("traces.jsonl",))):
        for name in files:
            assert json.loads((folder / name).read_text())["schema"] == SCHEMA, folder / name
        for name in records:
            lines = _lines(folder / name)
            assert lines and all(r["schema"] == SCHEMA for r in lines), folder / name
    # the summary names its kind, as the store's config.json does
    assert json.loads((widths / "summary.json").read_text())["kind"] == "widths"
    assert json.loads((traces / "summary.json").read_text())["kind"] == "traces"
    # the code reads records without the layout field: the run's rows are the rows it computed
    run = load_runs([widths])[0]
    assert run.kind == "widths" and run.records and all("schema" not in r for r in run.records)
    assert [r["instance"] for r in run.records] == [r["instance"] for r in _lines(widths / "widths.jsonl")]


def test_traces_out_refuses_a_folder_holding_another_kind_of_run_and_leaves_it_whole(tmp_path, capsys):
    score = _copy("score", tmp_path)
    before = (score / "items.jsonl").read_bytes()
    assert main(["traces", str(score), "--quiet", "--out", str(score)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "holds a score run, not a traces run" in err[0]
    assert (score / "items.jsonl").read_bytes() == before


def _no_note(err: str) -> None:
    assert "note:" not in err and "Traceback" not in err


def test_a_score_run_of_the_previous_layout_reports_the_figures_it_recorded(tmp_path, capsys):
    run, out = _copy("score", tmp_path), tmp_path / "out"
    assert main(["report", str(run), "--out", str(out)]) == 0
    _no_note(capsys.readouterr().err)
    recorded = json.loads((run / "summary.json").read_text())
    want = {(r["subtask"], r["metric"], r["style"], r["thinking"], str(r["extension"]), r["reader"]):
            (r["n"], r["correct"], r["accuracy"]) for r in recorded["rows"]}
    shown = {(r["subtask"], r["metric"], r["style"], r["thinking"], r["extension"], r["reader"]):
             (int(r["n"]), int(r["correct"]), float(r["accuracy"])) for r in _csv(out / "rows.csv")}
    assert want and all(shown[k] == v for k, v in want.items())
    assert (out / "report.html").is_file()


@pytest.mark.parametrize("name", ["solve", "solve-both"])
def test_a_solve_run_of_the_previous_layout_reports_the_figures_it_recorded(name, tmp_path, capsys):
    run, out = _copy(name, tmp_path), tmp_path / "out"
    assert main(["report", str(run), "--out", str(out)]) == 0
    _no_note(capsys.readouterr().err)
    parts = [run] if name == "solve" else [run / "thinking-off", run / "thinking-on"]
    recorded = [json.loads((p / "summary.json").read_text()) for p in parts]
    shown = _csv(out / "search_runs.csv")
    assert len(shown) == len(recorded)
    assert sorted((r["Solved"], float(r["Mean states"]), float(r["Mean calls"])) for r in shown) == \
        sorted((f"{s['solved']}/{s['n']}", s["mean_states"], s["mean_calls"]) for s in recorded)


@pytest.mark.parametrize("name,kind", [("widths", "widths"), ("rescore", "rescore"), ("traces", "traces")])
def test_a_run_of_any_other_kind_of_the_previous_layout_reports_each_figure_it_recorded(name, kind, tmp_path,
                                                                                        capsys):
    run, out = _copy(name, tmp_path), tmp_path / "out"
    assert main(["report", str(run), "--out", str(out)]) == 0
    _no_note(capsys.readouterr().err)
    recorded = {k: v for k, v in flatten(json.loads((run / "summary.json").read_text())).items() if k != "kind"}
    shown = _csv(out / "runs.csv")
    assert {r["kind"] for r in shown} == {kind}
    assert {r["field"]: r["value"] for r in shown} == {
        k: v if isinstance(v, str) else json.dumps(v) for k, v in recorded.items()}
    assert f"a {kind} run" in (out / "runs.md").read_text()


def test_a_folder_that_is_no_run_is_refused_in_one_line(tmp_path, capsys):
    bw = _copy("bw", tmp_path)
    assert main(["report", str(bw), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no summary.json" in err[0]


@pytest.mark.parametrize("file", ["summary.json", "config.json"])
def test_a_folder_of_a_layout_this_widthbench_cannot_read_is_refused_in_one_line_naming_its_schema(
        file, tmp_path, capsys):
    run = _copy("solve", tmp_path)
    data = json.loads((run / file).read_text())
    (run / file).write_text(json.dumps({**data, "schema": 99}))
    assert main(["report", str(run), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"{file}: schema 99" in err[0] and "Traceback" not in err[0]


def test_a_record_of_a_layout_this_widthbench_cannot_read_is_refused_in_one_line(tmp_path, capsys):
    run = _copy("solve", tmp_path)
    records = _lines(run / "items.jsonl")
    records[-1]["schema"] = 7
    (run / "items.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    assert main(["report", str(run), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "items.jsonl: schema 7" in err[0]


def test_the_previous_layout_is_migrated_to_this_one(tmp_path):
    runs = load_runs([_copy(n, tmp_path) for n in ("score", "widths", "rescore", "traces")])
    assert [r.kind for r in runs] == ["score", "widths", "rescore", "traces"]
    # each summary now says this layout and its kind; rescore keeps the kind its summary named
    assert [r.summary["kind"] for r in runs] == ["score", "widths", "rescore-planbench", "traces"]
    assert all(r.summary["schema"] == SCHEMA for r in runs)


def test_score_table_loads_its_run_once(tmp_path, capsys, monkeypatch):
    from widthbench.subtasks.results import loader

    calls = []
    load_run = loader.load_run
    monkeypatch.setattr(loader, "load_run", lambda *a, **k: calls.append(a) or load_run(*a, **k))
    run = tmp_path / "run"
    assert main(["score", "--subtask", "action-generation", "--count", "1", "--style", "nl", "--thinking", "off",
                 "--model", "sim:oracle", "--out", str(run), "--quiet", "--no-cache", "--table"]) == 0
    assert len(calls) == 1
    assert (run / "report.html").is_file() and (run / "difficulty.csv").is_file() and (run / "table.md").is_file()
    capsys.readouterr()


def test_the_headline_reader_is_decided_once_when_the_run_is_loaded_and_the_page_shows_it(tmp_path):
    from widthbench.reports.html import payload

    run = _copy("score", tmp_path)
    summary = json.loads((run / "summary.json").read_text())
    assert summary["headline_reader"] == "flexible"
    del summary["headline_reader"]  # a run made before the field: its records' reader is the headline
    (run / "summary.json").write_text(json.dumps(summary))
    loaded = load_runs([run])[0]
    assert loaded.summary["headline_reader"] == "flexible"
    assert payload([loaded])["runs"][0]["headline_reader"] == "flexible"
    summary["reader"] = "strict"  # the reader the run was made with, named by its summary, wins
    (run / "summary.json").write_text(json.dumps(summary))
    assert load_runs([run])[0].summary["headline_reader"] == "strict"
