"""Width estimate: the instance's effective width (IW, engine successor order, goal test after the
prune), as a whole number. Metric: ``exact``; absolute error per item.
"""

from __future__ import annotations

from widthbench.core.errors import ParseError
from widthbench.subtasks import answers, api
from widthbench.subtasks.registry import Metric, SubTask
from widthbench.subtasks.definitions.shared import mean, parse_error_result, result, simulated
from widthbench.subtasks.items import base_item


def build(pool, i, index, count, options):
    w = pool.width(i)
    if w is None:
        return None
    return base_item("width-estimate", pool, i, index, state=pool.task(i).init, truth=w, info={})


def no_item(pool, options) -> str:
    """Why an instance gives no item (the novelty variants start their reasons with it too)."""
    widths = pool.width_summary()
    return f"an item needs an instance of width at most --max-width {pool.max_width}" + (f" ({widths})" if widths else "")


def prompts(item, mode):
    return [api.width_estimate_prompt(item.task, mode.style)]


def score_integer(item, mode, outcomes):
    o = outcomes[0]
    if isinstance(o, ParseError):
        return parse_error_result(("exact",), item.truth, o)
    ok = o.value == item.truth
    return result(o.value, item.truth, ok, {"exact": int(ok), "abs_error": abs(o.value - item.truth)})


def row_extras_integer(records, metric):
    return {"mean_abs_error": mean(r["metrics"].get("abs_error") for r in records)}


def errors_integer(record, bump):
    if not record["correct"]:
        bump("wrong numbers (truth -> answer)", f"{record['truth']} -> {record['parsed']}")


SUBTASKS = (SubTask(
    name="width-estimate", build=build, prompts=prompts, answer=answers.INTEGER, score=score_integer,
    metrics=(Metric("exact", "Width Estimate (integer)", 160),), row_extras=row_extras_integer,
    errors=errors_integer, no_item=no_item,
    simulate={"width_estimate": simulated("width_estimate")}),)
