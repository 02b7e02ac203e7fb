"""Readers by principle (issue 40): each principle of docs/subtasks.md ("Flexible reader", "Readers by
principle") is a property over answers written by `answer_gen` -- true plans of random instances of
Blocksworld (both template sets), Logistics, a Mystery renaming (pddl_domains/obfuscate.py) and, with
the reference data, PlanBench's Mystery config and ACPBench's typed ferry domain (generated
templates), in both styles -- never over quoted answers. The reader returns exactly the plan written,
or a parse error when the text is genuinely ambiguous, and never credits a withdrawn step.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.pddl_domains import answer_gen as gen
from tests.subtasks.test_flexible import SETTINGS
from widthbench.core.errors import ParseError
from widthbench.generators import generate
from widthbench.pddl_domains.render import Renderer
from widthbench.planners import strips
from widthbench.subtasks import flexible, strict

VOCABULARIES = gen.vocabularies(0) + gen.vocabularies(1)
NL = [v for v in VOCABULARIES if v.style == "nl"]


def _read(v: gen.Vocabulary, text: str):
    return flexible.read_plan(v.task, text, v.style, v.templates).value


def _reads_as_written(v: gen.Vocabulary, answer: gen.Answer) -> None:
    """The answer reads as the plan written; an ambiguous one is a parse error; a withdrawn step is
    never in a reading."""
    try:
        got = _read(v, answer.text)
    except ParseError as exc:
        assert answer.plan is None, f"{v.label}/{v.style}: {exc}\n{answer.text}"
        return
    assert not set(answer.withdrawn) & set(got), f"false credit: {got}\n{answer.text}"
    assert answer.plan is not None or answer.withdrawn, f"read {got} from an ambiguous answer:\n{answer.text}"
    if answer.plan is not None:
        assert got == list(answer.plan), f"{v.label}/{v.style}: read {got}\n{answer.text}"


def _refused(v: gen.Vocabulary, text: str) -> None:
    """The answer is a parse error: no plan is read from it."""
    with pytest.raises(ParseError):
        got = _read(v, text)
        pytest.fail(f"read {got} from\n{text}")


def _two_attempts(v: gen.Vocabulary, rng) -> tuple[list[str], list[str]]:
    """Two true plans of the task that differ: (the second attempt's, the first attempt's)."""
    plan, other = gen.true_plan(v.task, rng), gen.true_plan(v.task, rng)
    return plan, (other if other != plan else plan + [plan[-1]])


def _corrected(w: gen.Writer, plan: list[str], other: list[str], kind: str, **words: list[str]) -> gen.Answer:
    """An answer of two attempts, ``other`` then ``plan`` (`answer_gen.corrected_answer`), in only the
    ``words`` given: no intro and no closing remark."""
    return gen.corrected_answer(w, plan, other, kind, {"reject": [], "keep": [], "intro": [""], "close": [""],
                                                      "undo": [], **words})


def _gives_way_then_takes_back(v: gen.Vocabulary, w: gen.Writer, plan: list[str], other: list[str], text: str) -> None:
    """``text`` between two attempts rejects the first: the second is read; the same words after the
    last attempt take it back: a parse error."""
    _reads_as_written(v, _corrected(w, plan, other, "reject", reject=[text], undo=[text]))
    _refused(v, _corrected(w, plan, other, "undo", reject=[text], undo=[text]).text)


def _habit(habit: str):
    @SETTINGS
    @given(v=st.sampled_from(VOCABULARIES), rng=st.randoms(use_true_random=False))
    def check(v, rng):
        _reads_as_written(v, gen.write(v, rng, habit))

    return check


# ---------------------------------------------------------------------------------------------
# An answer's copies of one plan are one plan; a second copy is another plan only when it reads
# completely and differs.

test_a_plan_written_twice_detailed_then_summarised_is_one_plan = _habit("twice")
test_a_plan_block_then_a_narrative_checklist_or_explained_list_is_one_plan = _habit("block-copy")


test_a_list_then_a_narrative_checklist_chain_table_or_json_copy_is_one_plan = _habit("list-copy")
test_a_verbose_answer_with_rules_effects_a_summary_and_the_final_state_is_one_plan = _habit("verbose")


@SETTINGS
@given(v=st.sampled_from(NL), rng=st.randoms(use_true_random=False),
       offer=st.sampled_from(["A shorter way: ", "Another option: ", "Alternatively, "]))
def test_a_narrative_that_offers_another_way_is_no_copy(v, rng, offer):
    """Sentences after the plan that tell fewer steps and offer them as another way: two plans, never
    merged into the list's plan."""
    plan = gen.true_plan(v.task, rng)
    if len(plan) < 3 or [plan[0], plan[-1]] == plan[:2]:
        return  # the way offered must differ from the plan
    w = gen.Writer(v, rng)
    listed = "\n".join(f"{i}. {w.sentence(a)}" for i, a in enumerate(plan, 1))
    told = f"{offer}we {w.sentence(plan[0])}, and then we {w.sentence(plan[-1])}, which also works."
    _refused(v, f"{listed}\n\n{told}")


@SETTINGS
@given(v=st.sampled_from(VOCABULARIES), rng=st.randoms(use_true_random=False))
def test_two_copies_that_read_completely_and_differ_are_two_plans(v, rng):
    answer = gen.write(v, rng, "two-plans")
    if answer.plan is not None:  # the instance drew the same plan twice
        return
    with pytest.raises(ParseError, match="two different plans"):
        got = _read(v, answer.text)
        pytest.fail(f"read {got} from\n{answer.text}")


@SETTINGS
@given(v=st.sampled_from(NL), rng=st.randoms(use_true_random=False), k=st.integers(0, 10))
def test_a_copy_read_partly_that_differs_where_it_reads_is_no_copy(v, rng, k):
    """A detailed copy with a step in words no rule reads, and another step that differs from the
    summary: the answer is unreadable (the copies do not read alike), never the summary's plan."""
    plan = gen.true_plan(v.task, rng)
    other = next((str(a) for a in rng.sample(v.task.actions, len(v.task.actions)) if str(a) not in plan), None)
    if other is None or len(plan) < 2:
        return
    w = gen.Writer(v, rng)
    detailed = [f"{i}. {w.sentence(a)}" for i, a in enumerate(plan, 1)]
    gap, wrong = rng.sample(range(len(plan)), 2)
    detailed[gap] = f"{gap + 1}. Now get the next object ready for the goal."
    detailed[wrong] = f"{wrong + 1}. {w.sentence(other)}"
    text = "\n".join(detailed) + "\n\n**Summary:**\n" + "\n".join(f"- {w.sentence(a)}" for a in plan)
    _refused(v, text)


# ---------------------------------------------------------------------------------------------
# A withdrawal names a step of the plan and withdraws it; words about effects, a goal or the state
# never withdraw anything.

test_words_about_an_actions_effects_withdraw_nothing = _habit("effects")
test_a_withdrawn_step_is_never_credited = _habit("withdrawn")
test_a_step_removed_by_its_number_is_left_out = _habit("removed")
test_a_step_said_unneeded_but_kept_is_a_step_and_another_way_offered_is_refused = _habit("conceded")


@SETTINGS
@given(v=st.sampled_from(VOCABULARIES), rng=st.randoms(use_true_random=False),
       words=st.sampled_from(["removing", "deleting", "dropping", "undoing", "which undoes", "so that",
                              "rather than keeping", "instead of keeping"]))
def test_effect_words_name_no_step(v, rng, words):
    """Words that elsewhere withdraw ("remove", "drop", "undo", "instead") said of facts after each
    step: the plan as written."""
    plan = gen.true_plan(v.task, rng)
    w = gen.Writer(v, rng)
    states = gen.states_along(v.task, plan)
    lines = []
    for i, a in enumerate(plan, 1):
        act = strips.parse_action(v.task, a)
        gone = [v.task.atoms[j] for j in range(len(v.task.atoms)) if act.dele >> j & 1 and states[i - 1] >> j & 1]
        fact = w.fact(gone[0]) if gone else "nothing"
        lines.append(f"{i}. {w.sentence(a)}, {words} {fact}")
    assert _read(v, "\n".join(lines)) == plan


# ---------------------------------------------------------------------------------------------
# An action is read from any writing that names it and its arguments unambiguously.

test_call_notation_the_action_word_and_objects_in_any_spelling_read = _habit("plain")
test_the_action_word_alone_with_its_objects_below_reads = _habit("word-alone")


EIGHT_BLOCKS = [i.task() for i in generate("blocksworld", 3, 7, blocks=8, optimal=False)]  # blue and black blocks


@SETTINGS
@given(rng=st.randoms(use_true_random=False), k=st.integers(0, 2), tpl=st.sampled_from(["widthbench", "planbench"]))
def test_an_initial_that_two_objects_share_is_never_read(rng, k, tpl):
    """"B" for the blue block reads when no other object's initials are B; with a black block too it
    names two objects: a parse error, never a choice."""
    task = EIGHT_BLOCKS[k]
    r = Renderer(task, "nl", tpl)
    by_colour = {n.split()[0]: o for o, n in r.names.items()}
    assert {"blue", "black"} <= set(by_colour)
    other = rng.choice([c for c in by_colour if c[0] not in "bc"])
    pick = next((a for a in task.actions if a.name == "stack" and set(a.args) == {by_colour["blue"], by_colour[other]}
                 and a.args[0] == by_colour[other]), None)
    assert pick is not None
    text = f"1. Stack({other[0].upper()}, B)"
    with pytest.raises(ParseError):
        got = flexible.read_plan(task, text, "nl", tpl).value
        pytest.fail(f"read {got} from {text!r}")
    text = f"1. Stack({other[0].upper()}, Blue)"
    assert flexible.read_plan(task, text, "nl", tpl).value == [str(pick)]


# ---------------------------------------------------------------------------------------------
# A line is a step only if it reads as an action; text after the answer's end marker is not the answer.

test_rules_labels_and_a_final_configuration_are_no_steps = _habit("not-steps")
test_a_completion_that_runs_on_past_the_end_marker_is_not_the_answer = _habit("run-on")


@SETTINGS
@given(v=st.sampled_from(VOCABULARIES), rng=st.randoms(use_true_random=False),
       after=st.sampled_from(["Wait, step {k} is wrong.", "Another plan that works:\n1. {x}", "Do not {x}.",
                              "Alternatively, {x}."]))
def test_a_withdrawal_or_another_plan_after_the_end_marker_still_refuses_the_answer(v, rng, after):
    plan = gen.true_plan(v.task, rng)
    w = gen.Writer(v, rng)
    text = "\n".join(w.sentence(a) for a in plan) + "\n[PLAN END]\n\n" + after.format(
        k=rng.randint(1, len(plan)), x=w.sentence(str(rng.choice(v.task.actions))))
    _refused(v, text)


@SETTINGS
@given(v=st.sampled_from(VOCABULARIES), rng=st.randoms(use_true_random=False))
def test_a_step_left_without_its_objects_in_a_list_is_never_dropped(v, rng):
    """"3. **Succumb**" or "3. Succumb object" in a numbered plan is a step not read: the answer is a
    parse error, never the plan without that step."""
    plan = gen.true_plan(v.task, rng)
    if len(plan) < 2:
        return
    w = gen.Writer(v, rng)
    at = rng.randrange(len(plan))
    name = strips.parse_atom_text(plan[at])[0]
    lines = [f"{i}. {w.sentence(a)}" for i, a in enumerate(plan, 1)]
    lines[at] = f"{at + 1}. " + rng.choice([f"**{name.capitalize()}**", f"{name.capitalize()} object"])
    text = "\n".join(lines)
    _refused(v, text)


# ---------------------------------------------------------------------------------------------
# An attempt the answer itself rejects is not the answer: the plan written afresh after the rejection
# is, unless something after it takes it back or reopens the choice (rule 11).

test_an_attempt_the_answer_rejects_gives_way_to_the_plan_written_after_it = _habit("rejected")
test_an_attempt_left_standing_beside_another_is_two_plans = _habit("kept")
test_a_second_attempt_taken_back_or_doubted_leaves_the_answer_unreadable = _habit("undone")


@SETTINGS
@given(v=st.sampled_from(VOCABULARIES), rng=st.randoms(use_true_random=False),
       heading=st.sampled_from(["## Verification", "**Explanation:**", "Reasoning:"]),
       verdict=st.sampled_from(["The plan above is **not a valid solution**.", "Step {n} fails, so the plan above is wrong.",
                                "Checking it, the plan does not reach the goal."]))
def test_commentary_that_judges_the_plan_above_bad_is_no_restatement_of_it(v, rng, heading, verdict):
    """Under a commentary heading, words that judge the plan above bad ("The plan above is not a
    valid solution"), then a shorter plan whose steps are among the first's in order: the shorter
    plan is an attempt written afresh after a rejection (rule 11), not the commentary restating the
    plan above, which is never read."""
    plan = gen.true_plan(v.task, rng)
    w = gen.Writer(v, rng)
    other = plan + [str(rng.choice(v.task.actions)) for _ in range(rng.randint(1, 2))]
    block = lambda p: "\n".join(f"{i}. {w.sentence(a)}" for i, a in enumerate(p, 1))  # noqa: E731
    said = verdict.format(n=len(other))
    text = f"{block(other)}\n\n{heading}\n\n{said}\n{block(plan)}"
    try:
        got = _read(v, text)
    except ParseError:
        return
    assert got == plan, f"read {got} from\n{text}"


@SETTINGS
@given(v=st.sampled_from(VOCABULARIES), rng=st.randoms(use_true_random=False),
       how=st.sampled_from(["numbered", "from", "unlabelled"]))
def test_steps_that_go_on_after_a_rejection_are_never_read_as_the_whole_plan(v, rng, how):
    """A rejection, then steps that go on from a step of the first attempt (numbered from its step k,
    "From step k:", or unnumbered and unintroduced): what the answer means needs the first attempt's
    steps, so it is a parse error, never the steps after the rejection alone."""
    plan = gen.true_plan(v.task, rng)
    if len(plan) < 2:
        return
    w = gen.Writer(v, rng)
    k = rng.randrange(2, len(plan) + 1)
    first = [str(rng.choice(v.task.actions))] * len(plan)
    lines = [f"{i}. {w.sentence(a)}" for i, a in enumerate(plan[:k - 1] + first[k - 1:], 1)]
    rest = plan[k - 1:]
    if how == "numbered":
        again = [f"{i}. {w.sentence(a)}" for i, a in enumerate(rest, k)]
    elif how == "from":
        again = [f"From step {k}:"] + [f"{i}. {w.sentence(a)}" for i, a in enumerate(rest, 1)]
    else:
        again = [w.sentence(a) for a in rest]
    text = "\n".join(lines + ["", f"Wait, step {k} is wrong, so that plan fails."] + again)
    try:
        got = _read(v, text)
    except ParseError:
        return
    assert got != rest, f"read the steps after the rejection alone:\n{text}"


@SETTINGS
@given(v=st.sampled_from(VOCABULARIES), rng=st.randoms(use_true_random=False),
       doubt=st.sampled_from(gen.SELF_CORRECTIONS["undo"]), close=st.sampled_from(gen.SELF_CORRECTIONS["close"]))
def test_a_plan_marked_final_after_another_is_refused_when_the_answer_then_doubts_it(v, rng, doubt, close):
    """"Final plan:" after another attempt is the answer (rule 1) -- unless the text after it takes it
    back or reopens the choice; a closing remark that changes nothing leaves it the answer."""
    plan, other = _two_attempts(v, rng)
    w = gen.Writer(v, rng)
    block = lambda p: "\n".join(f"{i}. {w.sentence(a)}" for i, a in enumerate(p, 1))  # noqa: E731
    k = rng.randrange(len(plan))
    head = f"Plan:\n{block(other)}\n\nFinal plan:\n{block(plan)}\n\n"
    assert _read(v, head + close) == plan
    text = head + doubt.format(n=k + 1, action=w.sentence(plan[k]))
    _refused(v, text)


#: The first attempt named: right before its verdict, or with words that say only where or when it was given.
ATTEMPTS_NAMED = ["the plan above", "the earlier plan", "the plan provided earlier", "the sequence sent previously",
                  "the solution shown above", "my first attempt", "that plan", "the plan set out in section 1"]
#: What is said of it: withdrawn in a word of withdrawal, or judged wrong with an adverb.
SAID_OF_AN_ATTEMPT = ["{a} has been withdrawn.", "{a} is hereby cancelled.", "{a} was discarded.",
                      "{a} has unfortunately been rejected.", "{a} is superseded by the plan below.",
                      "{a} must be replaced.", "{a} is therefore invalid.", "{a} is clearly wrong.",
                      "{a} contains an error.", "{a} should not be used.", "Please treat {a} as void.",
                      "Do not act on {a}.", "We must reject {a}.", "I retract {a}.",
                      "It asks us to {action} at step {n}, which is not allowed there; {a} is withdrawn.",
                      "Outcome: {a} withdrawn.", "{a} is accordingly declared null and void.",
                      "{a} is hereby rescinded.", "The writer hereby withdraws {a}."]


@SETTINGS
@given(v=st.sampled_from(VOCABULARIES), rng=st.randoms(use_true_random=False),
       named=st.sampled_from(ATTEMPTS_NAMED), said=st.sampled_from(SAID_OF_AN_ATTEMPT))
def test_an_attempt_withdrawn_or_judged_wrong_in_any_words_gives_way_to_the_next(v, rng, named, said):
    """Rule 11: an attempt named (after words that say where it was given, too) and said to be
    withdrawn, replaced or wrong (an adverb between), or one the writer withdraws ("I retract it"),
    gives way to the attempt after it; the same words after the last attempt take it back: a parse
    error. A "which" after a comma opens a relative clause, no doubt of which attempt is meant."""
    plan, other = _two_attempts(v, rng)
    text = said.format(a=named, n="{n}", action="{action}")
    text = text[0].upper() + text[1:]
    w = gen.Writer(v, rng)
    _gives_way_then_takes_back(v, w, plan, other, text)
    # a word of withdrawal in the active voice, its object another thing, withdraws no attempt
    active = f"{named[0].upper()}{named[1:]} replaced step {{n}} and abandoned the tower."
    _refused(v, _corrected(w, plan, other, "keep", keep=[active]).text)


#: A question whether an attempt, or a step of it, holds; and answers that say no to it.
QUESTIONS_OF_AN_ATTEMPT = ["Does it work?", "So, is the plan above valid?", "Was that plan sound?",
                           "Is step {n} really legal?", "But does this sequence actually reach the goal?"]
ANSWERS_NO = ["No.", "It does not.", "Not at all.", "It is not, sadly.", "Nope, it doesn't."]


@SETTINGS
@given(v=st.sampled_from(VOCABULARIES), rng=st.randoms(use_true_random=False),
       question=st.sampled_from(QUESTIONS_OF_AN_ATTEMPT), answer=st.sampled_from(ANSWERS_NO))
def test_a_question_whether_an_attempt_holds_answered_no_rejects_it(v, rng, question, answer):
    """Rule 11: "Does it work? It does not." between two attempts rejects the first, as "it does not
    work" would; after the last attempt it takes it back (a parse error; "It does not." is no yes)."""
    plan, other = _two_attempts(v, rng)
    text = f"{question} {answer}"
    w = gen.Writer(v, rng)
    _gives_way_then_takes_back(v, w, plan, other, text)
    # a "no" to a question about something else than whether it holds leaves it standing
    other_question = "Is it the only valid one? No; here is a different one that is also correct:"
    _refused(v, _corrected(w, plan, other, "keep", keep=[other_question]).text)


#: Words between two attempts that deny a verdict of error on the first: they leave it standing.
DENIED_VERDICTS = ["I can't say step {n} is wrong, but here is another way:", "I don't think {action} is a mistake. A variant:",
                   "Not that the plan above is wrong. Another order:", "I wouldn't call step {n} an error; a second version:",
                   "Checking step {n} again, I do not find any error there. Also:"]
#: ... and a denied verdict beside a real one, in another clause: the first attempt is rejected.
DENIED_THEN_REJECTED = ["I don't think step {n} is wrong, but the plan fails: the goal is not reached.",
                        "Not that {action} is a mistake; still, this plan does not work."]


@SETTINGS
@given(v=st.sampled_from(VOCABULARIES), rng=st.randoms(use_true_random=False),
       denied=st.sampled_from(DENIED_VERDICTS), rejected=st.sampled_from(DENIED_THEN_REJECTED))
def test_a_verdict_of_error_denied_rejects_nothing(v, rng, denied, rejected):
    """Rule 11: "I can't say step 2 is wrong" between two attempts denies a verdict of error: the first
    attempt stands beside the second, and two different plans are a parse error, never the second read;
    a rejection in another clause of the same words still rejects it."""
    plan, other = _two_attempts(v, rng)
    w = gen.Writer(v, rng)
    _refused(v, _corrected(w, plan, other, "keep", keep=[denied]).text)
    _reads_as_written(v, _corrected(w, plan, other, "reject", reject=[rejected]))


@SETTINGS
@given(v=st.sampled_from(VOCABULARIES), rng=st.randoms(use_true_random=False),
       doubt=st.sampled_from(["**Confidence: low** for both plans.", "Confidence is low here.",
                              "Confidence level - weak.", "I have little confidence in either of them."]))
def test_low_confidence_after_the_last_attempt_reopens_the_choice(v, rng, doubt):
    """Rule 11 (c): a statement of low confidence after the last attempt, in any word order ("low
    confidence", "confidence: low"), reopens the choice: the answer is a parse error."""
    plan, other = _two_attempts(v, rng)
    _refused(v, _corrected(gen.Writer(v, rng), plan, other, "undo", reject=["Oops, that's wrong."], undo=[doubt]).text)


@SETTINGS
@given(v=st.sampled_from(VOCABULARIES), rng=st.randoms(use_true_random=False),
       doubt=st.sampled_from(["Can we really {action} at step {n}?", "// step {n}: is that even legal? probably not",
                              "Does step {n} actually work here?", "Is it correct to {action} there? Hmm."]),
       settled=st.sampled_from(["Does step {n} work? Yes, it does.", "Would you like me to explain step {n}?"]))
def test_a_doubt_asked_after_the_last_attempt_reopens_the_choice(v, rng, doubt, settled):
    """Rule 11 (c): a question after the last attempt that doubts whether it or a step of it holds
    ("Can we really X at step 3?"), not answered yes, reopens the choice: the answer is a parse error.
    Answered yes, or put to the reader ("Would you like me to explain?"), it leaves the last attempt read."""
    plan, other = _two_attempts(v, rng)
    w = gen.Writer(v, rng)
    _refused(v, _corrected(w, plan, other, "undo", reject=["Oops, that's wrong."], undo=[doubt]).text)
    answer = _corrected(w, plan, other, "undo", reject=["Oops, that's wrong."], undo=[settled])
    assert _read(v, answer.text) == plan, answer.text


@SETTINGS
@given(v=st.sampled_from(VOCABULARIES), rng=st.randoms(use_true_random=False),
       doubt=st.sampled_from(["Verdict: undecided between the two plans.", "Both plans look plausible; no decision yet.",
                              "Can we really {action} at step {n}?"]))
def test_a_doubt_after_the_answer_block_brings_back_the_draft_before_it(v, rng, doubt):
    """Rule 2 and rule 11 (c): the text before the last block that reads is reasoning, not the answer,
    so a plan drafted there does not stand beside the block's; but when the text after the block
    doubts which attempt is meant ("undecided between the two plans", "Can we really X at step 3?"),
    the draft is an attempt again and the answer is a parse error. With no doubt after it, the
    block's plan is read."""
    plan, other = _two_attempts(v, rng)
    w = gen.Writer(v, rng)
    k = rng.randrange(len(plan))
    head = ["Plan:", *gen.steps_text(w, other), "", "Let me write it out properly.", "```",
            *gen.steps_text(w, plan), "```", ""]
    text = "\n".join(head + [doubt.format(n=k + 1, action=w.sentence(plan[k]))])
    _refused(v, text)
    text = "\n".join(head + ["This reaches the goal."])
    assert _read(v, text) == plan, text


# ---------------------------------------------------------------------------------------------
# The principles already in force: several attempts are two plans unless one is final; any habit,
# and the data's vocabularies (PlanBench's Mystery config, ACPBench's ferry).

test_several_attempts_are_two_plans_unless_one_is_final = _habit("attempts")


@SETTINGS
@given(v=st.sampled_from(VOCABULARIES), rng=st.randoms(use_true_random=False))
def test_answers_in_any_habit_read_as_written(v, rng):
    _reads_as_written(v, gen.write(v, rng))


@SETTINGS
@given(k=st.integers(0, 2), which=st.integers(0, 3), rng=st.randoms(use_true_random=False))
def test_answers_in_any_habit_read_as_written_in_the_datas_vocabularies(k, which, rng):
    from tests.conftest import need_data

    need_data()
    v = gen.data_vocabularies(k)[which]
    _reads_as_written(v, gen.write(v, rng))


@SETTINGS
@given(v=st.sampled_from(VOCABULARIES), rng=st.randoms(use_true_random=False))
def test_the_strict_reader_keeps_its_meaning(v, rng):
    """The strict reader reads the plan written as the prompt asks ("Answer:" and one action a line,
    in the prompt's words), and what it reads of a plan written once the flexible reader reads alike
    (the strict reader knows no copies: a plan written twice is one long plan to it)."""
    plan = gen.true_plan(v.task, rng)
    r = Renderer(v.task, v.style, v.templates)
    assert r.parse_plan(strict.answer_section("Answer:\n" + r.plan(plan))) == plan
    answer = gen.write(v, rng, "plain")
    try:
        read = r.parse_plan(strict.answer_section(answer.text))
    except ParseError:
        return
    assert _read(v, answer.text) == read == list(answer.plan)
