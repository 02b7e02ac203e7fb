"""vllm-batch: batch file out, stand-in runner, results back into the same cache."""

import json
import sys
from pathlib import Path

import pytest

from widthbench.llm import Request, open_model
from widthbench.llm.batch import DEFAULT_COMMAND, VLLMBatchBackend

RUNNER = Path(__file__).parent / "fake_batch_runner.py"


def _cmd(log: Path, extra: str = "") -> str:
    return f"{sys.executable} {RUNNER} -i {{input}} -o {{output}} --model {{model}} --log {log} {extra}"


def _requests(n=12):
    return [Request.user(f"q{i} (clear a)", thinking=i % 2 == 0, purpose="successor", seed=i)
            for i in range(n)]


def _runs(log: Path) -> list[int]:
    return [int(x) for x in log.read_text().split()] if log.exists() else []


def test_default_command_is_the_vllm_cpu_script(monkeypatch):
    monkeypatch.delenv("WIDTHBENCH_VLLM_BATCH_CMD", raising=False)
    monkeypatch.delenv("WIDTHBENCH_VLLM_MODEL_DIR", raising=False)
    assert DEFAULT_COMMAND == ("bash scripts/vllm_cpu_server.sh batch -i {input} -o {output} "
                               "--model {model_dir} --served-model-name {model}")
    # NAME alone: the weights are NAME (a hub id or a folder), served under NAME
    backend = VLLMBatchBackend("Qwen/Qwen3-0.6B", work_dir="/tmp/x")
    assert backend.argv(Path("in.jsonl"), Path("out.jsonl"))[-8:] == [
        "-i", "in.jsonl", "-o", "out.jsonl", "--model", "Qwen/Qwen3-0.6B",
        "--served-model-name", "Qwen/Qwen3-0.6B"]
    # a served name over a model folder: the option, else $WIDTHBENCH_VLLM_MODEL_DIR
    backend = VLLMBatchBackend("qwen", work_dir="/tmp/x", model_dir="/models/qwen3-14b")
    assert backend.argv(Path("i"), Path("o"))[-4:] == ["--model", "/models/qwen3-14b",
                                                       "--served-model-name", "qwen"]
    monkeypatch.setenv("WIDTHBENCH_VLLM_MODEL_DIR", "/models/from-env")
    assert open_model("vllm-batch:qwen", use_cache=False).backend.argv(Path("i"), Path("o"))[-4:] == [
        "--model", "/models/from-env", "--served-model-name", "qwen"]
    assert open_model("vllm-batch:qwen", use_cache=False, model_dir="/m").backend.model_dir == "/m"


def test_404_lines_from_a_runner_serving_another_name_are_errors_not_successes(cache_dir, tmp_path):
    """vLLM's run_batch serves --served-model-name (default: the --model folder) and answers any
    other request model with a 404 line whose body is null, then exits 0."""
    log = tmp_path / "runs.log"
    runner = f"{sys.executable} {RUNNER} -i {{input}} -o {{output}} --log {log} --model {{model_dir}}"
    requests = _requests(6)
    model = open_model("vllm-batch:sim:echo", cache_dir=cache_dir, model_dir=str(tmp_path / "weights"),
                       batch_cmd=runner)
    replies = model.run(requests, progress=False)
    assert _runs(log) == [6] and not any(r.ok for r in replies)
    assert all("status 404" in r.error and "does not exist" in r.error
               and "--served-model-name" in r.error for r in replies)
    assert model.counters["errors"] == 6 and model.ledger.to_dict()["total"]["errors"] == 6
    # nothing was cached: with the served name passed, the rerun sends all six and they succeed
    fixed = open_model("vllm-batch:sim:echo", cache_dir=cache_dir, model_dir=str(tmp_path / "weights"),
                       batch_cmd=runner + " --served-model-name {model}")
    again = fixed.run(requests, progress=False)
    assert _runs(log) == [6, 6] and all(r.ok and not r.cached for r in again)


@pytest.mark.parametrize("line", [
    {"response": {"status_code": 404, "request_id": "r", "body": None}, "error": None},
    {"response": {"status_code": 200, "request_id": "r", "body": None}, "error": None},
    {"response": None, "error": "Request must not be sent in stream mode"},
    {"response": None, "error": None},
    {"response": {"status_code": 500, "body": {"object": "chat.completion", "choices": []}}},
    {"response": {"status_code": 200, "body": {"object": "error", "message": "oops"}}},
    {"response": {"status_code": 200, "body": []}},
])
def test_every_kind_of_error_line_is_an_error_reply(line):
    reply = VLLMBatchBackend("m", work_dir="/tmp/x")._reply({"custom_id": "k", **line}, 0.0)
    assert reply.error and not reply.ok


def test_batch_results_equal_online_and_fill_the_cache(cache_dir, tmp_path, monkeypatch):
    log = tmp_path / "runs.log"
    monkeypatch.setenv("WIDTHBENCH_VLLM_BATCH_CMD", _cmd(log))
    model = open_model("vllm-batch:sim:echo", cache_dir=cache_dir)
    replies = model.run(_requests(), progress=False)
    assert _runs(log) == [12] and all(r.ok and not r.cached for r in replies)
    clean = open_model("sim:echo", use_cache=False).run(_requests(), progress=False)
    for got, want in zip(replies, clean):
        assert (got.text, got.reasoning, got.completion_tokens) == (want.text, want.reasoning, want.completion_tokens)
        assert got.simulated
    # raw-think output without a reasoning-token count: uncounted, not guessed
    assert replies[0].reasoning and replies[0].thinking_tokens is None
    assert model.ledger.to_dict()["total"]["thinking_uncounted"] == 6
    # the same cache serves the online backend and a rerun: the runner is not started again
    again = open_model("vllm-batch:sim:echo", cache_dir=cache_dir).run(_requests(), progress=False)
    assert _runs(log) == [12] and all(r.cached for r in again)
    assert open_model("sim:echo", cache_dir=cache_dir).complete(_requests()[3]).cached


def test_batch_file_carries_the_online_request_body(cache_dir, tmp_path, monkeypatch):
    monkeypatch.setenv("WIDTHBENCH_VLLM_BATCH_CMD", _cmd(tmp_path / "log", "--shape vllm"))
    model = open_model("vllm-batch:sim:echo", cache_dir=cache_dir)
    reply = model.run(_requests(2), progress=False)[0]
    assert reply.thinking_tokens and reply.thinking_tokens_from == "usage"
    line = json.loads(next((cache_dir / "batches").glob("*/in.jsonl")).read_text().splitlines()[0])
    body = line["body"]
    assert body["model"] == "sim:echo" and body["chat_template_kwargs"] == {"enable_thinking": True}
    assert (body["temperature"], body["top_k"], body["seed"]) == (0.6, 20, 0)


def test_crashed_runner_keeps_written_lines_and_rerun_sends_only_the_rest(cache_dir, tmp_path, monkeypatch):
    log = tmp_path / "runs.log"
    monkeypatch.setenv("WIDTHBENCH_VLLM_BATCH_CMD", _cmd(log, "--fail-after 5"))
    first = open_model("vllm-batch:sim:echo", cache_dir=cache_dir).run(_requests(), progress=False)
    assert sum(r.ok for r in first) == 5
    assert all("exited with 1" in r.error for r in first if not r.ok)
    monkeypatch.setenv("WIDTHBENCH_VLLM_BATCH_CMD", _cmd(log))
    second = open_model("vllm-batch:sim:echo", cache_dir=cache_dir).run(_requests(), progress=False)
    assert _runs(log) == [12, 7] and all(r.ok for r in second)
    assert sum(r.cached for r in second) == 5


def test_error_lines_become_error_replies_and_chunks_respected(cache_dir, tmp_path, monkeypatch):
    log = tmp_path / "runs.log"
    model = open_model("vllm-batch:sim:echo", cache_dir=cache_dir, batch_size=5,
                       batch_cmd=_cmd(log, "--error-every 4"))
    replies = model.run(_requests(), progress=False)
    assert _runs(log) == [5, 5, 2]
    bad = [i for i, r in enumerate(replies) if not r.ok]
    assert bad == [0, 4, 5, 9, 10]  # every 4th line of each chunk
    assert "status 400" in replies[0].error and model.counters["errors"] == 5


def test_missing_runner_is_an_error_per_request_not_a_crash(cache_dir):
    model = open_model("vllm-batch:x", cache_dir=cache_dir, batch_cmd="/nonexistent/runner {input} {output}")
    replies = model.run(_requests(3), progress=False)
    assert all("could not start" in r.error for r in replies)


def test_leftover_output_of_a_crashed_process_is_read_back_not_recomputed(cache_dir, tmp_path):
    log = tmp_path / "runs.log"
    items = [open_model("sim:echo", use_cache=False).pending_item(r) for r in _requests()]
    crashed = VLLMBatchBackend("sim:echo", command=_cmd(log, "--fail-after 5"), work_dir=cache_dir)
    crashed.run_batch(items, lambda item, reply: None)  # our process "died": nothing was kept
    got = {}
    VLLMBatchBackend("sim:echo", command=_cmd(log), work_dir=cache_dir).run_batch(
        items, lambda item, reply: got.setdefault(item.key, reply))
    assert _runs(log) == [12, 7] and len(got) == 12 and all(r.ok for r in got.values())


def test_no_cache_runs_a_batch_again_instead_of_reading_back_its_leftover_output(cache_dir, tmp_path):
    # --no-cache (use_cache=False): the same batch's complete output from an earlier process is not
    # reused, so changed weights served under the same name answer afresh
    log = tmp_path / "runs.log"
    items = [open_model("sim:echo", use_cache=False).pending_item(r) for r in _requests(4)]
    VLLMBatchBackend("sim:echo", command=_cmd(log), work_dir=cache_dir).run_batch(items, lambda i, r: None)
    VLLMBatchBackend("sim:echo", command=_cmd(log), work_dir=cache_dir).run_batch(items, lambda i, r: None)
    assert _runs(log) == [4]  # read back
    got = {}
    VLLMBatchBackend("sim:echo", command=_cmd(log), work_dir=cache_dir, reuse_output=False).run_batch(
        items, lambda item, reply: got.setdefault(item.key, reply))
    assert _runs(log) == [4, 4] and len(got) == 4 and all(r.ok for r in got.values())
    assert not open_model("vllm-batch:sim:echo", use_cache=False, cache_dir=cache_dir).backend.reuse_output
