"""`widthbench validate`: verdicts, exit codes, and one-line errors for malformed input."""

from __future__ import annotations

import subprocess
import sys

import pytest

from widthbench.cli import main
from tests.conftest import PLANBENCH, need_data

BW = """(define (problem p) (:domain blocksworld) (:objects a b c)
 (:init (clear a) (on a b) (ontable b) (clear c) (ontable c) (handempty))
 (:goal (and (on b c))))"""
GOOD_PLAN = "(unstack a b)\n(put-down a) ; comment\n\n(pick-up b)\n(stack b c)\n"


@pytest.fixture
def files(tmp_path):
    (tmp_path / "p.pddl").write_text(BW)
    (tmp_path / "plan.txt").write_text(GOOD_PLAN)
    return tmp_path


def test_valid_plan_prints_valid_and_exits_0(files, capsys):
    assert main(["validate", "blocksworld", str(files / "p.pddl"), str(files / "plan.txt")]) == 0
    assert capsys.readouterr().out.startswith("VALID")


def test_inapplicable_step_is_named_with_its_unmet_precondition(files, capsys):
    (files / "bad.txt").write_text("(unstack a b)\n(pick-up b)\n")
    assert main(["validate", "blocksworld", str(files / "p.pddl"), str(files / "bad.txt")]) == 1
    out = capsys.readouterr().out
    assert out.startswith("INVALID") and "step 2 (pick-up b)" in out and "(handempty)" in out


def test_unmet_goal_is_named(files, capsys):
    (files / "short.txt").write_text("(unstack a b)\n(put-down a)\n")
    assert main(["validate", "blocksworld", str(files / "p.pddl"), str(files / "short.txt")]) == 1
    out = capsys.readouterr().out
    assert "unmet goal" in out and "(on b c)" in out


DOMAIN_OK = "(define (domain d) (:requirements :strips) (:predicates (p ?x)) (:action a :parameters (?x) :precondition (p ?x) :effect (not (p ?x))))"
PROBLEM_OK = "(define (problem q) (:domain d) (:objects o) (:init (p o)) (:goal (not (p o))))"

MALFORMED = {
    "domain-unbalanced": ("(define (domain d) (:predicates (p ?x))", PROBLEM_OK, "(a o)"),
    "domain-empty": ("", PROBLEM_OK, "(a o)"),
    "domain-garbage": ("hello world", PROBLEM_OK, "(a o)"),
    "domain-conditional-effects": (DOMAIN_OK.replace(":strips", ":strips :conditional-effects"), PROBLEM_OK, "(a o)"),
    # :adl and :action-costs may be declared (issue 14: alfred); what is used is still checked.
    "domain-adl-forall": (DOMAIN_OK.replace(":strips", ":adl").replace(":effect (not (p ?x))", ":effect (forall (?y) (not (p ?y)))"), PROBLEM_OK, "(a o)"),
    "domain-action-costs": (DOMAIN_OK.replace(":strips", ":strips :action-costs").replace("(:predicates (p ?x))", "(:predicates (p ?x)) (:functions (total-cost) - number)"), PROBLEM_OK, "(a o)"),
    "domain-undeclared-predicate": (DOMAIN_OK.replace("(p ?x) :effect", "(q ?x) :effect"), PROBLEM_OK, "(a o)"),
    "domain-negative-pre-undeclared": (DOMAIN_OK.replace(":precondition (p ?x)", ":precondition (not (p ?x))"), PROBLEM_OK, "(a o)"),
    "domain-disjunction": (DOMAIN_OK.replace(":strips", ":strips :disjunctive-preconditions").replace(":precondition (p ?x)", ":precondition (or (p ?x) (not (p ?x)))"), PROBLEM_OK, "(a o)"),  # over a fluent
    "problem-empty": (DOMAIN_OK, "", "(a o)"),
    "problem-unbalanced": (DOMAIN_OK, PROBLEM_OK[:-1], "(a o)"),
    "problem-unknown-object": (DOMAIN_OK, PROBLEM_OK.replace("(init (p o))", "(init (p z))").replace("(:init (p o))", "(:init (p zz))"), "(a o)"),
    "problem-unknown-predicate": (DOMAIN_OK, PROBLEM_OK.replace("(:init (p o))", "(:init (r o))"), "(a o)"),
    "problem-wrong-arity": (DOMAIN_OK, PROBLEM_OK.replace("(:init (p o))", "(:init (p o o))"), "(a o)"),
    "problem-no-goal": (DOMAIN_OK, "(define (problem q) (:domain d) (:objects o) (:init (p o)))", "(a o)"),
    "plan-unknown-action": (DOMAIN_OK, PROBLEM_OK, "(fly o)"),
    "plan-wrong-arity": (DOMAIN_OK, PROBLEM_OK, "(a o o)"),
    "plan-unknown-object": (DOMAIN_OK, PROBLEM_OK, "(a zz)"),
    "plan-not-an-action": (DOMAIN_OK, PROBLEM_OK, "a o"),
    "plan-nested": (DOMAIN_OK, PROBLEM_OK, "((a o))"),
    "plan-binary": (DOMAIN_OK, PROBLEM_OK, "\x00\x01(a"),
}


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_malformed_input_gives_one_line_error_and_exit_2(case, tmp_path, capsys):
    dom, prob, plan = MALFORMED[case]
    (tmp_path / "d.pddl").write_text(dom)
    (tmp_path / "p.pddl").write_text(prob)
    (tmp_path / "plan").write_text(plan)
    code = main(["validate", str(tmp_path / "d.pddl"), str(tmp_path / "p.pddl"), str(tmp_path / "plan")])
    err = capsys.readouterr().err
    assert code == 2, err
    assert err.count("\n") == 1 and err.startswith("widthbench validate: error: ")
    assert "Traceback" not in err


@pytest.mark.parametrize("args", [
    ["validate", "no-such-domain", "p.pddl", "plan"],
    ["validate", "blocksworld", "/nonexistent/p.pddl", "plan"],
    ["validate", "blocksworld", "{p}", "/nonexistent/plan"],
    ["validate", "/nonexistent/domain.pddl", "{p}", "{plan}"],
])
def test_missing_files_and_unknown_domains_give_one_line_error(args, files, capsys):
    args = [a.format(p=files / "p.pddl", plan=files / "plan.txt") for a in args]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "error:" in err


def test_console_script_prints_no_traceback(tmp_path):
    (tmp_path / "d.pddl").write_text("(define (domain")
    r = subprocess.run([sys.executable, "-m", "widthbench", "validate", str(tmp_path / "d.pddl"), "x", "y"],
                       capture_output=True, text=True)
    assert r.returncode == 2 and "Traceback" not in r.stderr and r.stderr.count("\n") == 1


# Plan files as users have them (issue 12, scope 5)

@pytest.mark.parametrize("plan", [
    "(unstack a b) (put-down a)\n(pick-up b) (stack b c)\n",                      # one-line sequences
    "(UNSTACK A B)\n( PUT-DOWN   A )\n(Pick-Up b)\n(stack B c)\n",                  # upper case and spacing
    "1. (unstack a b)\n2. (put-down a)\n3. (pick-up b)\n4. (stack b c)\n",         # ACPBench numbering
    "(unstack a b) ; 1\n(put-down a) ; 2\n(pick-up b) ; 3\n(stack b c) ; 4\n",     # numbered in comments
    "0: (unstack a b)\n1: (put-down a)\nstep 3: (pick-up b)\n0.000: (stack b c) [1]\n; cost = 4 (unit cost)\n",
])
def test_plan_files_as_users_have_them_are_read(plan, files, capsys):
    (files / "user.txt").write_text(plan)
    assert main(["validate", "blocksworld", str(files / "p.pddl"), str(files / "user.txt")]) == 0
    assert capsys.readouterr().out.startswith("VALID (4 steps)")


def test_read_plan_normalises_case_spacing_and_keeps_order():
    from widthbench.planners.strips import read_plan

    assert read_plan("1. ( UNSTACK  A B ) (put-down a) ; 1\n") == ["(unstack a b)", "(put-down a)"]


TYPED_DOMAIN = """(define (domain t) (:requirements :strips :typing) (:types truck package)
 (:predicates (at ?x) (loaded ?p - package ?t - truck))
 (:action load :parameters (?p - package ?t - truck) :precondition (at ?p)
  :effect (and (loaded ?p ?t) (not (at ?p)))))"""
TYPED_PROBLEM = """(define (problem q) (:domain t) (:objects p1 - package t1 - truck)
 (:init (at p1) (at t1)) (:goal (loaded p1 t1)))"""


def test_an_ill_typed_step_is_an_inapplicable_step_not_a_usage_error(tmp_path, capsys):
    (tmp_path / "d.pddl").write_text(TYPED_DOMAIN)
    (tmp_path / "p.pddl").write_text(TYPED_PROBLEM)
    (tmp_path / "ok").write_text("(load p1 t1)\n")
    (tmp_path / "bad").write_text("(load t1 p1)\n")
    assert main(["validate", str(tmp_path / "d.pddl"), str(tmp_path / "p.pddl"), str(tmp_path / "ok")]) == 0
    capsys.readouterr()
    assert main(["validate", str(tmp_path / "d.pddl"), str(tmp_path / "p.pddl"), str(tmp_path / "bad")]) == 1
    out = capsys.readouterr().out
    assert out.startswith("INVALID: step 1 (load t1 p1) is not applicable") and "(t1 - package)" in out


def test_a_step_naming_no_ground_action_is_inapplicable(files, capsys):
    (files / "aa.txt").write_text("(unstack a b)\n(stack a a)\n")
    assert main(["validate", "blocksworld", str(files / "p.pddl"), str(files / "aa.txt")]) == 1
    assert "step 2 (stack a a) is not applicable" in capsys.readouterr().out


@pytest.mark.parametrize("plan", ["(unstack a b) put-down a", "(unstack a b) (", "1.", "(unstack a b) (())"])
def test_lines_that_are_not_only_actions_stay_usage_errors(plan, files, capsys):
    (files / "junk.txt").write_text(plan)
    assert main(["validate", "blocksworld", str(files / "p.pddl"), str(files / "junk.txt")]) == 2
    assert "not a PDDL action" in capsys.readouterr().err


# One rule for steps the task does not have (issue 25): bad input, exit 2, wherever they stand;
# every step is read before the plan is executed, so an inapplicable step before them changes nothing.
ORDERS = {
    "unknown action after a valid step": "(unstack a b)\n(fly a)\n",
    "unknown action after an inapplicable step": "(pick-up b)\n(fly a)\n",
    "unknown action first": "(fly a)\n(unstack a b)\n",
    "unknown object after an inapplicable step": "(pick-up b)\n(pick-up zz)\n",
    "unknown object after a valid step": "(unstack a b)\n(put-down zz)\n",
    "wrong arity after an inapplicable step": "(stack a b)\n(stack a)\n",
}


@pytest.mark.parametrize("plan", ORDERS.values(), ids=list(ORDERS))
def test_a_step_the_task_does_not_have_is_exit_2_wherever_it_stands(plan, files, capsys):
    (files / "odd.txt").write_text(plan)
    assert main(["validate", "blocksworld", str(files / "p.pddl"), str(files / "odd.txt")]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    line, = captured.err.strip().splitlines()
    assert f"odd.txt: step {1 if plan.startswith('(fly') else 2}: " in line
    assert "INVALID" not in line


def test_a_well_formed_step_outside_the_grounded_set_is_still_invalid_after_an_inapplicable_one(files, capsys):
    (files / "odd.txt").write_text("(pick-up b)\n(stack a a)\n")
    assert main(["validate", "blocksworld", str(files / "p.pddl"), str(files / "odd.txt")]) == 1
    assert "step 1 (pick-up b)" in capsys.readouterr().out


def _fifo(tmp_path, text: str):
    """A FIFO whose writer puts ``text`` in and closes it, once a reader opens it."""
    import os
    import threading

    path = tmp_path / "plan.fifo"
    os.mkfifo(path)

    def write():
        with open(path, "w") as f:
            f.write(text)

    threading.Thread(target=write, daemon=True).start()
    return path


@pytest.mark.parametrize("kind", ["empty file", "/dev/null", "fifo"])
def test_an_empty_plan_file_is_the_empty_plan_said_so_not_a_missing_file(kind, files, tmp_path, capsys):
    """Issue 39: `validate DOMAIN PROBLEM /dev/null` said "plan file not found" for a file that exists.
    Anything that reads like a file is read; an empty one is the empty plan, and says so."""
    if kind == "empty file":
        plan = files / "empty.txt"
        plan.write_text("")
    else:
        plan = "/dev/null" if kind == "/dev/null" else _fifo(tmp_path, "")
    assert main(["validate", "blocksworld", str(files / "p.pddl"), str(plan)]) == 1
    captured = capsys.readouterr()
    assert captured.out.startswith(f"INVALID: the plan is empty ({plan} has no steps); ") and "(on b c)" in captured.out
    assert captured.err == ""


def test_a_fifo_is_read_like_a_plan_file(files, tmp_path, capsys):
    assert main(["validate", "blocksworld", str(files / "p.pddl"), str(_fifo(tmp_path, GOOD_PLAN))]) == 0
    assert capsys.readouterr().out.startswith("VALID (4 steps)")


@pytest.mark.parametrize("argv,said", [
    (["validate", "blocksworld", "/dev/null", "/dev/null"], "/dev/null: empty problem file"),
    (["validate", "/dev/null", "PROBLEM", "/dev/null"], "/dev/null: empty domain file"),
    (["render", "/dev/null", "--domain", "blocksworld"], "/dev/null: empty problem file"),
    (["plan", "blocksworld", "/dev/null"], "/dev/null: empty problem file"),
])
def test_a_problem_or_domain_that_reads_empty_is_empty_not_missing(argv, said, files, capsys):
    argv = [str(files / "p.pddl") if a == "PROBLEM" else a for a in argv]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].endswith(said) and "not found" not in err[0], err


@pytest.mark.parametrize("command", ["rescore", "traces"])
def test_an_empty_result_file_is_empty_not_missing(command, tmp_path, capsys):
    """`rescore planbench /dev/null` and `traces /dev/null` said "result file not found"."""
    need_data()
    argv = ["rescore", "planbench"] if command == "rescore" else ["traces"]
    assert main([*argv, "/dev/null", "--instances", str(PLANBENCH)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"widthbench {command}: error: /dev/null: empty result file"]
