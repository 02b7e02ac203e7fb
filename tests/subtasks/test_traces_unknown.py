"""Principle 6 of the trace verifier (docs/traces.md): a claim is judged only in a sentence whose every
word it knows (pddl_domains/readers/lexicon.py).

Words of no language ("zorvexmip") are put into the sentence frames of the property tests' traces, at
any place of any kind of sentence: a requirement, an option, a supposition, a withdrawal, a step. What
they do to a sentence cannot be known, so they may only take errors away, never add one: clean traces
have no error, and a trace with one injected error has none before the injection. Each rule is also
checked both ways on one sentence: the same words without the made-up one are judged.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from tests.subtasks.test_traces_property import CASES, PROPS, tasks
from tests.subtasks.traces_gen import (WIDE, WideWriter, _cap, made_up_word, random_walk, unread_step, with_made_up_words,
                                       write_trace)
from widthbench.pddl_domains.readers.lexicon import Lexicon, bases, read_sections, task_vocabulary, tokens
from widthbench.planners.strips import applicable_actions, is_applicable, successor
from widthbench.subtasks.traces import verify_trace


@pytest.mark.parametrize("domain,style,templates", CASES)
@given(k=st.integers(0, 2), seed=st.integers(0, 10_000), share=st.sampled_from([0.1, 0.3, 0.6]))
@PROPS
def test_words_it_does_not_know_never_make_an_error(domain, style, templates, k, seed, share):
    task = tasks(domain)[k]
    w = write_trace(task, style, templates, seed, steps=4, phrasing=with_made_up_words(WIDE, seed, share))
    got = verify_trace(task, w.text, style=style, templates=templates)
    assert got["first_error"] is None, (w.text, got["first_error"])


@pytest.mark.parametrize("domain,style,templates", CASES)
@pytest.mark.parametrize("inject", ["fact", "missing", "precondition"])
@given(k=st.integers(0, 2), seed=st.integers(0, 10_000), at=st.integers(1, 3), share=st.sampled_from([0.1, 0.3]))
@PROPS
def test_words_it_does_not_know_never_report_an_error_before_the_injected_one(domain, style, templates, inject,
                                                                               k, seed, at, share):
    task = tasks(domain)[k]
    w = write_trace(task, style, templates, seed, steps=4, inject=inject, at=at,
                    phrasing=with_made_up_words(WIDE, seed, share))
    assume(w.injected is not None)
    fe = verify_trace(task, w.text, style=style, templates=templates)["first_error"]
    assert fe is None or fe["span"][0] >= w.injected[0], (w.text, fe, w.injected)


def _setting(domain, style, templates, k, seed, steps):
    """A writer and a walk's sentences (each action, then its first effect said of now)."""
    task = tasks(domain)[k]
    rng = random.Random(seed)
    w = WideWriter(task, style, templates, rng)
    lines, state, passed = [], task.init, [task.init]
    for a in random_walk(task, task.init, rng, steps):
        after = successor(state, a)
        added, _ = w.changed(state, after)
        lines.append(f"{_cap(w.action(a))}.")
        if added:
            lines.append(f"Now {w.fact(added[0])}.")
        state = after
        passed.append(state)
    return task, rng, w, lines, state, passed


def _never(task, passed):
    """Facts that held at no point passed, and are not of the goal."""
    return [x for x in task.atoms if not any(p >> task.atom_index[x] & 1 for p in passed)
            and not task.goal >> task.atom_index[x] & 1]


@pytest.mark.parametrize("domain,style,templates", CASES)
@given(k=st.integers(0, 2), seed=st.integers(0, 10_000), steps=st.integers(1, 3))
@PROPS
def test_a_fact_among_words_it_does_not_know_is_not_judged(domain, style, templates, k, seed, steps):
    task, rng, w, lines, state, passed = _setting(domain, style, templates, k, seed, steps)
    never = _never(task, passed)
    assume(never)
    fact = w.fact(rng.choice(never))
    known = "\n".join(lines + [f"Now {fact}."])
    got = verify_trace(task, known, style=style, templates=templates)
    assert got["first_error"] is not None and got["first_error"]["span"][0] > len(known) - len(fact) - 6, \
        (known, got["first_error"])
    word = made_up_word(rng)
    unknown = "\n".join(lines + [f"Now {word} {fact}."])
    got = verify_trace(task, unknown, style=style, templates=templates)
    assert got["first_error"] is None, (unknown, got["first_error"])
    assert got["claims"][-1]["context"] == "unknown-words" and got["claims"][-1]["verdict"] == "unchecked"
    assert word in got["unknown_words"]


@pytest.mark.parametrize("domain,style,templates", CASES)
@given(k=st.integers(0, 2), seed=st.integers(0, 10_000), steps=st.integers(1, 3))
@PROPS
def test_an_action_among_words_it_does_not_know_is_never_an_error(domain, style, templates, k, seed, steps):
    """An action that does not apply, taken in known words, is a precondition error; among words it
    does not know it may be an option, and is not. Nor is what the trace says after it in either
    state: taken, or not."""
    task, rng, w, lines, state, passed = _setting(domain, style, templates, k, seed, steps)
    # an action that applies at no point passed nor one step on (not a rewind, a restart or a step left out in words)
    near = passed + [successor(state, b) for b in applicable_actions(task, state)]
    bad = [a for a in task.actions if not any(s & a.pre == a.pre and not s & a.neg_pre for s in near)]
    good = [a for a in applicable_actions(task, state) if successor(state, a) != state]
    assume(bad and good)
    wrong = rng.choice(bad)
    known = "\n".join(lines + [f"{_cap(w.action(wrong))}."])
    fe = verify_trace(task, known, style=style, templates=templates)["first_error"]
    assert fe is not None and fe["kind"] == "precondition", (known, fe)
    unknown = "\n".join(lines + [f"{_cap(made_up_word(rng))} {w.action(wrong)}."])
    assert verify_trace(task, unknown, style=style, templates=templates)["first_error"] is None, unknown
    # an applicable action in words it does not know, taken or only considered: what holds in either is no error
    a = rng.choice(good)
    added, _ = w.changed(state, successor(state, a))
    assume(added)
    for after in (f"Now {w.fact(added[0])}.", f"{_cap(w.fact(rng.choice(_held(task, state))))}."):
        text = "\n".join(lines + [f"{_cap(made_up_word(rng))} {w.action(a)}.", after])
        assert verify_trace(task, text, style=style, templates=templates)["first_error"] is None, text


@pytest.mark.parametrize("domain,style,templates", CASES)
@given(k=st.integers(0, 2), seed=st.integers(0, 10_000), steps=st.integers(1, 3))
@PROPS
def test_words_it_does_not_know_never_take_a_lost_line_back(domain, style, templates, k, seed, steps):
    """Once a step in words no reader reads has lost the line, an action that applies only where the
    trace started (or one the line took last), among words it does not know, is no sign that the
    trace went back there (a restart, a rewind): the action it then takes in words it knows, which
    applies where the trace truly is and not there, is no error."""
    task, rng, w, lines, state, passed = _setting(domain, style, templates, k, seed, steps)
    nxt = [a for a in applicable_actions(task, state) if successor(state, a) != state and a.args]
    assume(nxt)
    a = rng.choice(nxt)
    after = successor(state, a)
    only_after = [x for x in task.atoms if after >> task.atom_index[x] & 1 and not state >> task.atom_index[x] & 1]
    near = passed + [after] + [successor(after, b) for b in applicable_actions(task, after)]
    back = [x for x in task.actions if is_applicable(task.init, x) and not any(is_applicable(s, x) for s in near[1:])]
    assume(only_after and back)
    x = rng.choice(back)
    ys = [y for y in applicable_actions(task, after) if not is_applicable(successor(task.init, x), y)]
    assume(ys)
    text = "\n".join(lines + [unread_step(w, a, style), f"Now {w.fact(rng.choice(only_after))}.", f"{_cap(made_up_word(rng))} {w.action(x)}.",
                              f"{_cap(w.action(rng.choice(ys)))}."])
    assert verify_trace(task, text, style=style, templates=templates)["first_error"] is None, text


@pytest.mark.parametrize("domain,style,templates", CASES)
@given(k=st.integers(0, 2), seed=st.integers(0, 10_000), steps=st.integers(1, 3))
@PROPS
def test_an_action_among_words_it_does_not_know_is_taken_once_the_trace_goes_on_from_it(domain, style, templates,
                                                                                     k, seed, steps):
    """An action that does not apply, in words it does not know, followed by its effect said of now
    in words it knows (which holds neither where the trace stood nor one step on, where the unknown
    words might have gone): the trace went on from it, a precondition error at the action."""
    task, rng, w, lines, state, passed = _setting(domain, style, templates, k, seed, steps)
    near = passed + [successor(state, b) for b in applicable_actions(task, state)]
    bad = [a for a in task.actions if not any(s & a.pre == a.pre and not s & a.neg_pre for s in near)]
    assume(bad)
    wrong = rng.choice(bad)
    # an effect that holds in none of the states the words may have reached
    effects = [x for x in task.atoms if wrong.add >> task.atom_index[x] & 1
               and not any(s >> task.atom_index[x] & 1 for s in near)]
    assume(effects)
    said = f"{_cap(w.action(wrong))}, {made_up_word(rng)}."
    text = "\n".join(lines + [said, f"Now {w.fact(rng.choice(effects))}."])
    fe = verify_trace(task, text, style=style, templates=templates)["first_error"]
    start = len("\n".join(lines)) + 1
    assert fe is not None and fe["kind"] == "precondition" and start <= fe["span"][0] < start + len(said), (text, fe)
    # rejected in the next sentence (in words it knows): an option, no error
    text = "\n".join(lines + [said, "But that is not possible.", f"Now {w.fact(rng.choice(_held(task, state)))}."])
    assert verify_trace(task, text, style=style, templates=templates)["first_error"] is None, text


def _held(task, state):
    return [x for x in task.atoms if state >> task.atom_index[x] & 1] or ["(handempty)"]


@pytest.mark.parametrize("domain,style,templates", CASES)
@given(k=st.integers(0, 2), seed=st.integers(0, 10_000), steps=st.integers(1, 3))
@PROPS
def test_words_it_does_not_know_that_speak_of_an_error_again_may_withdraw_it(domain, style, templates, k, seed, steps):
    """A fact denied wrongly and then said again the right way in words it does not know ("Blorp, A
    is clear.") may be corrected there: not reported. In known words with no withdrawal the denial is
    an error."""
    task, rng, w, lines, state, passed = _setting(domain, style, templates, k, seed, steps)
    held = [x for x in task.atoms if state >> task.atom_index[x] & 1 and all(p >> task.atom_index[x] & 1 for p in passed)]
    assume(held)
    atom = rng.choice(held)
    denial = f"Now {w.denied(atom)}."
    fe = verify_trace(task, "\n".join(lines + [denial]), style=style, templates=templates)["first_error"]
    assert fe is not None and fe["kind"] in ("denied-fact", "initial-state")
    text = "\n".join(lines + [denial, f"{_cap(made_up_word(rng))}, {w.fact(atom)}."])
    assert verify_trace(task, text, style=style, templates=templates)["first_error"] is None, text


@pytest.mark.parametrize("domain,style,templates", [c for c in CASES if c[1] == "nl"])
@given(k=st.integers(0, 2), seed=st.integers(0, 10_000), steps=st.integers(1, 3))
@PROPS
def test_a_step_in_words_it_does_not_know_loses_the_line(domain, style, templates, k, seed, steps):
    """A sentence that names an action's verb among words it does not know and reads as nothing may
    be a step taken: what is said after it is not judged against the line before it, and the line is
    not placed again by a guess (a rewind or a restart)."""
    task, rng, w, lines, state, passed = _setting(domain, style, templates, k, seed, steps)
    good = [a for a in applicable_actions(task, state) if successor(state, a) != state]
    assume(good)
    a = rng.choice(good)
    after = successor(state, a)
    added, _ = w.changed(state, after)
    assume(added and not state >> task.atom_index[added[0]] & 1)
    # the action's words broken by a made-up word after its first word: it does not read
    words = w.action(a).split(" ")
    broken = " ".join(words[:1] + [made_up_word(rng)] + words[1:])
    text = "\n".join(lines + [f"{_cap(broken)}.", f"Now {w.fact(added[0])}."])
    got = verify_trace(task, text, style=style, templates=templates)
    assume(not any(c["kind"] == "action" and c["span"][0] >= len("\n".join(lines)) for c in got["claims"]))
    assert got["first_error"] is None, (text, got["first_error"])


@pytest.mark.parametrize("domain,style,templates", CASES)
@given(k=st.integers(0, 2), seed=st.integers(0, 10_000), steps=st.integers(1, 3))
@PROPS
def test_a_restart_among_words_it_does_not_know_keeps_the_line_where_it_is(domain, style, templates, k, seed, steps):
    """"Let me go through where we are now: A" reviews the present; with a word it does not know inside
    ("... where <word> we are now ..."), its words read as a restart ("let me go through") only for
    that word. That restart is not trusted: the start becomes a place the line may be, beside where it
    is, so an action that applies in both and a fact after it that holds only where the line was, or
    only where a restart would have put it, are no error."""
    task, rng, w, lines, state, passed = _setting(domain, style, templates, k, seed, steps)
    start = passed[0]
    both = [a for a in applicable_actions(task, state) if is_applicable(start, a) and successor(state, a) != state]
    assume(both)
    a = rng.choice(both)
    here, there = successor(state, a), successor(start, a)
    only_here = [x for x in task.atoms if here >> task.atom_index[x] & 1 and not there >> task.atom_index[x] & 1]
    only_there = [x for x in task.atoms if there >> task.atom_index[x] & 1 and not here >> task.atom_index[x] & 1
                  and not any(p >> task.atom_index[x] & 1 for p in passed[1:])]
    assume(only_here)
    review = f"Let me go through where {made_up_word(rng)} we are now: {w.fact(rng.choice(task.atoms))}."
    for said in [only_here] + ([only_there] if only_there else []):
        text = "\n".join(lines + [review, f"{_cap(w.action(a))}.", f"Now {w.fact(rng.choice(said))}."])
        got = verify_trace(task, text, style=style, templates=templates)
        assert got["first_error"] is None, (text, got["first_error"])


def test_the_lexicon_reads_endings_drawn_out_sounds_and_signs():
    assert list(bases("stacking"))[:1] == ["stacking"] and "stack" in bases("stacking")
    assert "move" in bases("moving") and "put" in bases("putting") and "orange" in bases("orange's")
    assert "hmm" in bases("hmmm")
    lex = Lexicon({"stack", "orange"})
    assert lex.unknown("Hmmm, stacking the orange's top, checked ✓.") == ()
    assert lex.unknown("Zorblax, so florp ⊗ done.") == ("zorblax", "florp", "⊗")
    assert tokens("It's 3 a.m. (see: x)") == ["it's", "a", "m", "see", "x"]
    assert not lex.known("hasn't") or "hasn't" in lex.words  # a denial is listed, never an ending
    with pytest.raises(ValueError, match="line 1"):
        read_sections("word\n[x]\n")


def test_a_task_s_own_words_are_known():
    """Its names and every template and paraphrase of its template set: a renamed domain's words too."""
    from widthbench.pddl_domains.readers.grammar import TaskGrammar

    vocab = task_vocabulary(TaskGrammar(tasks("renamed")[0], "nl", "widthbench"))
    assert {"glim", "vosh", "floor", "rocka", "perch", "unperch", "palm"} <= vocab
    vocab = task_vocabulary(TaskGrammar(tasks("blocksworld")[0], "nl", "widthbench"))
    assert {"unstack", "pickup", "putdown", "clear", "hand", "holding"} <= vocab


def test_known_words_txt_is_current():
    """known_words.txt holds the words of the phrases and of the texts the verifier is tested on as
    scripts/known_words.py computes them now (run it with --write after changing either)."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "scripts" / "known_words.py"
    spec = importlib.util.spec_from_file_location("known_words", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert mod.FILE.read_text(encoding="utf-8") == mod.current(mod.MEASURED_SETS), \
        "known_words.txt is not current: run scripts/known_words.py --write"
    sections = read_sections(mod.FILE.read_text(encoding="utf-8"))
    assert set(sections) == {"phrases", "frames", "answers", "neutral"} and all(sections.values())


def test_every_word_a_phrase_matches_is_known():
    """A word the readers' phrases match is known, also where a pattern lets a hyphen out ("re-?check":
    "recheck" and "re-check"), so that a rule is never read as made by a word the gate does not know
    ("Wait, let me recheck." restarts)."""
    text = (Path(__file__).resolve().parents[2] / "pddl_domains/readers/phrases.txt").read_text(encoding="utf-8")
    joined = {a + b for line in text.splitlines() if line.startswith("    ")
              for a, b in re.findall(r"\b([a-z]+)-\?([a-z]+)\b", line)}
    assert "recheck" in joined
    lex = Lexicon()
    assert [w for w in sorted(joined) if lex.unknown(w)] == []
    assert lex.unknown("wait, let me recheck. let me re-check.") == ()


def test_the_words_of_plan_answers_are_known_to_the_plan_reader_only():
    """``[answers]`` (the words of the plan answers the plan reader is tested and measured on) widens
    the plan reader's gate, never the trace verifier's: a word only answers use stays unknown to it."""
    sections = read_sections((Path(__file__).resolve().parents[2] / "pddl_domains/readers/known_words.txt")
                             .read_text(encoding="utf-8"))
    only = set(sections["answers"]) - {w for name, words in sections.items() if name != "answers" for w in words}
    only = {w for w in only if not any(b in Lexicon().words for b in bases(w))}
    assert only, "no word is known to the plan reader alone: the test says nothing"
    word = sorted(only)[0]
    assert Lexicon().unknown(word) == (word,)
    assert Lexicon(answers=True).unknown(word) == ()
