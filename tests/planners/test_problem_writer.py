"""The one problem writer: what it writes reads back (fast reader and `pddl` package) to the same task."""

from __future__ import annotations

import random

import pytest

from widthbench.generators import generate
from widthbench.planners import fd
from widthbench.planners.problem_writer import problem_text, task_problem_text
from widthbench.planners.strips import applicable_actions, ground, load_domain, parse_problem_text, successor


def _same_task(a, b):
    assert (a.atoms, a.init, a.goal, a.goal_neg, a.static_atoms) == (b.atoms, b.init, b.goal, b.goal_neg,
                                                                      b.static_atoms)
    assert [str(x) for x in a.actions] == [str(x) for x in b.actions]


@pytest.mark.parametrize("reader", ["fast", "pddl"])
def test_task_problem_text_reads_back_to_the_same_task_from_any_state(reader):
    rng = random.Random(4)
    tasks = [i.task() for i in generate("blocksworld", 2, 3, blocks="4", optimal=False)]
    tasks += [i.task() for i in generate("logistics", 1, 3, cities="2", locations="2", airplanes="1",
                                         packages="2", optimal=False)]
    for task in tasks:
        s = task.init
        for _ in range(5):
            s = successor(s, rng.choice(applicable_actions(task, s)))
        back = parse_problem_text(task.domain, task_problem_text(task, s), reader=reader)
        # both domains are reversible: grounding from a reachable state gives the same atoms and actions
        assert back.init == s and back.atoms == task.atoms and back.actions == task.actions
        _same_task(task, parse_problem_text(task.domain, task_problem_text(task), reader=reader))


def test_negative_goals_are_written_and_static_false_goals_refused():
    dom = load_domain("blocksworld")
    task = ground(dom, ["a", "b"], ["(ontable a)", "(ontable b)", "(clear a)", "(clear b)", "(handempty)"],
                  ["(on a b)"], name="neg", goal_neg=["(clear b)"])
    text = task_problem_text(task)
    assert "(not (clear b))" in text
    _same_task(task, parse_problem_text(dom, text, reader="pddl"))
    assert fd.problem_pddl(task) == text


def test_problem_text_layout_is_one_atom_per_line():
    text = problem_text("p1", "blocksworld", ["a", "b"], ["(ontable a)", "(handempty)"], ["(on a b)"])
    assert text.splitlines() == ["(define (problem p1)", "  (:domain blocksworld)", "  (:objects a b)", "  (:init",
                                 "    (ontable a)", "    (handempty)", "  )", "  (:goal", "    (and",
                                 "      (on a b)", "    )", "  )", ")"]
