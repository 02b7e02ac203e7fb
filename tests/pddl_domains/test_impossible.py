"""Declarations that no plan exists: made-up phrasings in both styles, inside [PLAN] blocks, fences,
after "Answer:" or in prose, are read as NO_PLAN; a plan is never read out of one; a reply with both
is a parse error unless the last marked block holds one of them alone; remarks about one step,
negated, hypothetical and questioning clauses are not declarations."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from widthbench.core.errors import ParseError
from widthbench.generators import generate
from widthbench.pddl_domains.readers.impossible import NO_PLAN, declarations, is_declaration
from widthbench.subtasks import answers, api

TASK = generate("blocksworld", 1, 4, blocks=3)[0].task()
ITEM = answers.ReaderContext(TASK)

adj = st.sampled_from(["", "valid ", "possible ", "feasible ", "legal "])
noun = st.sampled_from(["plan", "solution", "sequence of actions"])
tail = st.sampled_from(["exists", "can reach the goal", "is possible", "achieves this goal", ""])
subj = st.sampled_from(["the goal", "this problem", "the task", "the goal state", "this instance", "it"])
adv = st.sampled_from(["", "clearly ", "therefore ", "simply ", "in fact "])
bad = st.sampled_from(["unreachable", "unsolvable", "impossible", "not reachable", "not achievable",
                       "unattainable", "infeasible"])
part = st.sampled_from(["reached", "achieved", "satisfied", "solved", "attained"])
verb = st.sampled_from(["reach", "achieve", "satisfy", "attain"])
lead = st.sampled_from(["", "After checking every possibility, ", "I conclude that ", "Unfortunately, ",
                        "So ", "Therefore, "])
end = st.sampled_from(["", ".", "!", " here."])

core = st.one_of(
    st.builds(lambda a, n, t: f"no {a}{n} {t}".strip(), adj, noun, tail),
    st.builds(lambda a, n: f"there is no {a}{n}", adj, noun),
    st.builds(lambda s, d, b: f"{s} is {d}{b}", subj, adv, bad),
    st.builds(lambda s, p: f"{s} cannot be {p}", subj, part),
    st.builds(lambda v: f"it is impossible to {v} the goal", verb),
    st.builds(lambda v: f"we can never {v} the goal", verb),
)
bare = st.builds(lambda le, c, e: f"{le}{c}{e}",
                 st.sampled_from(["", "After checking every possibility, ", "Unfortunately, ", "Therefore, "]),
                 st.sampled_from(["impossible", "unsolvable", "not solvable", "clearly impossible"]), end)
declaration = st.one_of(st.builds(lambda le, c, e: f"{le}{c}{e}", lead, core, end), bare)
case = st.sampled_from([str, str.upper, str.capitalize])
wrap = st.sampled_from(["{}", "Answer: {}", "[PLAN]\n{}\n[PLAN END]", "```\n{}\n```", "Final answer:\n{}",
                        "<think>Let me try unstack a from b.</think>\n{}", "**{}**"])


@settings(max_examples=300, deadline=None)
@given(d=declaration, c=case, w=wrap, style=st.sampled_from(["pddl", "nl"]))
def test_declarations_read_as_no_plan(d, c, w, style):
    text = w.format(c(d))
    assert is_declaration(c(d))
    assert answers.PLAN_OR_NONE.flexible(ITEM, text, style).value == NO_PLAN


@settings(max_examples=100, deadline=None)
@given(d=declaration, c=case, style=st.sampled_from(["pddl", "nl"]))
def test_strict_reader_reads_a_declaration_alone(d, c, style):
    assert answers.PLAN_OR_NONE.strict(ITEM, "Answer: " + c(d), style) == NO_PLAN


def _some_plan(style):
    from widthbench.planners.ground_truth import GroundTruth

    acts = [str(a) for a in GroundTruth(TASK).optimal_plan()]
    return acts, api.renderer(TASK, style).plan(acts)


@settings(max_examples=100, deadline=None)
@given(d=declaration, style=st.sampled_from(["pddl", "nl"]), order=st.booleans())
def test_a_plan_and_a_declaration_together_are_a_parse_error(d, style, order):
    _, plan = _some_plan(style)
    text = f"{d}\n{plan}" if order else f"{plan}\n{d}"
    with pytest.raises(ParseError):
        answers.PLAN_OR_NONE.flexible(ITEM, text, style)


@settings(max_examples=100, deadline=None)
@given(d=declaration, style=st.sampled_from(["pddl", "nl"]))
def test_the_last_block_decides(d, style):
    acts, plan = _some_plan(style)
    # a declaration first, then the plan in the final block: the plan is the answer
    assert answers.PLAN_OR_NONE.flexible(ITEM, f"At first I thought: {d}\n[PLAN]\n{plan}\n[PLAN END]",
                                         style).value == acts
    # a plan tried in prose, then the declaration in the final block: no plan
    assert answers.PLAN_OR_NONE.flexible(ITEM, f"{plan}\n[PLAN]\n{d}\n[PLAN END]", style).value == NO_PLAN
    # a plan block and a declaration after it: neither is clearly final
    with pytest.raises(ParseError):
        answers.PLAN_OR_NONE.flexible(ITEM, f"[PLAN]\n{plan}\n[PLAN END]\n{d}", style)


@pytest.mark.parametrize("text", [
    "I conclude that it is impossible.", "I think it is clearly unsolvable here.", "So it is not reachable.",
    "Therefore, it is unsolvable", "Unfortunately, this is infeasible!", "The goal state can never be reached.",
])
def test_weak_subjects_declare_at_the_end_of_a_clause(text):
    assert is_declaration(text)
    assert answers.PLAN_OR_NONE.flexible(ITEM, text, "nl").value == NO_PLAN


remark = st.sampled_from([
    "It is impossible to pick up b while holding a, so I put a down first.",
    "We cannot reach the goal directly; first unstack the top block.",
    "The goal is not unreachable: here is a plan.",
    "If the goal were unreachable I would say so.",
    "Is the goal reachable? Yes.",
    "There is no block on a.",
    "No plan is needed for the first part.",
    "It would be impossible without freeing the arm.",
    "Can I stack a on c now? No, that is impossible because c is not clear.",
    "Putting b on the table first: this is impossible while the arm holds a.",
])


@settings(max_examples=60, deadline=None)
@given(r=remark, style=st.sampled_from(["pddl", "nl"]))
def test_remarks_are_not_declarations_and_keep_the_plan(r, style):
    acts, plan = _some_plan(style)
    assert not declarations(r)
    assert answers.PLAN_OR_NONE.flexible(ITEM, f"{r}\n{plan}", style).value == acts


def test_a_plan_alone_and_none():
    for style in ("pddl", "nl"):
        acts, plan = _some_plan(style)
        assert answers.PLAN_OR_NONE.flexible(ITEM, "Answer:\n" + plan, style).value == acts
        assert answers.PLAN_OR_NONE.strict(ITEM, "Answer:\n" + plan, style) == acts
        with pytest.raises(ParseError):
            answers.PLAN_OR_NONE.strict(ITEM, "Answer: no plan exists\n" + plan, style)
