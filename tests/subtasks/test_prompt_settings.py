"""Prompts as settings (issue 32): `--prompt-dir DIR` (a copy written by `widthbench prompts export`)
changes the prompts sent and the prompt digest; `--novelty-prompt paper` sends Listing 1 of
"Novelty-based Tree-of-Thought Search for LLM Reasoning and Planning" verbatim; simulated models read
the templates a run uses (a user's NL template file, a prompt folder), or refuse them in one line."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from widthbench.cli import main
from widthbench.subtasks.prompts import PROMPT_DIR, builtin_files, prompt_digest

# The paper's Listing 1 ("Prompt for Novelty estimation"), as printed, its two names unfilled.
LISTING_1 = ("Is ’new_state’ a novel state compared to this list of states ’previous_states_str’? "
             "Respond with ’yes’ or ’no’. Do not add any other text.")


@pytest.fixture
def sim_server():
    """start(model=...) -> a running recording sim-server (an OpenAI-compatible HTTP server that
    keeps the request bodies), stopped after the test."""
    from widthbench.llm.sim_server import ServerThread, SimServerConfig
    from widthbench.simulated import simulator_for

    started = []

    def start(model: str):
        server = ServerThread(SimServerConfig(model=model, simulator=simulator_for(model))).start()
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


def _records(run: Path) -> list[dict]:
    return [json.loads(x) for x in (run / "items.jsonl").read_text().splitlines()]


def _summary_correct(run: Path) -> list[tuple]:
    return [(r["subtask"], r["style"], r["correct"], r["n"]) for r in json.loads((run / "summary.json").read_text())["rows"]]


def test_export_writes_every_builtin_file_and_refuses_to_overwrite(tmp_path, capsys):
    out = tmp_path / "mine"
    assert main(["prompts", "export", str(out)]) == 0
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()) == list(builtin_files())
    assert all((out / n).read_bytes() == (PROMPT_DIR / n).read_bytes() for n in builtin_files())
    assert prompt_digest(str(out)) == prompt_digest(None)  # the same text, the same digest
    assert prompt_digest(None, "paper") != prompt_digest(None)
    capsys.readouterr()
    assert main(["prompts", "export", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "exists" in err[0]


def test_paper_novelty_prompt_is_listing_1_verbatim(sim_server, tmp_path):
    server = sim_server(model="sim:const:yes")
    run = tmp_path / "run"
    assert main(["score", "--model", "openai:sim:const:yes", "--base-url", server.base_url, "--subtask", "novelty",
                 "--count", "2", "--thinking", "off", "--novelty-prompt", "paper", "--no-cache", "--quiet",
                 "--out", str(run)]) == 0
    users = [b["messages"][-1]["content"] for b in server.stats(bodies=True)["recent_bodies"]]
    assert len(users) == 4  # 2 items x 2 styles
    pattern = re.escape(LISTING_1).replace("new_state", "(?P<new>.+?)").replace("previous_states_str", "(?P<prev>.+?)")
    for text in users:
        m = re.fullmatch(pattern, text, re.S)
        assert m, text
        assert m["prev"] == "none" or m["prev"].startswith("State 1:")
        assert "State" not in m["new"]
    # a bare "yes" is read as the answer (Listing 1 asks for no "Answer:" line)
    assert all(r["parse_error"] is None for r in _records(run))


def test_default_novelty_prompt_defines_novelty(sim_server, tmp_path):
    server = sim_server(model="sim:const:yes")
    assert main(["score", "--model", "openai:sim:const:yes", "--base-url", server.base_url, "--subtask", "novelty",
                 "--count", "1", "--thinking", "off", "--style", "nl", "--no-cache", "--quiet",
                 "--out", str(tmp_path / "run")]) == 0
    text = server.stats(bodies=True)["recent_bodies"][0]["messages"][-1]["content"]
    assert "A new state is novel if" in text and "’" not in text


def test_simulated_models_refuse_the_paper_prompt_in_one_line(tmp_path, capsys):
    assert main(["score", "--model", "sim:oracle", "--subtask", "novelty", "--novelty-prompt", "paper",
                 "--count", "1", "--out", str(tmp_path / "run")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--novelty-prompt paper" in err[0]


def _edited(tmp_path) -> Path:
    d = tmp_path / "mine"
    assert main(["prompts", "export", str(d)]) == 0
    f = d / "action_generation.toml"
    f.write_text(f.read_text().replace("Reply with", "Think of every block. Reply with"))
    return d


def test_a_prompt_folder_changes_the_prompt_sent_and_the_digest(sim_server, tmp_path):
    d = _edited(tmp_path)
    assert prompt_digest(str(d)) != prompt_digest(None)
    server = sim_server(model="sim:oracle")
    assert main(["score", "--model", "openai:sim:oracle", "--base-url", server.base_url, "--subtask",
                 "action-generation", "--count", "2", "--thinking", "off", "--prompt-dir", str(d),
                 "--no-cache", "--quiet", "--out", str(tmp_path / "run")]) == 0
    users = [b["messages"][-1]["content"] for b in server.stats(bodies=True)["recent_bodies"]]
    assert len(users) == 4 and all("Think of every block. Reply with" in u for u in users)


def test_simulated_models_read_a_prompt_folder(tmp_path):
    d = _edited(tmp_path)
    run = tmp_path / "run"
    assert main(["score", "--model", "sim:oracle", "--subtask", "action-generation,novelty", "--count", "3",
                 "--thinking", "off", "--prompt-dir", str(d), "--quiet", "--no-cache", "--out", str(run)]) == 0
    rows = _summary_correct(run)
    assert rows and all(c == n and n > 0 for _, _, c, n in rows), rows
    assert all("Think of every block." in r["prompt"][1]["content"]
               for r in _records(run) if r["subtask"] == "action-generation")


def test_a_prompt_folder_that_drops_a_placeholder_is_refused_for_simulated_models(tmp_path, capsys):
    d = tmp_path / "mine"
    assert main(["prompts", "export", str(d)]) == 0
    f = d / "action_generation.toml"
    f.write_text(f.read_text().replace("{objects}", "the blocks"))
    assert main(["score", "--model", "sim:oracle", "--subtask", "action-generation", "--count", "1",
                 "--prompt-dir", str(d), "--out", str(tmp_path / "run")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "{objects}" in err[0] and "action_generation.toml" in err[0]


@pytest.mark.parametrize("name,text,message", [("novelty.tml", "x", "not one of widthbench's prompt files"),
                                               ("novelty.toml", 'pddl = "{bogus}"\nnl = "x"\n', "{bogus}"),
                                               ("novelty.toml", "pddl = \n", "not TOML")])
def test_bad_prompt_folders_are_one_line_errors(tmp_path, capsys, name, text, message):
    d = tmp_path / "mine"
    d.mkdir()
    (d / name).write_text(text)
    assert main(["score", "--model", "sim:oracle", "--subtask", "novelty", "--count", "1",
                 "--prompt-dir", str(d), "--out", str(tmp_path / "run")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0], err


def test_simulated_models_read_a_user_nl_template_file(two_small_instances, tmp_path):
    """Before issue 32 a --templates file made sim:oracle score 0 in NL with no warning."""
    src = Path(__file__).resolve().parents[2] / "pddl_domains" / "blocksworld.nl.toml"
    tpl = tmp_path / "mine.toml"
    text = src.read_text().replace('set = "widthbench"', 'set = "mine"')
    text = text.replace('on = ["the {0} is on the {1}",', 'on = ["the {0} rests upon the {1}",')
    tpl.write_text(text)
    run = tmp_path / "run"
    assert main(["score", "--model", "sim:oracle", "--instances", str(two_small_instances), "--templates", str(tpl),
                 "--subtask", "action-generation,successor-mapping", "--count", "2", "--thinking", "off",
                 "--style", "nl", "--quiet", "--no-cache", "--out", str(run)]) == 0
    rows = _summary_correct(run)
    assert rows and all(c == n and n > 0 for _, _, c, n in rows), rows
    assert any("rests upon" in r["prompt"][1]["content"] for r in _records(run))


def test_solve_takes_the_prompt_folder_and_the_paper_prompt(sim_server, tmp_path):
    d = tmp_path / "mine"
    assert main(["prompts", "export", str(d)]) == 0
    f = d / "search" / "direct.toml"
    f.write_text(f.read_text().replace("Reply with", "Be careful. Reply with"))
    run = tmp_path / "run"
    assert main(["solve", "--domain", "blocksworld", "--count", "1", "--max-depth", "2", "--model", "sim:oracle",
                 "--prompt-dir", str(d), "--no-cache", "--quiet", "--out", str(run)]) == 0
    item = json.loads((run / "items.jsonl").read_text().splitlines()[0])
    assert item["llm_calls"] > 0 and item["unreadable"] == {}
    config = json.loads((run / "config.json").read_text())
    assert config["identity"]["problems"]["prompt_dir"] == str(d.resolve())
    assert config["identity"]["problems"]["prompt_digest"] == prompt_digest(str(d)) != prompt_digest(None)
    assert config["identity"]["prompts"]["templates"] == prompt_digest(str(d))[:16]
    # an edit of the prompt folder changes the run's identity: the same --out is refused, in one line
    f.write_text(f.read_text().replace("Be careful.", "Be very careful."))
    assert main(["solve", "--domain", "blocksworld", "--count", "1", "--max-depth", "2", "--model", "sim:oracle",
                 "--prompt-dir", str(d), "--no-cache", "--quiet", "--out", str(run)]) == 2
    server = sim_server(model="sim:const:yes")
    assert main(["solve", "--domain", "blocksworld", "--count", "1", "--max-depth", "1", "--novelty", "llm",
                 "--novelty-prompt", "paper", "--model", "openai:sim:const:yes", "--base-url", server.base_url,
                 "--actions", "engine", "--no-cache", "--quiet", "--out", str(tmp_path / "run2")]) in (0, 3)
    users = [b["messages"][-1]["content"] for b in server.stats(bodies=True)["recent_bodies"]]
    assert any(u.startswith("Is ’") and u.endswith("Do not add any other text.") for u in users), users[:3]


def test_an_edited_prompt_file_is_read_again(tmp_path):
    """Templates are cached per version of the file: an edit between two runs in one process counts."""
    import os

    from widthbench.searches import search_prompts
    from widthbench.subtasks.prompts import template

    d = _edited(tmp_path)
    assert "Think of every block." in template("action_generation", "pddl", str(d))
    f = d / "action_generation.toml"
    f.write_text(f.read_text().replace("Think of every block.", "Count the blocks first."))
    os.utime(f, ns=(f.stat().st_atime_ns, f.stat().st_mtime_ns + 10**9))
    assert "Count the blocks first." in template("action_generation", "pddl", str(d))
    g = d / "search" / "value.toml"
    before = search_prompts.load("value", str(d))["pddl"]
    g.write_text(g.read_text().replace("Reply with", "Now reply with"))
    os.utime(g, ns=(g.stat().st_atime_ns, g.stat().st_mtime_ns + 10**9))
    assert search_prompts.load("value", str(d))["pddl"] == before.replace("Reply with", "Now reply with") != before
