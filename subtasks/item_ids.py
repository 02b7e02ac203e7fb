"""Stable item ids: one id names the same question in any run (issue 43; docs/compare.md).

An item id is the sub-task's name and a digest of what decides the question's answer: the
instance's content (its grounded task: domain name and action schemas, objects, initial state and
goal, not its file name or its place in a set) and the question's payload (the state asked about,
the actions to map, the plan to verify, the states seen before, the width). Two runs that ask the
same question give it the same id whatever their seeds, order, folders or presentation (style,
thinking, obfuscation); `widthbench compare` aligns runs by it, and the lm-eval and inspect
exports carry it as their sample id.

    task_digest(task)                       the instance's content
    item_id(subtask, task, payload)         "<subtask>-<12 hex digits>"
    positional_id(subtask, index)           the id items had before (records of older runs)

Runs made before item ids were stable named an item by its place (``plan-generation-0007``);
`positional_id` recognises those (`subtasks.results.loader` aligns such runs only when their item
identities are equal).
"""

from __future__ import annotations

import hashlib
import json

from widthbench.planners import strips

ID_DIGITS = 12


def _digest(text: str, digits: int = 16) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:digits]


def task_digest(task) -> str:
    """The content of a grounded `strips.Task`: its domain's name, types, constants, predicates and
    action schemas, and the problem's objects, initial state and goal (atoms sorted, names as
    parsed). Comments, layout, the problem's name and the file it came from do not count. Kept in
    the task's ``views`` (computed once per task)."""
    hit = task.views.get("content_digest")
    if hit is not None:
        return hit
    dom = task.domain
    content = {
        "domain": dom.name,
        "types": sorted(dom.types.items()),
        "constants": sorted(dom.constants),
        "predicates": sorted(dom.predicates.items()),
        "schemas": sorted(repr(s) for s in dom.schemas),
        "objects": sorted(task.objects),
        "init": sorted([*strips.state_atoms(task, task.init), *task.static_atoms]),
        "goal": sorted(strips.goal_atoms(task)),
        "goal_neg": sorted(strips.state_atoms(task, task.goal_neg)),
    }
    out = task.views["content_digest"] = _digest(json.dumps(content, sort_keys=True, default=list))
    return out


def item_id(subtask: str, content: str, payload: dict) -> str:
    """``<subtask>-<digest>`` of the instance's content digest and the question's JSON payload."""
    text = json.dumps({"subtask": subtask, "instance": content, "payload": payload}, sort_keys=True)
    return f"{subtask}-{_digest(text, ID_DIGITS)}"


def positional_id(subtask: str, index: int) -> str:
    """The id an item had before ids were stable: its sub-task and its place in the run."""
    return f"{subtask}-{index:04d}"


def is_positional(record: dict) -> bool:
    """Whether a record names its item by place (a run made before stable item ids)."""
    index = record.get("index")
    return isinstance(index, int) and record.get("item_id") == positional_id(record.get("subtask", ""), index)
