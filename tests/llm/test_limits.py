"""Server-aware limits and constrained decoding, over HTTP against the sim-server: the context is
read from /v1/models (or the max_model_len option), max_tokens is fitted per request, a prompt that
cannot fit is skipped (never sent, not an error, not cached), and Request.constraint travels as
structured_outputs and is part of the cache key."""

import pytest

from widthbench.llm import Request, open_model
from widthbench.llm.tokens import count_prompt_tokens
from widthbench.llm.types import cache_key, fit_max_tokens, prompt_token_bound, resolve_params


def _model(server, **kw):
    kw.setdefault("use_cache", False)
    return open_model(f"openai:{server.config.model}", base_urls=server.base_url, **kw)


def _bodies(server):
    return {b["messages"][-1]["content"]: b for b in server.stats(bodies=True)["recent_bodies"]}


def test_context_length_comes_from_the_servers_models_list(sim_server):
    server = sim_server(model="sim:const:ok", max_model_len=4096)
    assert _model(server).context_length == 4096
    # the option never raises a server's context; it stands in when a server has none
    assert _model(server, max_model_len=2048).context_length == 2048
    assert _model(server, max_model_len=9999).context_length == 4096


def test_context_length_falls_back_to_the_option_and_never_fails():
    down = open_model("openai:x", base_urls="http://127.0.0.1:9/v1", use_cache=False,
                      max_model_len=1234)
    assert down.context_length == 1234
    assert open_model("openai:x", base_urls="http://127.0.0.1:9/v1").context_length is None
    assert open_model("sim:oracle", max_model_len=777, simulator=object()).context_length == 777
    assert open_model("sim:oracle", simulator=object()).context_length is None


def test_max_tokens_is_lowered_so_prompt_plus_max_tokens_fits(sim_server):
    server = sim_server(model="sim:const:ok", max_model_len=4096)
    model = _model(server)
    short, long_ = "hello", "word " * 1200
    replies = model.run([Request.user(short, thinking=True),            # default 16384
                         Request.user(long_, max_tokens=4000),
                         Request.user("small", max_tokens=50)], progress=False)
    sent = _bodies(server)
    for text, reply in zip((short, long_), replies):
        prompt = count_prompt_tokens([{"role": "user", "content": text}])  # the server's count
        assert sent[text]["max_tokens"] == 4096 - prompt == reply.max_tokens
        assert reply.answered and reply.skipped is None
    assert sent["small"]["max_tokens"] == 50 == replies[2].max_tokens  # fits: untouched
    assert server.stats()["tokenize_requests"] == 2  # only the two that did not clearly fit


def test_a_prompt_that_cannot_fit_is_skipped_with_a_reason_never_sent(sim_server, cache_dir):
    server = sim_server(model="sim:const:ok", max_model_len=512)
    model = _model(server, use_cache=True, cache_dir=cache_dir)
    huge = Request.user("word " * 2000, purpose="novelty", max_tokens=16)
    fine = Request.user("fine", max_tokens=16)
    r_huge, r_fine = model.run([huge, fine], progress=False)
    assert r_huge.skipped.startswith("prompt of ") and "context of 512" in r_huge.skipped
    assert r_huge.error is None and r_huge.ok and not r_huge.answered and r_huge.text == ""
    assert r_fine.answered and r_fine.text == "ok"
    assert server.stats()["chat_requests"] == 1  # the huge one never went out
    assert model.counters["skipped"] == 1 and model.counters["errors"] == 0
    ledger = model.ledger.to_dict()
    assert ledger["total"]["skipped"] == 1 and ledger["by_purpose"]["novelty"]["sent"] == 0
    # not cached: a rerun (maybe against a longer context) asks again
    again = _model(server, use_cache=True, cache_dir=cache_dir)
    assert again.run([huge], progress=False)[0].skipped
    assert again.counters["cached"] == 0


def test_the_option_limits_a_server_that_reports_no_context(sim_server):
    server = sim_server(model="sim:const:ok", shape="llamacpp")  # /tokenize: tokens only
    model = _model(server, max_model_len=300, preflight=False)
    r = model.complete(Request.user("word " * 100, max_tokens=1000))
    # no chat-form count: the text count plus template overhead, capped by the byte bound
    assert r.answered and 0 < r.max_tokens < 300
    assert model.complete(Request.user("word " * 400, max_tokens=10)).skipped


def test_fit_and_bound_helpers():
    assert fit_max_tokens(100, 50, 4096) == (100, None)
    assert fit_max_tokens(5000, 96, 4096) == (4000, None)
    n, why = fit_max_tokens(10, 4096, 4096)
    assert n is None and why == "prompt of 4096 tokens does not fit the server's context of 4096"
    assert "estimated" in fit_max_tokens(10, 5000, 4096, exact=False)[1]
    msgs = [{"role": "user", "content": "héllo " * 10}]
    assert prompt_token_bound(msgs) >= count_prompt_tokens(msgs)


def test_constraint_is_sent_as_structured_outputs_and_keys_the_cache(sim_server):
    server = sim_server(model="sim:const:yes")
    model = _model(server)
    c = Request.user("q?", constraint={"choice": ["yes", "no"]}, max_tokens=5)
    r = Request.user("r?", constraint={"regex": "(yes|no)"}, max_tokens=5)
    free = Request.user("f?", max_tokens=5)
    model.run([c, r, free], progress=False)
    sent = _bodies(server)
    assert sent["q?"]["structured_outputs"] == {"choice": ["yes", "no"]}
    assert sent["r?"]["structured_outputs"] == {"regex": "(yes|no)"}
    assert "structured_outputs" not in sent["f?"]
    params = resolve_params(c)
    plain = Request.user("q?", max_tokens=5)
    assert cache_key("m", "m", c, params)[0] != cache_key("m", "m", plain, params)[0]
    # no constraint: the key is what it was before constraints existed
    assert '"constraint"' not in cache_key("m", "m", plain, params)[1]
    assert hash(c) != hash(plain)


def test_constraint_goes_into_vllm_batch_lines_too():
    from widthbench.llm.batch import batch_line

    model = open_model("vllm-batch:tiny", use_cache=False)
    item = model.pending_item(Request.user("q", constraint={"grammar": 'root ::= "a"'}))
    assert batch_line("tiny", item)["body"]["structured_outputs"] == {"grammar": 'root ::= "a"'}


def test_bad_constraints_are_refused():
    with pytest.raises(ValueError, match="unknown constraint"):
        Request.user("q", constraint={"guided_choice": ["a"]})
    with pytest.raises(TypeError):
        Request.user("q", constraint=["yes", "no"])


def test_simulated_models_ignore_the_constraint_and_report_max_tokens():
    model = open_model("sim:const:maybe", use_cache=False)
    r = model.complete(Request.user("q", constraint={"choice": ["yes", "no"]}, max_tokens=7))
    assert r.text == "maybe" and r.max_tokens == 7


def test_chat_fits_max_tokens_and_reports_a_prompt_that_cannot_fit(sim_server, capsys):
    from widthbench.cli import main

    server = sim_server(model="sim:const:ok", max_model_len=600)
    base = ["chat", "--model", "openai:sim:const:ok", "--base-url", server.base_url, "--no-cache",
            "--thinking", "on"]
    assert main(base + ["--max-tokens", "16384", "hello"]) == 0
    out = capsys.readouterr().out
    prompt = count_prompt_tokens([{"role": "user", "content": "hello"}])
    assert f"max_tokens={600 - prompt} " in out  # 16384 (the sub-tasks' thinking default), fitted
    assert main(base + ["hello"]) == 0
    assert "max_tokens=256 " in capsys.readouterr().out  # chat's own default fits as it is
    assert main(base + ["word " * 700]) == 1
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert last.startswith("widthbench chat: not sent: prompt of ") and "context of 600" in last
