"""`widthbench equivalent DOMAIN PROBLEM_A PROBLEM_B`: one line per verdict and its exit code (0
equivalent, 1 not, 3 unknown); bad input (a path, the domain, the reference problem) one line on
stderr and exit 2; a fault in PROBLEM_B, the text being judged, is a verdict of its class."""

from __future__ import annotations

import json

import pytest

from widthbench.cli import main

TRUTH = """(define (problem t) (:domain blocksworld) (:objects a b c)
 (:init (handempty) (ontable a) (ontable b) (on c b) (clear a) (clear c))
 (:goal (and (on a b) (on b c))))"""
RENAMED = """(define (problem m) (:domain blocksworld) (:objects x y z)
 (:init (clear x) (on z y) (ontable y) (clear z) (ontable x) (handempty))
 (:goal (and (on y z) (on x y) (clear x))))"""


@pytest.fixture
def files(tmp_path):
    def write(name, text):
        (tmp_path / name).write_text(text)
        return str(tmp_path / name)
    return write


def run(capsys, *argv):
    code = main(["equivalent", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_a_renamed_problem_with_an_implied_goal_fact_is_equivalent_exit_0(files, capsys):
    code, out, err = run(capsys, "blocksworld", files("t.pddl", TRUTH), files("m.pddl", RENAMED))
    assert code == 0 and out.startswith("EQUIVALENT:") and len(out.splitlines()) == 1 and not err
    assert "a->x" in out and "b->y" in out


def test_a_goal_that_admits_other_states_is_exit_1_with_its_class(files, capsys):
    loose = RENAMED.replace("(and (on y z) (on x y) (clear x))", "(on x y)")
    code, out, _ = run(capsys, "blocksworld", files("t.pddl", TRUTH), files("m.pddl", loose))
    assert code == 1 and out.startswith("NOT EQUIVALENT (goal-admits-other):") and "e.g. {" in out


def test_a_candidate_that_does_not_parse_is_a_verdict_exit_1_not_bad_input(files, capsys):
    code, out, err = run(capsys, "blocksworld", files("t.pddl", TRUTH), files("m.pddl", RENAMED[:-3]))
    assert code == 1 and out.startswith("NOT EQUIVALENT (parse-error):") and "m.pddl" in out and not err
    code, out, _ = run(capsys, "blocksworld", files("t.pddl", TRUTH),
                       files("m.pddl", RENAMED.replace("(handempty)", "(hand-empty)")))
    assert code == 1 and "(unknown-predicate)" in out


def test_past_max_states_an_undecided_pair_is_unknown_exit_3(files, capsys):
    code, out, _ = run(capsys, "blocksworld", files("t.pddl", TRUTH), files("m.pddl", RENAMED),
                       "--max-states", "4")
    assert code == 3 and out.startswith("UNKNOWN (unknown):")


def test_json_gives_the_whole_verdict(files, capsys):
    code, out, _ = run(capsys, "blocksworld", files("t.pddl", TRUTH), files("m.pddl", RENAMED), "--json")
    got = json.loads(out)
    assert code == 0 and got["equivalent"] is True and got["bijection"] == {"a": "x", "b": "y", "c": "z"}
    assert set(got) == {"equivalent", "reason", "message", "bijection", "missing", "extra", "example_state",
                        "method", "states"}


@pytest.mark.parametrize("case", ["reference-unparseable", "missing-file", "max-states", "domain"])
def test_bad_input_is_one_line_exit_2(case, files, capsys):
    truth, cand = files("t.pddl", TRUTH), files("m.pddl", RENAMED)
    argv = {"reference-unparseable": ["blocksworld", files("bad.pddl", TRUTH[:-2]), cand],
            "missing-file": ["blocksworld", truth, "nope/m.pddl"],
            "max-states": ["blocksworld", truth, cand, "--max-states", "0"],
            "domain": ["nodomain", truth, cand]}[case]
    code, out, err = run(capsys, *argv)
    assert code == 2 and not out and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_the_verdict_is_the_same_in_every_process(tmp_path):
    """The bijection and the example come from an isomorphism search whose order must not follow
    Python's per-process string hashes."""
    import os
    import subprocess
    import sys

    table = """(define (problem table) (:domain blocksworld) (:objects a b c d e f)
     (:init (handempty) (ontable a) (ontable b) (ontable c) (ontable d) (ontable e) (ontable f)
      (clear a) (clear b) (clear c) (clear d) (clear e) (clear f))
     (:goal (and (on a b) (on b c) (on d e))))"""
    (tmp_path / "a.pddl").write_text(table)
    (tmp_path / "b.pddl").write_text(table.replace("(on a b) (on b c) (on d e)", "(on b c) (on d a)"))
    outs = set()
    for seed in ("1", "2", "3"):
        proc = subprocess.run([sys.executable, "-m", "widthbench", "equivalent", "blocksworld",
                               str(tmp_path / "a.pddl"), str(tmp_path / "b.pddl"), "--json"],
                              capture_output=True, text=True, env={**os.environ, "PYTHONHASHSEED": seed})
        assert proc.returncode == 1, proc.stderr
        outs.add(proc.stdout)
    assert len(outs) == 1
