"""The simulated models' thinking (docs/llm.md, "Simulated models"; docs/traces.md).

With thinking on, a task-aware simulated model thinks the way reasoning models write: about the state
its question is about (a sub-task prompt's state, a search prompt's state), it restates facts, states
the goal, considers options and rejects those that do not apply, states and checks requirements,
takes a few actions toward the goal and says their effects (the shared trace writer,
`widthbench.pddl_domains.thinking`, in its default words). ``sim:noisy:P`` puts one seeded error into
the thinking with probability P, uniformly a wrong fact, a missing fact or an action that does not
apply, and says where (`Reply.injected`), so that the trace verifier can be scored against it;
``sim:oracle`` and ``sim:random`` think without errors. The thinking is drawn from its own random
generator, made from the request's after the answer: thinking on or off never changes an answer.
"""

from __future__ import annotations

import random

from widthbench.pddl_domains.thinking import KINDS, Writer, write_thinking
from widthbench.planners.strips import Task, applicable_actions, successor

MAX_STEPS = 4  # actions a thought walks at most


def goal_walk(task: Task, state: int, rng: random.Random, steps: int) -> list:
    """Up to ``steps`` actions from ``state``, each adding a goal fact when one can, never undoing the
    action before it."""
    walk, before = [], None
    for _ in range(steps):
        acts = [a for a in applicable_actions(task, state)
                if successor(state, a) != state and successor(state, a) != before]
        if not acts:
            break
        gain = [a for a in acts if task.goal & a.add & ~state]
        a = rng.choice(gain or acts)
        walk.append(a)
        before, state = state, successor(state, a)
    return walk


def strips_question(q) -> tuple[Task, int, str] | None:
    """(task, state, template set) of a STRIPS question read back from its prompt; None for another
    kind of prompt (Game of 24, --tasks) or one with no single state."""
    try:
        if q.family == "subtask":
            return q.task, q.task.init, q.renderer.templates
        if q.reader is None or q.domain is None:
            return None
        problem, state = q.load(q.state_field)
        return problem.task, state, problem.r.templates
    except (KeyError, AttributeError, ValueError):
        return None


def think(q, mode: str, p: float, rng: random.Random) -> tuple[str, list[dict]] | None:
    """(thinking, the errors put into it) about question ``q``; None when ``q`` is no STRIPS question
    about one state."""
    got = strips_question(q)
    if got is None:
        return None
    task, state, templates = got
    walk = goal_walk(task, state, rng, rng.randint(1, MAX_STEPS))
    inject, at = None, 1
    if mode == "noisy" and rng.random() < p:
        inject = rng.choice(KINDS)
        at = rng.randint(0 if inject != "inapplicable-action" else 1, max(1, len(walk)))
    t = write_thinking(Writer(task, q.style, templates, rng), state, walk, inject=inject, at=at)
    return t.text, [i.to_json() for i in t.injections]
