"""`rescore planbench --instances ROOT`: every PlanBench variant found from the data root by its
results folder; made-up answers (never the corpus' own) judged on the engine."""

from __future__ import annotations

import json

import pytest

from tests.conftest import DATA, PLANBENCH, need_data
from widthbench.cli import main
from widthbench.pddl_domains import planbench_configs
from widthbench.pddl_domains.render import Renderer
from widthbench.planners.strips import load_task
from widthbench.subtasks.planbench.run import rescore

RESULTS = DATA / "planbench-responses/llm_planning_analysis/results"


def _copy(variant: str, rel: str, root, ids=None, answer=None, limit=6):
    """A copy of a real result file under ``root/results/<variant>/`` with its first answers (or
    ``ids``); ``answer(inst)`` replaces each reply by a made-up one."""
    data = json.loads((RESULTS / variant / rel).read_text())
    keep = [i for i in data["instances"] if ids is None or i["instance_id"] in ids][:limit]
    if answer is not None:
        keep = [dict(i, llm_raw_response=answer(i)) for i in keep]
    data["instances"] = keep
    dst = root / "results" / variant / rel
    dst.parent.mkdir(parents=True, exist_ok=True)
    dst.write_text(json.dumps(data))
    return dst


def _gold_in_words(variant: str):
    """A made-up reply: the instance's optimal plan (from the file's ground truth) written with the
    variant's own templates, numbered, after a sentence of preamble."""
    v = planbench_configs.find_variant(PLANBENCH, [variant])

    def answer(inst):
        task = load_task(v.domain_file, v.instance_dir / f"instance-{inst['instance_id']}.pddl")
        r = Renderer(task, "nl", v.config.path)
        gt = inst["ground_truth_plan"]
        steps = [s for s in (gt if isinstance(gt, list) else gt.split("\n")) if s.strip()]
        return "Here is my plan.\n" + "\n".join(f"{k}. {r.action(s.strip())}" for k, s in enumerate(steps, 1))
    return answer


@pytest.fixture
def corpus(tmp_path):
    need_data()
    root = tmp_path / "copy"
    return {
        "mystery": _copy("mystery_blocksworld", "gpt-4_chat/task_1_plan_generation_zero_shot.json", root,
                         answer=_gold_in_words("mystery_blocksworld")),
        "mystery_pddl": _copy("mystery_blocksworld", "gpt-4_chat/task_1_plan_generation_zero_shot_pddl.json", root),
        "bw3": _copy("blocksworld_3", "claude-3-opus/task_1_plan_generation.json", root,
                     answer=_gold_in_words("blocksworld_3")),
        "random": _copy("obfuscated_randomized_blocksworld_3", "o1-mini_chat/task_1_plan_generation_zero_shot.json",
                        root, answer=lambda i: "There is no way to do this."),
        "unsolvable": _copy("unsolvable_blocksworld", "gpt-4o-mini-2024-07-18_chat/task_1_plan_generation_zero_shot.json",
                            root, limit=4),
        "sokoban": _copy("sokoban", "task_1_plan_generation_zero_shot_pddl.json", root, limit=40),
        "backprompting": _copy("mystery_blocksworld", "gpt-4_chat/task_1_plan_generation_backprompting.json", root,
                               limit=3),
    }


def test_every_variant_in_one_command_from_the_data_root(corpus, capsys):
    code = main(["rescore", "planbench", *map(str, corpus.values()), "--instances", str(PLANBENCH),
                 "--disagreements", "none"])
    printed = capsys.readouterr().out
    assert code == 0
    assert "instances without an answer skipped" in printed
    assert f"in {len(corpus)} file(s)" in printed
    judged, summary = rescore(list(corpus.values()), [PLANBENCH])
    files = {k: summary["files"][str(p)] for k, p in corpus.items()}
    # optimal plans written in the variant's own words read and reach the goal, Mystery and 3-block alike
    for k in ("mystery", "bw3"):
        assert files[k]["flexible"]["valid"] == files[k]["answers"] == 6
    assert files["mystery"]["variant"] == "mystery_blocksworld"
    # a reply that offers no plan is not read as one (random names: no plan, nothing valid)
    assert files["random"]["flexible"]["valid"] == 0
    # unsolvable: every offered plan is wrong on the engine (no plan exists)
    unsolv = next(rs for rf, rs in judged if rf.path == str(corpus["unsolvable"]))
    assert unsolv and all(a.flexible.valid is not True for a in unsolv)
    assert any("has no plan" in a.flexible.reason for a in unsolv)
    # PlanBench prompts without an answer are skipped and counted; back-prompting reads the last turn
    assert files["sokoban"]["unanswered"] > 0
    assert files["sokoban"]["answers"] + files["sokoban"]["unanswered"] == 40
    assert files["backprompting"]["answers"] == 3


def test_unsolvable_answers_are_judged_by_the_declaration_hook(corpus):
    """Where a reader of declarations of impossibility is plugged in, "no plan exists" is right on an
    unsolvable task and an offered plan stays wrong."""
    src = json.loads(corpus["unsolvable"].read_text())
    says_no = corpus["unsolvable"].parent / "says_no.json"
    src_no = dict(src, instances=[dict(i, llm_raw_response="It cannot be done: no plan exists.") for i in src["instances"]])
    says_no.write_text(json.dumps(src_no))
    hook = lambda text: "no plan exists" in text.lower()  # noqa: E731  (a stand-in for the real reader)
    judged, _ = rescore([says_no, corpus["unsolvable"]], [PLANBENCH], declares_impossible=hook)
    (_, no_plan), (_, offered) = judged
    assert all(a.flexible.correct for a in no_plan)
    assert all(not a.flexible.correct for a in offered if a.flexible.read and a.flexible.value)
    # without a hook, the impossibility reader plan generation uses judges the declarations
    judged, _ = rescore([says_no, corpus["unsolvable"]], [PLANBENCH])
    (_, no_plan), (_, offered) = judged
    assert all(a.flexible.correct for a in no_plan)
    assert all(not a.flexible.correct for a in offered if a.flexible.read and a.flexible.value)


def test_an_unknown_variant_under_the_data_root_is_a_one_line_error(tmp_path, capsys):
    need_data()
    bad = tmp_path / "results" / "no_such_variant" / "m" / "task_1_x.json"
    bad.parent.mkdir(parents=True)
    bad.write_text(json.dumps({"task": "t1", "domain": "no_such_variant", "instances": [
        {"instance_id": 2, "query": "q", "llm_raw_response": "x", "llm_correct": False}]}))
    assert main(["rescore", "planbench", str(bad), "--instances", str(PLANBENCH)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no PlanBench config for variant 'no_such_variant'" in err


def test_the_long_plan_set_is_found_from_the_data_root(tmp_path):
    """PlanBench's long-plan set (blocksworld_hard, optimal plans of 20-40 steps) has no answers in
    the corpus: made-up ones in PDDL (the set is asked in PDDL only), its optimal plans and one cut
    short, are judged on its own instances."""
    need_data()
    v = planbench_configs.find_variant(PLANBENCH, ["blocksworld_hard"])
    info = json.loads((v.instance_dir.parent / "info.json").read_text())
    entries = []
    for iid in (1, 2, 3):
        steps = info[f"instance-{iid}.pddl"]["plan"].split("\n")
        assert len(steps) >= 20
        if iid == 3:
            steps = steps[:-1]
        problem = (v.instance_dir / f"instance-{iid}.pddl").read_text()
        entries.append({"instance_id": iid, "query": f"[STATEMENT]\n{problem}\n[PLAN]", "llm_correct": iid != 3,
                        "llm_raw_response": "[PLAN]\n" + "\n".join(steps) + "\n[PLAN END]"})
    f = tmp_path / "results" / "blocksworld_hard" / "made-up" / "task_1_plan_generation.json"
    f.parent.mkdir(parents=True)
    f.write_text(json.dumps({"task": "task_1_plan_generation", "domain": "blocksworld_hard", "instances": entries}))
    judged, summary = rescore([f], [PLANBENCH])
    [(rf, results)] = judged
    assert rf.variant == "blocksworld_hard"
    assert [a.flexible.valid for a in results] == [True, True, False]
    assert "goal" in results[2].flexible.reason
