"""The answer readers: how a model's reply is read back into PDDL terms, never by guessing.

One grammar, two policies (docs/subtasks.md, "Readers"; docs/rendering.md):

- `layout`: normalising a reply (case, markup, Unicode spacing), dropping layout (bullets, numbering,
  labels), splitting clauses, PDDL forms inside free text. The renderer's strict parsers
  (`widthbench.pddl_domains.render.Renderer.parse_*`) read templates over these clauses.
- `reply`: where the answer is in a reply: the thinking, "Answer:" labels, ``[PLAN]`` markers and
  code fences, numbering, new problems posed after the answer.
- `grammar`: what one task's actions and facts look like in a reply: templates, paraphrases
  (``pddl_domains/*.paraphrases.toml``), PDDL and call notation, lead-ins.
- `steps`: the step reader (which lines are steps, their actions, runs of steps) over `grammar`;
- `withdrawals`: the words by which a reply takes a step of its plan back (and those that offer
  another plan);
- `plans`: plans, action lists and one action read from a reply (`steps` over `reply`).
- `facts`: the state / fact reader and successor mappings.
- `verdicts`: yes/no verdicts, novelty decisions and whole numbers.

The strict policy (format compliance: the answer written as the prompt asked) is `reply`'s answer
section read by the renderer's parsers and `verdicts.parse_*`; the flexible policy (the answer a
person would find in a real reply) is `plans.read_*`, `facts.read_*` and `verdicts.read_*`. Both
return the same value per kind; the flexible one wraps it in a `Reading`.

This package sits in layer 1 (docs/design.md) so that the renderer and the sub-tasks share it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Callable, Hashable

from widthbench.core.errors import ParseError


@dataclass(frozen=True, slots=True)
class Reading:
    """What a reader read: ``value`` (what the strict parser returns for that kind), where in the reply
    (character offsets of the answer span, None for the strict reader) and by which rule.
    ``ambiguous``: the other values the reply also reads as, when every reading gets the same verdict
    (`judged_alike`); empty for an answer with one reading."""

    value: Any
    span: tuple[int, int] | None = None
    rule: str = "strict"  # "answer-label", "plan-block", "code-fence", "action-lines", "whole-reply", ...
    ambiguous: tuple = ()


class Ambiguous(ParseError):
    """A reply that reads as several different values (two different plans, two different states):
    a parse error, unless every reading gets the same verdict (`judged_alike`)."""

    def __init__(self, message: str, readings):
        super().__init__(message)
        self.readings: tuple[Reading, ...] = tuple(readings)


def judged_alike(read: Callable[[], Reading], verdict: Callable[[Any], Hashable]) -> Reading:
    """``read()``; when it raises `Ambiguous` and ``verdict`` gives every reading the same verdict
    (all plans valid, or all invalid at the same first failing step: the caller's verdict says what
    counts as the same), the first reading, with the others recorded in ``ambiguous``. Readings
    judged differently stay a parse error: a reader never guesses which one is meant."""
    try:
        return read()
    except Ambiguous as exc:
        return alike(exc, verdict)


def alike(exc: Ambiguous, verdict: Callable[[Any], Hashable]) -> Reading:
    """The first of ``exc``'s readings with the others in ``ambiguous`` when ``verdict`` judges them
    all alike; ``exc`` is raised otherwise."""
    if len({verdict(r.value) for r in exc.readings}) != 1:
        raise exc
    first, *others = exc.readings
    return replace(first, ambiguous=tuple(r.value for r in others))
