"""The README's test command on a fresh machine (scripts/test.sh): its long steps say what they do
while they run (scripts/progress.sh), and system packages it may not install are named in one line
with the command that installs them (scripts/system_packages.sh). .ci/run runs exactly that command."""

from __future__ import annotations

import os
import re
import subprocess
import threading
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SCRIPTS = REPO / "scripts"


def _bash(script: str, **env) -> subprocess.Popen:
    return subprocess.Popen(["bash", "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, **env})


def test_a_long_step_prints_its_progress_until_it_ends_and_keeps_its_exit_code(tmp_path):
    # The step waits for a gate file the test writes only after the second progress line: the lines
    # are seen while the step runs, whatever the machine's speed.
    gate, log = tmp_path / "gate", tmp_path / "step.log"
    proc = _bash(f'. {SCRIPTS}/progress.sh; run_with_progress "building things" "8 min" {log} '
                 f'bash -c \'echo "Downloading torch-2.13.whl"; until [ -e {gate} ]; do sleep 0.05; done; exit 7\'',
                 WIDTHBENCH_PROGRESS_EVERY="1")
    failsafe = threading.Timer(60, gate.touch)  # a step that never prints still ends (and the test fails)
    failsafe.start()
    lines = [proc.stderr.readline().rstrip("\n") for _ in range(2)]
    gate.touch()
    failsafe.cancel()
    rest, _ = proc.communicate(timeout=600)
    assert proc.returncode == 7  # the step's own exit code
    for line in lines:
        assert re.fullmatch(r"building things: \d+ s elapsed, about 8 min expected \(now: Downloading torch-2\.13\.whl\)",
                            line), line
    assert "Downloading torch-2.13.whl" in log.read_text()  # the step's output went to its log, not the screen
    assert rest == ""


def test_a_quick_step_prints_nothing(tmp_path):
    proc = _bash(f'. {SCRIPTS}/progress.sh; run_with_progress "quick" "1 s" {tmp_path / "log"} true')
    out, err = proc.communicate(timeout=600)
    assert proc.returncode == 0 and out == "" and err == ""


def test_packages_this_user_may_not_install_are_one_line_with_the_command(tmp_path):
    # not root, no password-less sudo: nothing is installed, one line says what and how
    script = (f'. {SCRIPTS}/progress.sh; . {SCRIPTS}/system_packages.sh; '
              'id() { echo 1000; }; sudo() { return 1; }; apt-get() { echo CALLED >&2; return 1; }; '
              f'ensure_system_packages {tmp_path}; echo "exit $?"')
    proc = _bash(script, WIDTHBENCH_CHROMIUM=str(tmp_path / "no-chromium"),
                 WIDTHBENCH_CHROMEDRIVER=str(tmp_path / "no-driver"))
    out, err = proc.communicate(timeout=600)
    assert out.strip() == "exit 0"
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "CALLED" not in err, err
    assert lines[0].startswith("widthbench tests: missing system packages for the browser and LaTeX tests: "
                               "chromium chromium-driver")
    assert "install them with: sudo apt-get update && sudo apt-get install -y --no-install-recommends chromium " \
           "chromium-driver" in lines[0]


def test_ci_runs_exactly_the_readme_test_command():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    commands = readme.split("```bash\n", 1)[1].split("```", 1)[0].strip().splitlines()
    assert len(commands) == 2
    test_command = commands[1].split("#", 1)[0].strip()
    ci = [line for line in (REPO / ".ci" / "run").read_text().splitlines()
          if line.strip() and not line.startswith("#") and not line.startswith("set ") and not line.startswith("cd ")]
    assert ci == [f"exec {test_command}"]
