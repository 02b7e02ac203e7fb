"""PlanBench conformance: our ground truth against the gold files under ../shared/data/planbench.

- Blocksworld (instances 1-200): h* = ``info.json`` length, and the next-action set is non-empty.
- Blocksworld-hard (110 instances, 6-15 blocks, h* 20-40): h* = ``info.json`` length (exact A* with
  the Blocksworld heuristic; a sample in the fast suite, all of them under ``-m slow``).
- Logistics (286 instances; gold plans for 285): h* = the gold (FD ``astar(lmcut())``) plan length
  and the gold plan is valid on our engine (BFS-sized ones in the fast suite, all under ``-m slow``).
- Task 3 (plan verification, 500 Blocksworld + 285 Logistics items): the statement (initial state,
  goal, plan) is read back from PlanBench's natural-language query with a small parser written here
  (independent of ``pddl_domains.render``); our verdict must equal the gold one, including the kind
  of failure, the failing step and action, and the unmet preconditions / goal atoms.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path

import pytest
from tests.conftest import need_data, PLANBENCH

PB = PLANBENCH
BW_DIR = PB / "plan-bench" / "instances" / "blocksworld"
HARD_DIR = PB / "llm_planning_analysis" / "instances" / "blocksworld_hard"
LG_DIR = PB / "plan-bench" / "instances" / "logistics"



@pytest.fixture(autouse=True)
def _planbench_data():
    need_data()


@lru_cache(maxsize=None)
def _domain(path: str):
    from widthbench.planners.strips import load_domain

    return load_domain(path)


def _json(path: Path):
    return json.loads(path.read_text())


# --------------------------------------------------------------------------------------------
# h* against info.json / gold plans


def test_blocksworld_h_star_equals_info_json_for_all_200_instances():
    from widthbench.planners.strips import load_task
    from widthbench.planners.ground_truth import GroundTruth

    info = _json(PB / "llm_planning_analysis" / "instances" / "blocksworld" / "info.json")
    dom = _domain(str(BW_DIR / "generated_domain.pddl"))
    diffs = []
    for i in range(1, 201):
        task = load_task(dom, BW_DIR / "generated_basic" / f"instance-{i}.pddl")
        gt = GroundTruth(task)
        h = gt.h_star()
        if h != info[f"instance-{i}.pddl"]["length"]:
            diffs.append((i, h, info[f"instance-{i}.pddl"]["length"]))
        assert (h == 0) == (gt.optimal_next_actions() == [])
    assert diffs == []


def _hard_check(indices):
    from widthbench.planners.optimal import optimal_plan
    from widthbench.planners.strips import execute_plan, load_task

    info = _json(HARD_DIR / "info.json")
    dom = _domain(str(HARD_DIR / "generated_domain.pddl"))
    diffs = []
    for i in indices:
        entry = info[f"instance-{i}.pddl"]
        task = load_task(dom, HARD_DIR / "generated" / f"instance-{i}.pddl")
        assert execute_plan(task, entry["plan"].split("\n")).valid
        r = optimal_plan(task, planner="exact", timeout=120)
        if r.length != entry["length"]:
            diffs.append((i, r.length, entry["length"]))
    return diffs


def test_blocksworld_hard_h_star_equals_info_json_sample():
    assert _hard_check(range(1, 111, 11)) == []


@pytest.mark.slow
def test_blocksworld_hard_h_star_equals_info_json_all_110():
    assert _hard_check(range(1, 111)) == []


def _logistics_check(indices, planner: str):
    from widthbench.planners.optimal import optimal_plan
    from widthbench.planners.strips import execute_plan, load_task

    gold = _json(PB / "derived" / "logistics_generated_basic_gold_plans.json")
    dom = _domain(str(LG_DIR / "generated_domain.pddl"))
    diffs = []
    for i in indices:
        entry = gold.get(f"instance-{i}.pddl")
        if entry is None:
            continue  # instance-1 has no gold plan
        task = load_task(dom, LG_DIR / "generated_basic" / f"instance-{i}.pddl")
        steps = [s for s in entry["plan"].split("\n") if s.strip()]
        assert execute_plan(task, steps).valid and len(steps) == entry["length"]
        r = optimal_plan(task, planner=planner, timeout=600)
        if r.length != entry["length"]:
            diffs.append((i, r.length, entry["length"]))
    return diffs


def test_logistics_h_star_equals_gold_plan_length_small_instances():
    # instances 2-29 except 18: within breadth-first search range (no FD process)
    assert _logistics_check([i for i in range(2, 30) if i != 18], planner="exact") == []


@pytest.mark.slow
def test_logistics_h_star_equals_gold_plan_length_all():
    assert _logistics_check(range(1, 287), planner="auto") == []


# --------------------------------------------------------------------------------------------
# Task 3: plan verification verdicts


def _facts(text: str) -> list[str]:
    text = text.strip().rstrip(".").strip()
    return [f.strip() for f in re.split(r", | and ", text) if f.strip()]


_BW_FACTS = [
    (re.compile(r"^the (\w+) block is clear$"), "(clear {0})"),
    (re.compile(r"^the hand is empty$"), "(handempty)"),
    (re.compile(r"^the (\w+) block is on top of the (\w+) block$"), "(on {0} {1})"),
    (re.compile(r"^the (\w+) block is on the table$"), "(ontable {0})"),
    (re.compile(r"^the hand is currently holding (\w+) block$"), "(holding {0})"),
]
_BW_ACTIONS = [
    (re.compile(r"^pick up the (\w+) block$"), "(pick-up {0})"),
    (re.compile(r"^put down the (\w+) block$"), "(put-down {0})"),
    (re.compile(r"^stack the (\w+) block on top of the (\w+) block$"), "(stack {0} {1})"),
    (re.compile(r"^unstack the (\w+) block from on top of the (\w+) block$"), "(unstack {0} {1})"),
]
_LG_FACTS = [
    (re.compile(r"^(\w+) is an airport$"), "(airport {0})"),
    (re.compile(r"^(\w+) is in the city (\w+)$"), "(in-city {0} {1})"),
    (re.compile(r"^(\w+) is at (\w+)$"), "(at {0} {1})"),
    (re.compile(r"^(\w+) is in (\w+)$"), "(in {0} {1})"),
]
_LG_ACTIONS = [
    (re.compile(r"^load (\w+) into (truck_\w+) at (\w+)$"), "(load-truck {0} {1} {2})"),
    (re.compile(r"^load (\w+) into (airplane_\w+) at (\w+)$"), "(load-airplane {0} {1} {2})"),
    (re.compile(r"^unload (\w+) from (truck_\w+) at (\w+)$"), "(unload-truck {0} {1} {2})"),
    (re.compile(r"^unload (\w+) from (airplane_\w+) at (\w+)$"), "(unload-airplane {0} {1} {2})"),
    (re.compile(r"^drive (\w+) from (\w+) to (\w+) in (\w+)$"), "(drive-truck {0} {1} {2} {3})"),
    (re.compile(r"^fly (\w+) from (\w+) to (\w+)$"), "(fly-airplane {0} {1} {2})"),
]
_LG_TYPES = {"package": "obj", "truck": "truck", "airplane": "airplane", "location": "location", "city": "city"}


def _match(patterns, text: str) -> str:
    for rx, fmt in patterns:
        m = rx.match(text.strip())
        if m:
            return fmt.format(*m.groups())
    raise AssertionError(f"unparsed PlanBench text: {text!r}")


def parse_item(domain: str, item: dict):
    """(task, plan, gold) from one task-3 item. gold = (kind, step, action, unmet atoms)."""
    from widthbench.planners.strips import ground

    facts, actions = (_BW_FACTS, _BW_ACTIONS) if domain == "blocksworld" else (_LG_FACTS, _LG_ACTIONS)
    q = item["query"]
    st = q[q.rindex("[STATEMENT]"):]
    init_text = re.search(r"As initial conditions I have that, (.*?)\.\s*My goal is to have that", st, re.S).group(1)
    goal_text = re.search(r"My goal is to have that (.*?)\.\s*My plan is as follows", st, re.S).group(1)
    plan_text = re.search(r"\[PLAN\](.*?)\[PLAN END\]", st, re.S).group(1)
    init = [_match(facts, f) for f in _facts(init_text)]
    goal = [_match(facts, f) for f in _facts(goal_text)]
    plan = [_match(actions, line) for line in plan_text.strip().split("\n") if line.strip()]
    names = set()
    for atom in init + goal + plan:
        names.update(atom.strip("()").split()[1:])
    if domain == "logistics":
        init += [f"({_LG_TYPES[n.split('_')[0]]} {n})" for n in sorted(names)]
        dom = _domain(str(LG_DIR / "generated_domain.pddl"))
    else:
        dom = _domain(str(BW_DIR / "generated_domain.pddl"))
    task = ground(dom, sorted(names), init, goal, name=f"{domain}-task3-{item['instance_id']}")

    g = item["ground_truth_plan"]
    if g.strip().startswith("The above plan is valid"):
        gold = ("valid", None, None, frozenset())
    elif "unmet goal condition" in g:
        body = g.split(":", 1)[1]
        gold = ("invalid-goal", None, None, frozenset(_match(facts, f) for f in _facts(body)))
    else:
        m = re.search(r"at step (\d+) has (?:an )?unmet preconditions?:\s*\n(.*?)\n"
                      r"The unmet preconditions? (?:is|are):\s*\n(.*)", g, re.S)
        assert m, g
        gold = ("invalid-precondition", int(m.group(1)), _match(actions, m.group(2)),
                frozenset(_match(facts, f) for f in _facts(m.group(3))))
    return task, plan, gold


def task3_differences(domain: str, every: int = 1) -> tuple[int, list]:
    from widthbench.subtasks.exact import classify_plan

    items = _json(PB / "plan-bench" / "prompts" / domain / "task_3_plan_verification.json")["instances"]
    items = items[::every]
    diffs = []
    for item in items:
        task, plan, gold = parse_item(domain, item)
        v = classify_plan(task, plan)
        ours = (v.kind, v.failed_step, v.failed_action, frozenset(v.unmet))
        if ours != gold:
            diffs.append((item["instance_id"], ours, gold))
    return len(items), diffs


def test_task3_blocksworld_verdicts_equal_gold_labels_all_500():
    n, diffs = task3_differences("blocksworld")
    assert n == 500
    assert diffs == [], f"{len(diffs)} of {n} differ, e.g. {diffs[:3]}"


def test_task3_logistics_verdicts_equal_gold_labels_sample():
    # grounding a Logistics task costs ~0.1 s in the engine, so the fast suite takes every 5th item
    n, diffs = task3_differences("logistics", every=5)
    assert n == 57
    assert diffs == [], f"{len(diffs)} of {n} differ, e.g. {diffs[:3]}"


@pytest.mark.slow
def test_task3_logistics_verdicts_equal_gold_labels_all_285():
    n, diffs = task3_differences("logistics")
    assert n == 285
    assert diffs == [], f"{len(diffs)} of {n} differ, e.g. {diffs[:3]}"
