"""Plan generation: a whole plan from the initial state to the goal (PlanBench's task 1, seed
000's naive baseline).

Truth: h* and one optimal plan. The answer is executed on the engine: ``valid`` (it reaches the
goal), ``optimal`` (valid and of length h*). The first failing step and why are recorded: an
action that cannot be taken when its turn comes, a step that names no action of the task, or the
unmet goals after the last step. An empty plan is a plan (valid only if the goal holds initially).
"""

from __future__ import annotations

from widthbench.errors import ParseError, UserError
from widthbench.planners import strips
from widthbench.subtasks import answers, api
from widthbench.subtasks.registry import Metric, SubTask
from widthbench.subtasks.tasks.common import actions_tokens, mean, parse_error_result, pattern, result

METRICS = ("valid", "optimal")


def build(pool, i, index, count, options):
    from widthbench.subtasks.items import base_item

    best = pool.optimal_plan(i)
    return base_item("plan-generation", pool, i, index, state=pool.task(i).init,
                     truth={"h_star": len(best), "optimal_plan": list(best)},
                     info={"optimal_length": len(best)})


def prompts(item, mode):
    return [api.plan_generation_prompt(item.task, mode.style)]


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
        return parse_error_result(METRICS, item.truth, o, {"failing_step": None, "reason": None})
    plan = list(o.value)
    check = check_plan(item.task, plan)
    optimal = check["valid"] and len(plan) == item.truth["h_star"]
    metrics = {"valid": int(check["valid"]), "optimal": int(optimal), "length": len(plan),
               "failing_step": check["failing_step"], "reason": check["reason"]}
    return result(plan, item.truth, check["valid"], metrics)


def row_extras(records, metric):
    lengths = [r["metrics"].get("length") for r in records if r["metrics"].get("valid")]
    return {"mean_valid_length": mean(lengths),
            "mean_optimal_length": mean(r["info"].get("optimal_length") for r in records)}


def errors(record, bump):
    m = record["metrics"]
    if not m.get("valid"):
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
    from widthbench.subtasks.truth import inapplicable_action, random_walk

    task, r = q.task, q.renderer
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
    name="plan-generation", build=build, prompts=prompts, answer=answers.PLAN, score=score,
    metrics=(Metric("valid", "Plan Generation Valid", 170), Metric("optimal", "Plan Generation Optimal", 180)),
    row_extras=row_extras, errors=errors,
    simulate={"plan_generation": _simulate},
    # a valid plan may be longer than an optimal one: room for twice its length
    answer_tokens=lambda item, style: 2 * actions_tokens(item.task, style, item.truth["optimal_plan"])),)
