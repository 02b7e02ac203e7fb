"""`scripts/vllm_cpu_server.sh`: unknown options and extra arguments are errors with a usage line,
never a silent no-op (issue 25: `stop --port 8000` stopped nothing and said nothing). No vLLM needed:
every case fails before the script touches a server or the venv."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "vllm_cpu_server.sh"

CASES = {
    "stop --port 8000": ("stop: unknown option --port", "stop [NAME]"),
    "stop a b": ("stop: one NAME at most", "stop [NAME]"),
    "start --bogus x": ("start: unknown option --bogus", "start MODEL_DIR NAME"),
    "start only-a-dir": ("start: MODEL_DIR and NAME needed", "start MODEL_DIR NAME"),
    "setup --force": ("setup: takes no arguments", "setup"),
    "setup-smollm2 now": ("setup-smollm2: takes no arguments", "setup-smollm2"),
}


def _run(args: str, run_dir: Path):
    env = {**os.environ, "WIDTHBENCH_VLLM_RUN_DIR": str(run_dir),
           "WIDTHBENCH_VLLM_VENV": str(run_dir / "no-venv")}
    return subprocess.run(["bash", str(SCRIPT), *args.split()], capture_output=True, text=True, env=env,
                          timeout=600)


@pytest.mark.parametrize("args", list(CASES))
def test_a_mistake_is_exit_2_with_the_error_and_a_usage_line(args, tmp_path):
    (tmp_path / "smollm2.pid").write_text("999999999\n")  # a server this run dir knows
    done = _run(args, tmp_path)
    message, usage = CASES[args]
    assert done.returncode == 2
    err = done.stderr.strip().splitlines()
    assert err[0].startswith(f"vllm_cpu_server.sh: {message}") and err[1].startswith(f"usage: {SCRIPT} {usage}")
    assert (tmp_path / "smollm2.pid").exists()  # nothing was stopped
    assert not (tmp_path / "no-venv").exists()


def test_stop_by_an_option_names_the_servers_it_could_stop(tmp_path):
    (tmp_path / "smollm2.pid").write_text("999999999\n")
    assert "running: smollm2" in _run("stop --port 8000", tmp_path).stderr


def test_stop_of_an_unknown_name_says_so_and_lists_the_known_ones(tmp_path):
    (tmp_path / "smollm2.pid").write_text("999999999\n")
    done = _run("stop nosuch", tmp_path)
    assert done.returncode == 0  # stopping what is not running is done (test teardowns rely on it)
    assert done.stderr.strip() == "no server nosuch (running: smollm2)"
