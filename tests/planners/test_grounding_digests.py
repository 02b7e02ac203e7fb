"""Grounded tasks are the same as before grounding was rewritten for speed (issue #33).

``data/grounding_digests.json`` was computed by the grounding code as it was before the rewrite
(`grounding_digests.py` says what a digest covers: objects, atoms and their order, the initial state
and the goal, every action with its masks in id order, the trigger index). Every reference file
(PlanBench's instance folders, ACPBench's 13 domains, the IPC domains with their own and our built-in
domain files) must ground to the same digest, or be refused with the same error line. The tarski
cross-check (test_grounding_tarski.py) checks the same tasks against an independent grounder.
"""

from __future__ import annotations

import functools
import json

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from tests.conftest import need_data
from tests.planners import grounding_digests as gd
from tests.planners.reference_grounding import reference_bindings
from widthbench.core.errors import UserError
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


def _domains_with_objects():
    """(domain, objects of one reference problem) for each of ACPBench's 13 domains and the IPC ones."""
    need_data()
    return _load_domains_with_objects()


@functools.lru_cache(maxsize=None)
def _load_domains_with_objects():
    """Loaded once per session (not once per hypothesis example): the same files every time."""
    out = []
    for dom_path, probs in gd.reference_sets():
        if "acpbench" not in str(dom_path) and "ipc" not in str(dom_path) or not probs:
            continue
        try:
            task = strips.load_task(dom_path, probs[0])
        except UserError:
            continue
        init = [strips.parse_atom_text(a) for a in strips.state_atoms(task, task.init) + list(task.static_atoms)]
        out.append((task.domain, dict(task.objects), tuple(init)))
    return tuple(out)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_reachability_grounding_equals_the_old_fixpoint_on_random_initial_states(data):
    """The engine's queue-driven grounding finds the same reachable atoms and the same bindings as the
    old round-by-round fixpoint, from random initial states (random atoms over a random subset of a
    reference problem's objects, on every reference domain: typed, static predicates, constants,
    equality, negative and disjunctive static preconditions)."""
    cases = _domains_with_objects()
    dom, objects, real_init = data.draw(st.sampled_from(cases))
    names = sorted(objects)
    if data.draw(st.booleans()):
        keep = names
    else:
        keep = data.draw(st.lists(st.sampled_from(names), min_size=1, max_size=min(8, len(names)), unique=True))
    objs = {n: objects[n] for n in keep} | {c: t for c, t in dom.constants}
    # the problem's own initial atoms over the objects kept, some dropped, plus random atoms
    own = [a for a in real_init if all(x in objs for x in a[1])]
    dropped = set(data.draw(st.lists(st.sampled_from(own), max_size=len(own) // 3))) if own else set()
    pool = sorted((p, args) for p, arity in dom.predicates.items() for args in _tuples(sorted(objs), arity))
    extra = set(data.draw(st.lists(st.sampled_from(pool), max_size=20))) if pool else set()
    init = (set(own) - dropped) | extra
    new_reach, new_found = strips._reachable_bindings(dom, objs, init)
    old_reach, old_found = reference_bindings(dom, objs, init)
    assert new_reach == old_reach
    assert new_found == old_found
    event(f"bindings found: {min(sum(map(len, new_found.values())), 10) // 5 * 5}+")


def _tuples(names, arity, limit=4000):
    import itertools

    out = []
    for t in itertools.product(names, repeat=arity):
        out.append(t)
        if len(out) >= limit:
            break
    return out


def test_a_grounded_task_pickles_and_its_domain_grounds_again_after():
    """The executor sends tasks and domains to worker processes: the domain's cached join plans
    (functions) are left out of the pickle and made again there, with the same task."""
    import pickle

    need_data()
    dom_path, probs = next((d, p) for d, p in gd.reference_sets() if "plan-bench/instances/logistics" in str(d))
    task = strips.load_task(dom_path, probs[0])
    copy = pickle.loads(pickle.dumps(task))
    again = strips.load_task(copy.domain, probs[0])
    assert gd.task_digest(again) == gd.task_digest(task) == gd.task_digest(copy)
