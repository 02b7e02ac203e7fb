"""`rescore planbench` reads the PDDL in a query as PDDL (any spacing, a stray parenthesis after the
problem), and a batch that meets a file it cannot read names it with the reason, judges the others
and exits 2 at the end with the count (issue 40)."""

from __future__ import annotations

import json
import re

import pytest

from tests.conftest import BW_DIR, DATA, PLANBENCH, need_data
from widthbench.cli import main
from widthbench.planners.problem_reader import definitions, read_problem
from widthbench.planners.strips import execute_plan, load_task

RESULTS = DATA / "planbench-responses/llm_planning_analysis/results"
PDDL_FILE = RESULTS / "blocksworld/gpt-4_chat/task_1_plan_generation_zero_shot_pddl.json"
PROBLEM = """(define (problem bw-rand-4)
(:domain blocksworld-4ops)
(:objects a b c d )
(:init (handempty) (ontable a) (on b c) (ontable c) (ontable d) (clear a) (clear b) (clear d))
(:goal (and (on c b))))"""


def _respaced(text: str, variant: int) -> str:
    """The same PDDL written otherwise, as PDDL allows: no space or several around parentheses,
    upper case, line breaks, a comment."""
    if variant == 0:
        return re.sub(r"\(\s+", "(", re.sub(r"\s*\(", "(", text))
    if variant == 1:
        return text.upper().replace("(", "( ").replace(")", " )\n")
    return text.replace("(:init", "; the initial state (\n(:init").replace("\n", "\n\t ")


@pytest.mark.parametrize("variant", [0, 1, 2])
def test_a_problem_definition_is_found_by_its_tokens(variant):
    text = _respaced(PROBLEM, variant)
    query = f"Here is a problem (in PDDL):\n[QUERY PROBLEM]\n{text}\n)\n\n[PLAN]"  # a stray ")" after it
    spans = definitions(query)
    assert len(spans) == 1
    found = query[spans[0][0]:spans[0][1]]
    assert found.strip().endswith(")") and query[spans[0][1]:].lstrip().startswith(")")
    assert read_problem(found.lower()) == read_problem(PROBLEM.lower()) is not None
    assert definitions(query[:spans[0][1] - 1]) == []  # an unclosed problem is no problem


def _files(tmp_path, edit):
    """A copy of two answers of a real PDDL result file under results/blocksworld/, ``edit``ed."""
    data = json.loads(PDDL_FILE.read_text())
    data["instances"] = edit(data["instances"][:2])
    dst = tmp_path / "root" / "results" / "blocksworld" / "gpt-4_chat" / PDDL_FILE.name
    dst.parent.mkdir(parents=True)
    dst.write_text(json.dumps(data))
    return dst


def test_the_query_problem_is_read_whatever_its_spacing(tmp_path):
    """An answer whose query states another problem than its instance file is judged on the query's
    problem, also when the query writes ``(define(problem`` and ends with an extra parenthesis."""
    need_data()
    data = json.loads(PDDL_FILE.read_text())["instances"]
    a, b = data[0], data[1]
    task_a = load_task(BW_DIR.parent / "generated_domain.pddl", BW_DIR / f"instance-{a['instance_id']}.pddl")
    plan_b = list(b["ground_truth_plan"])
    assert not execute_plan(task_a, plan_b).valid  # B's plan does not solve A's problem

    def edit(insts):
        q = b["query"]
        k = q.rfind("(define (problem")
        query = q[:k] + _respaced(q[k:].rstrip(), 0) + ")\n"
        return [dict(a, query=query, llm_raw_response="\n".join(plan_b), ground_truth_plan=plan_b)]

    f = _files(tmp_path, edit)
    out = tmp_path / "out"
    assert main(["rescore", "planbench", str(f), "--instances", str(PLANBENCH), "--out", str(out),
                 "--disagreements", "none"]) == 0
    (rec,) = [json.loads(line) for line in (out / "answers.jsonl").read_text().splitlines()]
    assert rec["flexible"]["read"] and rec["flexible"]["valid"] is True, rec["flexible"]["reason"]


def test_a_batch_names_each_file_it_cannot_read_and_judges_the_others(tmp_path, capsys):
    need_data()
    good = _files(tmp_path, lambda insts: insts)
    not_json = tmp_path / "broken.json"
    not_json.write_text('{"task": "t1", "instances": [')
    missing = tmp_path / "missing-instance" / "results" / "blocksworld" / "gpt-4_chat" / "t1.json"
    missing.parent.mkdir(parents=True)
    data = json.loads(good.read_text())
    data["instances"] = [dict(data["instances"][0], instance_id=99999, query="[STATEMENT] no problem here")]
    missing.write_text(json.dumps(data))
    out = tmp_path / "out"
    code = main(["rescore", "planbench", str(not_json), str(good), str(missing), "--instances", str(PLANBENCH),
                 "--out", str(out), "--disagreements", "none"])
    captured = capsys.readouterr()
    assert code == 2
    err = captured.err.splitlines()
    assert [line for line in err if str(not_json) in line and "not JSON" in line]
    assert [line for line in err if str(missing) in line and "99999" in line]
    assert err[-1].startswith("widthbench rescore: error: 2 of 3 result files could not be read")
    assert "the other 1 were judged" in err[-1]
    records = [json.loads(line) for line in (out / "answers.jsonl").read_text().splitlines()]
    assert {r["file"] for r in records} == {str(good)} and len(records) == 2
    summary = json.loads((out / "summary.json").read_text())
    assert set(summary["unreadable"]) == {str(not_json), str(missing)}
    assert list(summary["files"]) == [str(good)] and summary["overall"]["answers"] == 2
    assert "overall: 2 answers in 1 file(s)" in captured.out


def test_a_single_unreadable_file_is_one_line_as_before(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text("[]")
    assert main(["rescore", "planbench", str(bad), "--instances", str(BW_DIR)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no 'instances' list" in err[0]
