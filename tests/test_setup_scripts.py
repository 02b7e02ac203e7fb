"""The README's test command on a fresh machine (scripts/test.sh): its long steps say what they do
while they run (scripts/progress.sh), and system packages it may not install are named in one line
with the command that installs them (scripts/system_packages.sh). .ci/run runs exactly that command.
Its two phases (the tests that can share the machine in parallel, then the end-to-end and toy-extension
tests one at a time) run every test once."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
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


def test_a_bad_worker_count_is_one_line_before_any_set_up_step():
    done = subprocess.run(["bash", str(SCRIPTS / "test.sh")], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "WIDTHBENCH_TEST_WORKERS": "two"})
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        "widthbench tests: WIDTHBENCH_TEST_WORKERS must be a whole number of workers, 1 or more (got 'two')"]


PLUGIN = """
import json, os, pytest

@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items):
    with open(os.environ["MARKS_OUT"], "w") as f:
        json.dump({i.nodeid: sorted({m.name for m in i.iter_markers()}) for i in items}, f)
"""


def _marks(tmp_path) -> dict[str, set[str]]:
    """Every test's id -> its marker names, after tests/conftest.py has added its own (one collection)."""
    (tmp_path / "marks_plugin.py").write_text(PLUGIN, encoding="utf-8")
    out = tmp_path / "marks.json"
    done = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
                           "-p", "marks_plugin", "-m", "slow or not slow"], cwd=REPO, capture_output=True, text=True,
                          timeout=600, env={**os.environ, "MARKS_OUT": str(out),
                                            "PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")])})
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return {test: set(names) for test, names in json.loads(out.read_text()).items()}


def test_the_two_phases_run_every_test_once_and_keep_the_end_to_end_and_toy_tests_out_of_the_parallel_one(tmp_path):
    from _pytest.mark.expression import Expression

    script = (SCRIPTS / "test.sh").read_text(encoding="utf-8")
    phases = [Expression.compile(m) for m in re.findall(r'pytest -q (?:-n "\$workers" )?-m "([^"]+)"', script)]
    assert len(phases) == 2
    marks = _marks(tmp_path)
    parallel, alone = ({t for t, names in marks.items() if phase.evaluate(lambda name, names=names: name in names)}
                       for phase in phases)
    everything = {t for t, names in marks.items() if "slow" not in names}
    assert parallel | alone == everything and not parallel & alone
    # the modules that write a toy extension into the checkout: any that uses the toy_files fixture
    toy = {p.relative_to(REPO).as_posix() for p in (REPO / "tests").rglob("test_*.py")
           if re.search(r"\bdef test_\w+\([^)]*\btoy_files\b", p.read_text(encoding="utf-8"))}
    assert len(toy) >= 4
    vllm = {t for t in everything if "vllm" in marks[t]}
    assert len(vllm) >= 20 and vllm <= alone
    assert not any(t.split("::")[0] in toy for t in parallel)
    assert {t.split("::")[0] for t in alone} >= toy
