"""The run store and the run identity (widthbench.core.runstore, subtasks.score_run.run_identity).

Each test here failed before the run store: a resumed ledger undercounted, an edited prompt or
context or another preset reused old answers, a run that failed before its first answer blocked the
retry, and a second demo refused its own folder.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from widthbench.core.errors import UserError
from widthbench.core.runstore import HELD, HOLD_AT, RunStore, diff_text, identity_diff

REPO = Path(__file__).resolve().parent.parent
WB = [sys.executable, "-m", "widthbench"]
GRID = ["--subtask", "action-generation,plan-verification,action-single", "--count", "24", "--seed", "3",
        "--model", "sim:noisy:0.3"]


def _tokens(run: Path) -> dict:
    data = json.loads((run / "tokens.json").read_text())
    data.pop("run")
    return data


def _lines(path: Path) -> int:
    try:
        return path.read_bytes().count(b"\n")
    except OSError:
        return 0


def _interrupt_after(args: list[str], items: Path, lines: int) -> int:
    """Start widthbench in its own session, SIGINT it once items.jsonl holds ``lines`` lines: the
    process holds there (``WIDTHBENCH_HOLD_AT``) until the signal and says so (items.jsonl.held), and
    the test signals only a holding process, so the cut is where the test says on a machine of any
    speed or load (never during start-up)."""
    env = dict(os.environ, **{HOLD_AT: str(lines)})
    held = items.with_name(items.name + HELD)
    held.unlink(missing_ok=True)
    # SIGINT as a terminal sends it, whoever started the tests: a shell's background job (`pytest &`)
    # ignores SIGINT, its children inherit that, and Python then installs no KeyboardInterrupt handler
    proc = subprocess.Popen(WB + args, cwd=REPO, start_new_session=True, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True, env=env,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 600  # a guard against a hang, not a speed limit
    while proc.poll() is None and not held.exists() and time.monotonic() < deadline:
        time.sleep(0.01)
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGINT)
    held.unlink(missing_ok=True)
    proc.wait(timeout=600)  # a deadline against a hang, not a speed limit
    return proc.returncode


def test_score_interrupted_three_times_reports_the_uninterrupted_ledger(tmp_path):
    clean, run = tmp_path / "clean", tmp_path / "run"
    done = subprocess.run(WB + ["score", *GRID, "--out", str(clean), "--cache-dir", str(tmp_path / "c1"),
                                "--quiet"], cwd=REPO, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    total = _lines(clean / "items.jsonl")
    args = ["score", *GRID, "--out", str(run), "--cache-dir", str(tmp_path / "c2"), "--quiet"]
    interrupted = 0
    for share in (0.15, 0.5, 0.85):
        code = _interrupt_after(args, run / "items.jsonl", int(total * share))
        interrupted += code == 130
        assert 0 < _lines(run / "items.jsonl") <= total
    assert interrupted == 3  # the run was really cut, each time where the test chose
    again = subprocess.run(WB + args, cwd=REPO, capture_output=True, text=True)
    assert again.returncode == 0, again.stderr
    assert _tokens(run) == _tokens(clean)
    summary = lambda d: [{k: v for k, v in r.items() if not k.startswith("mean_")}  # noqa: E731
                         for r in json.loads((d / "summary.json").read_text())["rows"]]
    assert summary(run) == summary(clean)


def _score(tmp_path, out, *extra, model="sim:oracle"):
    return subprocess.run(WB + ["score", "--subtask", "plan-verification", "--count", "4", "--style", "pddl",
                                "--thinking", "off", "--model", model, "--out", str(out), "--quiet", *extra],
                          cwd=REPO, capture_output=True, text=True)


def test_rerun_with_other_seed_or_preset_is_refused_naming_the_changed_fields(tmp_path):
    run = tmp_path / "run"
    assert _score(tmp_path, run, "--seed", "1").returncode == 0
    other = _score(tmp_path, run, "--seed", "2")
    assert other.returncode == 2 and len(other.stderr.strip().splitlines()) == 1
    assert "items.seed: 1 -> 2" in other.stderr and "Traceback" not in other.stderr
    preset = _score(tmp_path, run, "--seed", "1", "--preset", "none")
    assert preset.returncode == 2 and "sampling.preset: 'qwen3' -> 'none'" in preset.stderr
    # another preset changes every sampling value: the first that fit, then how many more (issue 39)
    assert re.search(r"\(sampling.preset: 'qwen3' -> 'none'; sampling\.[^)]*; and \d+ more fields\); "
                     r"use another --out$", preset.stderr.strip()), preset.stderr
    assert len(preset.stderr.strip()) <= 300


def test_an_edited_context_file_changes_the_identity(tmp_path, two_small_instances):
    run, context = tmp_path / "run", tmp_path / "context.txt"
    context.write_text("You are in a world of blocks. Answer briefly.\n")
    base = ["--instances", str(two_small_instances), "--context", str(context), "--count", "2"]
    assert _score(tmp_path, run, *base).returncode == 0
    context.write_text("You are in a world of blocks. Answer at length.\n")  # same file name, new text
    again = _score(tmp_path, run, *base)
    assert again.returncode == 2 and "prompts.context:" in again.stderr


def test_an_edited_prompt_template_changes_the_identity(tmp_path, monkeypatch):
    from widthbench.llm import open_model
    from widthbench.simulated import simulator_for
    from widthbench.subtasks import prompts
    from widthbench.subtasks.score_run import ScoreConfig, run_score

    config = ScoreConfig(subtasks=("plan-verification",), styles=("pddl",), thinking=(False,), count=3)
    model = open_model("sim:oracle", use_cache=False, simulator=simulator_for("sim:oracle"))
    run_score(config, model, tmp_path / "run", quiet=True)
    copy = tmp_path / "prompts"
    shutil.copytree(prompts.prompt_dir(), copy)
    path = copy / "verification.toml"
    path.write_text(path.read_text().replace("plan", "plan", 1) + "\n# edited\n")
    monkeypatch.setattr(prompts, "PROMPT_DIR", copy)
    with pytest.raises(UserError, match=r"prompts\.templates: '[0-9a-f]+' -> '[0-9a-f]+'"):
        run_score(config, model, tmp_path / "run", quiet=True)


def test_an_answer_recorded_for_other_prompts_is_refused(tmp_path):
    run = tmp_path / "run"
    assert _score(tmp_path, run).returncode == 0
    path = run / "items.jsonl"
    recs = [json.loads(x) for x in path.read_text().splitlines()]
    recs[1]["request_digest"] = "0" * 16  # as if its prompt had been another
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))
    again = _score(tmp_path, run)
    assert again.returncode == 2 and "the prompts of 1 recorded item-mode(s) differ" in again.stderr


def test_a_run_that_failed_before_any_answer_leaves_its_folder_free(tmp_path):
    run = tmp_path / "run"
    down = _score(tmp_path, run, "--base-url", "http://127.0.0.1:9/v1", "--retries", "0",
                  model="openai:nothing-here")
    assert down.returncode != 0
    # how the run was made is recorded beside its identity: the server URL, never in the identity
    first = json.loads((run / "config.json").read_text())
    assert "127.0.0.1:9" in json.dumps(first["described"]["base_urls"])
    assert "127.0.0.1:9" not in json.dumps(first["identity"])
    assert first["identity"]["sampling"]["thinking"]["temperature"] == 0.6  # the values sent, per mode
    retry = _score(tmp_path, run)
    assert retry.returncode == 0, retry.stderr
    config = json.loads((run / "config.json").read_text())
    assert config["identity"]["model"] == "sim:oracle"


def test_demo_replaces_its_own_earlier_output(tmp_path):
    out = tmp_path / "demo"
    first = subprocess.run(WB + ["demo", "--out", str(out), "--count", "2"], cwd=REPO, capture_output=True, text=True)
    assert first.returncode == 0, first.stderr
    second = subprocess.run(WB + ["demo", "--out", str(out), "--count", "2", "--model", "sim:noisy:0.3"],
                            cwd=REPO, capture_output=True, text=True)
    assert second.returncode == 0, second.stderr
    recs = [json.loads(x) for x in (out / "score" / "items.jsonl").read_text().splitlines()]
    assert {r["model"] for r in recs} == {"sim:noisy:0.3"}


def test_store_keeps_the_latest_record_per_key_and_drops_a_torn_line(tmp_path):
    key = lambda r: r["k"]  # noqa: E731
    store = RunStore.open(tmp_path, kind="x", identity={"a": 1}, key=key)
    store.append([{"k": 1, "v": "old"}, {"k": 2, "v": "b"}])
    store.append([{"k": 1, "v": "new"}])
    with store.records_path.open("a") as f:
        f.write('{"k": 3, "v": "ha')
    again = RunStore.open(tmp_path, kind="x", identity={"a": 1}, key=key)
    assert again.run_id == store.run_id
    assert again.records() == [{"k": 1, "v": "new"}, {"k": 2, "v": "b"}]
    assert again.records_path.read_bytes().endswith(b"\n")
    with pytest.raises(UserError, match="a: 1 -> 2"):
        RunStore.open(tmp_path, kind="x", identity={"a": 2}, key=key)
    with pytest.raises(UserError, match="holds a x run, not a y run; use another --out"):
        RunStore.open(tmp_path, kind="y", identity={"a": 1}, key=key)


def test_identity_diff_names_nested_fields():
    diffs = identity_diff({"m": "a", "s": {"t": 0.6, "p": 1}}, {"m": "a", "s": {"t": 0.7, "p": 1}, "n": 2})
    assert diffs == [("s.t", 0.6, 0.7), ("n", None, 2)]
    assert diff_text(diffs) == "s.t: 0.6 -> 0.7; n: null -> 2"


def test_a_long_identity_diff_is_counted_and_shortened():
    """The refusal of a changed identity names the fields that fit in one short line and counts the
    rest (issue 39: `solve --out` at a score run's folder gave one line of over 2,000 characters)."""
    old = {f"items.field_{i}": "v" * 80 for i in range(40)}
    new = {f"items.field_{i}": "w" * 80 for i in range(40)}
    text = diff_text(identity_diff(old, new))
    assert len(text) <= 140 and text.endswith("; and 39 more fields"), text
    assert text.startswith("items.field_0: 'vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv... -> 'wwww")
    assert diff_text(identity_diff({"a": 1, "b": 2}, {"a": 2, "b": 2}), width=1) == "a: 1 -> 2"
