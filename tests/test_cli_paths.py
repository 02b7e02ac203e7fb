"""Every output or cache path of every subcommand: a file there, a path under a file, or a place where
nothing can be created (/proc/...) is one line on stderr and exit 2, refused before the command does
its work, with no traceback and nothing created (issue 25)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from widthbench.cli import build_parser, main
from widthbench.core.errors import UserError
from widthbench.core.runfiles import check_output_dir, make_output_dir

# Option destinations that name a folder a command writes into.
OUTPUT_DESTS = ("out", "cache_dir")

MODEL = ["--model", "sim:oracle"]
SCORE = ["score", "--subtask", "action-generation", "--count", "1", "--style", "pddl", "--thinking", "off",
         *MODEL, "--quiet"]
SOLVE = ["solve", "--domain", "blocksworld", "--count", "1", *MODEL, "--quiet"]

# (command, option) -> (argv given the bad path and a scratch folder, the functions that do the
# command's work: the bad path must be refused before any of them is called).
CASES = {
    ("demo", "--out"): (lambda p, d: ["demo", "--count", "1", "--out", p],
                        ["widthbench.generators.generate"]),
    ("generate", "--out"): (lambda p, d: ["generate", "blocksworld", "--count", "1", "--seed", "1",
                                          "--no-optimal", "--quiet", "--out", p],
                            ["widthbench.generators.generate"]),
    ("widths", "--out"): (lambda p, d: ["widths", "blocksworld", "--count", "1", "--max-width", "1",
                                        "--quiet", "--out", p],
                          ["widthbench.commands.widths._jobs"]),
    ("score", "--out"): (lambda p, d: [*SCORE, "--no-cache", "--out", p],
                         ["widthbench.llm.model.open_model", "widthbench.subtasks.score_run.run_score"]),
    ("score", "--cache-dir"): (lambda p, d: [*SCORE, "--out", str(d / "run"), "--cache-dir", p],
                               ["widthbench.llm.model.open_model", "widthbench.subtasks.score_run.run_score"]),
    ("solve", "--out"): (lambda p, d: [*SOLVE, "--no-cache", "--out", p],
                         ["widthbench.llm.model.open_model", "widthbench.searches.solve_run.load_problems"]),
    ("solve", "--cache-dir"): (lambda p, d: [*SOLVE, "--out", str(d / "run"), "--cache-dir", p],
                               ["widthbench.llm.model.open_model", "widthbench.searches.solve_run.load_problems"]),
    ("chat", "--cache-dir"): (lambda p, d: ["chat", *MODEL, "--cache-dir", p, "hello"],
                              ["widthbench.llm.model.open_model"]),
    ("report", "--out"): (lambda p, d: ["report", str(d / "run"), "--out", p],
                          ["widthbench.core.runfiles.summary_kind"]),
    ("compare", "--out"): (lambda p, d: ["compare", str(d / "run"), str(d / "run"), "--out", p],
                           ["widthbench.subtasks.harness.logs.import_runs",
                            "widthbench.subtasks.results.run_outcomes.compare_runs"]),
    ("export", "--out"): (lambda p, d: ["export", "lm-eval", "--subtask", "action-generation", "--count", "1",
                                        "--style", "pddl", "--thinking", "off", "--out", p],
                          ["widthbench.subtasks.harness.lmeval.export_lmeval"]),
    ("rescore", "--out"): (lambda p, d: ["rescore", "planbench", str(d / "results.json"), "--instances",
                                         str(d), "--out", p],
                           ["widthbench.subtasks.planbench.run.rescore"]),
    ("traces", "--out"): (lambda p, d: ["traces", str(d), "--out", p],
                          ["widthbench.commands.traces.run_traces",
                           "widthbench.subtasks.traces.sources.planbench_traces"]),
}

BAD = ("a file", "under a file", "unwritable")


def _bad_path(kind: str, scratch: Path) -> str:
    if kind == "a file":  # an existing domain file, as a user mistypes --out sets/bw/domain.pddl
        return str(scratch / "domain.pddl")
    if kind == "under a file":
        return str(scratch / "domain.pddl" / "sub")
    return "/proc/widthbench-no-such-folder/x"


def _tree(root: Path) -> dict[str, bytes | None]:
    return {str(p.relative_to(root)): (p.read_bytes() if p.is_file() else None) for p in sorted(root.rglob("*"))}


def test_every_output_option_of_every_subcommand_is_walked():
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    found = {(name, a.option_strings[0])
             for name, p in sub.choices.items() for a in p._actions if a.dest in OUTPUT_DESTS}
    assert found == set(CASES)


@pytest.mark.parametrize("kind", BAD)
@pytest.mark.parametrize("case", sorted(CASES), ids=lambda c: f"{c[0]} {c[1]}")
def test_bad_output_path_is_one_line_exit_2_before_any_work(case, kind, tmp_path, capsys, monkeypatch):
    import importlib

    argv_of, work = CASES[case]
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    (scratch / "domain.pddl").write_text("(define (domain d))\n")
    # the inputs some commands read exist (a missing input is refused first, at parse time:
    # tests/test_cli_errors.py)
    (scratch / "run").mkdir()
    (scratch / "results.json").write_text("[]\n")
    monkeypatch.setenv("WIDTHBENCH_CACHE_DIR", str(scratch / "cache"))

    def started(*args, **kwargs):
        raise AssertionError("the command started its work before refusing the path")

    for target in work:
        module, name = target.rsplit(".", 1)
        monkeypatch.setattr(importlib.import_module(module), name, started)
    bad = _bad_path(kind, scratch)
    before = _tree(tmp_path)
    code = main(argv_of(bad, scratch))
    err = capsys.readouterr().err
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(f"widthbench {case[0]}: error: {case[1]} {bad}: "), lines[0]
    assert _tree(tmp_path) == before  # nothing created, the file untouched
    assert not os.path.exists(bad) or kind == "a file"


def test_console_command_prints_one_line_not_a_traceback(tmp_path):
    """The installed entry point, run as a user does (the work is not stubbed here)."""
    sets = tmp_path / "sets"
    done = subprocess.run([sys.executable, "-m", "widthbench", "generate", "blocksworld", "--count", "2",
                           "--seed", "1", "--no-optimal", "--quiet", "--out", str(sets)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    before = _tree(tmp_path)
    for out in (sets / "domain.pddl", sets / "domain.pddl" / "sub", Path("/proc/widthbench-x")):
        done = subprocess.run([sys.executable, "-m", "widthbench", *SCORE, "--instances", str(sets),
                               "--no-cache", "--out", str(out)],
                              capture_output=True, text=True, timeout=600)
        assert done.returncode == 2
        assert "Traceback" not in done.stderr
        assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert _tree(tmp_path) == before


def test_check_output_dir_accepts_a_folder_or_a_new_path_and_creates_nothing(tmp_path):
    assert check_output_dir(tmp_path) == tmp_path
    new = tmp_path / "a" / "b"
    assert check_output_dir(new) == new
    assert list(tmp_path.iterdir()) == []  # the probe is gone too
    assert make_output_dir(new).is_dir()


@pytest.mark.parametrize("kind", BAD)
def test_make_output_dir_names_what_and_where(kind, tmp_path):
    (tmp_path / "domain.pddl").write_text("x")
    bad = _bad_path(kind, tmp_path)
    with pytest.raises(UserError, match=rf"^reply cache folder {bad}: "):
        make_output_dir(bad, "reply cache folder")
