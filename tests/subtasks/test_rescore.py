"""Rescore's disagreement classes: each disagreement between a reader and PlanBench has exactly one
class, PlanBench's reading is compared whether stored as a list or as text, and every reading is
printed on one line."""

from __future__ import annotations

import pytest

from widthbench.subtasks.planbench.judge import (DISAGREEMENT_CLASSES, AnswerResult, ReaderResult, counts,
                                         disagreement, disagreement_class, planbench_reading)

PLAN = ["(unstack b c)", "(put-down b)", "(pick-up c)", "(stack c b)"]
UNREAD = ReaderResult(False, None, "parse error: two different plans in one reply")


def _answer(ours: ReaderResult, planbench_correct: bool, theirs, task="plan-generation") -> AnswerResult:
    return AnswerResult("f.json", 7, task, planbench_correct, ours, ours, theirs)


def _read(value, valid: bool) -> ReaderResult:
    return ReaderResult(True, valid, "the plan reaches the goal" if valid else "step 2 is not applicable", value)


@pytest.mark.parametrize("theirs", [PLAN, "".join(a.upper() + "\n" for a in PLAN), "\n".join(PLAN)])
def test_the_same_plan_stored_as_list_or_text_is_the_same_reading(theirs):
    assert planbench_reading("plan-generation", theirs) == PLAN
    a = _answer(_read(PLAN, True), False, theirs)  # VAL said no, the engine says the plan is valid
    assert disagreement_class(a) == "same-reading-other-verdict"


@pytest.mark.parametrize("ours, pb_correct, theirs, expected", [
    (_read(PLAN, True), False, "(unstack b c)\n(put-down b)\n", "planbench-reading-differs"),
    (_read(PLAN[:2], False), True, PLAN, "planbench-reading-differs"),
    (_read(PLAN, False), True, "\n".join(PLAN), "same-reading-other-verdict"),
    (UNREAD, True, PLAN, "unread-by-us"),
    (_read(PLAN, True), False, "", "unread-by-planbench"),
    (_read(PLAN, True), False, [], "unread-by-planbench"),
    (_read(PLAN, True), True, "anything", None),
    (UNREAD, False, "", None),
])
def test_each_disagreement_has_its_class(ours, pb_correct, theirs, expected):
    a = _answer(ours, pb_correct, theirs)
    assert disagreement_class(a) == expected
    line = disagreement(a)
    if expected is None:
        assert line is None
        return
    assert line.startswith(f"[{expected}] ") and "\n" not in line
    if ours.read:
        assert " ".join(ours.value) in line  # our reading, on one line
    if planbench_reading(a.task, theirs):
        assert "PlanBench read: " + " ".join(planbench_reading(a.task, theirs)) in line


def test_verification_and_execution_readings_compare():
    v = _answer(_read(True, False), True, {"valid": True}, task="plan-verification")
    assert disagreement_class(v) == "same-reading-other-verdict"
    v2 = _answer(_read(False, True), False, {"valid": True}, task="plan-verification")
    assert disagreement_class(v2) == "planbench-reading-differs"
    state = ["(clear a)", "(on a b)"]
    e = _answer(_read(state, True), False, ["on_a_b", "clear_a"], task="plan-execution")
    assert disagreement_class(e) == "same-reading-other-verdict"
    e2 = _answer(_read(state, True), False, ["on_a_b"], task="plan-execution")
    assert disagreement_class(e2) == "planbench-reading-differs"


def test_counts_split_the_disagreements_by_class():
    answers = [_answer(UNREAD, True, PLAN), _answer(_read(PLAN, True), False, ""),
               _answer(_read(PLAN, True), False, PLAN), _answer(_read(PLAN, True), True, PLAN)]
    c = counts(answers)["flexible"]
    assert c["disagreements"] == 3
    assert c["disagreement_classes"] == {"unread-by-us": 1, "unread-by-planbench": 1,
                                         "same-reading-other-verdict": 1, "planbench-reading-differs": 0}
    assert list(c["disagreement_classes"]) == list(DISAGREEMENT_CLASSES)
