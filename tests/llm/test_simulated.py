"""Simulated models: deterministic, labelled simulated, max_tokens honoured like a server."""


import pytest

from widthbench.core.errors import UserError
from widthbench.llm import Request, open_model
from widthbench.llm.sim_backend import answer_function, parse_sim_spec
from widthbench.llm.tokens import count_tokens, tokenize, truncate_tokens


def test_tokenizer_is_deterministic_pieces():
    assert tokenize("(on a b) blocksworld!") == ["(", "on", "a", "b", ")", "bloc", "kswo", "rld", "!"]
    assert count_tokens("") == 0 and count_tokens(None) == 0
    assert truncate_tokens("one two three", 2) == "one two"
    assert truncate_tokens("one two", 5) == "one two"


def test_const_echo_gibberish_answers(cache_dir):
    const = open_model("sim:const:yes", cache_dir=cache_dir)
    echo = open_model("sim:echo", cache_dir=cache_dir)
    gib = open_model("sim:gibberish", cache_dir=cache_dir)
    request = Request.user("is (on a b) true?", purpose="verify")
    assert const.complete(request).text == "yes"
    assert echo.complete(request).text == "is (on a b) true?"
    first = gib.complete(request).text
    assert first and first == open_model("sim:gibberish", use_cache=False).complete(request).text
    assert gib.complete(Request.user("other")).text != first  # seeded per request
    for m in (const, echo, gib):
        assert m.simulated and m.ledger.to_dict()["simulated"] is True


def test_thinking_on_returns_reasoning_and_counts_its_tokens():
    model = open_model("sim:const:yes", use_cache=False)
    on = model.complete(Request.user("q", thinking=True))
    off = model.complete(Request.user("q"))
    assert on.reasoning and on.thinking_tokens == count_tokens(on.reasoning) > 0
    assert on.completion_tokens == on.thinking_tokens + count_tokens("yes")
    assert off.reasoning is None and off.thinking_tokens == 0 and off.simulated


def test_max_tokens_cuts_thinking_first_then_answer():
    model = open_model("sim:echo", use_cache=False)
    cut = model.complete(Request.user("a b c d e f", thinking=True, max_tokens=3))
    assert cut.finish_reason == "length" and cut.text == "" and cut.completion_tokens == 3
    short = model.complete(Request.user("a b c d e f", max_tokens=4))
    assert short.finish_reason == "length" and short.text == "a b c d" and short.completion_tokens == 4


def test_unknown_sim_models_rejected():
    for bad in ("sim:nope", "sim:noisy:2", "sim:noisy:x", "sim:echo:extra"):
        with pytest.raises(UserError):
            parse_sim_spec(bad)
    assert parse_sim_spec("sim:const:a:b") == ("const", "a:b")


def test_task_aware_model_without_a_simulator_says_how_to_get_one():
    # The model layer never imports the sub-tasks: a simulator must be handed in.
    with pytest.raises(UserError, match="needs a simulator.*widthbench.simulated"):
        open_model("sim:oracle", use_cache=False)


def test_task_aware_models_call_the_simulator_with_their_kind():
    calls = []

    class Simulator:
        def answer(self, kind, messages, thinking, rng):
            calls.append((kind, messages[-1]["content"], thinking))
            return f"{kind}-answer", ("why" if thinking else None)

    sim = Simulator()
    assert open_model("sim:oracle", use_cache=False, simulator=sim).complete(Request.user("x")).text == "oracle-answer"
    reply = open_model("sim:noisy:0.2", use_cache=False, simulator=sim).complete(Request.user("y", thinking=True))
    assert reply.text == "noisy:0.2-answer" and reply.reasoning == "why" and reply.simulated
    assert open_model("sim:random", use_cache=False, simulator=sim).complete(Request.user("z")).text == "random-answer"
    assert [c[0] for c in calls] == ["oracle", "noisy:0.2", "random"]


def test_answer_is_seeded_per_request_not_by_call_order():
    from widthbench.llm.sim_backend import request_rng

    fn, messages = answer_function("sim:gibberish"), [{"role": "user", "content": "x"}]

    def ask(seed):
        return fn(messages, False, request_rng("sim:gibberish", messages, {}, False, seed))

    assert ask(1) == ask(1) and ask(1) != ask(2)
