"""Stable item ids (`subtasks.item_ids`): the same question has the same id in any run."""

from __future__ import annotations

import dataclasses
import json
import shutil

from widthbench.cli import main
from widthbench.generators import read_instance_set
from widthbench.subtasks import item_ids
from widthbench.subtasks.items import ItemOptions, Pool, build_items
from widthbench.subtasks.score_run import stable_ids


def _records(out):
    return [json.loads(line) for line in (out / "items.jsonl").read_text().splitlines() if line.strip()]


def test_two_runs_with_other_seeds_orders_and_folders_give_each_question_the_same_id(two_small_instances, tmp_path):
    """The same instances copied to another folder, scored with another seed: every plan
    (initial-state) question has the id it had, and ids differ between instances."""
    copy = tmp_path / "elsewhere"
    shutil.copytree(two_small_instances, copy)
    base = ["score", "--model", "sim:oracle", "--subtask", "plan-generation", "--count", "2", "--style", "pddl",
            "--thinking", "off", "--no-cache", "--quiet"]
    assert main([*base, "--instances", str(two_small_instances), "--seed", "0", "--out", str(tmp_path / "a")]) == 0
    assert main([*base, "--instances", str(copy), "--seed", "7", "--request-seeds",
                 "--out", str(tmp_path / "b")]) == 0
    a = {r["instance_id"]: r["item_id"] for r in _records(tmp_path / "a")}
    b = {r["instance_id"]: r["item_id"] for r in _records(tmp_path / "b")}
    assert a == b and len(set(a.values())) == 2
    assert all(i.startswith("plan-generation-") and len(i) == len("plan-generation-") + 12 for i in a.values())


def test_an_items_id_is_its_content_not_its_place_or_order(two_small_instances):
    insts = read_instance_set(two_small_instances)
    forward = build_items("plan-generation", Pool(None, 3, instances=insts), 2, ItemOptions())
    backward = build_items("plan-generation", Pool(None, 3, instances=list(reversed(insts))), 2, ItemOptions())
    assert {(i.instance_id, i.id) for i in forward} == {(i.instance_id, i.id) for i in backward}
    assert forward[0].id != forward[1].id
    forward = build_items("successor-mapping", Pool(None, 3, instances=insts), 2, ItemOptions())
    item = forward[0]
    assert dataclasses.replace(item, index=41).id == item.id  # its place in a run is not its id
    assert dataclasses.replace(item, subtask="successor-separate").id != item.id
    other = next(s for s in (item.task.init, *(i.state for i in forward)) if s != item.state)
    assert dataclasses.replace(item, state=other).id != item.id  # another question: another id
    assert dataclasses.replace(item, actions=item.actions[:-1]).id != item.id


def test_the_instance_content_ignores_layout_and_names_but_not_the_facts(two_small_instances):
    insts = read_instance_set(two_small_instances)
    task = insts[0].task()
    same = insts[0].task()
    assert item_ids.task_digest(task) == item_ids.task_digest(same)
    assert item_ids.task_digest(task) != item_ids.task_digest(insts[1].task())


def test_records_of_a_run_made_before_stable_ids_are_given_them_on_resume(two_small_instances):
    items = {"plan-generation": build_items("plan-generation", Pool(None, 0, instances=read_instance_set(
        two_small_instances)), 2, ItemOptions())}
    first = items["plan-generation"][1]
    old = {"subtask": "plan-generation", "index": first.index, "item_id": f"plan-generation-{first.index:04d}"}
    assert item_ids.is_positional(old)
    (new,) = stable_ids([old], items)
    assert new["item_id"] == first.id and not item_ids.is_positional(new)
    unknown = dict(old, index=9, item_id="plan-generation-0009")
    assert stable_ids([unknown], items) == [unknown]  # not an item of this run: left as it is


def test_solve_records_name_each_problem_by_its_content(two_small_instances, tmp_path):
    copy = tmp_path / "elsewhere"
    shutil.copytree(two_small_instances, copy)
    ids = []
    for folder, seed, out in ((two_small_instances, "0", "a"), (copy, "5", "b")):
        assert main(["solve", "--method", "naive", "--instances", str(folder), "--seed", seed, "--model", "sim:oracle",
                     "--no-cache", "--out", str(tmp_path / out), "--quiet"]) == 0
        ids.append({r["id"]: r["item_id"] for r in _records(tmp_path / out)})
    assert ids[0] == ids[1] and len(set(ids[0].values())) == 2
    assert all(i.startswith("solve-") for i in ids[0].values())
