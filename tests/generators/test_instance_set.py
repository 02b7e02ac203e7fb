"""Instance sets on disk: byte-identical writes, round trips, folders without a manifest."""

from __future__ import annotations

import json
import shutil

import pytest

from tests.conftest import BW_DIR, BW_DOMAIN, IPC, LOG_DIR, LOG_DOMAIN, need_data
from widthbench.core.errors import UserError
from widthbench.generators import Instance, generate, read_instance_set, write_instance_set
from widthbench.planners import strips


def _same_task(a: strips.Task, b: strips.Task) -> None:
    assert a.atoms == b.atoms
    assert a.actions == b.actions
    assert (a.init, a.goal, a.goal_neg) == (b.init, b.goal, b.goal_neg)
    assert a.static_atoms == b.static_atoms
    assert a.objects == b.objects
    assert a.problem_name == b.problem_name


@pytest.fixture(scope="module")
def bw_set():
    return generate("blocksworld", 6, seed=1, blocks="4-5")


def test_write_is_byte_identical_and_round_trips(tmp_path, bw_set):
    write_instance_set(tmp_path / "one", "blocksworld", bw_set)
    write_instance_set(tmp_path / "two", "blocksworld", generate("blocksworld", 6, seed=1, blocks="4-5"))
    names = sorted(p.name for p in (tmp_path / "one").iterdir())
    assert names == ["domain.pddl"] + [f"instance-{i:04d}.pddl" for i in range(1, 7)] + ["manifest.jsonl"]
    for n in names:
        assert (tmp_path / "one" / n).read_bytes() == (tmp_path / "two" / n).read_bytes()
    assert (tmp_path / "one/domain.pddl").read_bytes() == strips.domain_path("blocksworld").read_bytes()
    back = read_instance_set(tmp_path / "one")
    assert back == bw_set


def test_manifest_rows(tmp_path, bw_set):
    write_instance_set(tmp_path, "blocksworld", bw_set)
    lines = (tmp_path / "manifest.jsonl").read_text().splitlines()
    assert len(lines) == len(bw_set)
    for line, inst in zip(lines, bw_set):
        row = json.loads(line)
        assert list(row) == sorted(row)
        assert row["id"] == inst.id and row["file"].startswith("instance-")
        assert row["parameters"] == inst.params and row["seed"] == inst.seed
        assert row["optimal_length"] == len(row["optimal_plan"]) == inst.optimal_length
        assert row["domain"] == "blocksworld"


def test_instance_task_equals_the_engine_parser(tmp_path, bw_set):
    write_instance_set(tmp_path, "blocksworld", bw_set)
    for i, inst in enumerate(bw_set, start=1):
        _same_task(inst.task(), strips.load_task("blocksworld", tmp_path / f"instance-{i:04d}.pddl", reader="pddl"))


def test_null_optimal_fields_round_trip(tmp_path):
    insts = generate("logistics", 3, seed=1, optimal=False)
    write_instance_set(tmp_path, "logistics", insts)
    row = json.loads((tmp_path / "manifest.jsonl").read_text().splitlines()[0])
    assert row["optimal_length"] is None and row["optimal_plan"] is None
    assert read_instance_set(tmp_path) == insts


def _copy(tmp_path, domain, files):
    tmp_path.mkdir(exist_ok=True)
    shutil.copy(domain, tmp_path / "domain.pddl")
    for f in files:
        shutil.copy(f, tmp_path / f.name)
    return tmp_path


def test_planbench_blocksworld_folder_without_manifest(tmp_path):
    need_data()
    files = [BW_DIR / f"instance-{i}.pddl" for i in (1, 2, 10, 11, 3)]
    folder = _copy(tmp_path / "pb", BW_DOMAIN, files)
    insts = read_instance_set(folder)
    assert [i.id for i in insts] == ["instance-1", "instance-2", "instance-3", "instance-10", "instance-11"]
    assert all(i.domain == "blocksworld" and i.seed is None and i.optimal_length is None for i in insts)
    for inst in insts:
        _same_task(inst.task(), strips.load_task(BW_DOMAIN, BW_DIR / f"{inst.id}.pddl", reader="pddl"))


def test_planbench_logistics_folder_keeps_its_own_domain(tmp_path):
    need_data()
    files = [LOG_DIR / f"instance-{i}.pddl" for i in (1, 23)]
    folder = _copy(tmp_path / "pb", LOG_DOMAIN, files)
    insts = read_instance_set(folder)
    assert insts[0].domain == str((folder / "domain.pddl").resolve())  # OBJ/TRUCK predicates: not built-in
    for inst in insts:
        _same_task(inst.task(), strips.load_task(LOG_DOMAIN, LOG_DIR / f"{inst.id}.pddl", reader="pddl"))


def test_ipc_folders_with_upper_case_files(tmp_path):
    need_data()
    for name, probs in (("blocksworld", ["probBLOCKS-4-0.pddl", "probBLOCKS-4-1.pddl"]),
                        ("logistics", ["probLOGISTICS-4-0.pddl"])):
        folder = _copy(tmp_path / name, IPC / name / "domain.pddl", [IPC / name / p for p in probs])
        insts = read_instance_set(folder)
        assert [i.domain for i in insts] == [name] * len(probs)
        for inst, p in zip(insts, probs):
            _same_task(inst.task(), strips.load_task(IPC / name / "domain.pddl", IPC / name / p, reader="pddl"))


def test_errors_name_the_folder_file_or_line(tmp_path, bw_set):
    with pytest.raises(UserError, match="not found"):
        read_instance_set(tmp_path / "missing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(UserError, match="no domain.pddl"):
        read_instance_set(tmp_path / "empty")
    good = tmp_path / "set"
    write_instance_set(good, "blocksworld", bw_set)
    manifest = good / "manifest.jsonl"
    rows = manifest.read_text().splitlines()
    manifest.write_text(rows[0] + "\n{not json\n")
    with pytest.raises(UserError, match=r"manifest.jsonl:2: not JSON"):
        read_instance_set(good)
    manifest.write_text(rows[0].replace("instance-0001", "instance-9999") + "\n")
    with pytest.raises(UserError, match=r"manifest.jsonl:1: problem file instance-9999.pddl not found"):
        read_instance_set(good)
    manifest.unlink()
    (good / "instance-0002.pddl").write_text("(define (problem x) (:domain blocksworld) (:objects a)"
                                             " (:init (ontable zz)) (:goal (and)))")
    with pytest.raises(UserError, match=r"instance-0002.pddl: unknown object 'zz'"):
        read_instance_set(good)


def test_duplicate_ids_are_refused(tmp_path, bw_set):
    twice = [bw_set[0], bw_set[0]]
    with pytest.raises(UserError, match="occurs twice"):
        write_instance_set(tmp_path, "blocksworld", twice)


def test_instance_is_frozen(bw_set):
    with pytest.raises(AttributeError):
        bw_set[0].id = "x"  # type: ignore[misc]
    assert isinstance(bw_set[0], Instance)


def test_a_second_domain_file_in_the_folder_is_not_read_as_a_problem(tmp_path):
    from widthbench.generators import read_instance_set, generate, write_instance_set

    write_instance_set(tmp_path, "blocksworld", generate("blocksworld", 2, seed=3, optimal=False))
    (tmp_path / "domain-copy.pddl").write_text("; another copy\n(define (domain other) (:predicates (p)))")
    assert [i.id for i in read_instance_set(tmp_path)] == [i.id for i in read_instance_set(tmp_path)]
    (tmp_path / "manifest.jsonl").unlink()
    ids = [i.id for i in read_instance_set(tmp_path)]
    assert len(ids) == 2 and "domain-copy" not in ids
