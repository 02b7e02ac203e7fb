"""Run folders for the report tests: small score and solve runs against simulated models, made
once per session through the CLI (the same path a user takes)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from widthbench.cli import main


def score_run(out: Path, model: str, *, count: int = 3, subtasks: str = "paper", extension: str = "both",
              cache: Path | None = None) -> Path:
    argv = ["score", "--subtask", subtasks, "--count", str(count), "--seed", "0", "--model", model,
            "--prompt-extension", extension, "--out", str(out), "--quiet",
            "--cache-dir", str(cache or out.parent / f"cache-{out.name}")]
    assert main(argv) == 0
    return out


def solve_run(out: Path, method: str, novelty: str, *, count: int = 3, model: str = "sim:noisy:0.2") -> Path:
    argv = ["solve", "--method", method, "--novelty", novelty, "--domain", "blocksworld", "--count", str(count),
            "--seed", "1", "--max-plan-length", "6", "--model", model, "--out", str(out), "--quiet",
            "--cache-dir", str(out.parent / "cache-solve")]
    assert main(argv) == 0
    return out


def records(run: Path) -> list[dict]:
    return [json.loads(line) for line in (run / "items.jsonl").read_text(encoding="utf-8").splitlines() if line.strip()]


def summary(run: Path) -> dict:
    return json.loads((run / "summary.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def runs(tmp_path_factory) -> dict[str, Path]:
    """Two score runs over the same items (noisy and oracle) and two solve runs."""
    root = tmp_path_factory.mktemp("report-runs")
    return {"noisy": score_run(root / "noisy", "sim:noisy:0.3"),
            "oracle": score_run(root / "oracle", "sim:oracle"),
            "bfs": solve_run(root / "bfs", "tot-bfs", "llm"),
            "mcts": solve_run(root / "mcts", "mcts", "oracle")}


@pytest.fixture(scope="session")
def grid(tmp_path_factory) -> Path:
    """The Table 3 grid: one `solve` command with lists (8 configurations x 2 thinking modes) on
    sim:noisy, made once per session for the paper-table and the figure tests (they only read it)."""
    out = tmp_path_factory.mktemp("paper") / "table3"
    assert main(["solve", "--method", "tot-bfs,tot-dfs", "--mapping", "direct,esa", "--novelty", "off,llm",
                 "--thinking", "both", "--domain", "blocksworld", "--count", "4", "--seed", "1",
                 "--max-plan-length", "6", "--model", "sim:noisy:0.2", "--out", str(out), "--quiet",
                 "--cache-dir", str(out.parent / "cache")]) == 0
    return out


@pytest.fixture(scope="session")
def contrast(tmp_path_factory) -> dict[str, Path]:
    """Two score runs of 30 plan-verification items (each style and thinking mode) whose difference is plain:
    sim:oracle (all right) and sim:const:yes (right on the valid plans only)."""
    root = tmp_path_factory.mktemp("contrast")
    return {name: score_run(root / name, model, count=30, subtasks="plan-verification", extension="off",
                            cache=root / "cache")
            for name, model in (("oracle", "sim:oracle"), ("yes", "sim:const:yes"))}
