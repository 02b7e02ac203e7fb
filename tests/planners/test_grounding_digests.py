"""Grounded tasks are the same as before grounding was rewritten for speed (issue #33).

``data/grounding_digests.json`` was computed by the grounding code as it was before the rewrite
(`grounding_digests.py` says what a digest covers: objects, atoms and their order, the initial state
and the goal, every action with its masks in id order, the trigger index). Every reference file
(PlanBench's instance folders, ACPBench's 13 domains, the IPC domains with their own and our built-in
domain files) must ground to the same digest, or be refused with the same error line. The tarski
cross-check (test_grounding_tarski.py) checks the same tasks against an independent grounder.
"""

from __future__ import annotations

import json

import pytest

from tests.conftest import need_data
from tests.planners import grounding_digests as gd
from widthbench.errors import UserError
from widthbench.planners import strips


def test_every_reference_file_grounds_to_its_stored_digest():
    need_data()
    stored = json.loads(gd.STORED.read_text())
    now = gd.all_digests()
    assert sorted(now) == sorted(stored), "the reference sets changed: regenerate only after review"
    changed = [f"{dom} | {p}: {stored[dom].get(p)} -> {d}"
               for dom, per in now.items() for p, d in per.items() if stored[dom].get(p) != d]
    assert not changed, f"{len(changed)} task(s) differ, first: {changed[:3]}"


def test_the_digest_sees_a_change_in_order_or_in_a_mask(tmp_path):
    """The digest is not blind: reordering two actions, or dropping one delete bit, changes it."""
    need_data()
    dom_path, probs = next((d, p) for d, p in gd.reference_sets() if "blocksworld" in str(d) and p)
    task = strips.load_task(dom_path, probs[0])
    base = gd.task_digest(task)
    import dataclasses

    a0, a1 = task.actions[0], task.actions[1]
    swapped = dataclasses.replace(task, actions=(a1, a0) + task.actions[2:])
    assert gd.task_digest(swapped) != base
    low = a0.dele & -a0.dele
    fewer = dataclasses.replace(task, actions=(dataclasses.replace(a0, dele=a0.dele ^ low),) + task.actions[1:])
    assert gd.task_digest(fewer) != base
    atoms = dataclasses.replace(task, atoms=task.atoms[::-1])
    assert gd.task_digest(atoms) != base


def test_a_refused_file_is_pinned_by_its_error_line(tmp_path):
    bad = tmp_path / "p.pddl"
    bad.write_text("(define (problem p) (:domain blocksworld) (:objects a) (:init (ontable a) (nosuch a)) (:goal (clear a)))")
    dom = strips.load_domain("blocksworld")
    with pytest.raises(UserError):
        strips.load_task(dom, bad)
    assert gd.file_digest(dom, bad).startswith("error: ")
