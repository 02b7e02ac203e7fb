"""Declarations that no plan exists ("no plan exists", "the goal is unreachable", "impossible").

A declaration is a clause about the task as a whole: no plan / solution / way exists, the goal (the
problem, the task) is unreachable, unsolvable, impossible, cannot be reached or solved, or a bare
"impossible." on its own; "it / this / that is impossible" only where the verdict ends its clause (with
a reason after it, "that is impossible because c is not clear", it is about one step). A remark about one step ("it is impossible to pick up b while holding
a") is not one; nor is a negated ("the goal is not unreachable"), hypothetical ("if the goal were
unreachable ...") or questioning clause. Both styles read alike: the words are the same in a PDDL
and an NL reply.

`read_plan_or_declaration(read_plan, text)` is the plan reader that knows about declarations (plan
generation, `subtasks.answers.PLAN_OR_NONE`): the reply's answer is `NO_PLAN` when it declares that
no plan exists and offers no plan; a plan is never read out of a declaration. When a reply holds
both, the one that is clearly final decides: the last marked block (``[PLAN] … [PLAN END]``, a code
fence), which holds only one of them, with the other before it; otherwise the reply is a parse error
(its two readings would be judged differently). Tests: tests/pddl_domains/test_impossible.py
(property tests over made-up phrasings).
"""

from __future__ import annotations

import re

from widthbench.core.errors import ParseError
from widthbench.pddl_domains.readers import Reading, layout
from widthbench.pddl_domains.readers.reply import MARK, find_blocks, region, region_lines, span_of

__all__ = ["NO_PLAN", "declarations", "is_declaration", "read_plan_or_declaration", "strict_declaration"]

NO_PLAN = "no plan exists"  # the value a declaration reads as (plans are lists)

_WHOLE = r"(?:the\s+)?(?:goal(?:\s+state)?s?|problem|task|instance|puzzle|it|this|that|the\s+target)"
# "the goal", "this problem": the task itself; "it", "this", "that" alone may be one step ("that is
# impossible because c is not clear"): a verdict on them must end its clause
_STRONG = r"(?:the\s+|this\s+|that\s+)?(?:goal(?:\s+state)?s?|problem|task|instance|puzzle|target)"
_WEAK = r"(?:it|this|that)"
_BAD = (r"(?:unreachable|unattainable|unachievable|unsolvable|insoluble|impossible|infeasible|"
        r"not\s+(?:reachable|attainable|achievable|solvable|possible|feasible))")
_VERB = r"(?:reach|achieve|attain|satisfy|solve|accomplish|get\s+to|arrive\s+at)"
_PARTICIPLE = r"(?:reached|achieved|attained|satisfied|solved|accomplished)"
_PLANISH = r"(?:plan|solution|sequence(?:\s+of\s+(?:actions|moves|steps))?|way|path)"
_ADV = r"(?:(?:therefore|thus|hence|clearly|simply|actually|definitely|indeed|so|then|also|just|truly|" \
       r"in\s+fact|provably|logically|fundamentally)\s+)*"

_GOAL_OBJECT = r"(?:\s+(?:the\s+|this\s+|that\s+|a\s+|any\s+|our\s+)?(?:goal|target|desired|required|final|solution|it\b|this\b|that\b)|\W*$)"
_LOCAL = r"(?!\s+(?:to|for|while|without|unless|until|because\s+of\s+the\s+arm)\b)"

_PATTERNS = [
    # "no plan exists", "no valid plan can reach the goal", "there is no solution", "no plan."
    rf"\bno\s+(?:(?:valid|possible|feasible|legal|correct|such|executable|sequence\s+of)\s+)*{_PLANISH}s?\b"
    r"(?!\s+(?:is\s+)?(?:needed|required|necessary))",
    rf"\b{_PLANISH}s?\s+(?:does\s+not|doesn't|do\s+not|don't|cannot|can\s*not|can't)\s+exist",
    # "the goal is unreachable", "the problem is unsolvable", "this is impossible"
    rf"\b{_STRONG}\s+(?:is|are|'s|seems|seem|appears|appear)\s+(?:to\s+be\s+)?{_ADV}{_BAD}{_LOCAL}",
    rf"(?:^|,|\b(?:so|thus|hence|therefore|that|conclude|think|believe|find|found|say|determined|afraid))\s*{_WEAK}\s+(?:is|'s|seems|appears)\s+(?:to\s+be\s+)?{_ADV}{_BAD}"
    r"(?:\s+(?:here|from\s+here|from\s+the\s+(?:initial|start)\w*(?:\s+state)?))?\W*$",
    rf"\b{_WHOLE}\s+(?:is|are|'s)\s+{_ADV}(?:impossible|not\s+possible)\s+to\s+{_VERB}\W*$",
    # "the goal cannot be reached", "it can never be solved"
    rf"\b{_WHOLE}\s+(?:cannot|can\s*not|can't|could\s+not|couldn't|can\s+never|will\s+never|may\s+not)"
    rf"\s+(?:{_ADV}be\s+)?{_ADV}{_PARTICIPLE}",
    # "impossible to reach the goal", "not possible to solve this", "we cannot reach the goal"
    rf"\b(?:impossible|infeasible|not\s+possible|no\s+way)\s+to\s+{_VERB}{_GOAL_OBJECT}",
    rf"\b(?:cannot|can\s*not|can't|could\s+not|couldn't|never)\s+(?:{_ADV}){_VERB}\s+(?:the\s+)?"
    r"(?:goal|target|desired|required|final)",
    # a bare verdict: "impossible.", "unsolvable", "not solvable!"
    rf"(?:^|,)\W*(?:{_ADV}){_BAD}(?:\s+(?:here|from\s+here|from\s+the\s+(?:initial|start)\w*(?:\s+state)?))?\W*$",
]
_DECLARATION = re.compile("|".join(f"(?:{p})" for p in _PATTERNS), re.IGNORECASE)
# Clauses that do not assert: conditions, questions, doubts, negated verdicts.
_NOT_ASSERTED = re.compile(
    r"^\W*(?:if|whether|unless|otherwise|suppose|assuming|in\s+case|even\s+if|what\s+if|is\s+it|"
    r"are\s+there|is\s+there|does|do|can|could)\b"
    r"|\b(?:would|might|whether|if)\b[^.]*$"
    rf"|\bnot\s+(?:{_ADV})(?:unreachable|unattainable|unachievable|unsolvable|insoluble|impossible|infeasible)\b"
    r"|\bno\s+longer\b|\bisn't\s+(?:impossible|unsolvable|unreachable)"
    r"|\b(?:check|determine|decide|see|verify|wonder|ask)\w*\s+(?:if|whether)\b"
    r"|\b(?:yet|directly|without|until|before|first|immediately|right\s+away|unless)\b"
    r"|\?\s*$",
    re.IGNORECASE)
_CLAUSE_SPLIT = re.compile(r"(?<=[.!?;:])\s+|\n|,\s+(?:so|but|and|because|since|as)\s+|\s+-{1,2}\s+")
_MARKERS = re.compile(r"\[\s*/?\s*[a-z][a-z _\-]*\s*\]", re.IGNORECASE)


def _clauses(text: str) -> list[str]:
    text = _MARKERS.sub(" ", text)
    return [c.strip() for c in _CLAUSE_SPLIT.split(text) if c and c.strip()]


def is_declaration(clause: str) -> bool:
    """Whether one clause asserts that no plan exists."""
    c = " ".join(layout.normalise(clause).split())
    return bool(_DECLARATION.search(c)) and not _NOT_ASSERTED.search(c)


def declarations(text: str) -> list[str]:
    """The clauses of ``text`` that declare no plan exists, in order."""
    return [c for c in _clauses(text) if is_declaration(c)]


def _text_of(lines) -> str:
    return "\n".join(ln.raw for ln in lines if not MARK.match(ln.norm) and not ln.fence)


def _plan_in(read_plan, text: str):
    """The plan ``read_plan`` finds in ``text`` (None: no actions in it); a plan reading error other
    than "no actions" is raised."""
    try:
        r = read_plan(text)
    except ParseError as exc:
        if "no actions found" in str(exc) or "empty answer" in str(exc):
            return None
        raise
    return r if r.value else None  # "none" reads as the empty plan: no actions offered


def read_plan_or_declaration(read_plan, text: str) -> Reading:
    """A plan (``read_plan(text) -> Reading``, the flexible plan reader) or `NO_PLAN` (see the module
    doc); `ParseError` when the reply holds both and neither is clearly final."""
    t, start, end, label = region(text)
    lines = region_lines(t, start, end)
    blocks = find_blocks(lines)
    if blocks:
        rule, last = blocks[-1]
        after = [ln for ln in lines if ln.start > last[-1].start] if last else []
        later = declarations(_text_of(after))
        inside = declarations(_text_of(last))
        if inside:
            if _plan_in(read_plan, _text_of(last)) is not None:
                raise ParseError(f"the last {rule} both declares that no plan exists ({inside[0]!r}) and gives a plan")
            return Reading(NO_PLAN, span_of(last), rule)
        plan = _plan_in(read_plan, text)
        if plan is not None and not later:
            return plan  # declarations before the final block are commentary
        if plan is not None:
            raise ParseError(f"a plan and, after it, a declaration that no plan exists ({later[0]!r})")
        # a block without actions (an empty block, or prose): the declarations decide below
    found = declarations(t[start:end])
    plan = _plan_in(read_plan, text)
    if found and plan is not None:
        raise ParseError(f"the reply both declares that no plan exists ({found[0]!r}) and gives a plan")
    if found:
        return Reading(NO_PLAN, span_of(lines), "answer-label" if label else "declaration")
    if plan is not None:
        return plan
    return read_plan(text)  # the empty plan, or the plan reader's own error


def strict_declaration(section: str) -> bool:
    """The strict policy's test: the answer section opens with a declaration (the caller then requires
    the rest of the section to hold no plan and nothing else, `subtasks.answers`)."""
    found = _clauses(section)
    return bool(found) and is_declaration(found[0])
