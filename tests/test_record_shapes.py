"""A solve run's record of the wrong shape (a field its summary is computed from missing or of
another type) is refused in one line naming the file, the line and the field, by `report` and by
a resumed `solve` (widthbench/core/schema.py `RunKind.fields`), never a traceback."""

from __future__ import annotations

import json
import shutil

import pytest

from widthbench.cli import main


def _solve(out) -> list[str]:
    return ["solve", "--method", "tot-bfs", "--domain", "blocksworld", "--count", "2", "--seed", "1",
            "--model", "sim:noisy:0.2", "--quiet", "--no-cache", "--out", str(out)]


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("solve") / "run"
    assert main(_solve(out)) == 0
    return out


@pytest.mark.parametrize("defect, said", [
    (lambda r: r.pop("solved"), "the record has no 'solved'"),
    (lambda r: r.update(tokens="many"), "'tokens' is a number, not str"),
    (lambda r: r.update(tokens_by_purpose=[]), "'tokens_by_purpose' is an object, not list"),
    (lambda r: r.update(id=3), "'id' is text, not int"),
])
def test_a_solve_record_of_the_wrong_shape_is_one_line_naming_file_line_and_field(run, tmp_path, capsys,
                                                                                  defect, said):
    mine = tmp_path / "run"
    shutil.copytree(run, mine)
    lines = [json.loads(x) for x in (mine / "items.jsonl").read_text().splitlines() if x.strip()]
    defect(lines[1])
    (mine / "items.jsonl").write_text("".join(json.dumps(r) + "\n" for r in lines))
    for argv in (["report", str(mine), "--out", str(tmp_path / "rep")], _solve(mine)):
        capsys.readouterr()
        assert main(argv) == 2
        err = capsys.readouterr().err.strip()
        assert "\n" not in err and f"items.jsonl:2: not a record of this run ({said})" in err, err


def test_the_untouched_run_still_reports(run, tmp_path):
    assert main(["report", str(run), "--out", str(tmp_path / "rep")]) == 0
