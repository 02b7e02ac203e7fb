"""The principles of the trace verifier (issue 40; docs/traces.md, "Principles"), each a property test on
traces written from random engine walks, on every case of test_traces_property.py (Blocksworld,
Logistics, a renamed Blocksworld, the mystery and random obfuscations, PlanBench's Mystery Blocksworld;
NL and PDDL). Each states a principle and checks it both ways: where it says a claim is not judged,
nothing is reported; where it says the claim is judged, the error is reported there.

1. A claim is judged only when its mood is an assertion: requirements, preconditions, goals and aims,
   questions, suppositions, hedges, options considered and rejected ones assert nothing of the state;
   and a fact said with no word of time that would be right as the goal or as what an action under
   discussion requires is of uncertain mood.
2. ... and only when its point in time is certain: before any action it is the state the trace starts
   from; after a step written in words no reader reads it is unknown; a fact nothing ties to a point
   is never judged against the initial state by default.
3. Negative claims are claims: a fact denied, and the facts an enumeration said to be complete leaves
   out.
4. An action is taken when the line of thought goes on from its result: an option rejected is not
   taken; one checked, found "possible" and taken is; one considered and built upon is.
5. A withdrawal takes back what was just said (words of having erred too: "I misspoke"); a
   hesitation alone ("Hmm, maybe ...") takes back nothing, and a phrase that says the action just
   taken is done or of its consequence ("after doing that", "upon completing this", "as a
   consequence") speaks of now.
7. An action is taken only as its clause says: it leads the clause (after narration the grammar
   reads) and what follows it says only when, that it is done or what results. An action named
   among other words, known ones too ("the thing about X is that ...", "X permitted only given A"),
   is followed without trust and never an error by its own words.
8. Who tells an action, and when, does not change it: told in the third person it is read as in the
   first; told in the past it is followed without trust (it may retell an earlier step).
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from tests.subtasks.test_traces_property import CASES, tasks
from tests.subtasks.traces_gen import WideWriter, _cap, random_walk, said_and_done, unread_step
from widthbench.planners.strips import applicable_actions, state_atoms, successor
from widthbench.subtasks.traces import verify_trace

PROPS = settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


def _holds(task, atom, state):
    return bool(state >> task.atom_index[atom] & 1)


def _ok(a, state):
    return state & a.pre == a.pre and not state & a.neg_pre


def _walked(domain, style, templates, k, seed, steps):
    """The task, a writer in wide words, the walk's sentences, its actions and every state it passed."""
    task = tasks(domain)[k]
    rng = random.Random(seed)
    w = WideWriter(task, style, templates, rng)
    walk = random_walk(task, task.init, rng, steps)
    passed, state = [task.init], task.init
    for a in walk:
        state = successor(state, a)
        passed.append(state)
    lines = [f"{_cap(w.action(a))}." for a in walk]
    return task, rng, w, walk, passed, lines


def _never(task, passed):
    """Facts false at every point the walk passed."""
    return [x for x in task.atoms if not any(_holds(task, x, p) for p in passed)]


def _inapplicable(task, passed):
    """Actions that apply at no point the walk passed and that no one action makes applicable at its end."""
    end = passed[-1]
    one_step = [successor(end, b) for b in applicable_actions(task, end)]
    return [a for a in task.actions if not any(_ok(a, p) for p in passed) and not any(_ok(a, t) for t in one_step)]


def _stuck_and_free(task, rng, passed):
    """An action that applies at no point the walk passed (`_inapplicable`) and one that applies at its
    end and changes the state, each drawn at random; an example that has none is not drawn."""
    now = passed[-1]
    bad = _inapplicable(task, passed)
    good = [a for a in applicable_actions(task, now) if successor(now, a) != now]
    assume(bad and good)
    return rng.choice(bad), rng.choice(good)


def _verify(task, lines, style, templates):
    text = "\n".join(lines)
    return text, verify_trace(task, text, style=style, templates=templates)


def _inside(text, sentence, fe):
    at = text.rindex(sentence)
    return fe is not None and at <= fe["span"][0] and fe["span"][1] <= at + len(sentence)


NOT_ASSERTED = ("To {action}, we need {fact}.", "{Action} requires {fact}.", "The preconditions of {action} are {fact}.",
                "Pre: {fact}.", "We need {fact}.", "Need to get to: {fact}.", "Is {fact}?", "If {fact}, then I can go on.",
                "Suppose {fact}.", "Maybe {fact}.", "I want {fact} in the end.", "The conditions for {action}: {fact}.",
                "In the event that {fact}, I can go on.", "By the rules, to {action} it is necessary that {fact}.",
                "Rule: {action} permitted only given {fact}.",
                "Under what conditions may one {action}? Under these only: {fact}.",
                "What must be true before one may {action}? That {fact}.",
                "What would happen if I were to {action}? Then {fact}.",
                "What happens if I {action}? {Fact}.", "You might wonder what happens if you {action}: {fact}.",
                "Not one of these may be missing if I am to {action}: {fact}.",
                "A plan only, not carried out: if my next move were to {action}, then afterwards {fact}.",
                "{Action}, as with any step, has its requirements: {fact}.",
                "{Action}, in this domain, needs {fact}.",
                "There is a rule for {action}, namely that it requires {fact}.",
                "I know the rule of {action}, which says that it needs {fact}.",
                "{Action} has preconditions, and these preconditions are {fact}.",
                "{Action} (requirements): {fact}.", "{Action} (requires {fact}).",
                "You can't {action} until {fact}.",
                # an answer word before a requirement lead confirms nothing of what the lead requires
                "Okay, it needs {fact}.", "Yes, we need {fact}.", "Right, {action} requires {fact}.")
#: An action named, then its requirements said in a clause of their own with a pronoun for it.
NAMED_THEN_REQUIRED = ("{Action}... that one is only allowed when {fact}.", "{Action}; it requires {fact}.",
                       "{Action}... this move is possible only if {fact}.")
REJECTED = ("For example, {action}. But that is not possible.", "What about {action}? No, that won't work.",
            "Maybe {action}. Hmm, I can't do that.", "I could {action}, but that is not allowed.",
            "One approach: {action}. But that is not possible.", "It would be better to {action}. No, that won't work.")


@pytest.mark.parametrize("domain,style,templates", CASES)
@given(k=st.integers(0, 2), seed=st.integers(0, 10_000), steps=st.integers(0, 3))
@PROPS
def test_what_is_not_asserted_is_not_judged(domain, style, templates, k, seed, steps):
    """Principle 1: a fact false at every point the trace passed, stated as a requirement, a
    precondition, an aim, a question, a supposition or a hedge, and an action that applies nowhere
    considered and rejected, report nothing; the same fact said of now, and the same action taken, are
    errors there."""
    task, rng, w, walk, passed, lines = _walked(domain, style, templates, k, seed, steps)
    never, bad = _never(task, passed), _inapplicable(task, passed)
    assume(never and bad)
    fact, action = w.fact(rng.choice(never)), w.action(rng.choice(bad))
    said = [w.frame((f,), fact=fact, action=action) for f in NOT_ASSERTED + REJECTED]
    text, got = _verify(task, lines + said, style, templates)
    assert got["first_error"] is None, (text, got["first_error"])
    for f in NAMED_THEN_REQUIRED:  # each alone: the line is not lost before it
        text, got = _verify(task, lines + [w.frame((f,), fact=fact, action=action)], style, templates)
        assert got["first_error"] is None, (text, got["first_error"])
    asserted = w.frame(w.p.effect, fact=fact)
    text, got = _verify(task, lines + said + [asserted], style, templates)
    fe = got["first_error"]
    assert _inside(text, asserted, fe) and fe["kind"] in ("false-fact", "initial-state"), (text, fe)
    taken = f"{_cap(action)}."
    text, got = _verify(task, lines + said + [taken], style, templates)
    fe = got["first_error"]
    assert _inside(text, taken, fe) and fe["kind"] == "precondition", (text, fe)
    # a fact of the goal that is false now: plain, it may state the goal; said of now, it is wrong
    goal = [x for x in never if _holds(task, x, task.goal)]
    if goal:
        g = w.fact(rng.choice(goal))
        text, got = _verify(task, lines + [f"{_cap(g)}."], style, templates)
        assert got["first_error"] is None and got["claims"][-1]["context"] == "uncertain", (text, got["claims"][-1])
        now = f"Now {g}."
        text, got = _verify(task, lines + [now], style, templates)
        assert _inside(text, now, got["first_error"]), (text, got["first_error"])


#: An action named with what it requires: after it, in brackets after it, or as a limit.
REQUIRED_OF_NAMED = ("{Action} requires {facts}.", "{Action} (requirements): {facts}.", "{Action} (requires {facts}).",
                     "You can't {action} until {facts}.", "{Action}, in this domain, needs {facts}.")


@pytest.mark.parametrize("domain,style,templates", CASES)
@given(k=st.integers(0, 2), seed=st.integers(0, 10_000), steps=st.integers(0, 3))
@PROPS
def test_an_action_stated_with_its_requirements_is_not_taken(domain, style, templates, k, seed, steps):
    """Principle 1: an action that does not apply, stated with what it requires (after it, in brackets
    after it, or as a limit: "you can't X until A"), is not taken, and its requirements, some of them
    true now, are not judged: no error, and an action that applies now is right next. The same
    action said of now is an error there."""
    task, rng, w, walk, passed, lines = _walked(domain, style, templates, k, seed, steps)
    x, y = _stuck_and_free(task, rng, passed)
    facts = w.facts(state_atoms(task, x.pre))
    go_on = f"{_cap(w.action(y))}."
    for f in REQUIRED_OF_NAMED:
        said = w.frame((f,), action=w.action(x), facts=facts)
        text, got = _verify(task, lines + [said, go_on], style, templates)
        assert got["first_error"] is None and got["claims"][-1]["verdict"] == "right", (text, got["claims"][-1])
    taken = f"{_cap(w.action(x))} now."
    text, got = _verify(task, lines + [taken, go_on], style, templates)
    fe = got["first_error"]
    assert _inside(text, taken, fe) and fe["kind"] == "precondition", (text, fe)


@pytest.mark.parametrize("domain,style,templates", CASES)
@given(k=st.integers(0, 2), seed=st.integers(0, 10_000), steps=st.integers(1, 3))
@PROPS
def test_a_markdown_tables_cells_are_its_clauses(domain, style, templates, k, seed, steps):
    """Principle 7: a markdown table's cells are clauses: a walk written as rows ("| 2 | X | done |")
    reads as the steps it takes, no error; an action that applies nowhere in such a row is an error in
    it; and a row of what an action requires ("| pre | X | A |") takes nothing."""
    task, rng, w, walk, passed, lines = _walked(domain, style, templates, k, seed, steps)
    x, y = _stuck_and_free(task, rng, passed)
    rows = ["| step | action | status |", "|---|---|---|"] + [f"| {i} | {w.action(a)} | done |"
                                                            for i, a in enumerate(walk, 1)]
    text, got = _verify(task, rows, style, templates)
    assert got["first_error"] is None and [c["verdict"] for c in got["claims"]] == ["right"] * len(walk), (text, got)
    bad = f"| {len(walk) + 1} | {w.action(x)} | done |"
    text, got = _verify(task, rows + [bad], style, templates)
    fe = got["first_error"]
    assert _inside(text, bad, fe) and fe["kind"] == "precondition", (text, fe)
    required = f"| pre | {w.action(x)} | {w.facts(state_atoms(task, x.pre))} |"
    text, got = _verify(task, rows + [required, f"| {len(walk) + 1} | {w.action(y)} | done |"], style, templates)
    assert got["first_error"] is None and got["claims"][-1]["verdict"] == "right", (text, got["claims"][-1])


#: An action with an aside in brackets that says it is not done, or doubts it.
UNDONE_ASIDES = ("I {action} (not done yet).", "{Action} (pending).", "I {action} (maybe later).")


@pytest.mark.parametrize("domain,style,templates", CASES)
@given(k=st.integers(0, 2), seed=st.integers(0, 10_000), steps=st.integers(0, 3))
@PROPS
def test_an_aside_that_says_an_action_is_not_done_leaves_it_untaken(domain, style, templates, k, seed, steps):
    """Principle 7: an action that applies nowhere, with an aside after it that says it is not done
    or doubts it ("I X (not done yet)", "X (pending)"), is not judged as taken: no error. With an
    aside that says it is done ("I X (done)"), it is an error there."""
    task, rng, w, walk, passed, lines = _walked(domain, style, templates, k, seed, steps)
    bad = _inapplicable(task, passed)
    assume(bad)
    action = w.action(rng.choice(bad))
    for f in UNDONE_ASIDES:
        text, got = _verify(task, lines + [w.frame((f,), action=action)], style, templates)
        assert got["first_error"] is None, (text, got["first_error"])
    done = f"I {action} (done)."
    text, got = _verify(task, lines + [done], style, templates)
    fe = got["first_error"]
    assert _inside(text, done, fe) and fe["kind"] == "precondition", (text, fe)


#: An action said to be not yet carried out: an option, whatever its label.
NOT_YET_APPLIED = ("// candidate move, not executed yet: {action}", "{Action} - not applied yet.",
                   "Not performed yet: {action}.", "| next | {action} | not executed yet |")


@pytest.mark.parametrize("domain,style,templates", CASES)
@given(k=st.integers(0, 2), seed=st.integers(0, 10_000), steps=st.integers(0, 3))
@PROPS
def test_an_action_said_not_yet_carried_out_is_not_taken(domain, style, templates, k, seed, steps):
    """Principle 1: an action that applies nowhere, said not to be carried out yet ("not executed
    yet", "not applied yet"), is an option: no error, and an action that applies now is right next.
    Said to be carried out ("executed"), it is an error there."""
    task, rng, w, walk, passed, lines = _walked(domain, style, templates, k, seed, steps)
    x, y = _stuck_and_free(task, rng, passed)
    go_on = f"{_cap(w.action(y))}."
    for f in NOT_YET_APPLIED:
        said = w.frame((f,), action=w.action(x))
        text, got = _verify(task, lines + [said, go_on], style, templates)
        assert got["first_error"] is None and got["claims"][-1]["verdict"] == "right", (text, got["claims"][-1])
    done = f"{_cap(w.action(x))} - executed."
    text, got = _verify(task, lines + [done], style, templates)
    fe = got["first_error"]
    assert _inside(text, done, fe) and fe["kind"] == "precondition", (text, fe)


#: A fact, then a clause whose subject names no object and that reads as nothing, then a bare predicate.
UNREAD_SUBJECTS = ("{Fact}; every other object -> not {predicate}.", "{Fact}; all the rest: not {predicate}.",
                   "{Fact}, whereas each remaining one -> not {predicate}.")


# the cases in words whose task has a fact of one object written "<object> is <predicate>"
@pytest.mark.parametrize("domain,style,templates", [c for c in CASES if c[1] == "nl" and c[0] in (
    "blocksworld", "renamed", "mystery", "random")])
@given(k=st.integers(0, 2), seed=st.integers(0, 10_000), steps=st.integers(0, 3))
@PROPS
def test_a_bare_predicate_takes_its_subject_only_from_the_fact_right_before_it(domain, style, templates, k, seed,
                                                                              steps):
    """Principle 7: "A is on the table and clear" lends the bare predicate its subject, but a clause
    between them that reads as nothing ("A is on the table; every other object -> not on the table")
    may be its subject: the predicate is not read of A, and no error. Said of A ("Current state: A is
    on the table, and not on the table"), it is an error."""
    task, rng, w, walk, passed, lines = _walked(domain, style, templates, k, seed, steps)
    said = []
    for atom in state_atoms(task, passed[-1]):
        parts = atom.strip("()").split()
        if len(parts) != 2:
            continue
        text, name = w.r.atom(atom), w.r.names[parts[1]]
        at = text.find(name)
        if at >= 0 and text[at + len(name):].startswith(" is "):
            said.append((w.fact(atom), text[at + len(name) + 4:]))
    assume(said)
    fact, predicate = rng.choice(said)
    for f in UNREAD_SUBJECTS:
        sentence = f.format(Fact=_cap(fact), predicate=predicate)
        text, got = _verify(task, lines + [sentence], style, templates)
        assert got["first_error"] is None, (text, got["first_error"])
    denied = f"Current state: {fact}, and not {predicate}."
    text, got = _verify(task, lines + [denied], style, templates)
    fe = got["first_error"]
    assert _inside(text, denied, fe) and fe["kind"] in ("denied-fact", "initial-state"), (text, fe)


REVIEWS_NOW = ("Let me go over where things stand now: {facts}.", "Let's walk through the state as it is right now: {facts}.",
               "Let me run through where we are at the moment: {facts}.")


@pytest.mark.parametrize("domain,style,templates", CASES)
@given(k=st.integers(0, 2), seed=st.integers(0, 10_000), steps=st.integers(2, 4))
@PROPS
def test_a_claim_is_judged_only_at_a_point_the_trace_reached(domain, style, templates, k, seed, steps):
    """Principle 2: before any action, a fact misstated is an error of the state the trace starts from;
    after the walk, a fact that held at its start (and not now, nor one step back) said with no words
    that tie it to a point is not judged, and never as an initial-state error; "Initially, ..." ties it
    to the start; a fact true only after a step written in words no reader reads is not judged, nor is
    an action that applies only after it."""
    task, rng, w, walk, passed, lines = _walked(domain, style, templates, k, seed, steps)
    assume(len(walk) >= 2)
    start, now, behind = passed[0], passed[-1], passed[-2]
    # not a fact of the goal: said with no word of time it would read as the goal (principle 1)
    false_at_start = [x for x in task.atoms if not _holds(task, x, start) and not _holds(task, x, task.goal)]
    assume(false_at_start)
    misstated = w.frame(w.p.fact, fact=w.fact(rng.choice(false_at_start)))
    text, got = _verify(task, [misstated] + lines, style, templates)
    fe = got["first_error"]
    assert _inside(text, misstated, fe) and fe["kind"] == "initial-state" and not fe["actions"], (text, fe)
    earlier = [x for x in task.atoms if _holds(task, x, start) and not _holds(task, x, now) and not _holds(task, x, behind)]
    if earlier:
        atom = rng.choice(earlier)
        text, got = _verify(task, lines + [f"{_cap(w.fact(atom))}."], style, templates)
        assert got["first_error"] is None, (text, got["first_error"])
        text, got = _verify(task, lines + [f"Initially, {w.fact(atom)}."], style, templates)
        assert got["first_error"] is None, (text, got["first_error"])
        wrong = [x for x in task.atoms if not _holds(task, x, start)]
        told = f"Initially, {w.fact(rng.choice(wrong))}."
        text, got = _verify(task, lines + [told], style, templates)
        fe = got["first_error"]
        assert _inside(text, told, fe) and fe["kind"] == "initial-state", (text, fe)
    # a review of where the line is now ("let me go over where things stand now: A") restarts nothing:
    # A is said of now
    now_not_start = [x for x in task.atoms if _holds(task, x, now) and not _holds(task, x, start)]
    if now_not_start:
        review = rng.choice(REVIEWS_NOW)
        said = review.format(facts=w.fact(rng.choice(now_not_start)))
        text, got = _verify(task, lines + [said], style, templates)
        assert got["first_error"] is None, (text, got["first_error"])
        start_not_now = [x for x in task.atoms if _holds(task, x, start) and not _holds(task, x, now)
                         and not _holds(task, x, behind)]
        if start_not_now:
            said = review.format(facts=w.fact(rng.choice(start_not_now)))
            text, got = _verify(task, lines + [said], style, templates)
            assert _inside(text, said, got["first_error"]), (text, got["first_error"])
    # a step in words no reader reads: what holds only after it cannot be placed
    nxt = [a for a in applicable_actions(task, now) if successor(now, a) != now and a.args]
    assume(nxt)
    a = rng.choice(nxt)
    only_after = [x for x in state_atoms(task, successor(now, a)) if not _holds(task, x, now)]
    assume(only_after)
    text, got = _verify(task, lines + [unread_step(w, a, style), f"Now {w.fact(rng.choice(only_after))}."], style, templates)
    assert got["first_error"] is None, (text, got["first_error"])
    # nor after one that names the action beside a will or a would and did not read as taking it: a
    # will somewhere in a sentence is no sign that it took no step
    text, got = _verify(task, lines + [said_and_done(w, a), f"Now {w.fact(rng.choice(only_after))}."], style, templates)
    assert got["first_error"] is None, (text, got["first_error"])
    # nor an action that applies only after it: those words may have taken the step it needs
    then = [b for b in applicable_actions(task, successor(now, a)) if not _ok(b, now)]
    if then:
        b = rng.choice(then)
        text, got = _verify(task, lines + [unread_step(w, a, style), f"{_cap(w.action(b))}."], style, templates)
        assert got["first_error"] is None, (text, got["first_error"])
        # taken back at once, it leaves the line where it stood: a fact false there, and one step on
        # from it (where the words that did not read may have taken it), is an error. (Not in PDDL,
        # where the unread step is in words the verifier does not know: those may have taken a step
        # whatever the action after them, principle 6.)
        one_on = [successor(now, x) for x in applicable_actions(task, now)]
        never = [x for x in _never(task, passed) if not any(_holds(task, x, st) for st in one_on)]
        if never and style == "nl":
            misstated = f"Now {w.fact(rng.choice(never))}."
            text, got = _verify(task, lines + [unread_step(w, a, style), f"{_cap(w.action(b))}.", "Wait, no.", misstated],
                                style, templates)
            fe = got["first_error"]
            assert _inside(text, misstated, fe) and fe["kind"] == "false-fact", (text, fe)


@pytest.mark.parametrize("domain,style,templates", [c for c in CASES if c[1] == "nl"])
@given(k=st.integers(0, 2), seed=st.integers(0, 10_000), steps=st.integers(1, 4))
@PROPS
def test_after_words_that_did_not_read_an_action_one_step_on_is_no_guessed_restart(domain, style, templates, k,
                                                                                 seed, steps):
    """Principle 2: after a step in words no reader reads, an action that applies one step on from
    where the trace stood, and at its start too, is not placed at the start by a guess (the words may
    have taken the step it needs). Taken back at once ("Wait, no."), the line is where it stood, and a
    fact false there, one step on and everywhere the walk passed is an error there."""
    task, rng, w, walk, passed, lines = _walked(domain, style, templates, k, seed, steps)
    now = passed[-1]
    pairs = [(a, b) for a in applicable_actions(task, now) if successor(now, a) != now and a.args
             for b in applicable_actions(task, successor(now, a)) if not _ok(b, now) and _ok(b, task.init)]
    assume(walk and pairs)
    a, b = rng.choice(pairs)
    one_on = [successor(now, x) for x in applicable_actions(task, now)]
    never = [x for x in _never(task, passed) if not any(_holds(task, x, st) for st in one_on)]
    assume(never)
    misstated = f"Now {w.fact(rng.choice(never))}."
    text, got = _verify(task, lines + [unread_step(w, a, style), f"{_cap(w.action(b))}.", "Wait, no.", misstated],
                        style, templates)
    fe = got["first_error"]
    assert _inside(text, misstated, fe) and fe["kind"] == "false-fact", (text, fe)


@pytest.mark.parametrize("domain,style,templates", CASES)
@given(k=st.integers(0, 2), seed=st.integers(0, 10_000), steps=st.integers(1, 4))
@PROPS
def test_negative_claims_are_claims(domain, style, templates, k, seed, steps):
    """Principle 3: a fact denied is judged (right when false, a denied-fact error when true); an
    enumeration said to be complete is judged on the facts it lists and on those it leaves out (one
    true fact left out: a denied-fact error at it)."""
    task, rng, w, walk, passed, lines = _walked(domain, style, templates, k, seed, steps)
    assume(walk)
    now, behind = passed[-1], passed[-2]
    false_now = [x for x in task.atoms if not _holds(task, x, now)]
    true_both = [x for x in state_atoms(task, now) if _holds(task, x, behind)]
    assume(false_now and true_both)
    right = f"Now {w.denied(rng.choice(false_now))}."
    text, got = _verify(task, lines + [right], style, templates)
    assert got["first_error"] is None and got["claims"][-1]["verdict"] == "right", (text, got["claims"][-1])
    wrong = f"Now {w.denied(rng.choice(true_both))}."
    text, got = _verify(task, lines + [wrong], style, templates)
    fe = got["first_error"]
    assert _inside(text, wrong, fe) and fe["kind"] == "denied-fact", (text, fe)
    full = w.enumeration(now)
    if full is not None:
        listed = f"Now, {full[0][:1].lower()}{full[0][1:]}"
        text, got = _verify(task, lines + [listed], style, templates)
        assert got["first_error"] is None, (text, got["first_error"])
        assert any(c.get("implied") and c["verdict"] == "right" for c in got["claims"]), (text, got["claims"])
    left = [x for x in true_both if w.enumeration(now, leave_out=x) is not None]
    if left:
        short = w.enumeration(now, leave_out=rng.choice(left))[0]
        short = f"Now, {short[:1].lower()}{short[1:]}"
        text, got = _verify(task, lines + [short], style, templates)
        fe = got["first_error"]
        assert _inside(text, short, fe) and fe["kind"] == "denied-fact", (text, fe)


@pytest.mark.parametrize("domain,style,templates", CASES)
@given(k=st.integers(0, 2), seed=st.integers(0, 10_000), steps=st.integers(0, 3))
@PROPS
def test_an_action_is_taken_when_the_trace_goes_on_from_it(domain, style, templates, k, seed, steps):
    """Principle 4: an action that does not apply, considered and rejected, is no error and the line
    stays where it was (the next applicable action is right); considered and not built upon, no error;
    checked, found "possible" and then taken, an error at the action taken; considered and then built
    upon (its effect said to hold now), an error at the option, but not when its effect is said of
    another point ("After (Y), A"). An action that applies, considered and built upon, is taken with
    no error."""
    task, rng, w, walk, passed, lines = _walked(domain, style, templates, k, seed, steps)
    now = passed[-1]
    x, y = _stuck_and_free(task, rng, passed)
    unmet = state_atoms(task, x.pre & ~now)
    assume(unmet)
    go_on = f"{_cap(w.action(y))}."
    rejected = [f"For example, {w.action(x)}.", f"But {w.denied(rng.choice(unmet))}, so that is not possible."]
    text, got = _verify(task, lines + rejected + [go_on], style, templates)
    assert got["first_error"] is None and got["claims"][-1]["verdict"] == "right", (text, got["claims"][-1])
    considered = [f"Maybe {w.action(x)}."]
    text, got = _verify(task, lines + considered + [go_on], style, templates)
    assert got["first_error"] is None, (text, got["first_error"])
    taken = f"{_cap(w.action(x))}."
    checked = [f"What about {w.action(x)}?", f"{_cap(w.action(x))} would be possible.", "So yes!", taken]
    text, got = _verify(task, lines + checked, style, templates)
    fe = got["first_error"]
    assert _inside(text, taken, fe) and fe["kind"] == "precondition", (text, fe)
    near = passed + [successor(now, b) for b in applicable_actions(task, now)]
    effects = [e for e in state_atoms(task, x.add) if not any(_holds(task, e, p) for p in passed[-2:])]
    if effects:
        option = f"Maybe {w.action(x)}."
        text, got = _verify(task, lines + [option, f"Now {w.fact(rng.choice(effects))}."], style, templates)
        fe = got["first_error"]
        assert _inside(text, option, fe) and fe["kind"] == "precondition", (text, fe)
    if style == "pddl":
        # a fact said of another point ("After (Y), A": in PDDL the point after Y) is about that point,
        # never a sign that the trace went on from an option that does not apply: A holds after the
        # option X and not after Y, and no error is reported at the option
        there = [e for e in state_atoms(task, successor(now, x)) if not _holds(task, e, successor(now, y))]
        if there:
            option = f"Maybe {w.action(x)}."
            text, got = _verify(task, lines + [option, f"After {w.action(y)}, {w.fact(rng.choice(there))}."],
                                style, templates)
            assert not _inside(text, option, got["first_error"]), (text, got["first_error"])
    # a fact that a step in words no reader reads (naming the step's verb) may have made right as well is
    # no sign that the trace went on from the option: which of the two it goes on from is not known
    shared = [e for e in state_atoms(task, x.add & successor(now, y)) if not _holds(task, e, now)]
    if shared and style == "nl":
        option = f"Maybe {w.action(x)}."
        text, got = _verify(task, lines + [said_and_done(w, y), option, f"Now {w.fact(rng.choice(shared))}."], style, templates)
        assert not _inside(text, option, got["first_error"]), (text, got["first_error"])
    new = [e for e in state_atoms(task, successor(now, y)) if not _holds(task, e, now)]
    assume(new and near)
    text, got = _verify(task, lines + [f"Maybe {w.action(y)}.", f"Now {w.fact(rng.choice(new))}."], style, templates)
    assert got["first_error"] is None and got["claims"][-1]["verdict"] == "right", (text, got["claims"][-1])


HESITATIONS = ("Hmm, maybe {action}.", "Hmm, let me think about what comes next.", "Hmm, what about {action}?",
               "Hmmm. Perhaps {action}.", "That is not the case for every object.", "It's wrong to {action}.")
WITHDRAWN = ("Hmm, no, that is wrong.", "Hmm, not quite.", "Wait, no.", "I misspoke there.", "Let me correct that.",
             "My bad.", "Let me fix that.", "I said that wrong.", "Disregard the previous line.", "Bug in the last line.",
             "Was that true, what I just said? No, it was not.", "Did I say that right? I did not.",
             "No, that's not the case.", "That is not so.", "No, that isn't what we have.", "I take that back.",
             "I retract what I just said.", "Scratch it, it's wrong.")
DONE_NOW = ("After doing that, {fact}.", "Upon completing this, {fact}.", "After performing it, {fact}.",
            "Following that, {fact}.", "As a consequence, {fact}.", "That way, {fact}.")


@pytest.mark.parametrize("domain,style,templates", CASES)
@given(k=st.integers(0, 2), seed=st.integers(1, 10_000), steps=st.integers(1, 3))
@PROPS
def test_a_hesitation_alone_withdraws_nothing(domain, style, templates, k, seed, steps):
    """Principle 5: a fact false at every point the trace passed, said of now (after a phrase that
    says the action just taken is done), is an error there, whatever hesitation follows it (or a
    denial said of something else: "that is not the case for every object"); a hesitation with a
    denial ("hmm, no") withdraws it."""
    task, rng, w, walk, passed, lines = _walked(domain, style, templates, k, seed, steps)
    never, bad = _never(task, passed), _inapplicable(task, passed)
    assume(never and bad)
    said = w.frame((rng.choice(DONE_NOW),), fact=w.fact(rng.choice(never)))
    after = w.frame((rng.choice(HESITATIONS),), action=w.action(rng.choice(bad)))
    text, got = _verify(task, lines + [said, after], style, templates)
    fe = got["first_error"]
    assert _inside(text, said, fe) and fe["kind"] == "false-fact", (text, fe)
    text, got = _verify(task, lines + [said, rng.choice(WITHDRAWN)], style, templates)
    assert got["first_error"] is None, (text, got["first_error"])


#: What was said, named as said, its verdict recorded by a verb or after an adverb.
SAID_STRUCK = ("The foregoing sentence is hereby struck as erroneous.", "The previous statement is marked as wrong.",
               "The last line was formally declared void.", "The entry above is hereby rescinded.",
               "The preceding remark is deemed inaccurate.")


@pytest.mark.parametrize("domain,style,templates", CASES)
@given(k=st.integers(0, 2), seed=st.integers(1, 10_000), steps=st.integers(1, 3), struck=st.sampled_from(SAID_STRUCK))
@PROPS
def test_what_was_said_struck_with_any_verdict_is_withdrawn(domain, style, templates, k, seed, steps, struck):
    """Principle 5: a fact false at every point the trace passed, said of now, is an error there; a
    sentence after it that names it as said and records a verdict on it ("The foregoing sentence is
    hereby struck as erroneous", "The previous statement is marked as wrong") withdraws it."""
    task, rng, w, walk, passed, lines = _walked(domain, style, templates, k, seed, steps)
    never = _never(task, passed)
    assume(never)
    said = w.frame((rng.choice(DONE_NOW),), fact=w.fact(rng.choice(never)))
    text, got = _verify(task, lines + [said], style, templates)
    fe = got["first_error"]
    assert _inside(text, said, fe) and fe["kind"] == "false-fact", (text, fe)
    text, got = _verify(task, lines + [said, struck], style, templates)
    assert got["first_error"] is None, (text, got["first_error"])


#: A verdict of error denied: no verdict, so nothing is taken back.
DENIED_VERDICTS = ("I can't say that's wrong.", "I don't think that is a mistake.", "Not that it's wrong.",
                   "I wouldn't call that an error.", "Checking it, I do not find any error there.",
                   "I'm not saying it's incorrect.")


@pytest.mark.parametrize("domain,style,templates", CASES)
@given(k=st.integers(0, 2), seed=st.integers(1, 10_000), steps=st.integers(1, 3),
       denied=st.sampled_from(DENIED_VERDICTS))
@PROPS
def test_a_verdict_of_error_denied_withdraws_nothing(domain, style, templates, k, seed, steps, denied):
    """Principle 5: "I can't say that's wrong", "I don't think that is a mistake" deny a verdict of
    error: the fact before them, false at every point the trace passed, is still an error there."""
    task, rng, w, walk, passed, lines = _walked(domain, style, templates, k, seed, steps)
    never = _never(task, passed)
    assume(never)
    said = w.frame((rng.choice(DONE_NOW),), fact=w.fact(rng.choice(never)))
    text, got = _verify(task, lines + [said, denied], style, templates)
    fe = got["first_error"]
    assert _inside(text, said, fe) and fe["kind"] == "false-fact", (text, fe)


def _remark_words():
    """Known words that say nothing the grammar reads of an action beside them: the verifier's known
    words, less the words of what may follow an action taken (phrases.txt TAKEN_TAIL), of what is
    said of an action (ACTION_NEEDS ... ACTION_CAN), of the goal and of clause separators."""
    from widthbench.pddl_domains.readers.discourse import WORDS as discourse
    from widthbench.pddl_domains.readers.grammar import SEPARATORS
    from widthbench.pddl_domains.readers.lexicon import known_words
    from widthbench.pddl_domains.readers.mood import WORDS as mood

    said = " ".join(p.pattern for p in (mood.ACTION_NEEDS, mood.ACTION_REJECTED, mood.ACTION_CONSIDERED,
                                        mood.ACTION_CAN, discourse.GOAL_REACHED)).lower()
    return sorted(w for w in known_words() if w.isalpha() and len(w) > 3 and w not in said
                  and not mood.TAKEN_TAIL.match(w) and not mood.GOAL_WORD.search(w)
                  and not SEPARATORS.search(f" {w} "))


REMARK_WORDS = _remark_words()


@pytest.mark.parametrize("domain,style,templates", CASES)
@given(k=st.integers(0, 2), seed=st.integers(0, 10_000), steps=st.integers(0, 3),
       before=st.booleans(), words=st.lists(st.sampled_from(REMARK_WORDS), min_size=1, max_size=4))
@PROPS
def test_an_action_named_among_other_words_is_not_judged_as_taken(domain, style, templates, k, seed, steps, before,
                                                                   words):
    """Principle 7: an action that applies nowhere, named with known words after it or before it
    that are not read as taking it, reports nothing, and the trace goes on from where it stood (the
    next applicable action is right); the same action with a word of time after it ("X now") is
    taken: a precondition error there."""
    task, rng, w, walk, passed, lines = _walked(domain, style, templates, k, seed, steps)
    x, y = _stuck_and_free(task, rng, passed)
    tail = " ".join(words)
    if before:
        remark = f"{_cap(tail)} about {w.action(x)} {rng.choice(REMARK_WORDS)}."  # "the thing about X is ..."
    else:
        remark = f"{_cap(w.action(x))} {tail}."  # "X permitted only given ..."
    go_on = f"{_cap(w.action(y))}."
    text, got = _verify(task, lines + [remark, go_on], style, templates)
    assert got["first_error"] is None and got["claims"][-1]["verdict"] == "right", (text, got["claims"][-1])
    taken = f"{_cap(w.action(x))} now."
    text, got = _verify(task, lines + [taken], style, templates)
    fe = got["first_error"]
    assert _inside(text, taken, fe) and fe["kind"] == "precondition", (text, fe)


#: English spelling, for the test's own inflection of the cases' verbs (independent of the reader's
#: `person` module): the letters "-es" follows, the vowels, the endings, and the verbs of the cases
#: whose past is not "-ed" or doubles its last letter. Pieces of words, not words of a trace
#: (scripts/known_words.py leaves them out).
_SPELLING = (("s", "sh", "ch", "x", "z", "o"), "aeiou", ("es", "ies", "s", "d", "ed", "e", "y"),
             {"take": "took", "drive": "drove", "fly": "flew", "put": "put", "set": "set", "overcome": "overcame",
              "grab": "grabbed", "drop": "dropped", "lay": "laid"})
_SIBILANT, _VOWELS, (_ES, _IES, _S, _D, _ED, _E, _Y), _PAST = _SPELLING


def _third(verb: str) -> str:
    if verb.endswith(_SIBILANT):
        return verb + _ES
    return verb[:-1] + _IES if verb.endswith(_Y) and verb[-2:-1] not in _VOWELS else verb + _S


def _past(verb: str) -> str:
    return _PAST.get(verb) or (verb + _D if verb.endswith(_E) else verb + _ED)


def _told(text: str, form) -> str:
    """An action's words with its first word (the verb) in another form: "unstack A from B" -> "unstacks A from B"."""
    verb, _, rest = text.partition(" ")
    return f"{form(verb)} {rest}"


#: The cases in words whose action verbs are words ("random" names its actions with digits: "x7q").
NL_CASES = [c for c in CASES if c[1] == "nl" and c[0] != "random"]
#: Third-person narrators: an agent the task has no word for, "he", "she".
NARRATORS = ("The solver", "The planner then", "He", "She now", "Our agent")


@pytest.mark.parametrize("domain,style,templates", NL_CASES)
@given(k=st.integers(0, 2), seed=st.integers(0, 10_000), steps=st.integers(1, 3))
@PROPS
def test_who_tells_an_action_and_when_does_not_change_it(domain, style, templates, k, seed, steps):
    """Principle 8: a walk told in the third person ("The solver unstacks A from B.") is read as the
    same walk in the first person: no error, every action right, a fact false at its end said of now
    an error there, an action that applies nowhere a precondition error. Told in the past ("I
    unstacked A from B.") it is followed without trust (it may retell steps taken earlier): no error,
    and a fact false at every point it passed said of now is an error there; an action in the past
    that applies nowhere is never an error by its own words. Told as not done ("The solver does not
    X", "He never X-s"), nothing is taken; "it takes A" says what is required."""
    task, rng, w, walk, passed, lines = _walked(domain, style, templates, k, seed, steps)
    said = [w.action(a) for a in walk]  # each action's words, once: the writer words them at random
    verbs = [t.partition(" ")[0] for t in said]
    assume(all(v.isalpha() for v in verbs))  # a made-up name with digits ("x7q") has no English forms
    bad = _inapplicable(task, passed)
    never = _never(task, passed)
    wrong = [a for a in task.atoms if not _holds(task, a, passed[-1]) and not _holds(task, a, passed[-2])]
    assume(bad and never and wrong)
    x = w.action(rng.choice(bad))
    x_verb = x.partition(" ")[0]
    assume(x_verb.isalpha())
    third = [f"{rng.choice(NARRATORS)} {_told(t, _third)}." for t in said]
    past = [f"{rng.choice(('I', 'We', 'Then I', 'I then'))} {_told(t, _past)}." for t in said]
    text, got = _verify(task, third, style, templates)
    assert got["first_error"] is None, (text, got["first_error"])
    assert all(c["verdict"] == "right" for c in got["claims"] if c["kind"] == "action"), (text, got["claims"])
    text, got = _verify(task, past, style, templates)
    assert got["first_error"] is None, (text, got["first_error"])
    # followed without trust, but a past the same word as the present ("put") reads as the present
    assert all(c["verdict"] == ("right" if _past(v) == v else "unchecked")
               for c, v in zip([c for c in got["claims"] if c["kind"] == "action"], verbs)), (text, got["claims"])
    for told, atom in ((third, rng.choice(wrong)), (past, rng.choice(never))):
        misstated = f"Now {w.fact(atom)}."
        text, got = _verify(task, told + [misstated], style, templates)
        fe = got["first_error"]
        assert _inside(text, misstated, fe) and fe["kind"] == "false-fact", (text, fe)
    taken = f"{rng.choice(NARRATORS)} {_told(x, _third)}."
    text, got = _verify(task, third + [taken], style, templates)
    fe = got["first_error"]
    assert _inside(text, taken, fe) and fe["kind"] == "precondition", (text, fe)
    # "it takes": what an action requires ("take" is a verb of some cases' actions), not "I take"
    untaken = [f"The solver does not {x}.", f"He never {_told(x, _third)}.",
               f"What does it take to {x}? It takes {w.fact(rng.choice(wrong))}."]
    if _past(x_verb) != x_verb:
        untaken.append(f"I {_told(x, _past)}.")
    for said in untaken:
        text, got = _verify(task, third + [said], style, templates)
        assert got["first_error"] is None, (text, got["first_error"])


#: Words that say the facts after them are listed: a list of the state, no new start.
LISTED = ("Let me list them: {facts}.", "Let me write it all down: {facts}.", "I'll list all of that kind: {facts}.")


@pytest.mark.parametrize("domain,style,templates", CASES)
@given(k=st.integers(0, 2), seed=st.integers(0, 10_000), steps=st.integers(2, 4))
@PROPS
def test_a_list_of_facts_is_no_new_start(domain, style, templates, k, seed, steps):
    """Principle 2: "let me list ..." followed by facts lists them; the trace stays where it is, so a
    fact said of now after it is judged in the state the walk reached, not in the state it started
    from too (as after "let me start over"): one that held at the start and not now is an error."""
    task, rng, w, walk, passed, lines = _walked(domain, style, templates, k, seed, steps)
    now, behind, start = passed[-1], passed[-2], passed[0]
    held = [x for x in task.atoms if _holds(task, x, now)]
    gone = [x for x in task.atoms
            if _holds(task, x, start) and not _holds(task, x, now) and not _holds(task, x, behind)]
    assume(held and gone)
    listed = w.frame((rng.choice(LISTED),), facts=w.fact(rng.choice(held)))
    misstated = f"Now {w.fact(rng.choice(gone))}."
    text, got = _verify(task, lines + [listed], style, templates)
    assert got["first_error"] is None, (text, got["first_error"])
    text, got = _verify(task, lines + [listed, misstated], style, templates)
    fe = got["first_error"]
    assert _inside(text, misstated, fe) and fe["kind"] == "false-fact", (text, fe)


#: Taking back what was said in a verb the task's actions may also use ("take"): no step.
TAKEN_BACK = ("I take that back, it's wrong: {fact}.", "Let me take that back - {fact}.",
              "I take back what I said: {fact}.", "Take that back; {fact}.")


@pytest.mark.parametrize("domain,style,templates", CASES)
@given(k=st.integers(0, 2), seed=st.integers(0, 10_000), steps=st.integers(2, 4))
@PROPS
def test_taking_back_what_was_said_is_no_step(domain, style, templates, k, seed, steps):
    """Principle 5: "I take that back: A" withdraws the claim before it and says A. Its words are about
    what was said, not a step written in words that do not read, so the line is not lost there: a fact
    said of now after it is judged in the state the walk reached, and one that does not hold is an error."""
    task, rng, w, walk, passed, lines = _walked(domain, style, templates, k, seed, steps)
    now = passed[-1]
    held = [x for x in task.atoms if _holds(task, x, now)]
    wrong = [x for x in task.atoms if not _holds(task, x, now)]
    gone = [x for x in wrong if _holds(task, x, passed[0]) and not _holds(task, x, passed[-2])]
    assume(held and gone)
    slip = f"{_cap(w.fact(rng.choice(wrong)))}."
    corrected = w.frame((rng.choice(TAKEN_BACK),), fact=w.fact(rng.choice(held)))
    misstated = f"Now {w.fact(rng.choice(gone))}."
    text, got = _verify(task, lines + [slip, corrected], style, templates)
    assert got["first_error"] is None, (text, got["first_error"])
    text, got = _verify(task, lines + [slip, corrected, misstated], style, templates)
    fe = got["first_error"]
    assert _inside(text, misstated, fe) and fe["kind"] == "false-fact", (text, fe)


@pytest.mark.parametrize("domain,style,templates", CASES)
@given(k=st.integers(0, 2), seed=st.integers(0, 10_000), steps=st.integers(1, 3))
@PROPS
def test_a_start_restated_while_lost_is_no_place_to_judge_what_follows(domain, style, templates, k, seed, steps):
    """Principle 2: a fact said of another point ("After step 1, A") loses the line; a fact said of the
    start ("Initially, A") is judged in the state the trace starts from, and that state becomes a place
    the line may be. An action the trace then takes that applies at none of the places it may be (a
    step in words that do not read came before it) shows it is at none of them, so a fact said of now
    after it cannot be placed and is unjudged, never judged in the state the trace started from."""
    task, rng, w, walk, passed, lines = _walked(domain, style, templates, k, seed, steps)
    assume(walk)
    start, now = passed[0], passed[-1]
    at_start = state_atoms(task, start)
    hidden = [a for a in applicable_actions(task, now) if successor(now, a) != now and a.args]
    assume(at_start and hidden)
    a = rng.choice(hidden)
    unseen = successor(now, a)
    nxt = [b for b in applicable_actions(task, unseen)
           if successor(unseen, b) != unseen and not any(_ok(b, p) for p in passed)]
    assume(nxt)
    b = rng.choice(nxt)
    after = [x for x in state_atoms(task, successor(unseen, b)) if not _holds(task, x, start)]
    assume(after)
    said = [f"After step 1, {w.fact(rng.choice(state_atoms(task, passed[1])))}.",
            f"Initially, {w.fact(rng.choice(at_start))}.", unread_step(w, a, style), f"{_cap(w.action(b))}.",
            f"Now {w.fact(rng.choice(after))}."]
    text, got = _verify(task, lines + said, style, templates)
    assert got["first_error"] is None, (text, got["first_error"])
