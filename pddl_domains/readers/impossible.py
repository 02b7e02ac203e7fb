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

from widthbench.core.errors import ParseError
from widthbench.pddl_domains.readers import Reading, layout, phrases
from widthbench.pddl_domains.readers.reply import MARK, find_blocks, region, region_lines, span_of

__all__ = ["NO_PLAN", "declarations", "is_declaration", "read_plan_or_declaration", "strict_declaration"]

#: This module's words of English: its section of phrases.txt.
WORDS = phrases.section("impossible")

NO_PLAN = "no plan exists"  # the value a declaration reads as (plans are lists)



def _clauses(text: str) -> list[str]:
    text = WORDS.MARKERS.sub(" ", text)
    return [c.strip() for c in WORDS.CLAUSE_SPLIT.split(text) if c and c.strip()]


def is_declaration(clause: str) -> bool:
    """Whether one clause asserts that no plan exists."""
    c = " ".join(layout.normalise(clause).split())
    return bool(WORDS.DECLARATION.search(c)) and not WORDS.NOT_ASSERTED.search(c)


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
