"""Difficulty features of sub-task items, feature bins, and accuracy per bin (issue 21).

Every item records ``features`` (items.jsonl), computed by the engine when the item is built; the
per-instance ones (objects, plan length, width) once per instance of the pool:

  objects        objects of the instance
  atoms          fluent atoms true in the item's state (static facts are not counted)
  h-star         optimal plan length h* from the item's state
  plan-length    optimal plan length of the instance (h* of its initial state)
  width          the instance's effective width: the smallest k for which IW(k) reaches its goal,
                 searched up to ``max-width`` (recorded beside it); None above the cap or unsolvable
  list-length    novelty items: the number of states listed before the asked one
  novelty-level  novelty items: the novelty of the asked state against the listed ones (None: a repeat)
  atoms-changed  successor items: atoms the asked actions change, summed over the actions
  solvable       1 if the instance has a plan, 0 if not (``generate --unsolvable``'s certified instances)

`breakdown(records, feature, bins)` gives, per run x sub-task x mode, the headline metric's accuracy
per bin with n and the Wilson 95% interval, and a logistic slope per mode (`stats.logistic_slope`):
the change of the log-odds of a right answer per unit of the feature, with its 95% interval.
"""

from __future__ import annotations

from widthbench.core.errors import ParseError, UserError
from widthbench.generators.common import IntRange, int_range
from widthbench.planners import strips
from widthbench.subtasks.registry import PER_ITEM, Metric
from widthbench.subtasks.results.rows import metrics_of
from widthbench.subtasks.results.stats import cell_stats, logistic_slope, progress_stats
from widthbench.planners.ground_truth import GroundTruth
from widthbench.planners.planning_errors import PlanningTimeout
from widthbench.subtasks.planbench.files import shipped_plan
from widthbench.subtasks.planbench.problems import Instances

FEATURES = {
    "objects": "objects of the instance",
    "atoms": "fluent atoms true in the item's state",
    "h-star": "optimal plan length h* from the item's state",
    "plan-length": "optimal plan length of the instance (h* of its initial state)",
    "width": "effective width of the instance (IW(k) of its goal, up to --max-width)",
    "list-length": "novelty items: states listed before the asked one",
    "novelty-level": "novelty items: novelty of the asked state against the listed ones",
    "atoms-changed": "successor items: atoms the asked actions change, summed",
    "solvable": "1 if the instance has a plan, 0 if not (certified unsolvable instances)",
}
# Every report shows these (each sub-task the ones its items carry); `report --by` picks others.
DEFAULT_FEATURES = ("plan-length", "width", "objects", "list-length", "atoms-changed")


def check_feature(name: str) -> str:
    if name not in FEATURES:
        raise UserError(f"unknown difficulty feature {name!r} (known: {', '.join(FEATURES)})")
    return name


# ---------------------------------------------------------------------------------------------
# Features of an item


def instance_features(pool, i: int) -> dict:
    """objects, plan-length, width and max-width of instance ``i`` (cached in the pool)."""
    d = pool.data(i)
    if "features" not in d:
        task = d["task"]
        certified = getattr(pool.instance(i), "solvable", None) is False  # no plan: nothing to search
        h = float("inf") if certified else pool.truth(i).h_star()
        d["features"] = {"objects": len(task.objects),
                         "plan-length": None if h == float("inf") else int(h),
                         "width": None if certified else pool.width(i), "max-width": pool.max_width,
                         "solvable": int(h != float("inf"))}
    return d["features"]


def item_features(pool, i: int, item) -> dict:
    """The difficulty features of ``item``, built from instance ``i`` of ``pool``."""
    out = dict(instance_features(pool, i))
    s = item.state
    if s is not None:
        out["atoms"] = s.bit_count()
        h = float("inf") if not out["solvable"] and s == item.task.init else pool.truth(i).h_star(s)
        out["h-star"] = None if h == float("inf") else int(h)
    if item.subtask.startswith("novelty"):
        from widthbench.subtasks.exact import novelty_of

        out["list-length"] = len(item.previous)
        out["novelty-level"] = novelty_of(s, item.previous) if s is not None else None
    if item.actions and s is not None:
        changed = 0
        for text in item.actions:
            changed += (s ^ strips.successor(s, strips.parse_action(item.task, text))).bit_count()
        out["atoms-changed"] = changed
    return out


# ---------------------------------------------------------------------------------------------
# Bins


# A bin is an inclusive range of feature values, written ``5-8`` or ``3``: the generators' range.
Bin = IntRange


def parse_bins(text: str, option: str = "--bins") -> tuple[Bin, ...]:
    """``"2-4,5-8,9-12"`` -> bins; they must not overlap (a value would fall in two)."""
    bins = [int_range(part, option) for part in str(text).split(",")]
    ordered = sorted(bins, key=lambda b: b.lo)
    for a, b in zip(ordered, ordered[1:]):
        if b.lo <= a.hi:
            raise UserError(f"{option}: bins {a} and {b} overlap")
    return tuple(ordered)


def bin_of(value, bins) -> Bin | None:
    return next((b for b in bins if b.holds(value)), None)


def auto_bins(values, most: int = 8) -> tuple[Bin, ...]:
    """One bin per distinct value, or at most ``most`` ranges of about equal counts when there are more."""
    vals = sorted(v for v in values if v is not None)
    distinct = sorted(set(vals))
    if len(distinct) <= most:
        return tuple(Bin(v, v) for v in distinct)
    out, start = [], 0
    for k in range(1, most + 1):
        end = round(k * len(vals) / most)
        if end <= start:
            continue
        lo, hi = vals[start], vals[end - 1]
        if out and lo <= out[-1].hi:
            lo = out[-1].hi + 1
        if lo <= hi:
            out.append(Bin(lo, hi))
        start = end
    return tuple(out)


# ---------------------------------------------------------------------------------------------
# Accuracy per bin


def headline_metric(subtask: str, records: list[dict]) -> Metric | None:
    """The sub-task's headline metric: its first metric counted per item (`Metric.aggregate`),
    from its record, or from the records of a sub-task no registry knows (`results.metrics_of`)."""
    per_item = [m for m in metrics_of(subtask, records) if m.aggregate == PER_ITEM]
    return per_item[0] if per_item else None


def outcomes(records: list[dict], feature: str, metric: str | None = None) -> dict[tuple, list[tuple[int, int]]]:
    """(run, model, sub-task, metric, mode) -> [(feature value, 1 if right else 0)] over the
    answered records that carry the feature (request errors and skipped item-modes left out);
    ``metric``: the name of a 0/1 metric to count (default: each sub-task's headline)."""
    by_sub: dict[str, list[dict]] = {}
    for r in records:
        by_sub.setdefault(r["subtask"], []).append(r)
    out: dict[tuple, list[tuple[int, int]]] = {}
    for sub, recs in by_sub.items():
        chosen = Metric(metric, metric, 0) if metric else headline_metric(sub, recs)
        if chosen is None:
            continue
        for r in recs:
            value = (r.get("features") or {}).get(feature)
            if value is None or r.get("request_error") or r.get("skipped"):
                continue
            key = (r.get("_run", ""), r.get("model", ""), sub, chosen.name, r["mode"])
            out.setdefault(key, []).append((value, int(chosen.right((r.get("metrics") or {}).get(chosen.name)))))
    return out


def _progress(records: list[dict], feature: str) -> dict[tuple, list[tuple]]:
    """(run, model, sub-task, mode) -> [(feature value, progress)] of the answered records whose
    metrics carry ``progress`` (plan generation; docs/subtasks.md, "Partial credit")."""
    out: dict[tuple, list[tuple]] = {}
    for r in records:
        m = r.get("metrics") or {}
        value = (r.get("features") or {}).get(feature)
        if "progress" in m and value is not None and not r.get("request_error") and not r.get("skipped"):
            out.setdefault((r.get("_run", ""), r.get("model", ""), r["subtask"], r["mode"]), []).append(
                (value, m["progress"]))
    return out


def breakdown(records: list[dict], feature: str, bins=None, metric: str | None = None) -> dict:
    """{"feature", "rows": [per run/sub-task/mode/bin: n, correct, accuracy, ci_low, ci_high],
    "slopes": [per run/sub-task/mode: the logistic fit], "without": {sub-task: answered records
    without a value, e.g. width above --max-width}}. ``bins`` (default `auto_bins` per sub-task)."""
    check_feature(feature)
    groups = outcomes(records, feature, metric)
    sim_models = {r.get("model", "") for r in records if r.get("simulated")}
    without: dict[str, int] = {}
    for r in records:
        f = r.get("features")
        if f is not None and feature in f and f[feature] is None and not r.get("request_error") \
                and not r.get("skipped"):
            without[r["subtask"]] = without.get(r["subtask"], 0) + 1
    credit = _progress(records, feature)
    rows, slopes = [], []
    by_sub: dict[str, list] = {}
    for key, pairs in groups.items():
        by_sub.setdefault(key[2], []).extend(v for v, _ in pairs)
    for key, pairs in groups.items():
        run, model, sub, metric, mode = key
        mine = bins if bins is not None else auto_bins(by_sub[sub])
        simulated = model in sim_models
        for b in mine:
            ys = [y for v, y in pairs if b.holds(v)]
            rows.append({"run": run, "model": model, "simulated": simulated, "subtask": sub, "metric": metric,
                         "mode": mode, "feature": feature, "bin": str(b), "bin_lo": b.lo, "bin_hi": b.hi,
                         **cell_stats(sum(ys), len(ys))})
            if (run, model, sub, mode) in credit:  # partial credit of plans (planners.progress)
                rows[-1].update(progress_stats(p for v, p in credit[(run, model, sub, mode)] if b.holds(v)))
        fit = logistic_slope([v for v, _ in pairs], [y for _, y in pairs])
        slopes.append({"run": run, "model": model, "simulated": simulated, "subtask": sub, "metric": metric,
                       "mode": mode, "feature": feature, "n": len(pairs), **fit})
    return {"feature": feature, "rows": rows, "slopes": slopes, "without": without}


# ---------------------------------------------------------------------------------------------
# Rescored PlanBench answers


RESCORE_MAX_SPACE = 50_000  # states enumerated for a problem's plan length; beyond it, a planner
RESCORE_TIMEOUT = 10.0  # seconds the planner may take; a problem it cannot solve in time has no plan length


def answer_records(judged, instance_dirs, reader: str = "flexible") -> list[dict]:
    """`rescore.rescore`'s per-answer results as records for `breakdown` (metric ``correct``: the
    ``reader`` read the answer and it is right on the engine); features from the instance on our
    engine: objects (blocks, in Blocksworld) and plan-length (`optimal_lengths`). The mode is the
    result file (its model folder and name)."""
    from pathlib import Path

    instances = Instances(instance_dirs)
    tasks, keys, shipped = {}, [], {}
    for rf, results in judged:
        entries: dict[int, dict] = {}
        for inst in rf.instances:
            entries.setdefault(int(inst["instance_id"]), inst)
        for a in results:
            inst = entries[a.instance_id]
            problem = instances.problem(rf, inst)
            key = problem_key(problem.task)
            tasks.setdefault(key, problem.task)
            keys.append(key)
            if key not in shipped:
                for plan in (shipped_plan(rf, inst), instances.info_plan(problem)):
                    if plan is not None and plan_fits(problem.task, plan):
                        shipped[key] = len(plan)
                        break
    lengths = optimal_lengths(tasks, shipped)
    out, k = [], 0
    for rf, results in judged:
        label = f"{Path(rf.path).parent.name}/{Path(rf.path).stem}"
        for a in results:
            key = keys[k]
            k += 1
            out.append({"subtask": rf.task, "mode": label, "model": label, "simulated": False,
                        "item_id": str(a.instance_id),
                        "features": {"objects": len(tasks[key].objects), "plan-length": lengths[key]},
                        "metrics": {"correct": int(getattr(a, reader).correct)}})
    return out


def problem_key(task: strips.Task) -> tuple:
    """What makes two grounded problems the same instance: domain, objects, facts and goal (answers
    of several files, or of several tasks, on one PlanBench instance share it)."""
    return (task.domain_name, task.objects, task.atoms, task.static_atoms, task.init, task.goal, task.goal_neg)


def plan_fits(task: strips.Task, plan) -> bool:
    """Whether ``plan`` (PDDL action texts) is a plan of ``task``: every step an action of the task,
    applicable in turn, and the goal reached."""
    try:
        return strips.execute_plan(task, [strips.parse_action(task, text) for text in plan]).valid
    except (UserError, ParseError):
        return False


def optimal_lengths(tasks: dict, shipped: dict) -> dict:
    """The optimal plan length of each distinct problem (``tasks``: key -> task): the length of the
    optimal plan its data ships (``shipped``: key -> length of a shipped plan `plan_fits` has
    checked: a plan-generation entry's ``ground_truth_plan``, `rescore.shipped_plan`, or the
    instance's ``info.json``, `rescore.Instances.info_plan`; PlanBench's are Fast Downward's optimal
    ``astar(lmcut())`` plans), else
    computed once by `planners.ground_truth.GroundTruth` (its state space enumerated when small,
    else the exact search within its budget, then Fast Downward's search binary); None when the
    problem has no plan or the planner cannot decide within ``RESCORE_TIMEOUT`` (a few Sokoban
    problems)."""
    out = {}
    for key, task in tasks.items():
        if key in shipped:
            out[key] = shipped[key]
            continue
        try:
            h = GroundTruth(task, max_space=RESCORE_MAX_SPACE, timeout=RESCORE_TIMEOUT).h_star()
        except PlanningTimeout:
            h = None
        out[key] = None if h is None or h == float("inf") else int(h)
    return out
