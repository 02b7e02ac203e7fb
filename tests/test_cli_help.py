"""Every subcommand's --help reads as written (issue 25)."""

from __future__ import annotations

import pytest

from widthbench.cli import COMMANDS, main


def _help(command: str, capsys) -> str:
    with pytest.raises(SystemExit) as stop:
        main([command, "--help"])
    assert stop.value.code == 0
    return " ".join(capsys.readouterr().out.split())


@pytest.mark.parametrize("command", COMMANDS)
def test_help_shows_no_escaped_percent(command, capsys):
    # argparse %-formats help strings but not descriptions: "%%" in a description is printed as is
    assert "%%" not in _help(command, capsys)


def test_score_and_report_help_say_95_percent(capsys):
    assert "Wilson 95% CIs" in _help("score", capsys)
    assert "95% CI bars" in _help("report", capsys)


def test_solve_help_says_where_the_problems_must_come_from(capsys):
    text = _help("solve", capsys)
    assert "Required: where the problems come from, exactly one of --domain NAME" in text
    assert "instances (required: exactly one of --domain NAME, --instances DIR, --tasks FILE)" in text


def test_solve_without_a_source_of_problems_says_the_same(tmp_path, capsys):
    assert main(["solve", "--model", "sim:oracle", "--out", str(tmp_path / "r")]) == 2
    assert "give exactly one of --domain, --instances DIR or --tasks FILE" in capsys.readouterr().err
