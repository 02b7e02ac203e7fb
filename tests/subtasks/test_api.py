"""Prompt <-> parser round trips and the tolerance rules of the sub-task parsers."""

from __future__ import annotations

import pytest

from widthbench.core.errors import ParseError
from widthbench.generators import generate
from widthbench.planners import strips
from widthbench.subtasks import api, prompts


@pytest.fixture(scope="module")
def bw():
    return generate("blocksworld", 1, 7)[0].task()


@pytest.fixture(scope="module")
def lg():
    return generate("logistics", 1, 7)[0].task()


@pytest.mark.parametrize("style", ["pddl", "nl"])
def test_every_prompt_has_context_objects_and_a_fixed_question(bw, style):
    s = bw.init
    acts = strips.applicable_actions(bw, s)
    built = {
        "action_generation": api.action_generation_prompt(bw, s, style),
        "next_action": api.next_action_prompt(bw, s, style),
        "successor": api.successor_prompt(bw, s, acts[0], style),
        "successor_mapping": api.successor_mapping_prompt(bw, s, acts, style),
        "verification": api.verification_prompt(bw, [str(a) for a in acts[:1]], style),
        "goal_check": api.goal_check_prompt(bw, s, style),
        "novelty": api.novelty_prompt(bw, [s], s, style, width=2),
        "novelty_estimate": api.novelty_estimate_prompt(bw, [s], s, style),
        "width_estimate": api.width_estimate_prompt(bw, style),
    }
    for kind, msgs in built.items():
        assert [m["role"] for m in msgs] == ["system", "user"]
        assert msgs[0]["content"] == prompts.context("blocksworld")
        got_kind, got_style, fields = prompts.match_user_message(msgs[1]["content"])
        assert (got_kind, got_style) == (kind, style)
        assert fields["objects"] == api.objects_text(bw, style)
    ext = api.next_action_prompt(bw, s, style, extension=True)[0]["content"]
    assert "I may NOT pick up the red block" in ext
    assert prompts.identify_domain(ext) == ("blocksworld", True)


def test_no_few_shot_examples_by_default(bw):
    text = api.next_action_prompt(bw, bw.init, "nl")[0]["content"]
    assert "For example" not in text


@pytest.mark.parametrize("style", ["pddl", "nl"])
def test_parsers_read_markdown_bullets_numbering_case_and_extra_words(bw, style):
    r = api.renderer(bw, style)
    acts = strips.applicable_actions(bw, bw.init)
    lines = [f"{i}. **{r.action(a).upper()}**" for i, a in enumerate(acts, 1)]
    reply = "Let me look at the blocks first.\n\n### Final Answer:\n" + "\n".join(lines) + "\n"
    assert api.parse_action_list(bw, reply, style) == [str(a) for a in acts]
    one = f"I think so.\nAnswer: - {r.action(acts[0])}."
    assert api.parse_single_action(bw, one, style) == str(acts[0])
    t = strips.successor(bw.init, acts[0])
    state_reply = "Answer:\n```\n" + "\n".join(f"* {x}" for x in r.state(t).split("\n")) + "\n```"
    assert api.parse_successor(bw, state_reply, style) == t


@pytest.mark.parametrize("style", ["pddl", "nl"])
def test_parsers_never_guess(bw, style):
    r = api.renderer(bw, style)
    acts = strips.applicable_actions(bw, bw.init)
    with pytest.raises(ParseError):
        api.parse_single_action(bw, "Answer: " + r.action(acts[0]) + "\n" + r.action(acts[-1]) + "\nmaybe", style)
    with pytest.raises(ParseError):
        api.parse_action_list(bw, "Answer: move the top block somewhere", style)
    with pytest.raises(ParseError):
        api.parse_successor(bw, "", style)
    if len(acts) > 1:  # two actions where one is asked for
        with pytest.raises(ParseError):
            api.parse_single_action(bw, "Answer:\n" + r.actions(acts[:2]), style)


@pytest.mark.parametrize("style", ["pddl", "nl"])
def test_static_facts_in_a_state_answer_are_neither_rewarded_nor_punished(lg, style):
    r = api.renderer(lg, style)
    s = lg.init
    with_static = r.state(s, include_static=True)
    without = r.state(s, include_static=False)
    assert with_static != without
    assert api.parse_successor(lg, "Answer:\n" + with_static, style) == s
    assert api.parse_successor(lg, "Answer:\n" + without, style) == s


def test_successor_mapping_reads_blocks_and_rejects_repeats(bw):
    r = api.renderer(bw, "nl")
    acts = strips.applicable_actions(bw, bw.init)
    blocks = "\n\n".join(f"**Action {i}:** {r.action(a)}\n**Resulting state:**\n{r.state(strips.successor(bw.init, a))}"
                         for i, a in enumerate(acts, 1))
    got = api.parse_successor_mapping(bw, "Answer:\n" + blocks, "nl", acts)
    assert got == {str(a): strips.successor(bw.init, a) for a in acts}
    a = acts[0]
    twice = f"Action: {r.action(a)}\nResulting state:\n{r.state(bw.init)}\n" * 2
    with pytest.raises(ParseError, match="twice"):
        api.parse_successor_mapping(bw, twice, "nl", acts)
    with pytest.raises(ParseError):
        api.parse_successor_mapping(bw, "Answer: they all change the state", "nl", acts)


@pytest.mark.parametrize("text,value", [
    ("yes", True), ("No.", False), ("**Answer:** YES", True), ("Answer: no, the plan fails at step 2", False),
    ("The plan reaches the goal, so my answer is yes", True), ("<think>no</think>\n\nYes", True),
])
def test_yes_no(text, value):
    assert api.parse_yes_no(text) is value
    assert api.parse_verdict(text) is value


@pytest.mark.parametrize("text", ["yes and no", "maybe", "", "I cannot tell", "block stack table"])
def test_yes_no_refuses_unreadable(text):
    with pytest.raises(ParseError):
        api.parse_yes_no(text)


@pytest.mark.parametrize("text,value", [("Answer: yes", True), ("no", False), ("Not novel: prune it.", False),
                                        ("novel", True), ("Answer: prune", False)])
def test_novelty_verdicts(text, value):
    assert api.parse_novelty(text) is value


@pytest.mark.parametrize("text,value", [("Answer: 2", 2), ("The width is two.", 2), ("**3**", 3)])
def test_integers(text, value):
    assert api.parse_integer(text) == value


@pytest.mark.parametrize("text", ["1 or 2", "unknown", ""])
def test_integers_refuse_unreadable(text):
    with pytest.raises(ParseError):
        api.parse_integer(text)


def test_one_value_answers_may_be_followed_by_an_explanation(bw):
    r = api.renderer(bw, "nl")
    a = strips.applicable_actions(bw, bw.init)[0]
    assert api.parse_single_action(bw, f"Answer: {r.action(a)}\nThis frees a block we need.", "nl") == str(a)
    assert api.parse_integer("Answer: 2\nIW(1) fails because 3 blocks are stacked.") == 2
    with pytest.raises(ParseError):  # without an answer line, the whole reply must read
        api.parse_single_action(bw, f"{r.action(a)}\nThis frees a block we need.", "nl")
