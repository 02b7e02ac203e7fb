"""The openai: backend over real HTTP against the sim-server: thinking control, presets, shapes,
token counting, load balancing, and clear errors."""

import pytest

from widthbench.core.errors import UserError
from widthbench.llm import Request, open_model
from widthbench.llm.tokens import count_tokens


def _model(server, cache_dir=None, **kw):
    kw.setdefault("use_cache", cache_dir is not None)
    return open_model(f"openai:{server.config.model}", base_urls=server.base_url,
                      cache_dir=cache_dir, **kw)


def test_thinking_switch_reaches_server_as_chat_template_kwargs(sim_server):
    server = sim_server(model="sim:const:ok")
    model = _model(server)
    model.run([Request.user("a", thinking=True), Request.user("b", thinking=False)], progress=False)
    bodies = {b["messages"][-1]["content"]: b for b in server.stats(bodies=True)["recent_bodies"]}
    assert bodies["a"]["chat_template_kwargs"] == {"enable_thinking": True}
    assert bodies["b"]["chat_template_kwargs"] == {"enable_thinking": False}


def test_sampling_presets_sent_explicitly_and_overridable(sim_server):
    server = sim_server(model="sim:const:ok")
    model = _model(server, params={"top_k": 40})
    model.run([Request.user("t", thinking=True, seed=7),
               Request.user("n", params={"temperature": 0.0}, max_tokens=50)], progress=False)
    bodies = {b["messages"][-1]["content"]: b for b in server.stats(bodies=True)["recent_bodies"]}
    t, n = bodies["t"], bodies["n"]
    assert (t["temperature"], t["top_p"], t["top_k"], t["min_p"], t["seed"]) == (0.6, 0.95, 40, 0.0, 7)
    assert "presence_penalty" not in t and t["max_tokens"] > 0
    assert (n["temperature"], n["top_p"], n["top_k"], n["presence_penalty"], n["max_tokens"]) == (0.0, 0.8, 40, 1.5, 50)
    assert "seed" not in n


def test_body_on_the_wire_is_the_batch_body(sim_server):
    """Through the openai client (documented arguments + extra_body) the server receives exactly
    request_body(), the body the vllm-batch files carry: same cache key, same request."""
    from widthbench.llm.online import create_arguments, request_body

    server = sim_server(model="sim:const:ok")
    model = _model(server, params={"repetition_penalty": 1.1, "stop": ["\n\n"]})
    requests = [Request.user("t", thinking=True, seed=3),
                Request(messages=[{"role": "system", "content": "be brief"},
                                  {"role": "user", "content": "n"}],
                        params={"min_p": 0.05, "temperature": 0.2}, max_tokens=9)]
    model.run(requests, progress=False)
    got = {b["messages"][-1]["content"]: b for b in server.stats(bodies=True)["recent_bodies"]}
    for r in requests:
        want = request_body("sim:const:ok", model.pending_item(r))
        assert got[r.messages[-1]["content"]] == want
    args = create_arguments(want)
    assert set(args["extra_body"]) == {"top_k", "min_p", "repetition_penalty", "chat_template_kwargs"}
    assert {"temperature", "top_p", "presence_penalty", "max_tokens", "stop"} <= set(args)


@pytest.mark.parametrize("shape,source", [("vllm", "usage"), ("vllm-old", "tokenize"),
                                          ("raw-think", "tokenize"), ("llamacpp", "tokenize")])
def test_each_response_shape_parsed_over_http(sim_server, shape, source):
    server = sim_server(model="sim:echo", shape=shape)
    model = _model(server)
    local = open_model("sim:echo", use_cache=False)
    requests = [Request.user("is (clear a) true?", thinking=True), Request.user("plain question")]
    for got, want in zip(model.run(requests, progress=False), local.run(requests, progress=False)):
        assert (got.text, got.reasoning) == (want.text, want.reasoning)
        assert (got.prompt_tokens, got.completion_tokens, got.finish_reason) == (
            want.prompt_tokens, want.completion_tokens, want.finish_reason)
        assert got.thinking_tokens == want.thinking_tokens == count_tokens(want.reasoning)
        assert got.simulated and got.error is None
    thinking_reply = model.run(requests[:1], progress=False)[0]
    assert thinking_reply.thinking_tokens_from == source
    assert (server.stats()["tokenize_requests"] > 0) == (source == "tokenize")


def test_the_errors_a_simulated_model_put_into_its_thinking_come_over_http(sim_server):
    """sim:noisy:1.0 with thinking puts one error into its thinking and says where (`Reply.injected`);
    over the sim-server the reply says the same as in-process."""
    from widthbench.generators import generate
    from widthbench.simulated import open_model as open_simulated
    from widthbench.subtasks import api

    task = generate("blocksworld", 1, 1, blocks=4, optimal=False)[0].task()
    server = sim_server(model="sim:noisy:1.0")
    request = Request(api.next_action_prompt(task, task.init, "nl"), thinking=True, seed=1)
    got = _model(server).run([request], progress=False)[0]
    want = open_simulated("sim:noisy:1.0", use_cache=False).run([request], progress=False)[0]
    assert got.injected == want.injected and len(want.injected) == 1
    (inj,) = want.injected
    assert inj["kind"] in ("wrong-fact", "missing-fact", "inapplicable-action")
    assert got.reasoning == want.reasoning and got.reasoning[inj["span"][0]:inj["span"][1]].strip()


@pytest.mark.parametrize("shape", ["vllm", "raw-think", "llamacpp"])
def test_reply_cut_by_max_tokens_is_recorded(sim_server, shape):
    server = sim_server(model="sim:echo", shape=shape)
    model = _model(server)
    inside, answer = model.run([Request.user("one two three", thinking=True, max_tokens=4),
                                Request.user("one two three four", max_tokens=2)], progress=False)
    assert inside.finish_reason == "length" and inside.text == "" and inside.reasoning
    assert inside.completion_tokens == 4 and inside.thinking_tokens == 4
    assert answer.finish_reason == "length" and answer.text == "one two" and answer.truncated


def test_several_base_urls_are_load_balanced(sim_server):
    a, b = sim_server(model="sim:echo", latency=0.02), sim_server(model="sim:echo", latency=0.02)
    model = open_model("openai:sim:echo", base_urls=f"{a.base_url},{b.base_url}", use_cache=False,
                       concurrency=8)
    out = model.run([Request.user(f"q{i}") for i in range(40)], progress=False)
    assert all(r.ok for r in out)
    na, nb = a.stats()["answered"], b.stats()["answered"]
    assert na + nb == 40 and min(na, nb) >= 10


def test_unreachable_url_among_several_is_skipped_with_warning(sim_server, capsys):
    a = sim_server(model="sim:echo")
    model = open_model("openai:sim:echo", base_urls=[a.base_url, "http://127.0.0.1:9/v1"],
                       use_cache=False)
    assert model.complete(Request.user("hi")).text == "hi"
    assert "skipping unreachable server http://127.0.0.1:9/v1" in capsys.readouterr().err


def test_server_down_is_one_clear_user_error():
    model = open_model("openai:qwen", base_urls="http://127.0.0.1:9/v1", use_cache=False)
    with pytest.raises(UserError, match="cannot reach the model server.*connection refused"):
        model.run([Request.user("hi")], progress=False)


@pytest.mark.parametrize("url", ["localhost:8000/v1", "ftp://127.0.0.1/v1", "http://127.0.0.1:99999/v1"])
def test_malformed_base_url_is_a_clear_user_error(url):
    with pytest.raises(UserError, match="bad base URL"):
        open_model("openai:qwen", base_urls=url, use_cache=False).complete(Request.user("hi"))


def test_unknown_model_is_a_clear_user_error(sim_server):
    server = sim_server(model="sim:echo")
    with pytest.raises(UserError, match="not served.*sim:echo"):
        open_model("openai:Qwen/Qwen3-14B", base_urls=server.base_url, use_cache=False).complete(
            Request.user("hi"))


def test_http_404_without_preflight_is_final_error_not_retried(sim_server):
    server = sim_server(model="sim:echo")
    model = open_model("openai:other", base_urls=server.base_url, use_cache=False, preflight=False,
                       max_retries=5, backoff=0.01)
    reply = model.complete(Request.user("hi"))
    assert reply.error and "HTTP 404" in reply.error and reply.attempts == 1


def test_rerun_of_finished_run_sends_zero_requests(sim_server, cache_dir):
    server = sim_server(model="sim:echo")
    requests = [Request.user(f"q{i}", thinking=i % 2 == 0) for i in range(20)]
    first = _model(server, cache_dir).run(requests, progress=False)
    before = server.stats()
    again = _model(server, cache_dir).run(requests, progress=False)
    after = server.stats()
    assert after == before  # not even a /v1/models check
    assert all(r.cached for r in again) and [r.text for r in again] == [r.text for r in first]


def test_openai_and_inprocess_sim_share_cache_entries(sim_server, cache_dir):
    server = sim_server(model="sim:echo")
    _model(server, cache_dir).run([Request.user("shared")], progress=False)
    reply = open_model("sim:echo", cache_dir=cache_dir).complete(Request.user("shared"))
    assert reply.cached


def test_run_inside_running_event_loop(sim_server):
    import asyncio

    server = sim_server(model="sim:echo")
    model = _model(server)

    async def main():
        sync = model.run([Request.user("x")], progress=False)
        direct = await model.arun([Request.user("y")], progress=False)
        return sync[0].text, direct[0].text

    assert asyncio.run(main()) == ("x", "y")


def test_api_key_sent_as_bearer_only_when_given(sim_server, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    server = sim_server(model="sim:echo")
    assert _model(server).complete(Request.user("no key")).ok
    assert _model(server, api_key="secret").complete(Request.user("key")).ok


def test_concurrent_runs_of_one_model_from_threads(sim_server, cache_dir):
    from concurrent.futures import ThreadPoolExecutor

    server = sim_server(model="sim:echo", latency=0.01)
    model = _model(server, cache_dir, concurrency=4)
    batches = [[Request.user(f"t{t}-{i}") for i in range(10)] for t in range(4)]
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda b: model.run(b, progress=False), batches))
    for batch, replies in zip(batches, results):
        assert [r.text for r in replies] == [r.messages[0]["content"] for r in batch]
    assert server.stats()["answered"] == 40
