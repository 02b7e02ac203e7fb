"""Frozen item sets: sub-task items written to a folder and read back without regenerating them.

`widthbench export lm-eval` and `widthbench export inspect` write the items `score` builds (same
seeds, same ground truth) into a folder (`subtasks.export`); `widthbench score --items DIR` and the
exported lm-eval and inspect tasks read them back from it. The
folder holds the problems the items ask about and one JSON object per item:

    DIR/instances/                 the instance set (`generators.write_instance_set`): domain.pddl,
                                   one problem file per instance that feeds an item, manifest.jsonl
    DIR/data/<sub-task>/<style>.jsonl   one row per request (`export.rows_of`); each row's ``item``
                                   column is `item_to_json` of its item, as a JSON string
    DIR/widthbench_export.json     what was exported: the harness, sub-tasks, styles, thinking modes, the settings
                                   the items were built with, and ``items_digest``

An item is written with its states as PDDL atom lists (a state is an int bitmask over the task's
atoms only inside the process): ``state``, ``previous`` (novelty), and the successor truths, whose
action -> state mapping is written as ``{"states": {action: [atoms]}}``. `items.item_from_json` rebuilds
the very same `Item` (a test and the export itself check the round trip on every item and prompt).
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
from pathlib import Path

from widthbench.core.errors import UserError, listed
from widthbench.planners import strips
from widthbench.subtasks.items import Item, item_from_json
from widthbench.generators import read_instance_set
from widthbench.core.runfiles import read_jsonl

EXPORT_FILE = "widthbench_export.json"
INSTANCES = "instances"
DATA = "data"
FORMAT = 1  # of widthbench_export.json and the item JSON


def items_digest(rows: list[dict]) -> str:
    """A digest of item JSON objects (sorted keys): equal digests, equal items."""
    h = hashlib.sha256()
    for row in sorted(rows, key=lambda r: (r["subtask"], r["index"])):
        h.update(json.dumps(row, sort_keys=True, ensure_ascii=False).encode())
        h.update(b"\n")
    return h.hexdigest()[:16]


def read_export(folder: str | Path) -> dict:
    """widthbench_export.json of an exported folder (UserError when it is not one)."""
    path = Path(folder) / EXPORT_FILE
    if not path.is_file():
        raise UserError(f"{folder} holds no widthbench item set (no {EXPORT_FILE}; "
                        "make one with `widthbench export lm-eval` or `widthbench export inspect`)")
    try:
        meta = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise UserError(f"{path}: not JSON ({exc.msg}, line {exc.lineno})") from None
    if meta.get("format") != FORMAT:
        raise UserError(f"{path}: item set format {meta.get('format')!r}; this widthbench reads {FORMAT}")
    return meta


@functools.lru_cache(maxsize=8)
def _tasks(folder: str, stamp: float) -> dict[str, strips.Task]:
    """Instance id -> grounded task of an exported folder (cached per folder and file time: the
    lm-eval hooks score one sample per call)."""
    inst_dir = Path(folder) / INSTANCES
    if not inst_dir.is_dir():
        raise UserError(f"{folder}: no {INSTANCES}/ folder (the problems of the items)")
    tasks = {inst.id: inst.task() for inst in read_instance_set(inst_dir, domain=inst_dir / "domain.pddl")}
    obfuscation = tuple(read_export(folder).get("settings", {}).get("obfuscate") or ())
    if obfuscation:  # exported with --obfuscate: prompts and readers show the same renaming
        from widthbench.pddl_domains import obfuscate

        attached: dict[int, strips.Domain] = {}
        for k, t in tasks.items():
            dom = attached.setdefault(id(t.domain), obfuscate.attach(t.domain, *obfuscation))
            tasks[k] = dataclasses.replace(t, domain=dom)
    return tasks


def tasks_of(folder: str | Path) -> dict[str, strips.Task]:
    """Instance id -> grounded task of an exported folder."""
    path = Path(folder).resolve()
    manifest = path / INSTANCES / "manifest.jsonl"
    return _tasks(str(path), manifest.stat().st_mtime if manifest.is_file() else 0.0)


def item_of_row(folder: str | Path, row: dict) -> Item:
    """The item of one lm-eval row of an exported folder."""
    data = json.loads(row["item"])
    tasks = tasks_of(folder)
    if data["instance_id"] not in tasks:
        raise UserError(f"{folder}: item {data['id']} asks about instance {data['instance_id']!r}, "
                        f"which is not in {INSTANCES}/")
    return item_from_json(data, tasks[data["instance_id"]])


def read_item_json(folder: str | Path) -> dict[str, list[dict]]:
    """Sub-task -> its items' JSON, in item order, from the folder's lm-eval rows."""
    meta = read_export(folder)
    out: dict[str, list[dict]] = {}
    for sub in meta["subtasks"]:
        seen: dict[str, dict] = {}
        for path in sorted((Path(folder) / DATA / sub).glob("*.jsonl")):
            for row in read_jsonl(path):
                data = json.loads(row["item"])
                if seen.setdefault(data["id"], data) != data:
                    raise UserError(f"{path}: item {data['id']} differs between the files of {sub}")
        out[sub] = sorted(seen.values(), key=lambda d: d["index"])
    return out


def read_items(folder: str | Path, subtasks=None) -> dict[str, list[Item]]:
    """Sub-task -> its frozen items (``subtasks``: only these; each must be in the folder)."""
    meta = read_export(folder)
    rows = read_item_json(folder)
    if items_digest([d for ds in rows.values() for d in ds]) != meta.get("items_digest"):
        raise UserError(f"{folder}: the items differ from those exported (items_digest of {EXPORT_FILE}); "
                        "export them again")
    wanted = list(rows) if subtasks is None else list(subtasks)
    missing = [s for s in wanted if s not in rows]
    if missing:
        raise UserError(f"{folder} holds no items of {listed(missing, 60)} (it holds: {listed(rows, 80)})")
    tasks = tasks_of(folder)
    out = {}
    for sub in wanted:
        if not rows[sub]:
            raise UserError(f"{folder}: no items of {sub}")
        out[sub] = [item_from_json(d, tasks[d["instance_id"]]) for d in rows[sub]]
    return out
