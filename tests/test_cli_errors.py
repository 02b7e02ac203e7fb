"""First contact (issue 32): every bad option value of every subcommand is one line on stderr and exit
2 (no usage block), naming the option and, for a choice, the allowed values; every path a command
reads that is missing says "not found", a file given for a folder says "not a folder". The test
walks the parser, so a new option with choices or a path is covered (or fails here) by itself."""

from __future__ import annotations

import re

import pytest

from widthbench.argtypes import INPUT_PATHS
from widthbench.cli import build_parser, main

OUTPUTS = {"out", "cache_dir"}  # output folders: tests/test_cli_paths.py
OUTPUT_POSITIONALS = {("prompts", "dir")}  # `prompts export DIR` writes DIR
PATH_WORDS = ("DIR", "FILE", "PROBLEM", "RUN", "TARGET", "PATH")


def _subparsers():
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    return sub.choices


def _positionals(sp):
    return [a for a in sp._actions if not a.option_strings]


def _valid(command: str, dest: str, scratch) -> str:
    """A value of a positional argument that its parser accepts."""
    values = {"domain": "blocksworld", "target": "blocksworld", "source": "planbench", "format": "lm-eval",
              "message": "hello", "runs": str(scratch)}
    if dest in values and (command, dest) not in INPUT_PATHS or dest in ("domain", "target", "runs"):
        return values[dest]
    f = scratch / "a.pddl"
    f.write_text("(define)")
    return str(f)


def _argv(command, sp, action, bad, scratch):
    """argv giving ``action`` the value ``bad`` and every positional before it a valid value."""
    argv = [command]
    for pos in _positionals(sp):
        if pos is action:
            argv.append(bad)
            return argv
        argv.append(_valid(command, pos.dest, scratch))
    return argv + [action.option_strings[0], bad]


def _one_line_error(capsys) -> str:
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    assert "usage:" not in captured.err and "Traceback" not in captured.err
    return lines[0]


def _allowed(action):
    """The values an option takes: its choices, or those of a comma-separated list option."""
    return action.choices or getattr(action.type, "allowed", None)


CHOICE_CASES = [(name, a.dest) for name, sp in _subparsers().items() for a in sp._actions
                if _allowed(a) and a.dest != "command" and a.dest != "help"]


def test_the_walk_finds_the_choices_the_issue_names():
    assert ("solve", "method") in CHOICE_CASES and ("score", "style") in CHOICE_CASES
    assert len(CHOICE_CASES) > 25


@pytest.mark.parametrize("command,dest", CHOICE_CASES)
def test_a_bad_choice_is_one_line_naming_the_option_and_the_allowed_values(command, dest, tmp_path, capsys):
    sp = _subparsers()[command]
    action = next(a for a in sp._actions if a.dest == dest)
    assert main(_argv(command, sp, action, "bogus-value", tmp_path)) == 2
    line = _one_line_error(capsys)
    name = action.option_strings[0] if action.option_strings else (action.metavar or action.dest)
    assert name in line and "bogus-value" in line, line
    assert all(str(c) in line for c in _allowed(action)), line


def test_every_path_a_command_reads_is_checked():
    """Each option or positional whose metavar names a file or folder (outputs aside) has a type
    from widthbench.argtypes.INPUT_PATHS, and every entry there names an existing argument."""
    found = set()
    for name, sp in _subparsers().items():
        for a in sp._actions:
            if a.dest in OUTPUTS or a.dest == "help" or (name, a.dest) in OUTPUT_POSITIONALS:
                continue
            metavar = str(a.metavar or "")
            if any(w in metavar for w in PATH_WORDS) or (name, a.dest) in INPUT_PATHS:
                found.add((name, a.dest))
                assert getattr(a.type, "path_type", False), (name, a.dest)
    assert found == set(INPUT_PATHS)


@pytest.mark.parametrize("command,dest", sorted(INPUT_PATHS))
def test_a_missing_path_is_one_line_not_found(command, dest, tmp_path, capsys):
    sp = _subparsers()[command]
    action = next(a for a in sp._actions if a.dest == dest)
    missing = str(tmp_path / "no-such" / "thing.x")
    assert main(_argv(command, sp, action, missing, tmp_path)) == 2
    line = _one_line_error(capsys)
    assert "not found" in line and missing in line, line
    assert (action.option_strings[0] if action.option_strings else (action.metavar or dest)) in line


FOLDERS = sorted(k for k, t in INPUT_PATHS.items() if t.__name__ == "folder")


@pytest.mark.parametrize("command,dest", FOLDERS)
def test_a_file_where_a_folder_is_wanted_says_not_a_folder(command, dest, tmp_path, capsys):
    sp = _subparsers()[command]
    action = next(a for a in sp._actions if a.dest == dest)
    f = tmp_path / "file.txt"
    f.write_text("x")
    assert main(_argv(command, sp, action, str(f), tmp_path)) == 2
    assert "not a folder" in _one_line_error(capsys)


def test_score_instances_missing_dir_says_not_found(capsys):
    assert main(["score", "--instances", "missing_dir", "--model", "sim:oracle", "--out", "x"]) == 2
    assert _one_line_error(capsys) == ("widthbench score: error: argument --instances: not found: "
                                       "missing_dir (see widthbench score --help)")


@pytest.mark.parametrize("argv,option", [(["score", "--count", "many"], "--count"),
                                         (["solve", "--max-depth", "1.5"], "--max-depth"),
                                         (["score", "--model"], "--model"),
                                         (["solve", "--model", "sim:oracle", "--out", "x", "--no-such-flag"], "--no-such-flag")])
def test_other_bad_values_are_one_line_too(argv, option, capsys):
    assert main(argv) == 2
    assert option in _one_line_error(capsys)


def _short_error(capsys) -> str:
    line = _one_line_error(capsys)
    assert len(line) <= 300, (len(line), line)
    return line


def test_long_lists_in_error_lines_are_counted_and_shortened_at_the_source(tmp_path, capsys):
    """Issue 39: the error paths that put a long list into one line (a rerun into a folder of other
    settings, a run of another kind, many unreachable servers) name what fits and count the rest,
    each line under 300 characters before the CLI's guard has anything to cut."""
    run = tmp_path / "run"
    assert main(["score", "--subtask", "plan-verification", "--count", "2", "--model", "sim:oracle",
                 "--out", str(run), "--quiet"]) == 0
    capsys.readouterr()
    # `solve --out` at a score run's folder: over 2,000 characters before
    assert main(["solve", "--domain", "blocksworld", "--count", "1", "--max-plan-length", "4",
                 "--model", "sim:oracle", "--out", str(run), "--quiet"]) == 2
    line = _short_error(capsys)
    assert line.endswith(f"{run} holds a score run, not a solve run; use another --out"), line
    # a rerun with many other settings: the first changed fields, then how many more
    assert main(["score", "--subtask", "plan-verification", "--count", "3", "--seed", "5", "--preset", "none",
                 "--temperature", "0.1", "--top-p", "0.5", "--invalid-kind", "mixed", "--max-tokens", "99",
                 "--model", "sim:noisy:0.2", "--out", str(run), "--quiet"]) == 2
    line = _short_error(capsys)
    assert "holds a run with other settings (model: 'sim:oracle' -> 'sim:noisy:0.2'; " in line, line
    assert re.search(r"; and \d+ more fields\); use another --out$", line), line
    assert "characters cut" not in line
    # twelve servers that do not answer: the first, and how many more
    urls = [arg for port in range(40001, 40013) for arg in ("--base-url", f"http://127.0.0.1:{port}/v1")]
    assert main(["score", "--subtask", "plan-verification", "--count", "1", "--model", "openai:m", *urls,
                 "--out", str(tmp_path / "net"), "--quiet"]) == 2
    line = _short_error(capsys)
    assert "cannot reach the model servers: http://127.0.0.1:40001/v1: " in line and " more (" in line, line


def test_the_cli_cuts_any_error_line_to_300_characters(monkeypatch, capsys):
    """The backstop: whatever a command raises as a user error, and whatever bad value an option is
    given, is one line of at most 300 characters, its cut said."""
    from widthbench.commands import validate
    from widthbench.core.errors import UserError

    def fails(args):
        raise UserError("a message " + "with a very long list, " * 200 + "\nand a second line")

    monkeypatch.setattr(validate, "run", fails)
    assert main(["validate", "blocksworld", __file__, __file__]) == 2
    line = _short_error(capsys)
    assert line.startswith("widthbench validate: error: a message with a very long list,")
    assert re.search(r" \.\.\. \(\d+ characters cut\)$", line), line
    assert main(["solve", "--method", "x" * 1000]) == 2
    line = _short_error(capsys)
    assert line.startswith("widthbench solve: error: argument --method: ")
    assert line.endswith("characters cut) (see widthbench solve --help)"), line
