"""Plan generation: a whole plan from the initial state to the goal (PlanBench's task 1, seed
000's naive baseline).

Truth: h* and one optimal plan. The answer is executed on the engine: ``valid`` (it reaches the
goal), ``optimal`` (valid and of length h*). The first failing step and why are recorded: an
action that cannot be taken when its turn comes, a step that names no action of the task, or the
unmet goals after the last step. An empty plan is a plan (valid only if the goal holds initially).

Unsolvable instances (``generate --unsolvable``: certified, `generators.unsolvable`): truth is
``{"solvable": false, "h_star": null, "optimal_plan": null, "certificate": ...}``. An answer that
declares no plan exists (`pddl_domains.readers.impossible`) is correct (``valid`` and ``optimal`` 1);
any plan offered is wrong, and counted apart in ``claimed_plan`` ("claimed a plan for an unsolvable
task"); on a solvable task a declaration is wrong and counted in ``declared_impossible``. Both are
counts beside the headline metrics: each row's extras ``unsolvable``, ``claimed_plan_unsolvable`` and
``declared_impossible_solvable`` on sets that hold unsolvable instances, and the error analysis. When the
instance set holds an unsolvable instance, every item of it (solvable or not) is asked with the
prompt that says how to answer "no plan exists" (``plan_generation_or_none``), and read with the
reader that knows declarations; other sets keep the plain prompt and plan reader's answers.

Partial credit: ``metrics.progress`` = 1 - h*(s_k)/h*(s_0) of the plan's longest applicable prefix
(`planners.progress`: 1 when valid, 0 when no step applies, and 0 for "no plan exists" said of a
solvable task; null on unsolvable tasks and unread answers). The ``valid`` row adds its mean with a
Wilson interval (``mean_progress``, ``progress_ci_low``, ``progress_ci_high``, ``progress_n``;
docs/subtasks.md, "Partial credit").
"""

from __future__ import annotations

from widthbench.core.errors import ParseError, UserError
from widthbench.pddl_domains.readers import impossible
from widthbench.planners import strips
from widthbench.planners.ground_truth import GroundTruth
from widthbench.planners.progress import progress
from widthbench.subtasks import answers, api
from widthbench.subtasks.registry import Metric, SubTask
from widthbench.subtasks.definitions.shared import actions_tokens, mean, parse_error_result, pattern, result
from widthbench.subtasks.results.stats import progress_stats
from widthbench.subtasks.exact import inapplicable_action, random_walk
from widthbench.subtasks.items import base_item

METRICS = ("valid", "optimal")
# Counted apart (each item's metrics, each row's extras): a plan offered for an unsolvable task, and
# a declaration of impossibility for a solvable one.
COUNTS = ("claimed_plan", "declared_impossible")


def build(pool, i, index, count, options):
    inst = pool.instance(i)
    mixed = pool.any_unsolvable()
    if inst.solvable is False:
        return base_item("plan-generation", pool, i, index, state=pool.task(i).init,
                         truth={"solvable": False, "h_star": None, "optimal_plan": None,
                                "certificate": inst.certificate},
                         info={"optimal_length": None, "may_be_unsolvable": True})
    best = pool.optimal_plan(i)
    return base_item("plan-generation", pool, i, index, state=pool.task(i).init,
                     truth={"h_star": len(best), "optimal_plan": list(best),
                            **({"solvable": True} if mixed else {})},
                     info={"optimal_length": len(best), **({"may_be_unsolvable": True} if mixed else {})})


def prompts(item, mode):
    return [api.plan_generation_prompt(item.task, mode.style, item.info.get("may_be_unsolvable", False))]


def check_plan(task: strips.Task, plan) -> dict:
    """{"valid", "length", "failing_step", "reason"} of a plan (PDDL texts) on the engine."""
    actions = []
    for n, step in enumerate(plan, start=1):
        try:
            actions.append(strips.parse_action(task, step))
        except UserError as exc:
            return {"valid": False, "length": len(plan), "failing_step": n,
                    "reason": f"step {n} {step}: not an action of the task ({exc})"}
    res = strips.execute_plan(task, actions)
    out = {"valid": res.valid, "length": len(plan), "failing_step": res.failed_step, "reason": None}
    if not res.valid:
        out["reason"] = res.reason()
    return out


def score(item, mode, outcomes):
    o = outcomes[0]
    if isinstance(o, ParseError):
        return parse_error_result(METRICS + COUNTS, item.truth, o,
                                  {"failing_step": None, "reason": None, "progress": None})
    solvable = item.truth.get("solvable", True)
    if o.value == impossible.NO_PLAN:
        metrics = {"valid": int(not solvable), "optimal": int(not solvable), "claimed_plan": 0,
                   "declared_impossible": int(solvable), "length": None, "failing_step": None,
                   "reason": None if not solvable else "declared that no plan exists; the task has one",
                   "progress": 0.0 if solvable else None}
        return result(impossible.NO_PLAN, item.truth, not solvable, metrics)
    plan = list(o.value)
    if not solvable:
        metrics = {"valid": 0, "optimal": 0, "claimed_plan": 1, "declared_impossible": 0, "length": len(plan),
                   "failing_step": None, "reason": "claimed a plan for an unsolvable task", "progress": None}
        return result(plan, item.truth, False, metrics)
    check = check_plan(item.task, plan)
    optimal = check["valid"] and len(plan) == item.truth["h_star"]
    metrics = {"valid": int(check["valid"]), "optimal": int(optimal), "claimed_plan": 0,
               "declared_impossible": 0, "length": len(plan),
               "failing_step": check["failing_step"], "reason": check["reason"],
               "progress": plan_progress(item.task, plan, item.truth)}
    return result(plan, item.truth, check["valid"], metrics)


def plan_progress(task: strips.Task, plan, truth: dict) -> float | None:
    """`planners.progress` of a plan on a solvable item, its stored optimal plan known to the
    ground truth (h* along it is then a lookup)."""
    gt = GroundTruth(task)
    if truth.get("optimal_plan"):
        gt.know_plan(truth["optimal_plan"])
    return progress(task, plan, truth=gt)


def row_extras(records, metric):
    lengths = [r["metrics"].get("length") for r in records if r["metrics"].get("valid") and r["metrics"].get("length")]
    out = {"mean_valid_length": mean(lengths),
           "mean_optimal_length": mean(r["info"].get("optimal_length") for r in records),
           # partial credit, once per sub-task cell: on the headline row
           **(progress_stats(r["metrics"].get("progress") for r in records) if metric == "valid" else {})}
    unsolvable = [r for r in records if (r.get("truth") or {}).get("solvable") is False]
    if unsolvable or any((r.get("truth") or {}).get("solvable") for r in records):
        out.update({"unsolvable": len(unsolvable),
                    "claimed_plan_unsolvable": sum(int(r["metrics"].get("claimed_plan") or 0) for r in unsolvable),
                    "declared_impossible_solvable": sum(int(r["metrics"].get("declared_impossible") or 0)
                                                        for r in records)})
    return out


def errors(record, bump):
    m = record["metrics"]
    if m.get("claimed_plan"):
        bump("claimed a plan for an unsolvable task", f"{len(record['parsed'])} steps")
    elif m.get("declared_impossible"):
        bump("declared no plan exists for a solvable task", f"h* {record['truth']['h_star']}")
    elif record["truth"].get("solvable", True) is False:
        pass  # correct: declared unsolvable
    elif not m.get("valid"):
        step = m.get("failing_step")
        if step is None:
            bump("plans that end without reaching the goal", f"{len(record['parsed'])} steps")
        else:
            bump("first failing step (action pattern)", pattern(record["parsed"][step - 1]))
    elif not m.get("optimal"):
        bump("valid but longer than h*", f"+{m['length'] - record['truth']['h_star']} steps")


def _simulate(q, mode, corrupt, rng):
    """Oracle: an optimal plan; noisy: one step of it replaced by an inapplicable action (or
    dropped, where none exists: an optimal plan minus a step never reaches the goal); random: a
    random walk of h* steps."""
    task, r = q.task, q.renderer
    if q.truth.h_star(task.init) == float("inf"):  # an unsolvable task: the oracle says so
        if mode == "random" or corrupt:
            _, plan = random_walk(task, rng, 3, skip_noops=False)
            return r.plan(list(plan)), "I take some actions."
        return impossible.NO_PLAN, "I search every reachable state: none satisfies the goal."
    if mode == "random":
        h = len(q.truth.optimal_plan(task.init)) or 1
        _, plan = random_walk(task, rng, h, skip_noops=False)
        return r.plan(list(plan)), "I take some actions."
    plan = [str(a) for a in q.truth.optimal_plan(task.init)]
    if corrupt:
        if plan:
            states = strips.execute_plan(task, plan).states
            j = rng.randrange(len(plan))
            bad = inapplicable_action(task, states[j], rng)
            plan = plan[:j] + ([bad] if bad is not None else []) + plan[j + 1:]
        else:
            acts = strips.applicable_actions(task, task.init)
            plan = [str(rng.choice(acts))] if acts else plan
    return r.plan(plan), f"I search for a shortest plan: {len(plan)} steps."


SUBTASKS = (SubTask(
    name="plan-generation", build=build, prompts=prompts, answer=answers.PLAN_OR_NONE, score=score,
    metrics=(Metric("valid", "Plan Generation Valid", 170), Metric("optimal", "Plan Generation Optimal", 180)),
    row_extras=row_extras, errors=errors,
    simulate={"plan_generation": _simulate, "plan_generation_or_none": _simulate},
    # a valid plan may be longer than an optimal one: room for twice its length
    answer_tokens=lambda item, style: 2 * actions_tokens(item.task, style, item.truth["optimal_plan"] or [])),)
