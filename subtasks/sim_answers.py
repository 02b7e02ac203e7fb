"""Simulated answers to the sub-task prompts, computed by the engine (the sub-task records'
``simulate`` entries; docs/subtasks.md, "Simulated models").

Each answer function takes a question read back from the prompt by the simulated models' one prompt
reader (`widthbench.simulated.prompt.ReadPrompt`: the rebuilt task with the prompt's state as its
initial state, its renderer and ground truth, the prompt's fields), the mode (``oracle``, ``noisy``
or ``random``), whether to corrupt the answer, and the request's random generator, and returns
(answer text, a note for the reasoning):

- ``oracle``: the correct answer, written in the format the prompt asks for;
- ``noisy``: the oracle's answer made wrong in a realistic way (a dropped or an extra action,
  pick-up/unstack confused, a wrong fact in a state, a flipped verdict, a novelty or width off by
  one). Every corruption makes the answer wrong for every metric of its item, so the expected
  accuracy of a single-request item is exactly 1 - P;
- ``random``: a well-formed random answer (a random action or subset of actions, the successor of a
  random applicable action, a coin-flip verdict, a number from 1 to 3).
"""

from __future__ import annotations

from widthbench.core.errors import UserError
from widthbench.planners import strips
from widthbench.subtasks import api
from widthbench.subtasks.exact import inapplicable_action, novelty_of, wrong_state
from widthbench.planners.iw import iterated_width
from widthbench.planners.state_model import StripsModel


# ---------------------------------------------------------------------------------------------
# Answers per sub-task kind: (text, note for the reasoning)


def _action_generation(q, mode, corrupt, rng):
    task, r = q.task, q.renderer
    s = q.state()
    acts = [str(a) for a in strips.applicable_actions(task, s)]
    if mode == "random":
        pool = [str(a) for a in task.actions]
        acts = rng.sample(pool, min(len(pool), rng.randint(1, 6)))
        return r.actions(acts), "I list a few actions at random."
    if corrupt:
        acts = _corrupt_action_set(task, s, acts, rng)
    return r.actions(acts), f"I count {len(acts)} applicable actions."


def _corrupt_action_set(task, s, acts, rng):
    acts = list(acts)
    extra = inapplicable_action(task, s, rng)
    if acts and (extra is None or rng.random() < 0.5):
        acts.pop(rng.randrange(len(acts)))
    elif extra is not None:
        acts.insert(rng.randrange(len(acts) + 1), extra)
    return acts


def _next_action(q, mode, corrupt, rng):
    task, r = q.task, q.renderer
    s = q.state()
    if mode == "random":
        return r.action(rng.choice(task.actions)), "I pick an action at random."
    best = [str(a) for a in q.truth.optimal_next_actions(s)]
    if not best:
        return "none", "The goal already holds or cannot be reached."
    if corrupt:
        wrong = inapplicable_action(task, s, rng)
        if wrong is not None:
            return r.action(wrong), "I take the block I want."
    return r.action(rng.choice(best)), f"{len(best)} action(s) start a shortest plan."


def _wrong_state(task, s: int, t: int, rng) -> int:
    return wrong_state(task, t, rng)


def _successor_of(task, s: int, action: str) -> int:
    a = strips.parse_action(task, action)
    # An action that cannot be taken leaves the state as it is.
    return strips.successor(s, a) if strips.is_applicable(s, a) else s


def _successor(q, mode, corrupt, rng):
    task, r = q.task, q.renderer
    s = q.state()
    if mode == "random":
        acts = strips.applicable_actions(task, s)
        t = strips.successor(s, rng.choice(acts)) if acts else s
        return r.state(t, include_static=False), "I apply some action."
    t = _successor_of(task, s, r.parse_action(q.fields["action"]))
    if corrupt:
        t = _wrong_state(task, s, t, rng)
    return r.state(t, include_static=False), "I apply the action's effects."


def _successor_mapping(q, mode, corrupt, rng):
    task, r = q.task, q.renderer
    s = q.state()
    actions = r.parse_actions(q.fields["actions"])
    results = []
    applicable = strips.applicable_actions(task, s)
    for a in actions:
        if mode == "random":
            results.append(strips.successor(s, rng.choice(applicable)) if applicable else s)
        else:
            results.append(_successor_of(task, s, a))
    if corrupt and results:
        i = rng.randrange(len(results))
        results[i] = _wrong_state(task, s, results[i], rng)
    # Resulting states list the facts that change only: statics (and type facts) never count, and
    # repeating them per action would overflow max_tokens on domains with many (grid, rover).
    blocks = [f"Action: {r.action(a)}\nResulting state:\n{r.state(t, include_static=False)}"
              for a, t in zip(actions, results)]
    return "\n\n".join(blocks), f"I map {len(actions)} actions."


def _yes_no(value: bool) -> str:
    return "yes" if value else "no"


def _verification(q, mode, corrupt, rng):
    task, r = q.task, q.renderer
    if mode == "random":
        return _yes_no(rng.random() < 0.5), "I guess."
    plan = r.parse_plan(q.fields["plan"])
    try:
        valid = strips.execute_plan(task, plan, q.state()).valid
    except UserError:  # an action outside the task: the plan cannot be executed
        valid = False
    return _yes_no(valid != corrupt), "I execute the plan step by step."


def _goal_check(q, mode, corrupt, rng):
    if mode == "random":
        return _yes_no(rng.random() < 0.5), "I guess."
    return _yes_no(strips.is_goal(q.task, q.state()) != corrupt), "I compare the state with the goal."


def _novelty(q, mode, corrupt, rng):
    if mode == "random":
        return _yes_no(rng.random() < 0.5), "I guess."
    width = api.novelty_width_of(q.fields["criterion"])
    new = q.state("new_state")
    prev = q.previous()
    if width is None:
        novel = not any(p & new == new for p in prev)
    else:
        novel = new not in prev and novelty_of(new, prev, width) is not None
    return _yes_no(novel != corrupt), f"I compare the new state with {len(prev)} earlier states."


def _novelty_estimate(q, mode, corrupt, rng):
    if mode == "random":
        return str(rng.randint(1, 3)), "I guess."
    new = q.state("new_state")
    n = novelty_of(new, q.previous())
    value = n if n is not None else bin(new).count("1") + 1
    return str(_off_by_one(value, rng) if corrupt else value), "I look for the smallest new set of facts."


def _width_estimate(q, mode, corrupt, rng):
    if mode == "random":
        return str(rng.randint(1, 3)), "I guess."
    task = q.task
    res = iterated_width(StripsModel(task), max_k=max(1, task.n_atoms))
    value = res.width if res.width is not None else 0
    return str(_off_by_one(value, rng) if corrupt else value), "I run IW(1), IW(2), ... in my head."


def _off_by_one(value: int, rng) -> int:
    return value + 1 if value <= 1 or rng.random() < 0.5 else value - 1


ANSWERS = {
    "action_generation": _action_generation,
    "next_action": _next_action,
    "successor": _successor,
    "successor_mapping": _successor_mapping,
    "verification": _verification,
    "goal_check": _goal_check,
    "novelty": _novelty,
    "novelty_estimate": _novelty_estimate,
    "width_estimate": _width_estimate,
}
