"""Simulated answers to the STRIPS search prompts (llm/prompts/search/), computed by the engine.

`STRIPS_ANSWERS` maps each search prompt kind to its answer function, with the signature of the
sub-task records' simulated answers: (question, mode, corrupt, rng) -> (text, note). The question
comes from the simulated models' one prompt reader (`widthbench.simulated.prompt`), which rebuilt
the task from the prompt text; `q.load(field)` gives the problem (task, renderer, ground truth) and
the state written in a field. Answers:

- ``direct``: an optimal next action and its successor; ``naive``: an optimal plan;
  ``judge_pre``/``judge_post``: 10 for a step along a shortest plan, 5 for a step that keeps the
  distance, 3 for a step away from the goal, 0 for an impossible action or a wrong resulting state
  (with τ_pre = 0.3 and τ_post = 0.4, pre-pruning removes impossible actions and post-pruning
  also steps away from the goal);
  ``value``: 10 − h*(s) (0 for dead ends and h* ≥ 10); ``novelty_summary``: every fact true in some
  listed state; ``novelty_summarised``: judged against the states listed in full (a summary cannot
  show a repeat).
- Game of 24 and --tasks prompts are answered by `searches.game24` / `searches.question_sets`.

``noisy:P`` corrupts an answer with probability P: a direct step takes a confused, inapplicable
action (40%), writes a wrong resulting state (40%), or writes a fact no parser can read (20%: the
search records a dead node); plans lose or swap an action; scores and values move; verdicts flip.
``random`` gives well-formed random answers. The rebuilt task and its ground truth (h* for every
state) are kept by the prompt reader, so a search's thousands of prompts are answered in
milliseconds each.
"""

from __future__ import annotations

import json
import math
import re

from widthbench.core.errors import ParseError, UserError
from widthbench.planners import strips
from widthbench.subtasks import api
from widthbench.subtasks.exact import inapplicable_action, novelty_of, wrong_state

UNREADABLE_FACT = {"nl": "the table is floating above the ceiling", "pddl": "(floating table ceiling)"}


def _load(q, state_field: str = "state"):
    return q.load(state_field)


def _parse_states(q, problem, field: str) -> list[int]:
    text = q.fields[field]
    blocks = api.listed_states(text) if field == "previous" else [text]
    return [q.reader.parse_state(problem, b) for b in blocks]


def _step_score(t, s: int, succ: int) -> int:
    hs, ht = t.h(s), t.h(succ)
    if ht == math.inf:
        return 3
    if ht < hs:
        return 10
    return 5 if ht == hs else 3


def _wrong_state(t, s: int, rng) -> int:
    return wrong_state(t.task, s, rng)


def _confused(t, s: int, good, rng):
    """An inapplicable action mirroring a good one (pick-up vs unstack), else any inapplicable one."""
    text = inapplicable_action(t.task, s, rng, like=good)
    return None if text is None else t.task.action_index[text]


def _direct(q, mode, corrupt, rng):
    t, s = _load(q)
    task, r = t.task, t.r
    applicable = strips.applicable_actions(task, s)
    if not applicable:
        return "none", "No action can be taken."
    if mode == "random":
        a = rng.choice(applicable)
        return f"Action: {r.action(a)}\nResulting state:\n{r.state(strips.successor(s, a))}", "I take some action."
    best = t.gt.optimal_next_actions(s) if t.h(s) not in (0, math.inf) else []
    a = rng.choice(best or applicable)
    succ = strips.successor(s, a)
    state_text = r.state(succ)
    note = f"{len(best)} action(s) start a shortest plan."
    if corrupt:
        roll = rng.random()
        wrong = _confused(t, s, [a], rng) if roll < 0.4 else None
        if wrong is not None:
            a, state_text, note = wrong, r.state(strips.successor(s, wrong)), "I take the block I want."
        elif roll < 0.8:
            state_text, note = r.state(_wrong_state(t, succ, rng)), "I update the facts."
        else:
            state_text, note = state_text + "\n" + UNREADABLE_FACT[q.style], "I describe the scene."
    return f"Action: {r.action(a)}\nResulting state:\n{state_text}", note


def _naive(q, mode, corrupt, rng, keep: list | None = None):
    """An optimal plan (noisy: one step dropped or confused); ``keep``: a prefix of the model's last
    plan that the validator did not fault, completed optimally from where it ends."""
    t, s = _load(q)
    task, r = t.task, t.r
    if mode == "random":
        plan, cur = [], s
        for _ in range(rng.randint(1, 8)):
            acts = strips.applicable_actions(task, cur)
            if not acts:
                break
            a = rng.choice(acts)
            plan.append(a)
            cur = strips.successor(cur, a)
        return r.plan(plan), "I move blocks around."
    if t.h(s) == math.inf:
        return "no plan exists", "The goal cannot be reached: I searched every reachable state."
    keep = list(keep or [])
    start = strips.execute_plan(task, keep, s).states[-1]
    plan = keep + list(t.gt.optimal_plan(start))
    if corrupt and len(plan) > len(keep):
        i = rng.randrange(len(keep), len(plan))
        wrong = _confused(t, strips.execute_plan(task, plan[:i], s).states[-1], [plan[i]], rng)
        if wrong is not None and rng.random() < 0.5:
            plan[i] = wrong
        else:
            plan.pop(i)
    return r.plan(plan), f"A plan of {len(plan)} actions."


def _numbered_actions(text: str) -> list[str]:
    out = []
    for line in text.strip().splitlines():
        m = re.match(r"^\s*\d+\.\s*(.*)$", line)
        if m:
            out.append(m.group(1))
    return out


def _judge_pre(q, mode, corrupt, rng):
    t, s = _load(q)
    scores = []
    for text in _numbered_actions(q.fields["actions"]):
        if mode == "random":
            scores.append(rng.choice((0, 3, 5, 10)))
            continue
        try:
            a = strips.parse_action(t.task, t.r.parse_action(text))
        except (ParseError, UserError):
            scores.append(0)
            continue
        scores.append(_step_score(t, s, strips.successor(s, a)) if strips.is_applicable(s, a) else 0)
    if corrupt and scores:
        i = rng.randrange(len(scores))
        scores[i] = rng.choice([x for x in (0, 3, 5, 10) if x != scores[i]])
    return "\n".join(f"{i}: {x}" for i, x in enumerate(scores, 1)), "I weigh each candidate."


def _judge_post(q, mode, corrupt, rng):
    t, s = _load(q)
    if mode == "random":
        return str(rng.choice((0, 3, 5, 10))), "I guess."
    new = t.r.parse_state(q.fields["new_state"])
    try:
        a = strips.parse_action(t.task, t.r.parse_action(q.fields["action"]))
        ok = strips.is_applicable(s, a) and strips.successor(s, a) == new
    except (ParseError, UserError):
        ok = False
    score = _step_score(t, s, new) if ok else 0
    if corrupt:
        score = rng.choice([x for x in (0, 3, 5, 10) if x != score])
    return str(score), "I compare the states before and after."


def _value(q, mode, corrupt, rng):
    t, s = _load(q)
    if mode == "random":
        return str(rng.randint(0, 10)), "I guess."
    h = t.h(s)
    v = 0 if h == math.inf else max(0, 10 - int(h))
    if corrupt:
        v = min(10, max(0, v + rng.choice((-3, -2, -1, 1, 2, 3))))
    return str(v), f"About {h} actions remain."


def _summary(q, mode, corrupt, rng):
    fields = dict(q.fields)
    first = api.listed_states(fields["previous"])
    fields["state"] = first[0] if first else "none"
    t, _ = q.reader.problem(q.domain, q.style, fields, "state")
    states = _parse_states(q, t, "previous")
    union = 0
    for x in states:
        union |= x
    atoms = strips.state_atoms(t.task, union)
    if (corrupt or mode == "random") and atoms:
        atoms.pop(rng.randrange(len(atoms)))
    return t.r.atoms(atoms) if atoms else "none", f"Facts seen in {len(states)} states."


def _novelty_summarised(q, mode, corrupt, rng):
    if mode == "random":
        return ("yes" if rng.random() < 0.5 else "no"), "I guess."
    t, new = _load(q, "new_state")
    recent = _parse_states(q, t, "previous")
    width = api.novelty_width_of(q.fields["criterion"])
    if width is None:
        novel = not any(p & new == new for p in recent)
    else:
        novel = new not in recent and novelty_of(new, recent, width) is not None
    return ("yes" if novel != corrupt else "no"), f"I compare with {len(recent)} recent states."


_FAILING_STEP = re.compile(r"\bstep (\d+)\b")


def _feedback(q, mode, corrupt, rng):
    """Validator feedback (`solve --method feedback`): the oracle gives an optimal plan; noisy uses
    the feedback: where it names the first failing step, the steps before it are kept and the rest
    planned again (with the same chance of a mistake as a first plan); a feedback that names no
    step (valid or not only; the goal unmet) gets a new plan."""
    t, s = _load(q)
    keep = None
    m = _FAILING_STEP.search(q.fields.get("feedback", ""))
    if mode == "noisy" and m is not None:
        try:
            last = t.r.parse_plan(q.fields.get("plan", ""))
            steps = [t.task.action_index[a] for a in last[:int(m.group(1)) - 1]]
            if strips.execute_plan(t.task, steps, s).failed_step is None:
                keep = steps
        except (ParseError, UserError, KeyError):
            keep = None
    return _naive(q, mode, corrupt, rng, keep)


def _agent(q, mode, corrupt, rng):
    """One action (`solve --method agent`): the oracle takes an optimal next action; noisy, with its
    chance of a mistake, a confused action that cannot be taken, and after the engine's error it
    acts again from the same state; random, any applicable action."""
    t, s = _load(q)
    task, r = t.task, t.r
    applicable = strips.applicable_actions(task, s)
    if mode == "random" or t.h(s) in (0, math.inf):
        return (r.action(rng.choice(applicable)) if applicable else "none"), "I take some action."
    best = t.gt.optimal_next_actions(s)
    if corrupt:
        wrong = _confused(t, s, best[:1], rng)
        if wrong is not None:
            return r.action(wrong), "I take this action."
    return r.action(best[0]), "This action brings me closer to the goal."


def _tool_call(name: str, **arguments) -> str:
    """A call written as Qwen3 writes one (vLLM's hermes parser reads it into ``tool_calls``)."""
    return "<tool_call>\n" + json.dumps({"name": name, "arguments": arguments}) + "\n</tool_call>"


def _agent_tools(q, mode, corrupt, rng):
    """`solve --method agent --tool-format openai`: the action of `_agent` as an ``apply_action``
    call; the oracle calls ``declare_unsolvable`` where no plan exists; after an action the engine
    refused, noisy first asks ``valid_actions`` where it is offered."""
    t, s = _load(q)
    tools = {x.strip() for x in q.fields.get("tools", "").split(",")}
    if t.h(s) == math.inf and mode != "random" and "declare_unsolvable" in tools:
        return _tool_call("declare_unsolvable"), "No reachable state satisfies the goal."
    text, note = _agent(q, mode, corrupt, rng)
    calls = [_tool_call("apply_action", action=text)]
    if mode == "noisy" and "valid_actions" in tools and "cannot be taken" in q.fields.get("observation", ""):
        calls.insert(0, _tool_call("valid_actions"))
    return "\n".join(calls), note


STRIPS_ANSWERS = {"feedback": _feedback, "agent": _agent, "agent_tools": _agent_tools, "direct": _direct, "naive": _naive, "judge_pre": _judge_pre, "judge_post": _judge_post,
           "value": _value, "novelty_summary": _summary, "novelty_summarised": _novelty_summarised}
