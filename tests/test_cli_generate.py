"""`widthbench generate`: files written, byte-identical reruns, one-line errors (exit 2)."""

from __future__ import annotations

import json

import pytest

from widthbench.cli import main
from widthbench.generators import read_instance_set


def _files(folder):
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def test_blocksworld_set_with_optimal_plans_by_default(tmp_path, capsys):
    out = tmp_path / "bw"
    assert main(["generate", "blocksworld", "--count", "5", "--blocks", "4-5", "--seed", "3", "--out", str(out)]) == 0
    assert "wrote 5 blocksworld instances" in capsys.readouterr().out
    files = _files(out)
    assert set(files) == {"domain.pddl", "manifest.jsonl"} | {f"instance-000{i}.pddl" for i in range(1, 6)}
    rows = [json.loads(l) for l in files["manifest.jsonl"].decode().splitlines()]
    assert [r["id"] for r in rows] == [f"bw-000{i}" for i in range(1, 6)]
    assert all(r["optimal_length"] == len(r["optimal_plan"]) > 0 for r in rows)
    assert all(r["parameters"]["blocks"] in (4, 5) for r in rows)
    again = tmp_path / "again"
    main(["generate", "blocksworld", "--count", "5", "--blocks", "4-5", "--seed", "3", "--out", str(again), "--quiet"])
    assert _files(again) == files


def test_logistics_set_no_optimal_and_filters(tmp_path):
    out = tmp_path / "lg"
    assert main(["generate", "logistics", "--count", "4", "--cities", "2", "--locations", "2", "--trucks", "2-3",
                 "--airplanes", "1", "--packages", "1-2", "--seed", "1", "--out", str(out), "--no-optimal"]) == 0
    insts = read_instance_set(out)
    assert len(insts) == 4 and all(i.optimal_length is None for i in insts)
    assert all(2 <= i.params["trucks"] <= 3 for i in insts)
    filt = tmp_path / "filt"
    assert main(["generate", "logistics", "--count", "3", "--seed", "2", "--out", str(filt), "--no-optimal",
                 "--min-plan-length", "5"]) == 0
    assert all(i.optimal_length >= 5 for i in read_instance_set(filt))  # a filter computes plans anyway


@pytest.mark.parametrize("argv, message", [
    (["blocksworld", "--count", "3", "--blocks", "6-4"], "--blocks: range 6-4 is empty"),
    (["blocksworld", "--count", "0"], "--count must be a positive integer"),
    (["logistics", "--count", "2", "--cities", "3", "--trucks", "2"], "--trucks 2 is fewer than --cities 3"),
    (["logistics", "--count", "2", "--blocks", "4"], "--blocks does not apply to logistics"),
    (["blocksworld", "--count", "2", "--packages", "4"], "--packages does not apply to blocksworld"),
    (["blocksworld", "--count", "200", "--blocks", "3"], "only 132 distinct"),
    (["blocksworld", "--count", "2", "--timeout", "0"], "--timeout must be positive"),
])
def test_bad_input_is_one_line_on_stderr_with_exit_2(tmp_path, capsys, argv, message):
    code = main(["generate", *argv, "--seed", "1", "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith("widthbench generate: error: ") and message in err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_refuses_a_non_empty_folder_unless_forced(tmp_path, capsys):
    out = tmp_path / "set"
    main(["generate", "blocksworld", "--count", "3", "--seed", "1", "--out", str(out), "--no-optimal"])
    assert main(["generate", "blocksworld", "--count", "2", "--seed", "1", "--out", str(out), "--no-optimal"]) == 2
    assert "not empty" in capsys.readouterr().err
    (out / "notes.txt").write_text("mine")
    assert main(["generate", "blocksworld", "--count", "2", "--seed", "1", "--out", str(out), "--no-optimal",
                 "--force"]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["domain.pddl", "instance-0001.pddl", "instance-0002.pddl",
                                                     "manifest.jsonl", "notes.txt"]
