"""Single next action: one action from a state towards the goal (the paper, Table 1 rows 2-3; with
the Blocksworld prompt extension, Table 2).

Truth: the applicable actions and the full set of optimal next actions (`GroundTruth`); ties: any
action of the optimal set is correct. Metrics: ``valid`` (applicable), ``optimal`` (in the set).
"""

from __future__ import annotations

from widthbench.core.errors import ParseError
from widthbench.planners import strips
from widthbench.subtasks import answers, api
from widthbench.subtasks.registry import Metric, SubTask
from widthbench.subtasks.definitions.shared import confusion, mean, parse_error_result, pattern, result, simulated
from widthbench.subtasks.items import base_item

METRICS = ("valid", "optimal")


def build(pool, i, index, count, options):
    task = pool.task(i)
    s, walk = pool.walk_state(i)
    best = [str(a) for a in pool.truth(i).optimal_next_actions(s)]
    if not best:
        return None
    applicable = [str(a) for a in strips.applicable_actions(task, s)]
    return base_item("action-single", pool, i, index, state=s,
                     truth={"optimal": best, "applicable": applicable},
                     info={"walk_length": walk, "h_star": int(pool.truth(i).h_star(s)),
                           "optimal_set_size": len(best), "n_applicable": len(applicable)})


def prompts(item, mode):
    return [api.next_action_prompt(item.task, item.state, mode.style, extension=mode.extension)]


def score(item, mode, outcomes):
    truth = item.truth
    o = outcomes[0]
    if isinstance(o, ParseError):
        return parse_error_result(METRICS, truth, o)
    a = o.value
    valid, optimal = a in truth["applicable"], a in truth["optimal"]
    return result(a, truth, optimal, {"valid": int(valid), "optimal": int(optimal)})


def row_extras(records, metric):
    return {"mean_optimal_set_size": mean(r["info"].get("optimal_set_size") for r in records)}


def errors(record, bump):
    a, t = record["parsed"], record["truth"]
    if a not in t["applicable"]:
        bump("inapplicable next actions", pattern(a))
        conf = confusion(a, t["applicable"])
        if conf:
            bump("pick-up/unstack and put-down/stack confusions", conf)
    elif a not in t["optimal"]:
        bump("applicable but not optimal", pattern(a))


SUBTASKS = (SubTask(
    name="action-single", build=build, prompts=prompts, answer=answers.ACTION, score=score,
    metrics=(Metric("valid", "Action Generation Single Valid", 20,
                    extension_label="Action Generation Single Valid + extension (Table 2)", extension_order=90),
             Metric("optimal", "Action Generation Single Optimal", 30,
                    extension_label="Action Generation Single Optimal + extension (Table 2)", extension_order=100)),
    paper=True, extensions=True, row_extras=row_extras, errors=errors,
    simulate={"next_action": simulated("next_action")}),)
