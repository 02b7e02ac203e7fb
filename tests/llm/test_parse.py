"""Reasoning and token fields parsed from each response shape servers send."""

import pytest

from widthbench.llm.completions import BadResponse, parse_completion, split_think


def body(message, usage=None, finish="stop"):
    return {"model": "qwen", "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": usage or {"prompt_tokens": 10, "completion_tokens": 20, "total_tokens": 30}}


def test_vllm_reasoning_field_and_reasoning_token_detail():
    p = parse_completion(body({"role": "assistant", "content": "\n\nyes", "reasoning": "hmm"},
                              {"prompt_tokens": 10, "completion_tokens": 20,
                               "completion_tokens_details": {"reasoning_tokens": 15}}))
    assert (p.text, p.reasoning, p.thinking_tokens, p.completion_tokens) == ("yes", "hmm", 15, 20)


def test_older_vllm_reasoning_content_without_detail_leaves_count_to_caller():
    p = parse_completion(body({"role": "assistant", "content": "yes", "reasoning_content": "hmm"}))
    assert (p.text, p.reasoning, p.thinking_tokens) == ("yes", "hmm", None)


def test_llamacpp_empty_string_reasoning_means_none():
    p = parse_completion(body({"role": "assistant", "content": "yes", "reasoning_content": ""}))
    assert (p.text, p.reasoning, p.thinking_tokens) == ("yes", None, 0)


def test_raw_think_in_content_is_split():
    p = parse_completion(body({"role": "assistant", "content": "<think>\nstep 1\n</think>\n\nno"}))
    assert (p.text, p.reasoning, p.thinking_tokens) == ("no", "step 1", None)


def test_cut_inside_thinking_has_no_answer_and_length_finish():
    p = parse_completion(body({"role": "assistant", "content": None, "reasoning": "long"},
                              {"prompt_tokens": 1, "completion_tokens": 8,
                               "completion_tokens_details": {"reasoning_tokens": 8}}, "length"))
    assert (p.text, p.reasoning, p.finish_reason) == ("", "long", "length")
    raw = parse_completion(body({"role": "assistant", "content": "<think>\nlong thoughts"}, None, "length"))
    assert (raw.text, raw.reasoning, raw.finish_reason) == ("", "long thoughts", "length")


@pytest.mark.parametrize("content,expected", [
    ("plain answer", (None, "plain answer")),
    ("opened in prompt</think>\n\nans", ("opened in prompt", "ans")),
    ("<think>\n\n</think>\n\nans", ("", "ans")),
    ("the tag <think> mid-answer", (None, "the tag <think> mid-answer")),
])
def test_split_think_variants(content, expected):
    assert split_think(content) == expected


def test_nonthinking_reply_has_zero_thinking_tokens():
    p = parse_completion(body({"role": "assistant", "content": "ok", "reasoning": None}))
    assert (p.reasoning, p.thinking_tokens) == (None, 0)


def test_simulated_flag_from_body_or_sim_model_name():
    assert parse_completion({**body({"content": "x"}), "simulated": True}).simulated
    assert parse_completion({**body({"content": "x"}), "model": "sim:echo"}).simulated
    assert not parse_completion(body({"content": "x"})).simulated


def test_not_a_completion_raises_bad_response():
    with pytest.raises(BadResponse):
        parse_completion({"error": "x"})
