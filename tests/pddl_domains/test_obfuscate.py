"""The renaming of --obfuscate: for any seed and mode, injective over every kind of name, never a PDDL
keyword or reader word, never an original name; rendering through it and reading back gives the
original atoms and actions in both styles; the written domain and problem files ground to the same
task up to the renaming; the prompts show none of the original names."""

from __future__ import annotations

import random
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import ACP
from widthbench.generators import generate, read_instance_set
from widthbench.pddl_domains import obfuscate
from widthbench.planners import strips
from widthbench.subtasks import answers, api
from widthbench.subtasks.exact import random_walk


def _tasks():
    out = [generate("blocksworld", 1, 3, blocks=5)[0].task(), generate("logistics", 1, 3, packages=3)[0].task()]
    for name in ("ferry", "gripper-strips", "rover"):
        folder = ACP / name
        if folder.is_dir():
            out.append(read_instance_set(folder)[0].task())
    return out


TASKS = _tasks()
modes = st.sampled_from(obfuscate.MODES)
seeds = st.integers(0, 2**31)
task_index = st.integers(0, len(TASKS) - 1)
NAME = re.compile(r"^[a-z][a-z0-9_-]*$")


@settings(max_examples=25, deadline=None)
@given(mode=modes, seed=seeds, t=task_index)
def test_renaming_is_injective_and_collides_with_nothing(mode, seed, t):
    task = obfuscate.attach_task(TASKS[t], mode, seed)
    v = obfuscate.view(task)
    r = v.renaming
    originals = {*task.domain.predicates, *(s.name for s in task.domain.schemas), *task.domain.types,
                 task.domain.name, *(o for o, _ in task.objects)}
    new = [n for (k, _), n in r.names.items() if k != "variable"] + list(v.objects.values())
    constants = {r.get("constant", c) for c, _ in task.domain.constants}
    new_unique = [n for n in new if n not in constants] + sorted(constants)
    assert len(new_unique) == len(set(new_unique))  # injective across kinds (a constant is one object)
    for n in new:
        assert NAME.match(n) and n not in obfuscate.RESERVED and n not in originals
    assert obfuscate.renaming(TASKS[t].domain, mode, seed).names == r.names  # a function of (mode, seed)
    again = obfuscate.view(obfuscate.attach_task(TASKS[t], mode, seed))
    assert again.objects == v.objects


@settings(max_examples=30, deadline=None)
@given(mode=modes, seed=seeds, t=task_index, walk=st.integers(0, 6), style=st.sampled_from(["pddl", "nl"]))
def test_render_then_read_back_gives_the_original(mode, seed, t, walk, style):
    plain = TASKS[t]
    task = obfuscate.attach_task(plain, mode, seed)
    rng = random.Random(seed)
    s, steps = random_walk(plain, rng, walk)
    r = api.renderer(task, style)
    assert r.parse_state(r.state(s)) == s
    assert set(r.parse_atoms(r.atoms(strips.state_atoms(plain, s)))) == set(strips.state_atoms(plain, s))
    acts = strips.applicable_actions(plain, s)
    assert r.parse_actions(r.actions(acts)) == [str(a) for a in acts]
    for a in acts[:3]:
        assert r.parse_action(r.action(a)) == str(a)
    plan = [str(a) for a in steps]
    if plan:
        assert r.parse_plan(r.plan(plan)) == plan
        q = answers.ReaderContext(task)
        assert answers.PLAN.flexible(q, "Answer:\n" + r.plan(plan), style).value == plan
    assert answers.STATE.flexible(answers.ReaderContext(task), "Answer:\n" + r.state(s), style).value == s


@settings(max_examples=15, deadline=None)
@given(mode=modes, seed=seeds, t=task_index)
def test_written_files_ground_to_the_same_task(mode, seed, t, tmp_path_factory):
    plain = TASKS[t]
    task = obfuscate.attach_task(plain, mode, seed)
    folder = tmp_path_factory.mktemp("obf")
    obfuscate.write_obfuscated_set(folder, [task], ["x"], ["p.pddl"])
    back = strips.load_task(folder / "domain.pddl", folder / "p.pddl")
    v = obfuscate.view(task).task
    assert sorted(back.atoms) == sorted(v.atoms)
    assert sorted(map(str, back.actions)) == sorted(map(str, v.actions))
    assert set(strips.state_atoms(back, back.init)) == set(strips.state_atoms(v, v.init))
    assert set(strips.state_atoms(back, back.goal)) == set(strips.state_atoms(v, v.goal))


@pytest.mark.parametrize("t", range(len(TASKS)))
@pytest.mark.parametrize("style", ["pddl", "nl"])
def test_prompts_show_no_original_name(t, style):
    plain = TASKS[t]
    task = obfuscate.attach_task(plain, "random", 7)
    s, _ = random_walk(plain, random.Random(1), 3)
    text = "\n".join(m["content"] for m in api.action_generation_prompt(task, s, style)
                     + api.plan_generation_prompt(task, style))
    names = {*plain.domain.predicates, *(x.name for x in plain.domain.schemas), *plain.domain.types,
             *(o for o, _ in plain.objects)} - {"object"}
    shown = set(re.findall(r"[a-z][a-z0-9_-]*", text.lower()))
    leaked = {n for n in names if len(n) > 3 and n in shown}
    assert not leaked
    heads = {*plain.domain.predicates, *(x.name for x in plain.domain.schemas)}
    assert not any(f"({n} " in text or f"({n})" in text for n in heads)


def test_attach_refuses_hand_written_presentation(tmp_path):
    from widthbench.core.errors import UserError

    ctx = tmp_path / "c.txt"
    ctx.write_text("my context")
    dom = strips.load_domain("blocksworld", context_file=ctx)
    with pytest.raises(UserError, match="--context"):
        obfuscate.attach(dom, "mystery", 1)
    with pytest.raises(UserError, match="unknown --obfuscate mode"):
        obfuscate.attach(strips.load_domain("blocksworld"), "scrambled", 1)
