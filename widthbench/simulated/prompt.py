"""The one prompt reader of the simulated models: a chat prompt back into a question.

A prompt is widthbench's own: the system message is a domain context (hand-written, or generated
from the PDDL and carrying it), the user message a filled template — a sub-task template
(`llm/prompts/*.toml`), a STRIPS search template (`llm/prompts/search/`), or a Game-of-24 or
--tasks search template. `PromptReader.read(messages)` finds which, reads the fields back and, for
STRIPS prompts, rebuilds the task with the engine (`problem`): objects and their types from the
objects line and the type facts, the static facts, and every fact any state of the prompt
mentions (so a wrong state the model wrote earlier, listed among previous states, is still
readable), grounded with the goal. Problems are reused across prompts of the same instance while
their atoms cover the new prompt's states.

The caches belong to the reader, held by its `Simulator` (one per model), never to a module.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Mapping
from typing import Any

from widthbench.core.errors import ParseError, UserError
from widthbench.pddl_domains.render import Renderer, template_set_for
from widthbench.planners import strips

from widthbench.subtasks.api import listed_states
from widthbench.searches import search_prompts
from widthbench.subtasks import prompts

STATE_FIELDS = ("state", "new_state", "previous")


class Problem:
    """A task rebuilt from prompts, its renderer, and its ground truth (built on first use)."""

    def __init__(self, task: strips.Task, renderer: Renderer):
        self.task = task
        self.r = renderer
        self._gt = None

    @property
    def gt(self):
        if self._gt is None:
            from widthbench.planners.ground_truth import GroundTruth

            self._gt = GroundTruth(self.task)
        return self._gt

    def h(self, s: int) -> float:
        """h*(s); a state the planner cannot handle is a dead end (inf)."""
        import math

        try:
            return self.gt.h_star(s)
        except Exception:
            return math.inf


@dataclasses.dataclass
class ReadPrompt:
    """A prompt read back. ``handler(question, mode, corrupt, rng) -> (text, note)`` answers it;
    ``problem`` is what the handler needs (a `Problem` for STRIPS prompts; the Game-of-24 and
    --tasks simulators put their own). STRIPS questions also know their reader and domain, so the
    handler can read any state of the prompt (`state`, `previous`, `load`)."""

    kind: str
    fields: dict
    handler: Callable[..., tuple[str, str]]
    problem: Any = None
    style: str = "nl"
    family: str = "search"  # "subtask" | "search"
    extension: bool = False
    reader: "PromptReader | None" = None
    domain: strips.Domain | None = None
    state_field: str = "state"

    # ---- STRIPS prompts -------------------------------------------------------------------
    def load(self, state_field: str = "state") -> tuple[Problem, int]:
        """The prompt's problem and the state written in ``state_field``."""
        return self.reader.problem(self.domain, self.style, self.fields, state_field)

    @property
    def base(self) -> strips.Task:
        return self.problem.task

    @property
    def renderer(self) -> Renderer:
        return self.problem.r

    @property
    def truth(self):
        """Ground truth of the task (h* depends on the goal, not on the initial state)."""
        return self.problem.gt

    @property
    def task(self) -> strips.Task:
        """The task with the prompt's state (or new state) as its initial state; a prompt that gives
        the problem whole (formalize-goal: its PDDL file) and no state of its own, the problem's task."""
        base = self.problem.task
        if self.state_field not in self.fields:
            return base
        init = self.state(self.state_field)
        return base if init == base.init else dataclasses.replace(base, init=init)

    def state(self, field: str = "state") -> int:
        return self.reader.parse_state(self.problem, self.fields[field])

    def parse_state(self, text: str) -> int:
        return self.reader.parse_state(self.problem, text)

    def previous(self) -> list[int]:
        """The numbered list of previous states."""
        return [self.parse_state(t) for t in listed_states(self.fields["previous"])]


class PromptReader:
    """Reads prompts back (`read`); holds the rebuilt problems and parsed states (bounded)."""

    MAX_PROBLEMS = 256
    MAX_STATES = 50_000

    def __init__(self, subtask_answers: Mapping[str, Callable], search_answers: Mapping[str, Callable],
                 other_readers=(), prompt_dir: str | None = None, domains=()):
        self.prompt_dir = prompt_dir or None
        self.domains = tuple(domains)  # the run's domains, with their presentation
        self.subtask_answers = dict(subtask_answers)
        self.search_answers = dict(search_answers)
        self.other_readers = tuple(other_readers)  # (system, user, ReadPrompt) -> ReadPrompt | None
        self._provisional: dict[tuple, tuple] = {}
        self._problems: dict[tuple, Problem] = {}
        self._states: dict[tuple, int] = {}

    # ---- reading ----------------------------------------------------------------------------
    def read(self, messages) -> ReadPrompt | None:
        """The question of a prompt, or None if it is none of widthbench's prompts. Raises
        ValueError / ParseError / UserError when a prompt in our format has content the engine
        rejects."""
        # OpenAI's newer clients (inspect's openai provider) send the system message as "developer"
        system = next((m["content"] for m in messages if m.get("role") in ("system", "developer")), "")
        # the last question: a user message, or a tool's result that asks the next one (solve --method agent)
        user = next((m["content"] for m in reversed(messages) if m.get("role") in ("user", "tool")), "")
        dom, extension = self.run_domain(system)
        if dom is None:
            try:
                dom, extension = prompts.domain_of_system_message(system, self.prompt_dir)
            except (ValueError, UserError):
                dom = None
        if dom is None:
            dom = self.described_domain(user)
        if dom is not None:
            try:
                kind, style, fields = prompts.match_user_message(user, self.prompt_dir)
                family, table = "subtask", self.subtask_answers
            except ValueError:
                hit = search_prompts.match_strips(user, self.prompt_dir)
                if hit is None:
                    return None
                (kind, style, fields), family, table = hit, "search", self.search_answers
            if kind not in table:
                return None
            state_field = "state" if "state" in fields else "new_state"
            # Sub-task answers use the task of the prompt's state; search answers load the
            # state fields they need (`ReadPrompt.load`), some of them having none.
            if family == "subtask" and "problem" in fields:  # the problem is given as a PDDL file
                problem = self.given_problem(dom, style, fields)
            elif family == "subtask":
                problem = self.problem(dom, style, fields, state_field)[0]
            else:
                problem = None
            return ReadPrompt(kind, fields, table[kind], problem, style, family, extension, self, dom, state_field)
        for other in self.other_readers:
            q = other(system, user, ReadPrompt)
            if q is not None:
                return q
        return None

    def described_domain(self, user: str) -> strips.Domain | None:
        """The domain a formalize-domain prompt describes in words (its system message names no
        domain): the one of the run's domains, or of the built-in ones, that the description is of."""
        from widthbench.pddl_domains.context import domain_in_words

        try:
            kind, _, fields = prompts.match_user_message(user, self.prompt_dir)
        except ValueError:
            return None
        if kind != "formalize_domain":
            return None
        for dom in (*self.domains, strips.load_domain("blocksworld"), strips.load_domain("logistics")):
            if domain_in_words(dom, dom.templates_file or "widthbench") == fields["description"].strip():
                return dom
        return None

    def run_domain(self, system: str):
        """(domain, extension on) of a system message that one of the run's domains writes, else
        (None, False)."""
        text = system.strip()
        for dom in self.domains:
            for ext in ((False, True) if prompts.extension_available(dom) else (False,)):
                if text == prompts.system_message(dom, ext):
                    return dom, ext
        return None, False

    # ---- rebuilding the task ----------------------------------------------------------------
    def provisional(self, dom: strips.Domain, style: str, objects_text: str):
        """(PDDL objects [(name, type)], implicit type facts, a renderer that reads the prompt's atoms)."""
        key = (dom.text, style, objects_text)
        hit = self._provisional.get(key)
        if hit is None:
            objects, type_facts = prompt_objects(dom, style, objects_text)
            objects = [(o, "object") if isinstance(o, str) else o for o in objects]
            constants = {c for c, _ in dom.constants}
            objects = [x for x in objects if x[0] not in constants]
            task = strips.ground(dom, objects, type_facts, [], name="prompt")
            hit = (tuple(objects), tuple(type_facts), Renderer(task, style))
            _bounded(self._provisional, 64)
            self._provisional[key] = hit
        return hit

    def problem(self, dom: strips.Domain, style: str, fields: dict, state_field: str) -> tuple[Problem, int]:
        """The problem of a prompt and the state written in ``state_field``.

        The task is grounded from every fact any state of the prompt mentions plus the facts of
        the cached task of the same problem; it is rebuilt when a state needs a fact it cannot
        hold. Grounding keeps what is relaxed-reachable from those facts, and everything reachable
        from a state made of them is reachable there too, so no action of any state is missing."""
        # Problems derived from one sample share objects and goal but may differ in the static
        # facts a state lists (ACPBench's rover: which camera is on board which rover). States are
        # read ignoring static facts, so the statics the prompt's state lists are part of the key.
        objects, type_facts, r0 = self.provisional(dom, style, fields["objects"])
        key = (dom.text, style, fields["objects"], fields.get("goal", ""), fields.get("static", ""),
               self.listed_statics(dom, style, fields["objects"], fields[state_field]))
        p = self._problems.get(key)
        if p is not None:
            try:
                for f in STATE_FIELDS:
                    if f in fields and f != state_field:
                        self._parse_blocks(p, fields[f], f)
                return p, self.parse_state(p, fields[state_field])
            except ParseError:
                pass
        atoms = list(type_facts) + (list(p.task.atoms) + list(p.task.static_atoms) if p is not None else [])
        if fields.get("static", "none").strip() != "none":
            atoms += r0.parse_atoms(fields["static"], types=True)
        for f in STATE_FIELDS:
            if f in fields:
                for block in _blocks(fields[f], f):
                    atoms += [a for a in r0.parse_atoms(block, types=True) if not a.startswith("(not ")]
        goal = r0.parse_atoms(fields["goal"]) if "goal" in fields else []
        objects = with_types(dom, objects, [a for a in atoms if a.startswith("(- ")])
        atoms = [a for a in atoms if not a.startswith("(- ")]
        task = strips.ground(dom, objects, dict.fromkeys(atoms), goal, name="prompt")
        r = Renderer(task, style)
        if style == "nl" and r.names != r0.names:
            raise ValueError("rebuilt task names its objects differently from the prompt")
        p = Problem(task, r)
        _bounded(self._problems, self.MAX_PROBLEMS)
        self._problems[key] = p
        return p, self.parse_state(p, fields[state_field])

    def given_problem(self, dom: strips.Domain, style: str, fields: dict) -> Problem:
        """The problem of a prompt that gives its problem file without the goal (``{problem}``) and
        the goal apart (``{goal}``, read with the renderer of the problem file's task)."""
        from widthbench.planners.problem_writer import with_goal

        key = ("given", dom.text, style, fields["problem"], fields.get("goal", ""))
        p = self._problems.get(key)
        if p is None:
            base = strips.parse_problem_text(dom, with_goal(fields["problem"], "(:goal (and))"), source="prompt")
            goal = Renderer(base, style).parse_atoms(fields["goal"]) if "goal" in fields else []
            task = strips.parse_problem_text(dom, with_goal(fields["problem"], "(:goal (and " + " ".join(goal) + "))"),
                                             source="prompt")
            p = Problem(task, Renderer(task, style))
            _bounded(self._problems, self.MAX_PROBLEMS)
            self._problems[key] = p
        return p

    def listed_statics(self, dom: strips.Domain, style: str, objects_text: str, text: str) -> frozenset:
        """The static facts a state text lists (memoised: novelty prompts repeat their states)."""
        key = ("statics", dom.text, style, objects_text, text)
        hit = self._states.get(key)
        if hit is None:
            r0 = self.provisional(dom, style, objects_text)[2]
            static = dom.static_predicates
            hit = frozenset(a for a in r0.parse_atoms(text, types=True)
                            if not a.startswith(("(not ", "(- ")) and strips.parse_atom_text(a)[0] in static)
            if len(self._states) >= self.MAX_STATES:
                self._states.clear()
            self._states[key] = hit
        return hit

    def parse_state(self, problem: Problem, text: str) -> int:
        """A state of the problem, memoised: novelty prompts repeat long lists of states."""
        key = (id(problem), text)
        s = self._states.get(key)
        if s is None:
            s = problem.r.parse_state(text)
            if len(self._states) >= self.MAX_STATES:
                self._states.clear()
            self._states[key] = s
        return s

    def _parse_blocks(self, problem: Problem, text: str, field: str) -> list[int]:
        return [self.parse_state(problem, b) for b in _blocks(text, field)]


def _blocks(text: str, field: str) -> list[str]:
    return listed_states(text) if field == "previous" else [text]


def _bounded(cache: dict, limit: int) -> None:
    if len(cache) >= limit:
        cache.pop(next(iter(cache)))


def with_types(dom: strips.Domain, objects, type_facts) -> tuple:
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


def prompt_objects(dom: strips.Domain, style: str, text: str) -> tuple[list, list[str]]:
    """PDDL objects (names, or (name, type) pairs when a naming scheme implies the types), and the
    type facts an NL prompt leaves implicit in the names (untyped domains with type predicates).
    Types the prompt states as facts are applied later (`with_types`)."""
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
