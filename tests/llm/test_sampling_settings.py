"""Sampling as settings (issue 32): --temperature, --top-p, --top-k, --min-p, --presence-penalty and
--max-tokens, one value for both modes or per mode, reach the requests sent (checked on the bodies
an OpenAI-compatible recording server received), are recorded in every record, and are what
`Model.mode_params` (for the run identity) reports."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from widthbench.cli import main
from widthbench.llm import Request, open_model
from widthbench.llm.types import SAMPLING_OPTIONS, mode_params, parse_per_mode, resolve_params


@given(st.floats(0, 2, allow_nan=False), st.floats(0, 2, allow_nan=False), st.booleans())
def test_per_mode_values_parse_back(thinking, normal, same):
    text = repr(thinking) if same else f"thinking={thinking!r},normal={normal!r}"
    got = parse_per_mode("--temperature", text)
    assert got == ({"thinking": thinking, "normal": thinking} if same else {"thinking": thinking, "normal": normal})


@pytest.mark.parametrize("text", ["hot", "thinking=0.6,warm=0.7", "0.6,0.7", "thinking=0.6,thinking=0.7", "-1"])
def test_malformed_per_mode_values_are_refused(text):
    with pytest.raises(ValueError, match="--temperature"):
        parse_per_mode("--temperature", text)


def test_one_mode_alone_leaves_the_other_to_the_preset():
    sampling = {"thinking": {"presence_penalty": 1.5}}
    sent = mode_params("qwen3", sampling=sampling)
    assert sent["thinking"]["presence_penalty"] == 1.5  # the normal preset's penalty, in thinking
    assert sent["normal"]["presence_penalty"] == 1.5 and sent["normal"]["temperature"] == 0.7
    assert sent["thinking"]["temperature"] == 0.6 and "max_tokens" not in sent["thinking"]


def test_user_max_tokens_beats_the_grown_default_of_a_request():
    params = resolve_params(Request.user("q", max_tokens=5000), "qwen3", None, {"normal": {"max_tokens": 100}})
    assert params["max_tokens"] == 100
    assert resolve_params(Request.user("q", max_tokens=5000), "qwen3")["max_tokens"] == 5000


def _bodies(server) -> list[dict]:
    return server.stats(bodies=True)["recent_bodies"]


ARGS = ["--temperature", "thinking=0.55,normal=0.85", "--top-p", "thinking=0.9,normal=0.7",
        "--top-k", "33", "--min-p", "normal=0.05", "--presence-penalty", "thinking=1.25,normal=0.5",
        "--max-tokens", "thinking=3000,normal=777"]
WANT = {"thinking": {"temperature": 0.55, "top_p": 0.9, "top_k": 33, "min_p": 0.0, "presence_penalty": 1.25,
                     "max_tokens": 3000},
        "normal": {"temperature": 0.85, "top_p": 0.7, "top_k": 33, "min_p": 0.05, "presence_penalty": 0.5,
                   "max_tokens": 777}}


def test_score_sends_each_parameter_per_mode_and_records_it(sim_server, tmp_path, capsys):
    server = sim_server(model="sim:oracle")
    out = tmp_path / "run"
    code = main(["score", "--model", "openai:sim:oracle", "--base-url", server.base_url, "--subtask",
                 "action-generation", "--count", "2", "--style", "pddl", "--thinking", "both",
                 "--no-cache", "--quiet", "--out", str(out), *ARGS])
    assert code == 0
    bodies = _bodies(server)
    assert len(bodies) == 4
    for body in bodies:
        mode = "thinking" if body["chat_template_kwargs"]["enable_thinking"] else "normal"
        assert {k: body[k] for k in WANT[mode]} == WANT[mode]
    records = [json.loads(line) for line in (out / "items.jsonl").read_text().splitlines()]
    assert len(records) == 4
    for rec in records:
        assert rec["params"] == WANT["thinking" if rec["thinking"] else "normal"]


def test_solve_temperature_is_sampling_and_cat_temperature_is_cat(sim_server, tmp_path):
    server = sim_server(model="sim:oracle")
    out = tmp_path / "run"
    code = main(["solve", "--domain", "blocksworld", "--count", "1", "--method", "cat",
                 "--cat-temperature", "0.5", "--iterations", "2", "--model", "openai:sim:oracle",
                 "--base-url", server.base_url, "--no-cache", "--quiet", "--out", str(out),
                 "--temperature", "0.33", "--top-k", "normal=7", "--max-tokens", "normal=1234"])
    assert code == 0
    bodies = _bodies(server)
    assert bodies and all((b["temperature"], b["top_k"], b["max_tokens"]) == (0.33, 7, 1234) for b in bodies)
    config = json.loads((out / "config.json").read_text())["identity"]["search"]
    assert config["cat_temperature"] == 0.5 and "temperature" not in config
    item = json.loads((out / "items.jsonl").read_text().splitlines()[0])
    assert [p["temperature"] for p in item["params"]] == [0.33]
    assert json.loads((out / "config.json").read_text())["identity"]["sampling"]["normal"]["top_k"] == 7
    # other sampling settings are another run: the same folder is refused, in one line
    assert main(["solve", "--domain", "blocksworld", "--count", "1", "--method", "cat",
                 "--cat-temperature", "0.5", "--iterations", "2", "--model", "openai:sim:oracle",
                 "--base-url", server.base_url, "--no-cache", "--quiet", "--out", str(out),
                 "--temperature", "0.9"]) == 2


def test_model_mode_params_are_what_is_sent():
    model = open_model("sim:echo", use_cache=False, sampling={"normal": {"top_p": 0.5}})
    reply = model.complete(Request.user("hi"))
    want = model.mode_params()["normal"]
    assert {k: reply.params[k] for k in want} == want and want["top_p"] == 0.5


def test_export_writes_the_sampling_into_the_lm_eval_tasks(tmp_path):
    out = tmp_path / "tasks"
    assert main(["export", "lm-eval", "--subtask", "action-generation", "--count", "1", "--style", "pddl",
                 "--thinking", "both", "--out", str(out), "--temperature", "thinking=0.4,normal=0.9",
                 "--max-tokens", "normal=999"]) == 0
    think = (out / "widthbench_blocksworld_action_generation_pddl_think.yaml").read_text()
    normal = (out / "widthbench_blocksworld_action_generation_pddl_nothink.yaml").read_text()
    assert "  temperature: 0.4\n" in think and "  temperature: 0.9\n" in normal
    assert "  max_gen_toks: 999\n" in normal and "  max_gen_toks: 999\n" not in think


@pytest.mark.parametrize("option", list(SAMPLING_OPTIONS))
@pytest.mark.parametrize("command", ["score", "solve", "export"])
def test_every_sampling_option_is_on_score_solve_and_export(command, option, capsys):
    argv = [command] + (["lm-eval"] if command == "export" else []) + [option, "thinking=oops"]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and option in err[0], err
