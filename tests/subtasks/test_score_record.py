"""A score run's records as typed values (subtasks/results/record.py): every record `score` writes
reads back and writes the same JSON; a line of the wrong shape is refused naming the file, the
line and the field, by every command that reads the run."""

from __future__ import annotations

import json

import pytest

from widthbench.cli import main
from widthbench.subtasks.registry import Registry
from widthbench.subtasks.results.cells import Cell
from widthbench.subtasks.results.record import ScoreRecord


def _score(out) -> list[str]:
    return ["score", "--subtask", ",".join(Registry.default().names), "--count", "1", "--thinking", "both",
            "--model", "sim:noisy:0.3", "--seed", "2", "--quiet", "--no-cache", "--out", str(out)]


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("records") / "run"
    assert main(_score(out)) == 0
    return out


def _lines(run) -> list[dict]:
    return [json.loads(x) for x in (run / "items.jsonl").read_text().splitlines() if x.strip()]


def test_every_record_reads_back_typed_and_writes_the_same_json(run):
    lines = _lines(run)
    assert len({r["subtask"] for r in lines}) >= 8
    for r in lines:
        body = {k: v for k, v in r.items() if k != "schema"}
        rec = ScoreRecord.from_json(body)
        assert rec.to_json() == body and list(rec.to_json()) == list(body)
        assert rec.cell == Cell.of(body) and rec.item_id == body["item_id"]
        assert rec.answered == (not body.get("request_error") and not body.get("skipped"))
        for name, got in body["readings"].items():  # each reader's judgement, typed
            j = rec.reading(name)
            assert (j.correct, dict(j.metrics), j.parse_error) == (got["correct"], got["metrics"], got["parse_error"])


@pytest.mark.parametrize("defect, said", [
    (lambda r: r.pop("item_id"), "the record has no 'item_id'"),
    (lambda r: r.update(style=3), "'style' is text, not int"),
    (lambda r: r.update(thinking="maybe"), "not a thinking mode: 'maybe'"),
    (lambda r: r.update(readings=[1]), "'readings' is an object, not list"),
    (lambda r: r["readings"]["strict"].update(parse_error=7), "reading: 'parse_error' is text or null, not int"),
    (lambda r: r.update(sample=-1), "'sample' is a whole number >= 0, not -1"),
])
def test_a_record_of_the_wrong_shape_is_refused_naming_file_line_and_field(run, tmp_path, capsys, defect, said):
    import shutil

    mine = tmp_path / "run"
    shutil.copytree(run, mine)
    lines = _lines(mine)
    defect(lines[2])
    (mine / "items.jsonl").write_text("".join(json.dumps(r) + "\n" for r in lines))
    for argv in (["report", str(mine), "--out", str(tmp_path / "rep")],
                 ["compare", str(run), str(mine), "--out", str(tmp_path / "cmp")],
                 _score(mine)):  # resuming the run
        capsys.readouterr()
        assert main(argv) == 2
        err = capsys.readouterr().err.strip()
        assert err.count("\n") == 0 and f"items.jsonl:3: not a record of this run ({said}" in err, err
