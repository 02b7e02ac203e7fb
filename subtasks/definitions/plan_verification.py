"""Plan verification: does a plan reach the goal? (the paper's "Goal State Verification").

Exactly N // 2 items (a seeded choice) carry an optimal plan; the others an executable random plan
of the same length that never reaches a goal state ("non-goal"), or the optimal plan with one step
replaced by an inapplicable action ("inapplicable"; pick-up/unstack confusions first), or
alternately one and the other ("mixed"). Metric: ``accuracy``.
"""

from __future__ import annotations

from widthbench.core.errors import ParseError
from widthbench.planners import strips
from widthbench.subtasks import answers, api
from widthbench.subtasks.registry import Metric, SubTask
from widthbench.subtasks.definitions.shared import mean, parse_error_result, result, simulated
from widthbench.subtasks.exact import inapplicable_action, random_walk
from widthbench.subtasks.items import base_item, rng_for

METRICS = ("accuracy",)


def plan_kinds(count: int, seed: int, invalid_kind: str) -> list[str]:
    """Exactly count // 2 "optimal" plans, placed by a seeded shuffle; the rest invalid."""
    rng = rng_for(seed, "plan-verification", count)
    order = list(range(count))
    rng.shuffle(order)
    valid = set(order[:count // 2])
    kinds, n_invalid = [], 0
    for k in range(count):
        if k in valid:
            kinds.append("optimal")
            continue
        if invalid_kind == "mixed":
            kinds.append("non-goal" if n_invalid % 2 == 0 else "inapplicable")
        else:
            kinds.append(invalid_kind)
        n_invalid += 1
    return kinds


def build(pool, i, index, count, options):
    task = pool.task(i)
    kind = plan_kinds(count, pool.seed, options.invalid_kind)[index]
    best = pool.optimal_plan(i)
    rng = rng_for(pool.seed, "plan", i, pool.instance(i).id)
    info = {"plan_kind": kind, "optimal_length": len(best)}
    if kind == "optimal":
        plan = best
    elif kind == "non-goal":
        end, plan = random_walk(task, rng, max(1, len(best)), avoid_goal=True, skip_noops=False)
        if not plan or strips.is_goal(task, end):
            return None
    else:
        states = strips.execute_plan(task, best).states
        j = rng.randrange(len(best))
        bad = inapplicable_action(task, states[j], rng)
        if bad is None:
            return None
        plan = best[:j] + (bad,) + best[j + 1:]
        info["inapplicable_step"] = j + 1
    res = strips.execute_plan(task, plan)
    if res.valid != (kind == "optimal"):
        raise AssertionError(f"plan-verification item {index}: {kind} plan has validity {res.valid}")
    return base_item("plan-verification", pool, i, index, state=task.init, plan=tuple(plan),
                     truth=res.valid, info={**info, "plan_length": len(plan)})


def prompts(item, mode):
    return [api.verification_prompt(item.task, item.plan, mode.style)]


def score_verdict(metric_names):
    """Scorer of a yes/no item whose truth is a bool."""

    def score(item, mode, outcomes):
        o = outcomes[0]
        if isinstance(o, ParseError):
            return parse_error_result(metric_names, item.truth, o)
        ok = o.value == item.truth
        return result(o.value, item.truth, ok, {metric_names[0]: int(ok)})

    return score


def row_extras(records, metric):
    return {"yes_rate": mean(float(r["parsed"]) for r in records if r.get("parsed") is not None)}


def errors(record, bump):
    if not record["correct"]:
        kind = record["info"].get("plan_kind", "?")
        bump("wrong verdicts", f"said {'yes' if record['parsed'] else 'no'} to a {kind} plan")


SUBTASKS = (SubTask(
    name="plan-verification", build=build, prompts=prompts, answer=answers.VERDICT,
    score=score_verdict(METRICS), metrics=(Metric("accuracy", "Goal State Verification", 60),),
    paper=True, row_extras=row_extras, errors=errors, item_options=("invalid_kind",),
    simulate={"verification": simulated("verification"), "goal_check": simulated("goal_check")}),)
