"""Task-aware simulated models: answers to widthbench's own prompts, computed by the engine.

`answer(kind, messages, thinking, rng) -> (text, reasoning)` is called lazily by the LLM layer
(`widthbench.llm.simulated`) for ``sim:oracle``, ``sim:noisy:P`` and ``sim:random``.

The simulator knows nothing but the prompt text. It gets the domain from the system message
(`prompts.domain_of_system_message`: a hand-written context names a built-in domain; any other context
carries the domain's PDDL, as every generated context does, and the domain is parsed back from it), the
sub-task and style from the user message (one of the templates), reads objects, their types (type facts
such as "apt1 is an airport", or the object names of a template file's naming scheme), states, goal,
actions and plans back with the renderer's parsers, rebuilds the task with the engine
(`strips.ground`), and answers:

- ``oracle``: the correct answer, written in the format the prompt asks for;
- ``noisy:P``: the oracle's answer, made wrong with probability P in a realistic way (a dropped or
  an extra action, pick-up/unstack confused, a wrong fact in a state, a flipped verdict, a novelty
  or width off by one). Every corruption makes the answer wrong for every metric of its item, so the
  expected accuracy of a single-request item is exactly 1 - P;
- ``random``: a well-formed random answer (a random action or subset of actions, the successor of a
  random applicable action, a coin-flip verdict, a number from 1 to 3).

So sim:oracle scoring 100% tests the whole prompt -> answer -> parse round trip. Prompts that are not
sub-task prompts go to the tree searches' simulator (`widthbench.planners.search.simulate`); prompts
neither can read get a fixed reply that no parser accepts (they score as parse errors).
With thinking on, a short reasoning text comes back too.
"""

from __future__ import annotations

import dataclasses
import functools
import random
import re
from dataclasses import dataclass

from widthbench.errors import ParseError, UserError
from widthbench.pddl_domains.render import Renderer, template_set_for
from widthbench.planners import strips
from widthbench.subtasks import api, prompts
from widthbench.subtasks.truth import inapplicable_action, novelty_of

UNREADABLE = "(simulated model: this prompt is not one of widthbench's sub-task prompts)"


@dataclass(frozen=True, slots=True)
class Question:
    """A prompt read back: sub-task kind, style, the rebuilt task, and the parsed fields."""

    kind: str
    style: str
    task: strips.Task  # initial state = the prompt's (initial or current) state
    base: strips.Task  # the same task as cached across prompts (any initial state)
    renderer: Renderer
    fields: dict
    extension: bool


def answer(kind: str, messages, thinking: bool, rng: random.Random) -> tuple[str, str | None]:
    mode, p = _mode(kind)
    try:
        q = read_prompt(messages)
    except (ValueError, ParseError, UserError) as exc:
        other = _search_answer(kind, messages, thinking, rng)
        if other is not None:
            return other
        return UNREADABLE, (f"Simulated reasoning: I could not read the prompt ({exc})." if thinking else None)
    corrupt = mode == "noisy" and rng.random() < p
    try:
        text, note = _answer_function(q.kind)(q, mode, corrupt, rng)
    except (ValueError, ParseError, UserError) as exc:
        # A prompt in our format whose content the engine rejects (e.g. a hand-written action that
        # is not an action of the task): answer like a model that cannot read it.
        return UNREADABLE, (f"Simulated reasoning: I could not read the question ({exc})." if thinking else None)
    reasoning = None
    if thinking:
        reasoning = (f"Simulated reasoning ({mode}): this is a {q.kind.replace('_', ' ')} question in "
                     f"{'PDDL' if q.style == 'pddl' else 'natural language'} about {q.task.domain_name}. "
                     f"{note}")
    return "Answer:\n" + text, reasoning


def _answer_function(prompt_kind: str):
    """The answer function of a prompt kind: this module's, else a sub-task record's."""
    fn = _ANSWERS.get(prompt_kind)
    if fn is None:
        from widthbench.subtasks.registry import Registry

        fn = Registry.default().simulated_answers()[prompt_kind]
    return fn


def _search_answer(kind: str, messages, thinking: bool, rng):
    """The tree searches' own prompts (llm/prompts/search/) are answered by their simulator."""
    try:
        from widthbench.planners.search import simulate as search_simulate
    except ImportError:
        return None
    return search_simulate.answer(kind, messages, thinking, rng)


def _mode(kind: str) -> tuple[str, float]:
    if kind == "oracle":
        return "oracle", 0.0
    if kind == "random":
        return "random", 0.0
    if kind.startswith("noisy:"):
        return "noisy", float(kind.split(":", 1)[1])
    raise ValueError(f"unknown simulated model kind {kind!r}")


# ---------------------------------------------------------------------------------------------
# Reading a prompt back into a task


def read_prompt(messages) -> Question:
    system = next((m["content"] for m in messages if m.get("role") == "system"), "")
    user = next((m["content"] for m in reversed(messages) if m.get("role") == "user"), "")
    dom, extension = prompts.domain_of_system_message(system)
    kind, style, fields = prompts.match_user_message(user)
    objects, type_facts, r0 = _provisional(dom, style, fields["objects"])
    static = list(type_facts)
    read = []
    if "static" in fields and fields["static"].strip() != "none":
        read += r0.parse_atoms(fields["static"], types=True)
    state_field = "state" if "state" in fields else "new_state"
    read += r0.parse_atoms(fields[state_field], types=True)
    goal = r0.parse_atoms(fields["goal"]) if "goal" in fields else []
    objects = _with_types(dom, objects, [a for a in read if a.startswith("(- ")])
    atoms = static + [a for a in read if not a.startswith("(- ")]
    base, task = _task(dom, objects, atoms, goal)
    r = api.renderer(base, style)
    if style == "nl" and r.names != r0.names:
        raise ValueError("rebuilt task names its objects differently from the prompt")
    return Question(kind, style, task, base, r, fields, extension)


def _with_types(dom: strips.Domain, objects, type_facts) -> tuple:
    """Objects with the types the prompt states ("(- apt1 airport)"); the most specific one wins."""
    shown: dict[str, list[str]] = {}
    for a in type_facts:
        _, (o, t) = strips.parse_atom_text(a)
        shown.setdefault(o, []).append(t)
    out = []
    for o, t in objects:
        ts = shown.get(o)
        if ts:
            specific = [x for x in ts if all(dom.is_subtype(x, y) for y in ts)]
            t = specific[0] if specific else "(either " + " ".join(sorted(set(ts))) + ")"
        out.append((o, t))
    return tuple(out)


_PROVISIONAL: dict[tuple, tuple] = {}


def _provisional(dom: strips.Domain, style: str, objects_text: str):
    """(PDDL objects [(name, type)], implicit type facts, a renderer that reads the prompt's atoms)."""
    key = (dom.text, style, objects_text)
    hit = _PROVISIONAL.get(key)
    if hit is None:
        objects, type_facts = prompt_objects(dom, style, objects_text)
        objects = [(o, "object") if isinstance(o, str) else o for o in objects]
        constants = {c for c, _ in dom.constants}
        objects = [x for x in objects if x[0] not in constants]
        task = strips.ground(dom, objects, type_facts, [], name="prompt")
        hit = (tuple(objects), tuple(type_facts), Renderer(task, style))
        if len(_PROVISIONAL) >= 64:
            _PROVISIONAL.pop(next(iter(_PROVISIONAL)))
        _PROVISIONAL[key] = hit
    return hit


_TASKS: dict[tuple, strips.Task] = {}


def _task(dom: strips.Domain, objects, init_atoms, goal) -> tuple[strips.Task, strips.Task]:
    """The task of a prompt. Tasks are reused across prompts with the same objects, static facts and
    goal when the grounded atoms cover the new state: grounding keeps what is relaxed-reachable from
    the initial state, and everything relaxed-reachable from a state made of reachable atoms is
    reachable from there too, so no action of the new state is missing.

    Returns (the cached task, the task with this prompt's state as its initial state)."""
    init_atoms = list(dict.fromkeys(init_atoms))
    static_preds = dom.static_predicates
    statics = tuple(sorted(a for a in init_atoms if strips.parse_atom_text(a)[0] in static_preds))
    fluents = [a for a in init_atoms if strips.parse_atom_text(a)[0] not in static_preds]
    key = (dom.text, tuple(objects), statics, tuple(goal))
    task = _TASKS.get(key)
    if task is None or not all(a in task.atom_index for a in fluents):
        task = strips.ground(dom, objects, init_atoms, goal, name="prompt")
        if len(_TASKS) >= 64:
            _TASKS.pop(next(iter(_TASKS)))
        _TASKS[key] = task
    init = strips.state_from_atoms(task, fluents)
    return task, (task if init == task.init else dataclasses.replace(task, init=init))


_TRUTHS: dict[int, tuple] = {}


def _ground_truth(task: strips.Task):
    """GroundTruth per cached task (h* depends on the goal, not on the initial state)."""
    from widthbench.planners.truth import GroundTruth

    hit = _TRUTHS.get(id(task))
    if hit is None or hit[0] is not task:
        if len(_TRUTHS) >= 16:
            _TRUTHS.pop(next(iter(_TRUTHS)))
        hit = _TRUTHS[id(task)] = (task, GroundTruth(task))
    return hit[1]


def prompt_objects(dom: strips.Domain, style: str, text: str) -> tuple[list, list[str]]:
    """PDDL objects (names, or (name, type) pairs when a naming scheme implies the types), and the
    type facts an NL prompt leaves implicit in the names (untyped domains with type predicates).
    Types the prompt states as facts are applied later (`read_prompt`)."""
    if style == "pddl":
        return text.split(), []
    names = [n.strip() for n in text.split(",") if n.strip()]
    ts = template_set_for(dom)
    scheme = ts.objects.get("scheme", "pddl") if ts else "pddl"
    if scheme == "colours":
        # Colours go by position in natural order; zero-padded names keep that order in the engine.
        width = len(str(len(names)))
        return [f"o{i:0{width}d}" for i in range(1, len(names) + 1)], []
    if scheme == "roles":
        # Names are "<noun>_<digits>" (package_0, location_1_0); the hidden type fact of each noun is
        # the role predicate whose first template is "" (not shown in states). In a typed domain the
        # noun gives the type instead: the role type whose type fact is hidden (typed Logistics:
        # "location", refined to "airport" by the fact "location_1_0 is an airport").
        hidden = {p for p, t in ts.predicates.items() if t and t[0] == "" and p in dom.predicates}
        hidden_types = {t for t, x in (ts.types or {}).items() if x and x[0] == "" and t in dom.types}
        roles = ts.objects.get("roles", {})
        facts, objects = [], []
        for n in names:
            m = re.match(r"^(.*?)_\d", n)
            noun = m.group(1) if m else n
            facts += [f"({p} {n})" for p, role in roles.items() if role == noun and p in hidden]
            typed = [t for t, role in roles.items() if role == noun and t in hidden_types]
            objects.append((n, typed[0]) if typed else n)
        return objects, facts
    return names, []


_STATES: dict[tuple, int] = {}


def _parse_state(q: Question, text: str) -> int:
    """A state of the prompt, memoised: novelty prompts repeat long lists of states across modes."""
    key = (id(q.base), q.style, text)
    s = _STATES.get(key)
    if s is None:
        s = q.renderer.parse_state(text)
        if len(_STATES) >= 50_000:
            _STATES.clear()
        _STATES[key] = s
    return s


def _state(q: Question, field: str = "state") -> int:
    return _parse_state(q, q.fields[field])


# ---------------------------------------------------------------------------------------------
# Answers per sub-task kind: (text, note for the reasoning)


def _action_generation(q, mode, corrupt, rng):
    task, r = q.task, q.renderer
    s = _state(q)
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
    s = _state(q)
    if mode == "random":
        return r.action(rng.choice(task.actions)), "I pick an action at random."
    best = [str(a) for a in _ground_truth(q.base).optimal_next_actions(s)]
    if not best:
        return "none", "The goal already holds or cannot be reached."
    if corrupt:
        wrong = inapplicable_action(task, s, rng)
        if wrong is not None:
            return r.action(wrong), "I take the block I want."
    return r.action(rng.choice(best)), f"{len(best)} action(s) start a shortest plan."


def _wrong_state(task, s: int, t: int, rng) -> int:
    """A state differing from ``t`` by one fact (dropped or added)."""
    have = [i for i in range(task.n_atoms) if t >> i & 1]
    lack = [i for i in range(task.n_atoms) if not t >> i & 1]
    if have and (not lack or rng.random() < 0.5):
        return t & ~(1 << rng.choice(have))
    return t | (1 << rng.choice(lack))


def _successor_of(task, s: int, action: str) -> int:
    a = strips.parse_action(task, action)
    # An action that cannot be taken leaves the state as it is.
    return strips.successor(s, a) if strips.is_applicable(s, a) else s


def _successor(q, mode, corrupt, rng):
    task, r = q.task, q.renderer
    s = _state(q)
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
    s = _state(q)
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
        valid = strips.execute_plan(task, plan, _state(q)).valid
    except UserError:  # an action outside the task: the plan cannot be executed
        valid = False
    return _yes_no(valid != corrupt), "I execute the plan step by step."


def _goal_check(q, mode, corrupt, rng):
    if mode == "random":
        return _yes_no(rng.random() < 0.5), "I guess."
    return _yes_no(strips.is_goal(q.task, _state(q)) != corrupt), "I compare the state with the goal."


def _previous(q) -> list[int]:
    text = q.fields["previous"].strip()
    if text == "none":
        return []
    parts = re.split(r"(?m)^State \d+:\s*$", text)
    return [_parse_state(q, p.strip()) for p in parts if p.strip()]


def _criterion_width(text: str) -> int | None:
    table = prompts.load_kind("novelty")
    if text == table["criterion_any"]:
        return None
    if text == table["criterion_width_1"]:
        return 1
    m = re.fullmatch(re.escape(table["criterion_width_k"]).replace(r"\{k\}", r"(\d+)"), text)
    if not m:
        raise ValueError("unknown novelty criterion")
    return int(m.group(1))


def _novelty(q, mode, corrupt, rng):
    if mode == "random":
        return _yes_no(rng.random() < 0.5), "I guess."
    width = _criterion_width(q.fields["criterion"])
    new = _state(q, "new_state")
    prev = _previous(q)
    if width is None:
        novel = not any(p & new == new for p in prev)
    else:
        novel = new not in prev and novelty_of(new, prev, width) is not None
    return _yes_no(novel != corrupt), f"I compare the new state with {len(prev)} earlier states."


def _novelty_estimate(q, mode, corrupt, rng):
    if mode == "random":
        return str(rng.randint(1, 3)), "I guess."
    new = _state(q, "new_state")
    n = novelty_of(new, _previous(q))
    value = n if n is not None else bin(new).count("1") + 1
    return str(_off_by_one(value, rng) if corrupt else value), "I look for the smallest new set of facts."


def _width_estimate(q, mode, corrupt, rng):
    from widthbench.planners.iw import iterated_width
    from widthbench.planners.model import StripsModel

    if mode == "random":
        return str(rng.randint(1, 3)), "I guess."
    task = q.task
    res = iterated_width(StripsModel(task), max_k=max(1, task.n_atoms))
    value = res.width if res.width is not None else 0
    return str(_off_by_one(value, rng) if corrupt else value), "I run IW(1), IW(2), ... in my head."


def _off_by_one(value: int, rng) -> int:
    return value + 1 if value <= 1 or rng.random() < 0.5 else value - 1


_ANSWERS = {
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
