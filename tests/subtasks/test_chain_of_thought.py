"""A reply without thinking that reasons before its answer (a chain-of-thought answer): the text
before its last answer label is checked as a trace (`subtasks.api.chain_of_thought`), by `score`
(the record's ``trace`` with ``source: "answer"``) and `solve`; the answer is read as before."""

from __future__ import annotations

import dataclasses

from hypothesis import given, strategies as st

from widthbench.simulated import open_model
from widthbench.subtasks.api import CHAIN_OF_THOUGHT_MIN_WORDS, chain_of_thought, reasoning_of
from widthbench.subtasks.score_run import ScoreConfig, read_records, run_score

WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=8).filter(
    lambda w: w not in {"answer", "final"})
LABEL = st.sampled_from(["Answer:", "**Answer:**", "Final answer:", "### Final plan:", "answer:"])


@given(st.lists(WORD, min_size=CHAIN_OF_THOUGHT_MIN_WORDS, max_size=40), LABEL, st.lists(WORD, max_size=6))
def test_the_reasoning_is_the_text_before_the_last_label(words, label, answer):
    prose = " ".join(words) + ".\n"
    reply = prose + label + "\n" + " ".join(answer)
    assert chain_of_thought(reply) == prose
    assert reasoning_of(None, reply, thinking=False) == (prose, "answer")
    # a second answer block later: the reasoning runs up to the last label
    assert chain_of_thought(reply + "\n" + label + " x") == reply + "\n"


@given(st.lists(WORD, min_size=CHAIN_OF_THOUGHT_MIN_WORDS, max_size=20), LABEL,
       st.sampled_from(["my", "the", "our", "final", "My", "The final"]))
def test_a_label_is_read_on_its_own_line(words, label, lead):
    """A word of a label ("my", "final") that ends the line before the label is not part of it: the
    reasoning keeps that line whole."""
    before = " ".join(words) + "\n" + lead + "\n"
    assert chain_of_thought(before + label + " (pick-up a)") == before


@given(st.lists(WORD, max_size=CHAIN_OF_THOUGHT_MIN_WORDS - 1), LABEL)
def test_a_short_preamble_or_no_label_is_no_reasoning(words, label):
    assert chain_of_thought(" ".join(words) + "\n" + label + " (pick-up a)") is None
    assert chain_of_thought(" ".join(words * 3) + " (pick-up a)") is None  # no label: all of it is the answer
    long = " ".join(["word"] * CHAIN_OF_THOUGHT_MIN_WORDS)
    assert chain_of_thought(f"<think>{long}</think>\n{label} x") is None
    # thinking wins; asked with thinking on, an answer's prose is not its reasoning
    assert reasoning_of("I think.", f"{long}\n{label} x", thinking=True) == ("I think.", "thinking")
    assert reasoning_of(None, f"{long}\n{label} x", thinking=True) is None


class ReasonsFirst:
    """The oracle's answers, each after a sentence of reasoning about the initial state."""

    def __init__(self, inner, prose: str):
        self.inner, self.prose = inner, prose

    def __getattr__(self, name):
        return getattr(self.inner, name)

    def run(self, requests, **kw):
        return [dataclasses.replace(r, text=self.prose + "\n" + r.text) for r in self.inner.run(requests, **kw)]


def test_score_checks_a_chain_of_thought_answer(tmp_path):
    config = ScoreConfig(subtasks=("plan-verification",), styles=("nl",), thinking=(False,), count=3, seed=2)
    plain = tmp_path / "plain"
    run_score(config, open_model("sim:oracle", use_cache=False), plain, quiet=True)
    right = "The hand is empty. So the hand is empty."
    wrong = "The hand is empty. The hand is holding the red block."
    for name, prose, error in (("right", right, False), ("wrong", wrong, True)):
        run = tmp_path / name
        run_score(config, ReasonsFirst(open_model("sim:oracle", use_cache=False), prose), run, quiet=True)
        recs = read_records(run)
        assert [r["correct"] for r in recs] == [r["correct"] for r in read_records(plain)]  # read as before
        for r in recs:
            t = r["trace"]
            assert t["source"] == "answer" and t["checked"] >= 1
            assert (t["first_error"] is not None) == error
            if error:
                s, e = t["first_error"]["span"]
                assert "holding the red block" in r["raw_answer"][s:e]
