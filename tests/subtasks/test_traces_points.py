"""Property tests of which point of a trace a claim is about (docs/traces.md, "Which state a fact is
about", "Lines of reasoning").

Traces are written from random engine walks on the cases of test_traces_property.py (Blocksworld,
Logistics, a renamed Blocksworld and Blocksworld under mystery names; NL and PDDL). Each test states
a rule and checks it both ways: where the rule says the trace is wrong, the first error is there; where
it says the point is not known or the step was skipped in words, nothing is reported.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from tests.subtasks.test_traces_property import CASES, tasks
from tests.subtasks.traces_gen import WideWriter as Writer, _cap
from widthbench.planners.strips import applicable_actions, state_atoms, successor
from widthbench.subtasks.traces import verify_trace

NL = [c for c in CASES if c[1] == "nl"]
# walks that offer the case a rule is about are drawn among many: hypothesis says when none is found
PROPS = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


def _walk(task, rng, steps):
    """Actions of a random walk that changes the state each step, and every state it passes."""
    state, actions, passed = task.init, [], [task.init]
    for _ in range(steps):
        acts = [a for a in applicable_actions(task, state) if successor(state, a) != state]
        if not acts:
            break
        a = rng.choice(acts)
        state = successor(state, a)
        actions.append(a)
        passed.append(state)
    return actions, passed


def _case(domain, style, templates, k, seed, steps):
    """The task, a seeded writer and a walk of up to ``steps`` actions."""
    task = tasks(domain)[k]
    rng = random.Random(seed)
    w = Writer(task, style, templates, rng)
    return (task, rng, w) + _walk(task, rng, steps)


def _holds(task, atom, state):
    return bool(state >> task.atom_index[atom] & 1)


def _ok(a, state):
    return state & a.pre == a.pre and not state & a.neg_pre


def _one_step_short(task, a, state):
    """The actions after which ``a`` applies in ``state`` (it does not apply there)."""
    return [b for b in applicable_actions(task, state) if _ok(a, successor(state, b))]


def _written(w, actions):
    return [f"{_cap(w.action(a))}." for a in actions]


def _first_error(task, lines, style, templates):
    text = "\n".join(lines)
    return text, verify_trace(task, text, style=style, templates=templates)["first_error"]


def _span_of(text, sentence):
    i = text.rindex(sentence)
    return i, i + len(sentence)


@pytest.mark.parametrize("domain,style,templates", CASES)
@given(k=st.integers(0, 2), seed=st.integers(0, 10_000), steps=st.integers(2, 5))
@PROPS
def test_a_fact_no_words_tie_to_a_point_is_judged_only_where_it_held_at_no_point(domain, style, templates, k, seed,
                                                                                steps):
    """A fact stated after the steps with no "now", label or reason to tie it to a point is about a
    point the trace does not name: one that held at an earlier point is not judged (context
    "earlier"); with "Now" it is about the line's point and is an error; one that held at no point is
    an error either way."""
    task, rng, w, actions, passed = _case(domain, style, templates, k, seed, steps)
    assume(len(actions) >= 2)
    now, behind = passed[-1], passed[-2]
    earlier = [x for x in task.atoms if not _holds(task, x, now) and not _holds(task, x, behind)
               and any(_holds(task, x, p) for p in passed[:-2]) and not _holds(task, x, task.goal)]
    # (not a fact of the goal: said with no word of time it could be the goal stated)
    never = [x for x in task.atoms if not any(_holds(task, x, p) for p in passed) and not _holds(task, x, task.goal)]
    assume(earlier)
    lines = _written(w, actions)
    atom = rng.choice(earlier)
    plain = f"{_cap(w.fact(atom))}."
    got = verify_trace(task, "\n".join(lines + [plain]), style=style, templates=templates)
    assert got["first_error"] is None, ("\n".join(lines + [plain]), got["first_error"])
    assert got["claims"][-1]["verdict"] == "unchecked" and got["claims"][-1]["context"] == "earlier"
    said_now = f"Now {w.fact(atom)}."
    text, fe = _first_error(task, lines + [said_now], style, templates)
    assert fe is not None and fe["kind"] == "false-fact" and fe["span"][0] >= _span_of(text, said_now)[0], (text, fe)
    if never:
        text, fe = _first_error(task, lines + [f"{_cap(w.fact(rng.choice(never)))}."], style, templates)
        assert fe is not None and fe["kind"] == "false-fact", (text, fe)


@pytest.mark.parametrize("domain,style,templates", CASES)
@given(k=st.integers(0, 2), seed=st.integers(0, 10_000), steps=st.integers(1, 4))
@PROPS
def test_a_labelled_state_is_about_the_point_the_line_is_at(domain, style, templates, k, seed, steps):
    """"Resulting state: ..." says the state after the action: a fact true only just before it is an
    error there (no "one action back"), and the state as it is verifies."""
    task, rng, w, actions, passed = _case(domain, style, templates, k, seed, steps)
    assume(actions)
    now, behind = passed[-1], passed[-2]
    lines = _written(w, actions)
    facts = state_atoms(task, now)
    rng.shuffle(facts)
    right = "Resulting state: " + ", ".join(w.fact(x) for x in facts[:4]) + "."
    got = verify_trace(task, "\n".join(lines + [right]), style=style, templates=templates)
    assert got["first_error"] is None, ("\n".join(lines + [right]), got["first_error"])
    deleted = [x for x in state_atoms(task, behind) if not _holds(task, x, now)]
    assume(deleted)
    wrong = f"Resulting state: {w.fact(rng.choice(deleted))}."
    text, fe = _first_error(task, lines + [wrong], style, templates)
    assert fe is not None and fe["kind"] == "false-fact" and fe["span"][0] >= _span_of(text, wrong)[0], (text, fe)


def _skip_case(task, rng, steps):
    """A walk and an action ``a`` one step short at its end (exactly one action makes it applicable)."""
    actions, passed = _walk(task, rng, steps)
    state = passed[-1]
    options = []
    for a in task.actions:
        if _ok(a, state):
            continue
        fits = _one_step_short(task, a, state)
        if len(fits) == 1:
            options.append((a, fits[0]))
    if not options:
        return None
    a, b = rng.choice(options)
    return actions, state, a, b


@pytest.mark.parametrize("domain,style,templates", CASES)
@given(k=st.integers(0, 2), seed=st.integers(0, 10_000), steps=st.integers(0, 4))
@PROPS
def test_a_step_skipped_in_words_stands_unless_what_follows_says_it_was_not_taken(domain, style, templates, k,
                                                                                  seed, steps):
    """An action one step short is a step skipped in words ("stack red on blue" for "pick up red,
    stack it on blue"): no error, and the state after both verifies. A labelled state after it that
    holds only with the step left out (the model goes on as if the action applied where it stood)
    makes the action a precondition error at its span; a retraction right after it withdraws both."""
    task = tasks(domain)[k]
    rng = random.Random(seed)
    w = Writer(task, style, templates, rng)
    case = _skip_case(task, rng, steps)
    assume(case is not None)
    actions, state, a, b = case
    lines = _written(w, actions)
    step = f"{_cap(w.action(a))}."
    skipped = successor(successor(state, b), a)
    told = (state & ~a.dele) | a.add  # the action's effects where it stood
    shown = state_atoms(task, skipped)
    stands = f"Resulting state: {w.fact(rng.choice(shown))}."
    text = "\n".join(lines + [step, stands])
    assert verify_trace(task, text, style=style, templates=templates)["first_error"] is None, text
    only_told = [x for x in task.atoms if _holds(task, x, told) and not _holds(task, x, skipped)]
    assume(only_told)
    atom = rng.choice(only_told)
    contradicts = f"Resulting state: {w.fact(atom)}."
    text, fe = _first_error(task, lines + [step, contradicts], style, templates)
    start, end = _span_of(text, step)
    assert fe is not None and fe["kind"] == "precondition" and start <= fe["span"][0] < end, (text, fe)
    if _holds(task, atom, state):
        # withdrawn at once: the line is back where it stood, where the fact holds
        text = "\n".join(lines + [step, "Wait, no, I can't do that.", f"Now {w.fact(atom)}."])
        got = verify_trace(task, text, style=style, templates=templates)
        assert got["first_error"] is None, (text, got["first_error"])


@pytest.mark.parametrize("domain,style,templates", CASES)
@given(k=st.integers(0, 2), seed=st.integers(0, 10_000), steps=st.integers(2, 4))
@PROPS
def test_a_numbered_step_goes_on_from_the_step_before(domain, style, templates, k, seed, steps):
    """Step 3 of a numbered list goes on from step 2, never from the initial state: an action that
    applies only there is a precondition error at step 3. "1." may restate the plan from the start."""
    task, rng, w, actions, passed = _case(domain, style, templates, k, seed, steps)
    assume(len(actions) >= 2)
    state = passed[-1]
    bad = [a for a in task.actions if _ok(a, task.init) and not _ok(a, state) and not _one_step_short(task, a, state)
           and not any(_ok(a, p) for p in passed[1:]) and a not in actions]  # a step said again rewinds
    assume(bad)
    items = [f"{i + 1}. {_cap(w.action(a))}." for i, a in enumerate(actions)]
    last = f"{len(actions) + 1}. {_cap(w.action(rng.choice(bad)))}."
    text, fe = _first_error(task, items + [last], style, templates)
    assert fe is not None and fe["kind"] == "precondition" and fe["span"][0] >= _span_of(text, last)[0], (text, fe)
    # a new list from the start after the walk: "1." restates from the initial state
    again = "\n".join(_written(w, actions) + [f"{i + 1}. {_cap(w.action(a))}." for i, a in enumerate(actions)])
    assert verify_trace(task, again, style=style, templates=templates)["first_error"] is None, again


@pytest.mark.parametrize("domain,style,templates", CASES)
@given(k=st.integers(0, 2), seed=st.integers(0, 10_000), steps=st.integers(1, 4))
@PROPS
def test_a_labelled_state_that_fits_a_candidate_line_moves_the_trace_there(domain, style, templates, k, seed, steps):
    """"(Alternative sequence) 1. Current state: <the initial state>" after a walk: the trace is back at
    the start, and an action that applies where the walk ended but not there is a precondition error."""
    task, rng, w, actions, passed = _case(domain, style, templates, k, seed, steps)
    assume(actions)
    state = passed[-1]
    bad = [a for a in applicable_actions(task, state) if not _ok(a, task.init) and not _one_step_short(task, a, task.init)]
    assume(bad)
    shown = "1. Current state: " + ", ".join(w.fact(x) for x in state_atoms(task, task.init)) + "."
    act = f"Action: {w.action(rng.choice(bad))}."
    text, fe = _first_error(task, _written(w, actions) + ["", "Another way:", shown, act], style, templates)
    assert fe is not None and fe["kind"] == "precondition" and fe["span"][0] >= _span_of(text, act)[0], (text, fe)


@pytest.mark.parametrize("domain,style,templates", NL)
@given(k=st.integers(0, 2), seed=st.integers(0, 10_000), steps=st.integers(0, 4))
@PROPS
def test_an_action_named_as_an_aim_or_a_reason_is_not_taken(domain, style, templates, k, seed, steps):
    """"The next step is to <action>", a plan stated without an action read followed by "Then
    <action>", and "because I <action>" name actions that are not taken: one whose preconditions
    fail is no error, and the line does not advance (an action applicable where it stood is right
    after them). Taken ("Next, <action>."), the same action is a precondition error."""
    task, rng, w, actions, passed = _case(domain, style, templates, k, seed, steps)
    state = passed[-1]
    bad = [a for a in task.actions if not _ok(a, state) and not _one_step_short(task, a, state)
           and not any(_ok(a, p) for p in passed)]
    fine = [a for a in applicable_actions(task, state) if successor(state, a) != state]
    assume(bad and fine)
    lines = _written(w, actions)
    x, ok = rng.choice(bad), rng.choice(fine)
    for aim in (f"The next step is to {w.action(x)}.",
                f"I need to get everything in place first. Then {w.action(x)}.",
                f"That is fine because I {w.action(x)}."):
        text = "\n".join(lines + [aim, f"{_cap(w.action(ok))}."])
        got = verify_trace(task, text, style=style, templates=templates)
        assert got["first_error"] is None, (text, got["first_error"])
        assert got["claims"][-1]["verdict"] == "right", (text, got["claims"][-1])
    text, fe = _first_error(task, lines + [f"Next, {w.action(x)}."], style, templates)
    assert fe is not None and fe["kind"] == "precondition", (text, fe)


@pytest.mark.parametrize("domain,style,templates", NL)
@given(k=st.integers(0, 2), seed=st.integers(0, 10_000), steps=st.integers(0, 4))
@PROPS
def test_a_reason_for_an_action_that_could_not_be_placed_is_not_judged(domain, style, templates, k, seed, steps):
    """"So step 3 would be <action that applies nowhere>. Because <fact>." : the reason is about a
    point the trace could not place, and is not judged against the state before an earlier action."""
    task, rng, w, actions, passed = _case(domain, style, templates, k, seed, steps)
    assume(actions)
    state = passed[-1]
    bad = [a for a in task.actions if not any(_ok(a, p) for p in passed) and not _one_step_short(task, a, state)]
    never = [x for x in task.atoms if not any(_holds(task, x, p) for p in passed)]
    assume(bad and never)
    lines = _written(w, actions) + [f"So step {len(actions) + 1} would be {w.action(rng.choice(bad))}.",
                                    f"Because {w.fact(rng.choice(never))}."]
    text = "\n".join(lines)
    got = verify_trace(task, text, style=style, templates=templates)
    assert got["first_error"] is None, (text, got["first_error"])
