"""`widthbench render PROBLEM`: initial state and goal in both styles; bad input is one line, exit 2."""

from __future__ import annotations

import shutil

from tests.conftest import BW_DIR, BW_DOMAIN, need_data
from widthbench.cli import main

PROBLEM = """(define (problem tiny) (:domain blocksworld)
  (:objects a b)
  (:init (clear a) (on a b) (ontable b) (handempty))
  (:goal (and (on b a))))
"""


def test_render_nl_with_domain_by_name(tmp_path, capsys):
    p = tmp_path / "tiny.pddl"
    p.write_text(PROBLEM)
    assert main(["render", str(p), "--domain", "blocksworld", "--style", "nl"]) == 0
    out = capsys.readouterr().out
    assert out == ("Initial state:\nthe red block is clear\nthe hand is empty\nthe red block is on the blue block\n"
                   "the blue block is on the table\n\nGoal:\nthe blue block is on the red block\n")


def test_render_pddl_and_planbench_templates(tmp_path, capsys):
    p = tmp_path / "tiny.pddl"
    p.write_text(PROBLEM)
    assert main(["render", str(p), "--domain", "blocksworld", "--style", "pddl"]) == 0
    assert "(clear a) (handempty) (on a b) (ontable b)\n\nGoal:\n(on b a)" in capsys.readouterr().out
    assert main(["render", str(p), "--domain", "blocksworld", "--templates", "planbench"]) == 0
    assert ("the red block is clear, the hand is empty, the red block is on top of the blue block and the blue "
            "block is on the table") in capsys.readouterr().out


def test_domain_pddl_next_to_the_problem_is_used(tmp_path, capsys):
    need_data()
    shutil.copy(BW_DOMAIN, tmp_path / "domain.pddl")
    shutil.copy(BW_DIR / "instance-2.pddl", tmp_path / "p.pddl")
    assert main(["render", str(tmp_path / "p.pddl"), "--templates", "planbench"]) == 0
    assert "Goal:\nthe orange block is on top of the red block\n" in capsys.readouterr().out


def test_bad_input_is_one_line_exit_2(tmp_path, capsys):
    p = tmp_path / "tiny.pddl"
    p.write_text(PROBLEM)
    assert main(["render", str(p)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no --domain given and no domain.pddl next to" in err
    assert main(["render", str(tmp_path / "missing.pddl"), "--domain", "blocksworld"]) == 2
    assert "argument PROBLEM: not found" in capsys.readouterr().err
    assert main(["render", str(p), "--domain", "nosuchdomain"]) == 2
    assert "unknown domain" in capsys.readouterr().err
    (tmp_path / "bad.pddl").write_text("(define (problem x")
    assert main(["render", str(tmp_path / "bad.pddl"), "--domain", "blocksworld"]) == 2
    assert capsys.readouterr().err.count("\n") == 1
