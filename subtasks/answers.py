"""Answer kinds: how an answer of each kind is read (two readers) and constrained.

A sub-task names one answer kind (docs/subtasks.md, "Readers"); the kind fixes

- ``strict(item, text, style)``: today's parsing rules ("Parsing rules"), the format-compliance
  measure; raises `ParseError`;
- ``flexible(item, text, style)``: finds the answer inside a real reply without guessing
  (`widthbench.subtasks.flexible`); returns a `Reading` (value, span, rule); raises `ParseError`;
  both are policies over one grammar, `widthbench.pddl_domains.readers`;
- ``constraint(item, style)``: what constrained decoding sends as vLLM's ``structured_outputs``
  (``choice`` for verdicts, ``regex`` for actions, plans, states and numbers), so that every answer
  is readable by construction. Every constraint's language is read by the strict reader (a test
  samples it).

Both readers return the same value type per kind: a list of PDDL action texts, one PDDL action
text, an ordered plan (or, for plan generation, `impossible.NO_PLAN`: the answer declares that no plan
exists), a state bitmask, an action -> state mapping, a bool, or an int.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable

from widthbench.core.errors import ParseError
from widthbench.pddl_domains import obfuscate
from widthbench.pddl_domains.readers import Reading, impossible, pddl_text
from widthbench.subtasks import api, flexible

READERS = ("flexible", "strict")
HEADLINE_READER = "flexible"


@dataclass(frozen=True, slots=True)
class AnswerKind:
    name: str
    strict: Callable[..., Any]
    flexible: Callable[..., Reading]
    constraint: Callable[..., dict | None]

    def read(self, reader: str, item, text: str, style: str) -> Reading:
        """The answer read by ``reader`` ("strict" or "flexible"); ParseError when unreadable."""
        if reader == "strict":
            return Reading(self.strict(item, text, style), None, "strict")
        if reader == "flexible":
            return self.flexible(item, text, style)
        raise ValueError(f"unknown reader {reader!r} (known: {', '.join(READERS)})")


def _flex(name: str):
    """The flexible reader ``name`` of `widthbench.subtasks.flexible`."""
    return getattr(flexible, name)


# ---------------------------------------------------------------------------------------------
# Constraints: regular expressions over the task's own ground actions and fluent atoms


def _alternation(texts) -> str:
    # Longest first, so that no alternative is cut short by a prefix of another.
    return "(?:" + "|".join(re.escape(t) for t in sorted(set(texts), key=lambda t: (-len(t), t))) + ")"


def _action_texts(item, style: str) -> list[str]:
    r = api.renderer(item.task, style)
    return [r.action(a) for a in item.task.actions]


def _atom_texts(item, style: str) -> list[str]:
    r = api.renderer(item.task, style)
    return [x for x in (r.atom(a) for a in (*item.task.atoms, *item.task.static_atoms)) if x]


def one_of_lines(alternatives: list[str], *, empty: str | None = None) -> str:
    """One or more alternatives, one per line (or ``empty`` alone, for an empty list)."""
    alt = _alternation(alternatives)
    body = f"{alt}(?:\\n{alt})*"
    return f"(?:{body}|{re.escape(empty)})" if empty else body


def _action_list_constraint(item, style):
    return {"regex": one_of_lines(_action_texts(item, style), empty="none")}


def _action_constraint(item, style):
    return {"regex": _alternation(_action_texts(item, style))}


def _state_constraint(item, style):
    return {"regex": one_of_lines(_atom_texts(item, style), empty="none")}


def _mapping_constraint(item, style):
    # Every action once, in the order asked: a repeated or missing action is no answer the reader
    # can take, so the language leaves it out.
    r = api.renderer(item.task, style)
    state = one_of_lines(_atom_texts(item, style), empty="none")
    blocks = [f"Action: {re.escape(r.action(a))}\\nResulting state:\\n{state}" for a in item.actions]
    return {"regex": "\\n\\n".join(blocks)}


def _yes_no_constraint(item, style):
    return {"choice": ["yes", "no"]}


def _integer_constraint(item, style):
    return {"regex": "[0-9]{1,3}"}


# ---------------------------------------------------------------------------------------------
# The kinds


def on_view(task, read, actions=None) -> Reading:
    """``read(task)`` (or ``read(task, actions)``): a flexible reader over ``task``; for an obfuscated
    task over its renamed view, the actions asked given and the value read back in original names."""
    if not obfuscate.is_obfuscated(task):
        return read(task) if actions is None else read(task, actions)
    v = obfuscate.view(task)
    r = read(v.task) if actions is None else read(v.task, tuple(v.to_view(a, "action") for a in actions))
    return Reading(v.value_back(r.value), r.span, r.rule)


def _on_task(name: str, strict, flexible: str, constraint, *, actions: bool = False) -> AnswerKind:
    """A kind read against the task (and, for mappings, the asked actions)."""
    flex = _flex(flexible)

    def read_flexible(item, text, style):
        if actions:
            return on_view(item.task, lambda task, acts: flex(task, text, style, acts), item.actions)
        return on_view(item.task, lambda task: flex(task, text, style))

    return AnswerKind(name, strict=strict, flexible=read_flexible, constraint=constraint)


def _on_text(name: str, parse, flexible: str, constraint) -> AnswerKind:
    """A kind read from the text alone (verdicts, numbers)."""
    flex = _flex(flexible)
    return AnswerKind(name, strict=lambda item, text, style: parse(text),
                      flexible=lambda item, text, style: flex(text), constraint=constraint)


def _strict_plan(item, text, style):
    from widthbench.subtasks import strict

    return api.renderer(item.task, style).parse_plan(strict.answer_section(text))


def _strict_plan_or_none(item, text, style):
    """The strict plan reader, or `impossible.NO_PLAN` when the answer section is a declaration that
    no plan exists, line by line (lines besides it: a plan there is a ParseError, as is other text)."""
    from widthbench.subtasks import strict

    section = strict.answer_section(text)
    if not impossible.strict_declaration(section):
        return _strict_plan(item, text, style)
    rest = [ln for ln in section.split("\n") if ln.strip() and not impossible.declarations(ln)]
    if not rest:
        return impossible.NO_PLAN
    try:
        plan = api.renderer(item.task, style).parse_plan("\n".join(rest))
    except ParseError:
        raise ParseError(f"the answer declares that no plan exists and goes on: {rest[0].strip()!r}") from None
    if plan:
        raise ParseError("the answer both declares that no plan exists and gives a plan")
    return impossible.NO_PLAN


def _flexible_plan_or_none(item, text, style):
    return on_view(item.task, lambda task: impossible.read_plan_or_declaration(
        lambda t: flexible.read_plan(task, t, style), text))


def _plan_or_none_constraint(item, style):
    plans = one_of_lines(_action_texts(item, style), empty="none")
    return {"regex": f"(?:{plans}|{re.escape(impossible.NO_PLAN)})"}


ACTION_LIST = _on_task("action-list", lambda item, text, style: api.parse_action_list(item.task, text, style),
                       "read_action_list", _action_list_constraint)
ACTION = _on_task("action", lambda item, text, style: api.parse_single_action(item.task, text, style),
                  "read_single_action", _action_constraint)
PLAN = _on_task("plan", _strict_plan, "read_plan", _action_list_constraint)
# Plan generation on sets that may hold unsolvable instances: a plan, or a declaration that none exists
PLAN_OR_NONE = AnswerKind("plan-or-none", strict=_strict_plan_or_none, flexible=_flexible_plan_or_none,
                          constraint=_plan_or_none_constraint)
STATE = _on_task("state", lambda item, text, style: api.parse_successor(item.task, text, style),
                 "read_state", _state_constraint)
MAPPING = _on_task("mapping",
                   lambda item, text, style: api.parse_successor_mapping(item.task, text, style, item.actions),
                   "read_successor_mapping", _mapping_constraint, actions=True)
VERDICT = _on_text("verdict", api.parse_verdict, "read_verdict", _yes_no_constraint)
YES_NO = _on_text("yes-no", api.parse_yes_no, "read_yes_no", _yes_no_constraint)
NOVELTY = _on_text("novelty", api.parse_novelty, "read_novelty", _yes_no_constraint)
INTEGER = _on_text("integer", api.parse_integer, "read_integer", _integer_constraint)


def _pddl(name: str, form: str) -> AnswerKind:
    """PDDL the model writes (formalization): the text of one ``form`` (`readers.pddl_text`); no
    constraint (the language of problem or domain files is no regular expression)."""
    return AnswerKind(name, strict=lambda item, text, style: pddl_text.strict(text, form),
                      flexible=lambda item, text, style: pddl_text.read(text, form),
                      constraint=lambda item, style: None)


PDDL_PROBLEM = _pddl("pddl-problem", "problem")
PDDL_GOAL = _pddl("pddl-goal", "goal")
PDDL_DOMAIN = _pddl("pddl-domain", "domain")


@dataclass(frozen=True, slots=True)
class ReaderContext:
    """What a reader needs to know of the question when there is no item (the tree searches)."""

    task: Any
    actions: tuple[str, ...] = ()


def read_all(kind: AnswerKind, reader: str, item, texts, style: str) -> list:
    """One outcome per reply: a `Reading`, or the `ParseError` that reading it raised."""
    out = []
    for text in texts:
        try:
            out.append(kind.read(reader, item, text, style))
        except ParseError as exc:
            out.append(exc)
    return out
