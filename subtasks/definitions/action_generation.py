"""Action generation: list every applicable action of a state (the paper, Table 1 row 1).

Truth: the engine's applicable actions. Metrics: ``exact`` (the headline: the full set, no-op moves
included, as PDDL semantics make them applicable), ``exact-no-noop`` (ignoring actions whose
successor is the state itself), and precision / recall / F1 per item.
"""

from __future__ import annotations

from widthbench.core.errors import ParseError
from widthbench.planners import strips
from widthbench.subtasks import answers, api
from widthbench.subtasks.registry import Metric, SubTask
from widthbench.subtasks.definitions.shared import (actions_tokens, confusion, mean, parse_error_result, pattern, result,
                                         set_scores, simulated)
from widthbench.subtasks.exact import noop_actions
from widthbench.subtasks.items import base_item

METRICS = ("exact", "exact-no-noop")


def build(pool, i, index, count, options):
    task = pool.task(i)
    s, walk = pool.walk_state(i)
    truth = [str(a) for a in strips.applicable_actions(task, s)]
    return base_item("action-generation", pool, i, index, state=s, truth=truth,
                     info={"walk_length": walk, "noops": noop_actions(task, s), "n_applicable": len(truth)})


def prompts(item, mode):
    return [api.action_generation_prompt(item.task, item.state, mode.style)]


def score(item, mode, outcomes):
    truth = set(item.truth)
    noops = set(item.info.get("noops", ()))
    o = outcomes[0]
    if isinstance(o, ParseError):
        return parse_error_result(METRICS, sorted(truth), o, {"precision": 0.0, "recall": 0.0, "f1": 0.0})
    parsed = o.value
    pred = set(parsed)
    metrics = {"exact": int(pred == truth), "exact-no-noop": int(pred - noops == truth - noops),
               **set_scores(pred, truth), "wrong": sorted(pred - truth), "missing": sorted(truth - pred)}
    return result(parsed, sorted(truth), metrics["exact"], metrics)


def row_extras(records, metric):
    if metric != "exact":
        return {}
    return {f"mean_{k}": mean(r["metrics"].get(k) for r in records) for k in ("precision", "recall", "f1")}


def errors(record, bump):
    truth = set(record["truth"])
    for a in record["metrics"].get("wrong", []):
        bump("wrong actions (listed, not applicable)", pattern(a))
        conf = confusion(a, truth)
        if conf:
            bump("pick-up/unstack and put-down/stack confusions", conf)
    for a in record["metrics"].get("missing", []):
        bump("missing actions (applicable, not listed)", pattern(a))


SUBTASKS = (SubTask(
    name="action-generation", build=build, prompts=prompts, answer=answers.ACTION_LIST, score=score,
    metrics=(Metric("exact", "Action Generation", 10),
             Metric("exact-no-noop", "Action Generation, no-op moves ignored", 110, table1=False)),
    paper=True, row_extras=row_extras, errors=errors,
    simulate={"action_generation": simulated("action_generation")},
    answer_tokens=lambda item, style: actions_tokens(item.task, style, item.truth)),)
