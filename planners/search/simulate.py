"""Task-aware simulated answers to the search prompts (llm/prompts/search/), computed by the engine.

`answer(kind, messages, thinking, rng) -> (text, reasoning) | None` has the signature of
`widthbench.subtasks.simulate.answer` and returns None for a prompt that is not a search prompt,
so the sub-task simulator can try it first (or last) and fall through. ``kind`` is ``"oracle"``,
``"noisy:P"`` or ``"random"``.

Like the sub-task simulator it knows nothing but the prompt text: the domain from the system
message, the kind and style from the user message (matched against the templates), the task rebuilt
from the objects, the state and the goal. Answers:

- STRIPS ``direct``: an optimal next action and its successor; ``naive``: an optimal plan;
  ``judge_pre``/``judge_post``: 10 for a step along a shortest plan, 5 for a step that keeps the
  distance, 3 for a step away from the goal, 0 for an impossible action or a wrong resulting state
  (with τ_pre = 0.3 and τ_post = 0.4, pre-pruning removes impossible actions and post-pruning
  also steps away from the goal);
  ``value``: 10 − h*(s) (0 for dead ends and h* ≥ 10); ``novelty_summary``: every fact true in some
  listed state; ``novelty_summarised``: judged against the states listed in full (a summary cannot
  show a repeat).
- Game of 24 and --tasks prompts: see `simulate_game24` / `simulate_tasks` below.

``noisy:P`` corrupts an answer with probability P: a direct step takes a confused, inapplicable
action (40%), writes a wrong resulting state (40%), or writes a fact no parser can read (20%: the
search records a dead node); plans lose or swap an action; scores and values move; verdicts flip.
``random`` gives well-formed random answers.

The rebuilt task and its ground truth (h* for every state) are cached per problem, so the
simulated model answers the thousands of prompts of a search in milliseconds each.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from widthbench.errors import ParseError, UserError
from widthbench.pddl_domains.render import Renderer
from widthbench.planners import strips
from widthbench.planners.search import prompts as search_prompts
from widthbench.subtasks import api
from widthbench.subtasks import prompts as sub_prompts
from widthbench.subtasks.simulate import _provisional, _with_types
from widthbench.subtasks.truth import inapplicable_action, novelty_of

UNREADABLE_FACT = {"nl": "the table is floating above the ceiling", "pddl": "(floating table ceiling)"}


def answer(kind: str, messages, thinking: bool, rng) -> tuple[str, str | None] | None:
    system = next((m["content"] for m in messages if m.get("role") == "system"), "")
    user = next((m["content"] for m in reversed(messages) if m.get("role") == "user"), "")
    mode, p = _mode(kind)
    for reader in (_strips_question, _game24_question, _tasks_question):
        q = reader(system, user)
        if q is not None:
            break
    else:
        return None
    corrupt = mode == "noisy" and rng.random() < p
    try:
        text, note = q.handler(q, mode, corrupt, rng)
    except (ParseError, UserError, ValueError) as exc:
        text, note = "I cannot read this question.", f"I could not read the prompt ({exc})."
    reasoning = f"Simulated reasoning ({mode}) for a {q.kind.replace('_', ' ')} search prompt. {note}" if thinking else None
    return "Answer:\n" + text, reasoning


def _mode(kind: str) -> tuple[str, float]:
    if kind in ("oracle", "random"):
        return kind, 0.0
    if kind.startswith("noisy:"):
        return "noisy", float(kind.split(":", 1)[1])
    raise ValueError(f"unknown simulated model kind {kind!r}")


@dataclass(slots=True)
class Question:
    kind: str
    fields: dict
    handler: object
    problem: object = None  # _StripsTruth | game24 numbers | tasks question
    style: str = "nl"


# =============================================================================================
# STRIPS


class _StripsTruth:
    """One rebuilt problem: its task (grounded from the first state seen), renderer, ground truth."""

    def __init__(self, dom, objects, type_facts, atoms, goal, style):
        self.task = strips.ground(dom, objects, dict.fromkeys(atoms), goal, name="prompt")
        self.r = Renderer(self.task, style)
        from widthbench.planners.truth import GroundTruth

        self.gt = GroundTruth(self.task)

    def h(self, s: int) -> float:
        try:
            return self.gt.h_star(s)
        except Exception:  # a state the planner cannot handle: treat as a dead end
            return math.inf


_TRUTHS: dict[tuple, _StripsTruth] = {}
_MAX_TRUTHS = 256


_STATE_FIELDS = ("state", "new_state", "previous")


def _truth(domain: str, style: str, fields: dict, state_field: str) -> tuple[_StripsTruth, int]:
    """The problem of a prompt and the state in ``state_field``.

    The task is grounded from every fact any state of the prompt mentions (so a wrong state the
    model wrote earlier, listed among previous states, is still readable), plus the facts of the
    cached task of the same problem; it is rebuilt when a state needs a fact it cannot hold."""
    dom = domain if isinstance(domain, strips.Domain) else strips.load_domain(domain)
    key = (dom.text, style, fields["objects"], fields.get("goal", ""), fields.get("static", ""))
    t = _TRUTHS.get(key)
    if t is not None:
        try:
            for f in _STATE_FIELDS:
                if f in fields and f != state_field:
                    _parse_states(t.r, fields[f], f)
            return t, t.r.parse_state(fields[state_field])
        except ParseError:
            pass
    objects, type_facts, r0 = _provisional(dom, style, fields["objects"])
    atoms = list(type_facts) + (list(t.task.atoms) + list(t.task.static_atoms) if t is not None else [])
    if fields.get("static", "none").strip() != "none":
        atoms += r0.parse_atoms(fields["static"], types=True)
    for f in _STATE_FIELDS:
        if f in fields:
            for block in _blocks(fields[f], f):
                atoms += [a for a in r0.parse_atoms(block, types=True) if not a.startswith("(not ")]
    goal = r0.parse_atoms(fields["goal"]) if "goal" in fields else []
    # typed domains: the type facts the prompt states ("(- apt1 airport)") give the objects' types
    objects = _with_types(dom, objects, [a for a in atoms if a.startswith("(- ")])
    atoms = [a for a in atoms if not a.startswith("(- ")]
    t = _StripsTruth(dom, objects, type_facts, atoms, goal, style)
    if len(_TRUTHS) >= _MAX_TRUTHS:
        _TRUTHS.pop(next(iter(_TRUTHS)))
    _TRUTHS[key] = t
    return t, t.r.parse_state(fields[state_field])


def _blocks(text: str, field: str) -> list[str]:
    if field != "previous":
        return [text]
    return _listed_states_raw(text) if text.strip() != "none" else []


def _parse_states(r: Renderer, text: str, field: str) -> list[int]:
    return [r.parse_state(b) for b in _blocks(text, field)]


def _strips_question(system: str, user: str) -> Question | None:
    try:
        domain, _ = sub_prompts.domain_of_system_message(system)
    except (ValueError, UserError):
        return None
    hit = search_prompts.match_strips(user)
    if hit is None:
        return None
    kind, style, fields = hit
    return Question(kind, fields, _STRIPS[kind], (domain, style), style)


def _load(q: Question, state_field: str = "state") -> tuple[_StripsTruth, int]:
    domain, style = q.problem
    return _truth(domain, style, q.fields, state_field)


def _step_score(t: _StripsTruth, s: int, succ: int) -> int:
    hs, ht = t.h(s), t.h(succ)
    if ht == math.inf:
        return 3
    if ht < hs:
        return 10
    return 5 if ht == hs else 3


def _wrong_state(t: _StripsTruth, s: int, rng) -> int:
    n = t.task.n_atoms
    have = [i for i in range(n) if s >> i & 1]
    lack = [i for i in range(n) if not s >> i & 1]
    if have and (not lack or rng.random() < 0.5):
        return s & ~(1 << rng.choice(have))
    return s | (1 << rng.choice(lack))


def _confused(t: _StripsTruth, s: int, good, rng):
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


def _naive(q, mode, corrupt, rng):
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
        return "none", "The goal cannot be reached."
    plan = list(t.gt.optimal_plan(s))
    if corrupt and plan:
        i = rng.randrange(len(plan))
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
    domain, style = q.problem
    fields = dict(q.fields)
    first = _listed_states_raw(fields["previous"])
    fields["state"] = first[0] if first else "none"
    t, _ = _truth(domain, style, fields, "state")
    states = _parse_states(t.r, q.fields["previous"], "previous")
    union = 0
    for x in states:
        union |= x
    atoms = strips.state_atoms(t.task, union)
    if (corrupt or mode == "random") and atoms:
        atoms.pop(rng.randrange(len(atoms)))
    return t.r.atoms(atoms) if atoms else "none", f"Facts seen in {len(states)} states."


def _listed_states_raw(text: str) -> list[str]:
    parts = re.split(r"(?m)^State \d+:\s*$", text.strip())
    return [p.strip() for p in parts if p.strip()]


def _criterion_width(text: str) -> int | None:
    if text == api.novelty_criterion(None):
        return None
    if text == api.novelty_criterion(1):
        return 1
    template = api.novelty_criterion(2).replace("2", "{k}", 1)
    m = re.fullmatch(re.escape(template).replace(r"\{k\}", r"(\d+)"), text)
    if not m:
        raise ValueError("unknown novelty criterion")
    return int(m.group(1))


def _novelty_summarised(q, mode, corrupt, rng):
    if mode == "random":
        return ("yes" if rng.random() < 0.5 else "no"), "I guess."
    t, new = _load(q, "new_state")
    recent = _parse_states(t.r, q.fields["previous"], "previous")
    width = _criterion_width(q.fields["criterion"])
    if width is None:
        novel = not any(p & new == new for p in recent)
    else:
        novel = new not in recent and novelty_of(new, recent, width) is not None
    return ("yes" if novel != corrupt else "no"), f"I compare with {len(recent)} recent states."


_STRIPS = {"direct": _direct, "naive": _naive, "judge_pre": _judge_pre, "judge_post": _judge_post,
           "value": _value, "novelty_summary": _summary, "novelty_summarised": _novelty_summarised}


# =============================================================================================
# Game of 24 and --tasks (filled in by their modules' simulators)


def _game24_question(system: str, user: str) -> Question | None:
    from widthbench.planners.search import game24

    return game24.sim_question(system, user, Question)


def _tasks_question(system: str, user: str) -> Question | None:
    from widthbench.planners.search import tasks

    return tasks.sim_question(system, user, Question)
