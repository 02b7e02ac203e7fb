"""Sub-task items on users' instance sets (issue 14): long answers get room, problems derived from one
sample stay apart in the simulator, stored optimal plans are used, and a sub-task the instances
cannot feed is left out of a grouped run with its reason.
"""

from __future__ import annotations

import functools
import json
import random
import re

import pytest

from tests.conftest import ACP, need_data
from widthbench.cli import main
from widthbench.core.errors import UserError
from widthbench.planners import strips


def _walked(name: str, count: int, seed: int = 0):
    return list(_walk(name, count, seed))


@functools.lru_cache(maxsize=None)
def _walk(name: str, count: int, seed: int) -> tuple:
    """Walked once per session for each (name, count, seed): deterministic, and Instances are frozen."""
    from widthbench.generators.instance import read_instance_set, walk_instances

    return tuple(walk_instances(read_instance_set(ACP / name), count, seed))


# --------------------------------------------------------------------------------------------
# Derived problems carry their optimal plans, and the pool uses them


def test_walked_problems_carry_optimal_plans_that_the_ground_truth_confirms():
    need_data()
    from widthbench.planners.ground_truth import GroundTruth

    for name in ("gripper-strips", "satellite"):  # sample goals, and walk goals (satellite)
        for inst in _walked(name, 4):
            task = inst.task()
            assert inst.optimal_length == len(inst.optimal_plan)
            assert strips.execute_plan(task, [strips.parse_action(task, a) for a in inst.optimal_plan]).valid
            assert GroundTruth(task).h_star() == inst.optimal_length  # computed afresh, not from the plan


def test_a_pool_takes_h_star_from_the_stored_plan_without_searching():
    need_data()
    from widthbench.subtasks.items import Pool

    insts = _walked("rover", 2)
    pool = Pool(None, 0, instances=insts)
    gt = pool.truth(0)
    assert gt.h_star() == insts[0].optimal_length
    assert gt.planner_calls == 0 and not gt.exhaustive  # neither a planner call nor an enumeration


def test_a_stored_plan_that_is_not_a_plan_is_an_error_naming_the_step():
    need_data()
    from widthbench.planners.ground_truth import GroundTruth

    inst = _walked("gripper-strips", 1)[0]
    task = inst.task()
    with pytest.raises(UserError, match="does not reach the goal"):
        GroundTruth(task).know_plan(inst.optimal_plan[:-1])
    with pytest.raises(UserError, match="step 1 .* not applicable"):
        GroundTruth(task).know_plan(inst.optimal_plan[1:])


# --------------------------------------------------------------------------------------------
# The simulator keeps apart problems that differ only in static facts


def _without_a_used_static_fact(task: strips.Task) -> strips.Task:
    """The same problem (objects, goal, fluents) less one static fact some applicable action needs."""
    from widthbench.planners.problem_writer import task_problem_text

    text = task_problem_text(task, task.init)
    before = {str(a) for a in strips.applicable_actions(task, task.init)}
    for fact in sorted(task.static_atoms):
        other = strips.parse_problem_text(task.domain, text.replace(fact, "", 1))
        if {str(a) for a in strips.applicable_actions(other, other.init)} != before:
            return other
    raise AssertionError("no static fact changes what is applicable")


@pytest.mark.parametrize("style", ["pddl", "nl"])
def test_one_simulator_answers_two_problems_differing_only_in_statics(style):
    need_data()
    from widthbench.simulated import Simulator
    from widthbench.subtasks import api

    first = _walked("rover", 1)[0].task()
    second = _without_a_used_static_fact(first)
    sim = Simulator()
    for task in (first, second, first):  # the cached first problem must not answer the second
        text, _ = sim.answer("oracle", api.action_generation_prompt(task, task.init, style), False,
                             random.Random(0))
        got = api.parse_action_list(task, text, style)
        assert sorted(got) == sorted(str(a) for a in strips.applicable_actions(task, task.init))


# --------------------------------------------------------------------------------------------
# A correct answer always fits the default max_tokens


def test_default_max_tokens_grows_to_fit_a_long_correct_answer_and_only_then():
    need_data()
    from widthbench.llm import tokens
    from widthbench.llm.types import DEFAULT_MAX_TOKENS
    from widthbench.subtasks import api
    from widthbench.subtasks.items import Pool, build_items
    from widthbench.subtasks.registry import Registry
    from widthbench.llm.types import ANSWER_MARGIN
    from widthbench.subtasks.scoring import Mode, requests_for

    pool = Pool(None, 0, instances=_walked("rover", 6))
    items = build_items("successor-mapping", pool, 6)
    estimate = Registry.default().get("successor-mapping").answer_tokens
    grown = 0
    for item in items:
        for style in ("pddl", "nl"):
            r = api.renderer(item.task, style)
            answer = "\n".join(f"Action: {r.action(a)}\nResulting state:\n{r.state(t)}" for a, t in item.truth.items())
            need = estimate(item, style) + ANSWER_MARGIN
            assert need > 1.4 * tokens.count_tokens(answer)  # the estimate covers the answer with room
            for thinking in (False, True):
                (req,) = requests_for(item, Mode(style, thinking), None)
                if need > DEFAULT_MAX_TOKENS["normal"]:
                    grown += 1
                    extra = need - DEFAULT_MAX_TOKENS["normal"]
                    assert req.max_tokens == DEFAULT_MAX_TOKENS["thinking" if thinking else "normal"] + extra
                else:
                    assert req.max_tokens is None  # short answers: the default, and cache keys, unchanged
                # an explicit --max-tokens is always kept
                assert requests_for(item, Mode(style, thinking), None, 100)[0].max_tokens == 100
    assert grown  # rover's mappings of 15 states of 60 facts outgrow 2,048 tokens


def test_short_answers_keep_the_default_max_tokens():
    from widthbench.subtasks.items import Pool, build_items
    from widthbench.subtasks.registry import Registry
    from widthbench.subtasks.scoring import Mode, requests_for

    pool = Pool("blocksworld", 0, initial=4, generator_options={"blocks": 4})
    for sub in Registry.default().names:
        for item in build_items(sub, pool, 2):
            assert all(r.max_tokens is None for r in requests_for(item, Mode("nl", False), None)), sub


def test_sim_oracle_scores_rover_successor_mapping_in_full(tmp_path, capsys):
    need_data()
    from widthbench.generators.instance import write_instance_set

    d = tmp_path / "rover"
    write_instance_set(d, strips.load_domain(ACP / "rover" / "domain.pddl"), _walked("rover", 6))
    run = tmp_path / "run"
    assert main(["score", "--domain", str(d / "domain.pddl"), "--instances", str(d), "--model", "sim:oracle",
                 "--subtask", "action-generation,successor-mapping", "--count", "6", "--thinking", "off",
                 "--out", str(run), "--quiet"]) == 0, capsys.readouterr().err
    summary = json.loads((run / "summary.json").read_text())
    cells = [r for r in summary["rows"] if r["n"]]
    assert cells and all(r["correct"] == r["n"] for r in cells), [
        (r["subtask"], r["metric"], r["style"], r["correct"], r["n"]) for r in cells]
    records = [json.loads(x) for x in (run / "items.jsonl").read_text().splitlines()]
    assert not any(r["truncated"] for r in records)
    assert any(r["max_tokens"] > 2048 for r in records if r["subtask"] == "successor-mapping")


# --------------------------------------------------------------------------------------------
# A sub-task the instances cannot feed


@pytest.fixture(scope="module")
def two_instances(two_small_instances):
    return two_small_instances


def test_a_grouped_run_leaves_out_what_the_instances_cannot_feed_and_says_why(two_instances, tmp_path, capsys):
    run = tmp_path / "run"
    code = main(["score", "--instances", str(two_instances), "--model", "sim:oracle", "--subtask", "all",
                 "--count", "2", "--thinking", "off", "--style", "pddl", "--out", str(run), "--quiet"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    summary = json.loads((run / "summary.json").read_text())
    left = summary["not_built"]
    assert "novelty-hard" in left and "2 instances" in left["novelty-hard"] and "prunes for novelty" in left["novelty-hard"]
    built = {r["subtask"] for r in summary["rows"]}
    assert not built & set(left) and {"action-generation", "novelty", "plan-generation"} <= built
    for sub in left:  # said on stderr and under the table
        assert f"{sub} not built" in captured.err and f"Not built: {sub}:" in captured.out
    assert all(r["correct"] == r["n"] for r in summary["rows"] if r["n"])


def test_a_named_sub_task_the_instances_cannot_feed_is_an_error(two_instances, tmp_path, capsys):
    code = main(["score", "--instances", str(two_instances), "--model", "sim:oracle", "--subtask",
                 "all,novelty-hard", "--count", "2", "--thinking", "off", "--out", str(tmp_path / "r"), "--quiet"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and re.search(r"novelty-hard: 0 of 2 items from 2 instances", err[-1]), err


def test_the_trace_kept_from_the_width_run_is_the_trace_of_a_fresh_iw_run():
    """From k = 3 on the width run is traced and its trace kept (IW(w) is not run twice)."""
    need_data()
    from widthbench.planners.iw import iw
    from widthbench.planners.state_model import StripsModel
    from widthbench.subtasks.items import Pool

    pool = Pool(None, 0, instances=_walked("blocksworld-4ops", 6))
    widths = [pool.width(i) for i in range(len(pool))]
    assert 3 in widths and 2 in widths
    for i, w in enumerate(widths):
        assert pool.trace(i) == iw(StripsModel(pool.task(i)), w, trace=True).trace


def test_a_successor_that_fast_downward_proves_a_dead_end_is_no_optimal_next_action(monkeypatch):
    """The exact bounded search hands a large successor over to Fast Downward, which may prove it a
    dead end (ACPBench's floor-tile): that successor is not optimal, and nothing raises."""
    from widthbench.planners import ground_truth as truth_module
    from widthbench.planners.optimal import Unsolvable
    from widthbench.subtasks.items import Pool

    task = Pool("blocksworld", 0, initial=1).task(0)
    calls = []

    def dead_end(task, bound, **kw):
        calls.append(kw["state"])
        raise Unsolvable("no plan exists (proved by Fast Downward)")

    monkeypatch.setattr(truth_module, "bounded_optimal_plan", dead_end)
    monkeypatch.setattr(truth_module, "make_heuristic", lambda task, kind: (lambda s: 0))
    gt = truth_module.GroundTruth(task, max_space=0, planner="exact", next_actions="per-successor")
    gt._h[task.init] = 5  # a known h*, so only the successors are decided
    assert gt.optimal_next_actions(task.init) == []
    assert calls and all(gt.h_star(t) == float("inf") for t in calls)


def test_search_prompts_whose_answer_is_a_long_state_get_room_too():
    """ToT's direct and successor prompts answer with a whole state: an alfred state of hundreds of
    facts outgrows 2,048 tokens, so the search asks with a grown max_tokens (an explicit one is kept)."""
    need_data()
    import asyncio

    from widthbench.llm.types import DEFAULT_MAX_TOKENS, max_tokens_for_answer
    from widthbench.searches.broker import LLM
    from widthbench.searches.strips_problem import StripsProblem

    problem = StripsProblem(_walked("alfred", 1)[0], style="pddl")
    s = problem.task.init
    need = problem.answer_tokens("direct", s)
    assert max_tokens_for_answer(need, False) > DEFAULT_MAX_TOKENS["normal"]
    assert problem.answer_tokens("next-action", s) is None

    sent = []

    class Broker:
        model = None

        async def ask(self, request):
            from widthbench.llm import Reply

            sent.append(request.max_tokens)
            return Reply(text="Answer: none")

    for explicit, want in ((None, max_tokens_for_answer(need, False)), (300, 300)):
        llm = LLM(Broker(), seed=0, thinking=False, max_tokens=explicit)
        asyncio.run(llm.ask(problem.direct_messages(s), "direct", 0, need))
        assert sent[-1] == want


# --------------------------------------------------------------------------------------------
# Widths are searched up to --max-width; a prompt that cannot fit costs no IW run


def test_instances_wider_than_max_width_feed_no_width_or_novelty_item():
    from widthbench.planners.iw import iterated_width
    from widthbench.planners.state_model import StripsModel
    from widthbench.subtasks.items import ItemOptions, NotEnoughItems, Pool, build_items

    pool = Pool("blocksworld", 0, initial=8, max_width=2)
    items = build_items("width-estimate", pool, 4)
    used = {it.instance_id for it in items}
    widths = {pool.instance(i).id: iterated_width(StripsModel(pool.task(i)), max_k=6).width
              for i in range(len(pool)) if "width" in pool.data(i)}
    assert all(it.truth == widths[it.instance_id] <= 2 for it in items)
    skipped = [w for iid, w in widths.items() if iid not in used]
    assert skipped and all(w > 2 for w in skipped)  # every instance passed over is wider than 2
    assert all(it.width <= 2 for it in build_items("novelty", pool, 3))
    with pytest.raises(NotEnoughItems, match=r"width at most --max-width 1 \(widths of \d+ instances: 1: \d+, "
                       r"above --max-width 1: \d+\)"):
        build_items("width-estimate", Pool(None, 0, instances=[pool.instance(i) for i in range(8)], max_width=1), 8,
                    ItemOptions())


def test_a_novelty_prompt_over_the_budget_before_any_state_is_listed_skips_the_iw_run():
    from widthbench.subtasks.items import ItemOptions, NotEnoughItems, Pool, build_items

    pool = Pool(None, 0, instances=[Pool("blocksworld", 0, initial=2).instance(i) for i in range(2)])
    with pytest.raises(NotEnoughItems, match="the smallest prompt, listing one state, is over it on every "
                                             r"instance tried \(from [\d,]+ estimated tokens\)"):
        build_items("novelty", pool, 1, ItemOptions(prompt_budget=500))
    assert all("width" not in pool.data(i) and "trace" not in pool.data(i) for i in range(2))


def test_max_width_is_a_recorded_run_setting(two_instances, tmp_path, capsys):
    assert main(["score", "--instances", str(two_instances), "--model", "sim:oracle", "--subtask", "width-estimate",
                 "--count", "1", "--max-width", "0", "--out", str(tmp_path / "bad"), "--quiet"]) == 2
    assert capsys.readouterr().err.strip() == "widthbench score: error: --max-width must be at least 1, got 0"
    run = tmp_path / "run"
    assert main(["score", "--instances", str(two_instances), "--model", "sim:oracle", "--subtask", "width-estimate",
                 "--count", "2", "--max-width", "3", "--thinking", "off", "--out", str(run), "--quiet"]) == 0
    summary = json.loads((run / "summary.json").read_text())
    assert summary["config"]["max_width"] == 3 and summary["config"]["max_width_used"] == 3
    capsys.readouterr()
    code = main(["score", "--instances", str(two_instances), "--model", "sim:oracle", "--subtask", "width-estimate",
                 "--count", "2", "--thinking", "off", "--out", str(run), "--quiet"])
    assert code == 2 and "items.max_width: 3 -> 4" in capsys.readouterr().err  # another cap is another run


def test_an_instance_folder_is_tried_to_its_end_for_a_rare_item():
    """A generated pool gives up after 10 x count + 50 instances without an item; a folder's last
    instances are still tried (grid's novelty-hard: 3 items from the first 200 problems, not 80)."""
    import dataclasses

    from widthbench.subtasks.items import NotEnoughItems, Pool, base_item, build_items
    from widthbench.subtasks.registry import Registry

    reg = Registry.default()

    def rare(pool, i, index, count, options):  # only the last instance of the folder yields one
        return base_item("rare", pool, i, index, state=pool.task(i).init, truth=1) if i == 69 else None

    reg = reg.with_subtasks(dataclasses.replace(reg.get("width-estimate"), name="rare", build=rare, no_item=None))
    gen = Pool("blocksworld", 0, initial=70)
    folder = Pool(None, 0, instances=[gen.instance(i) for i in range(70)])
    assert [it.instance_id for it in build_items("rare", folder, 1, registry=reg)] == [gen.instance(69).id]
    with pytest.raises(NotEnoughItems, match="61 instances yielded no item"):
        build_items("rare", Pool("blocksworld", 0, initial=70), 1, registry=reg)
