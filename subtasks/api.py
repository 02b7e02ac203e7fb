"""Sub-task prompts and parsers: the public API (docs/design.md, "Sub-task prompts and parsers").

Each ``*_prompt`` returns chat messages (a system message with the domain context, a user message
filled from a template under ``llm/prompts/``); each parser reads a reply back into PDDL terms and
raises ``widthbench.core.errors.ParseError`` when it cannot (it never guesses). ``style`` is ``"pddl"``
or ``"nl"``. States are the engine's int bitmasks; actions are ``Action`` objects or PDDL texts on the
way in and PDDL texts (``"(unstack a b)"``) on the way out.

Prompts show the static facts with every state (statics are part of what the model sees); parsed
states hold fluent atoms only, so a model that repeats or omits static facts is neither rewarded
nor punished. The answer section and the tolerance rules are in `widthbench.subtasks.strict`.
"""

from __future__ import annotations

from widthbench.core.errors import ParseError
from widthbench.pddl_domains import obfuscate
from widthbench.pddl_domains.readers.reply import FLEXIBLE_LABEL
from widthbench.pddl_domains.render import Renderer, natural_key
from widthbench.planners.strips import Action, Task, kept
from widthbench.subtasks import strict as _parse
from widthbench.subtasks import prompts as _prompts
from widthbench.subtasks.strict import parse_integer, parse_novelty, parse_verdict, parse_yes_no
from widthbench.subtasks.traces import verify_trace

__all__ = [
    "action_generation_prompt", "parse_action_list",
    "next_action_prompt", "parse_single_action",
    "successor_prompt", "parse_successor",
    "successor_mapping_prompt", "parse_successor_mapping",
    "verification_prompt", "parse_verdict",
    "novelty_prompt", "parse_novelty",
    "goal_check_prompt", "parse_yes_no",
    "novelty_estimate_prompt", "width_estimate_prompt", "parse_integer",
    "plan_generation_prompt", "formalize_problem_prompt", "formalize_goal_prompt",
    "formalize_domain_prompt",
    "renderer", "objects_text", "previous_states_text", "listed_states", "novelty_width_of",
    "check_thinking", "chain_of_thought", "reasoning_of",
]


def renderer(task: Task, style: str) -> Renderer:
    """The renderer of ``task`` in ``style``, built once per task (building one costs ~ms) and kept
    in the task's own ``views``. An obfuscated task (``--obfuscate``) renders its renamed view and
    reads answers back into the original names (`obfuscate.ObfuscatedRenderer`)."""
    make = obfuscate.ObfuscatedRenderer if obfuscate.is_obfuscated(task) else Renderer
    return kept(task, ("renderer", style), lambda: make(task, style))


def _domain(task: Task):
    """The domain the prompt's context describes: the renamed one of an obfuscated task."""
    return obfuscate.shown(task).domain


def objects_text(task: Task, style: str) -> str:
    """The task's objects in natural order: PDDL names space-separated, or NL names comma-separated
    (an obfuscated task's new names)."""
    if obfuscate.is_obfuscated(task):
        task = obfuscate.shown(task)
    objs = sorted(task.object_names, key=natural_key)
    if style == "pddl":
        return " ".join(objs)
    names = renderer(task, style).names
    return ", ".join(names[o] for o in objs)


def _action_text(task: Task, a: Action | str) -> str:
    return str(a) if isinstance(a, Action) else a


def _user(task: Task, kind: str, style: str, **fields: str) -> str:
    # the user's prompt folder (--prompt-dir) travels with the task's domain
    return _prompts.fill(kind, style, task.domain.prompt_dir or None, objects=objects_text(task, style), **fields)


# ---------------------------------------------------------------------------------------------
# Action generation


def action_generation_prompt(task: Task, state: int, style: str) -> list[dict]:
    """List every applicable action of ``state``."""
    r = renderer(task, style)
    return _prompts.messages(_domain(task), _user(task, "action_generation", style, state=r.state(state)))


def parse_action_list(task: Task, text: str, style: str) -> list[str]:
    """The actions of the answer as PDDL texts, in order, repeats removed ("none" -> [])."""
    acts = renderer(task, style).parse_actions(_parse.answer_section(text))
    return list(dict.fromkeys(acts))


# ---------------------------------------------------------------------------------------------
# Next action


def next_action_prompt(task: Task, state: int, style: str, extension: bool = False) -> list[dict]:
    """The next action from ``state`` towards the task's goal; ``extension`` appends the domain's
    prompt extension to the context (Blocksworld: the paper's pick-up-versus-unstack example)."""
    r = renderer(task, style)
    user = _user(task, "next_action", style, state=r.state(state), goal=r.goal())
    return _prompts.messages(_domain(task), user, extended=extension)


def parse_single_action(task: Task, text: str, style: str) -> str:
    """Exactly one action, as PDDL text (an explanation after the answer line is allowed)."""
    return _parse.one_value(renderer(task, style).parse_action, text)


# ---------------------------------------------------------------------------------------------
# Successors


def successor_prompt(task: Task, state: int, action: Action | str, style: str) -> list[dict]:
    """The state after taking ``action`` in ``state``."""
    r = renderer(task, style)
    user = _user(task, "successor", style, state=r.state(state), action=r.action(_action_text(task, action)))
    return _prompts.messages(_domain(task), user)


def parse_successor(task: Task, text: str, style: str) -> int:
    """The resulting state (fluent atoms; static facts in the answer are ignored)."""
    return renderer(task, style).parse_state(_parse.answer_section(text))


def successor_mapping_prompt(task: Task, state: int, actions, style: str) -> list[dict]:
    """The state after each of ``actions`` (Actions or PDDL texts), all in one prompt."""
    r = renderer(task, style)
    listed = r.actions([_action_text(task, a) for a in actions])
    user = _user(task, "successor_mapping", style, state=r.state(state), actions=listed)
    return _prompts.messages(_domain(task), user)


def parse_successor_mapping(task: Task, text: str, style: str, actions) -> dict[str, int]:
    """PDDL action text -> resulting state, for every block of the answer.

    Keys follow the order of ``actions``, then any other action the answer maps (a wrong answer,
    scored as such). An unreadable block, or an action mapped twice, is a ParseError.
    """
    r = renderer(task, style)
    found: dict[str, int] = {}
    for action_text, state_text in _parse.split_mapping_blocks(_parse.answer_section(text)):
        try:
            a = r.parse_action(action_text)
        except ParseError as exc:
            raise ParseError(f"action {action_text!r}: {exc}") from None
        if a in found:
            raise ParseError(f"action {a} is mapped twice")
        try:
            found[a] = r.parse_state(state_text)
        except ParseError as exc:
            raise ParseError(f"state after {a}: {exc}") from None
    given = [_action_text(task, x) for x in actions]
    ordered = {a: found[a] for a in given if a in found}
    ordered.update({a: s for a, s in found.items() if a not in ordered})
    return ordered


# ---------------------------------------------------------------------------------------------
# Plan verification and goal check


def verification_prompt(task: Task, plan, style: str) -> list[dict]:
    """Does ``plan`` (Actions or PDDL texts) lead from the initial state to the goal?"""
    r = renderer(task, style)
    user = _user(task, "verification", style, state=r.state(task.init), goal=r.goal(),
                 plan=r.plan([_action_text(task, a) for a in plan]))
    return _prompts.messages(_domain(task), user)


def plan_generation_prompt(task: Task, style: str, may_be_unsolvable: bool = False) -> list[dict]:
    """A whole plan from the initial state to the goal (PlanBench task 1); ``may_be_unsolvable``
    (a set with certified unsolvable instances): the prompt says how to answer that no plan exists."""
    r = renderer(task, style)
    kind = "plan_generation_or_none" if may_be_unsolvable else "plan_generation"
    user = _user(task, kind, style, state=r.state(task.init), goal=r.goal())
    return _prompts.messages(_domain(task), user)


# ---------------------------------------------------------------------------------------------
# Formalization (docs/formalization.md): the model writes PDDL


def formalize_problem_prompt(task: Task, style: str) -> list[dict]:
    """Write the whole problem file that the description of ``task`` (objects, initial state with
    its static facts, goal) states, given the domain file."""
    r = renderer(task, style)
    user = _user(task, "formalize_problem", style, domain_pddl=task.domain.text.strip(),
                 state=r.state(task.init), goal=r.goal())
    return _prompts.messages(_domain(task), user)


def formalize_goal_prompt(task: Task, style: str) -> list[dict]:
    """Write the goal of ``task``, given the domain file, the problem file without its goal, the
    goal described, and (in words) the names that call each object."""
    from widthbench.planners.problem_writer import task_problem_text

    r = renderer(task, style)
    names = "\n".join(f"{o}: {r.names[o]}" for o in sorted(task.object_names, key=natural_key))
    user = _user(task, "formalize_goal", style, domain_pddl=task.domain.text.strip(),
                 problem=task_problem_text(task, with_goal=False).strip(), names=names, goal=r.goal())
    return _prompts.messages(_domain(task), user)


def formalize_domain_prompt(task: Task, style: str) -> list[dict]:
    """Write the domain file of ``task``'s domain from its description in words
    (`context.domain_in_words`, with the run's NL templates) and ``task`` as an example problem. The
    system message is the template's own: a domain context would show the domain."""
    from widthbench.pddl_domains.context import domain_in_words

    r = renderer(task, style)
    dom = task.domain
    user = _user(task, "formalize_domain", style, name=dom.name,
                 description=domain_in_words(dom, dom.templates_file or "widthbench"),
                 state=r.state(task.init), goal=r.goal())
    system = _prompts.load_kind("formalize_domain", dom.prompt_dir or None)["system"]
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def goal_check_prompt(task: Task, state: int, style: str) -> list[dict]:
    """Does the goal hold in ``state``?"""
    r = renderer(task, style)
    user = _user(task, "goal_check", style, state=r.state(state), goal=r.goal())
    return _prompts.messages(_domain(task), user)


# ---------------------------------------------------------------------------------------------
# Novelty


def previous_states_text(task: Task, states, style: str) -> str:
    """The numbered list of previously generated states (fluent facts only; statics are shown once)."""
    r = renderer(task, style)
    return "\n\n".join(f"State {i}:\n{r.state(s, include_static=False)}" for i, s in enumerate(states, 1))


def listed_states(text: str) -> list[str]:
    """The state texts of a list written by `previous_states_text` ([] for "none")."""
    import re

    if text.strip() == "none":
        return []
    return [p.strip() for p in re.split(r"(?m)^State \d+:\s*$", text.strip()) if p.strip()]


def _novelty_fields(task: Task, previous_states, new_state: int, style: str) -> dict[str, str]:
    r = renderer(task, style)
    previous = list(previous_states)
    static = r.static_facts()  # type facts and static atoms ("none" when there are none)
    listed = previous_states_text(task, previous, style) if previous else "none"
    # previous_states_str: the name Listing 1 of the paper gives the list (--novelty-prompt paper)
    return dict(static=static or "none", count=str(len(previous)), previous=listed,
                previous_states_str=listed, new_state=r.state(new_state, include_static=False))


def novelty_criterion(width: int | None, user_dir: str | None = None) -> str:
    """The sentence defining novelty: for threshold ``width`` (IW(k)'s test) or for any size."""
    table = _prompts.load_kind("novelty", user_dir)
    if width is None:
        return table["criterion_any"]
    if width < 1:
        raise ValueError(f"novelty width must be at least 1, got {width}")
    if width == 1:
        return table["criterion_width_1"]
    return table["criterion_width_k"].replace("{k}", str(width))


def novelty_width_of(criterion: str, user_dir: str | None = None) -> int | None:
    """The width of a novelty criterion sentence (`novelty_criterion`'s inverse; None: any size)."""
    import re

    table = _prompts.load_kind("novelty", user_dir)
    if criterion == table["criterion_any"]:
        return None
    if criterion == table["criterion_width_1"]:
        return 1
    m = re.fullmatch(re.escape(table["criterion_width_k"]).replace(r"\{k\}", r"(\d+)"), criterion)
    if not m:
        raise ValueError("unknown novelty criterion")
    return int(m.group(1))


def novelty_prompt(task: Task, previous_states, new_state: int, style: str,
                   width: int | None = None) -> list[dict]:
    """Is ``new_state`` novel given ``previous_states`` (every state generated before it)?

    ``width=k`` defines novel as IW(k) does (some tuple of at most k facts true for the first time);
    ``width=None`` asks about combinations of any size (a repeat is never novel). The template is
    the domain's novelty prompt (``Domain.novelty_prompt``): widthbench's, or the paper's Listing 1
    ("paper"), which has no criterion and no answer format (`subtasks.prompts`).
    """
    fields = _novelty_fields(task, previous_states, new_state, style)
    kind = _prompts.novelty_kind(task.domain.novelty_prompt)
    user = _user(task, kind, style, criterion=novelty_criterion(width, task.domain.prompt_dir or None), **fields)
    return _prompts.messages(_domain(task), user)


def novelty_estimate_prompt(task: Task, previous_states, new_state: int, style: str) -> list[dict]:
    """The integer novelty of ``new_state`` given ``previous_states``."""
    user = _user(task, "novelty_estimate", style, **_novelty_fields(task, previous_states, new_state, style))
    return _prompts.messages(_domain(task), user)


def width_estimate_prompt(task: Task, style: str) -> list[dict]:
    """The effective width of the task (IW)."""
    r = renderer(task, style)
    user = _user(task, "width_estimate", style, state=r.state(task.init), goal=r.goal())
    return _prompts.messages(_domain(task), user)


def check_thinking(task: Task, text: str, style: str, state: int | None = None,
                   correct: bool | None = None) -> dict:
    """The reasoning-trace check (docs/traces.md) of a reply's thinking about ``state`` (None: the
    initial state), read in the words and template set the prompt used (an obfuscated task: its
    shown names); ``correct`` is the reply's verdict, kept beside the first error."""
    shown = obfuscate.shown(task) if obfuscate.is_obfuscated(task) else task
    return verify_trace(shown, text, style=style, templates=shown.domain.templates_file or "widthbench",
                        initial_state=state, final_answer_correct=correct)


CHAIN_OF_THOUGHT_MIN_WORDS = 8  # fewer words before the answer label are a preamble, not reasoning


def chain_of_thought(text: str | None) -> str | None:
    """The reasoning a reply without thinking writes before its answer (a chain-of-thought answer):
    the text before its last answer label ("Answer:", "Final plan:"), when it holds at least
    `CHAIN_OF_THOUGHT_MIN_WORDS` words; None otherwise (no label: the whole reply is the answer, and
    what of it is reasoning is not guessed). Offsets into it are offsets into the reply."""
    t = text or ""
    if "<think>" in t or "</think>" in t:
        return None
    last = None
    for last in FLEXIBLE_LABEL.finditer(t):
        pass
    if last is None:
        return None
    before = t[:last.start()]
    return before if len(before.split()) >= CHAIN_OF_THOUGHT_MIN_WORDS else None


def reasoning_of(thinking_text: str | None, answer: str | None, thinking: bool) -> tuple[str, str] | None:
    """(text, source) of what a reply reasons: its thinking (source "thinking"), or, asked with
    thinking off, the chain of thought before its answer (`chain_of_thought`, source "answer");
    None when it holds neither."""
    if thinking_text and thinking_text.strip():
        return thinking_text, "thinking"
    cot = None if thinking else chain_of_thought(answer)
    return (cot, "answer") if cot else None
