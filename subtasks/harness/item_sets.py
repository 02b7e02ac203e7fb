"""A frozen item set written for an evaluation harness (lm-eval, inspect_ai): the part every export shares.

`write_item_set(config, out, harness=...)` builds the items exactly as `widthbench score` does
(`run.build_all_items` on the same `ScoreConfig`: same seeds, same ground truth) and writes the
frozen item set of `subtasks.frozen`: the instances, one row per request in
``data/<sub-task>/<style>.jsonl`` (the system message, the user message, the item as JSON), and
nothing else. The harness module then writes its own task files and calls `finish`, which writes
``widthbench_export.json`` (with the harness, its tasks and groups) and reads the folder back,
checking that every item and every prompt comes back equal. `widthbench score --items DIR` reads
any such folder, whichever harness it was written for.
"""

from __future__ import annotations

import dataclasses
import json
import re
import shutil
from pathlib import Path

from widthbench.core.errors import UserError
from widthbench.subtasks.items import item_to_json
from widthbench.subtasks.harness import frozen
from widthbench.subtasks.registry import Registry
from widthbench.subtasks.scoring import Mode, default_max_tokens, prompts_for
from widthbench.generators import write_instance_set
from widthbench.llm.types import DEFAULT_MAX_TOKENS, mode_name
from widthbench.subtasks.prompts import prompt_digest
from widthbench.subtasks.score_run import max_width_of, build_all_items, instance_pool

THINK_NAMES = {True: "think", False: "nothink"}


def task_name(domain: str, subtask: str, style: str, thinking: bool) -> str:
    """e.g. widthbench_blocksworld_successor_mapping_nl_nothink (the same name in every harness)."""
    return "_".join(("widthbench", slug(domain), slug(subtask), style, THINK_NAMES[thinking]))


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")


@dataclasses.dataclass(frozen=True)
class ItemSet:
    """What `write_item_set` wrote: the folder, the items per sub-task, whether a sub-task's item
    asks one request per action (``per_item``), and the metadata `finish` completes."""
    folder: Path
    domain: str
    items: dict  # sub-task -> [Item]
    per_item: dict  # sub-task -> bool
    rows: int
    meta: dict
    config: object


def rows_of(items, style: str, registry, harness: str) -> list[dict]:
    """One row per request of each item in ``style`` (the prompt does not depend on the thinking mode)."""
    rows = []
    for item in items:
        prompts = prompts_for(item, Mode(style, False), registry)
        if prompts != prompts_for(item, Mode(style, True), registry):
            raise RuntimeError(f"{item.id}: the prompt depends on the thinking mode; one row cannot serve both")
        data = json.loads(json.dumps(item_to_json(item), ensure_ascii=False))
        for part, messages in enumerate(prompts):
            if [m["role"] for m in messages] != ["system", "user"]:
                raise UserError(f"{item.subtask}: a request that is not a system and a user message "
                                f"cannot be an {harness} task")
            rows.append({"id": item.id if len(prompts) == 1 else f"{item.id}-{part}", "item_id": item.id,
                         "subtask": item.subtask, "domain": item.domain, "instance_id": item.instance_id,
                         "style": style, "part": part, "parts": len(prompts),
                         "system": messages[0]["content"], "user": messages[1]["content"],
                         "target": json.dumps(data["truth"], ensure_ascii=False),
                         "item": json.dumps(data, ensure_ascii=False, sort_keys=True)})
    return rows


def _split_by_action(item, n_prompts: int, harness: str) -> bool:
    """Several requests per item are supported when each asks about one of the item's actions."""
    if n_prompts <= 1:
        return False
    if len(item.actions) != n_prompts or not isinstance(item.truth, dict) or set(item.truth) != set(item.actions):
        raise UserError(f"{item.subtask}: {n_prompts} requests per item that are not one per action "
                        f"cannot be split into {harness} rows")
    return True


def _check_out(out: Path, digest: str, harness: str) -> None:
    if not out.exists():
        return
    if not out.is_dir():
        raise UserError(f"--out {out} exists and is not a folder")
    if not any(out.iterdir()):
        return
    if not (out / frozen.EXPORT_FILE).is_file():
        raise UserError(f"--out {out} exists and is not a widthbench export; use a new or empty folder")
    meta = frozen.read_export(out)
    old = meta.get("items_digest")
    if old != digest:
        raise UserError(f"--out {out} holds other items (items_digest {old}, these are {digest}); "
                        "use another --out or remove the folder")
    if meta.get("harness", "lm-eval") != harness:
        raise UserError(f"--out {out} holds an export for {meta.get('harness', 'lm-eval')}; "
                        f"use another --out for {harness}")


def write_item_set(config, out_dir, *, harness: str, old_task_files=(), registry: Registry | None = None) -> ItemSet:
    """Build ``config``'s items (as `score` builds them) and write them into ``out_dir`` as a frozen
    item set for ``harness``. A folder holding the same items for the same harness is rewritten
    (its ``old_task_files`` globs removed first); one holding other items is refused."""
    registry = registry or Registry.default()
    out = Path(out_dir)
    if True in config.extensions:
        raise UserError(f"export {harness}: --prompt-extension is not exported (the tasks are the paper's "
                        "Table 1 prompts, extension off)")
    pool = instance_pool(config)
    not_built: dict[str, str] = {}
    items = build_all_items(config, registry, not_built, pool=pool)
    items = {s: its for s, its in items.items() if its}
    if not items:
        raise UserError(f"export {harness}: the item set is empty")
    item_json = [json.loads(json.dumps(item_to_json(i), ensure_ascii=False, sort_keys=True))
                 for its in items.values() for i in its]
    digest = frozen.items_digest(item_json)
    _check_out(out, digest, harness)

    # the instances the items ask about, in pool order
    used = {i.instance_id for its in items.values() for i in its}
    instances = [pool.instance(k) for k in range(len(pool)) if pool.instance(k).id in used]
    shutil.rmtree(out / frozen.INSTANCES, ignore_errors=True)
    shutil.rmtree(out / frozen.DATA, ignore_errors=True)
    for pattern in old_task_files:
        for old in out.glob(pattern) if out.is_dir() else ():
            old.unlink()
    write_instance_set(out / frozen.INSTANCES, instances[0].domain_model or instances[0].domain, instances)

    domain = next(iter(items.values()))[0].domain
    counts, n_rows, per_item = {}, 0, {}
    for sub, its in items.items():
        counts[sub] = len(its)
        per_item[sub] = any(_split_by_action(i, len(prompts_for(i, Mode(config.styles[0], False), registry)),
                                             harness) for i in its)
        for style in config.styles:
            rows = rows_of(its, style, registry, harness)
            for r in rows:
                r["per_item"] = per_item[sub]
            n_rows += len(rows)
            _write_jsonl(out / frozen.DATA / sub / f"{style}.jsonl", rows)
    meta = {"format": frozen.FORMAT, "harness": harness, "domain": domain, "subtasks": list(items),
            "styles": list(config.styles), "thinking": [THINK_NAMES[t] for t in config.thinking],
            "items": counts, "items_digest": digest, "not_built": not_built, "settings": _settings(config)}
    return ItemSet(out, domain, items, per_item, n_rows, meta, config)


def finish(item_set: ItemSet, tasks, groups, registry: Registry | None = None,
           sampling: dict | None = None) -> dict:
    """Write widthbench_export.json (with the harness's ``tasks`` and ``groups``, and the user's
    per-mode ``sampling`` settings) and check the round trip; returns the metadata written."""
    registry = registry or Registry.default()
    meta = {**item_set.meta, "tasks": list(tasks), "groups": list(groups)}
    if sampling:
        meta["settings"] = {**meta["settings"], "sampling": sampling}
    (item_set.folder / frozen.EXPORT_FILE).write_text(json.dumps(meta, indent=2, ensure_ascii=False) + "\n",
                                                      encoding="utf-8")
    _check_round_trip(item_set.folder, item_set.items, item_set.config.styles, registry)
    return meta


def _settings(config) -> dict:
    return {"domain": config.domain, "instances": config.instances, "domain_file": config.domain_file,
            "count": config.count, "seed": config.seed, "invalid_kind": config.invalid_kind,
            "prompt_budget": config.prompt_budget, "max_width": max_width_of(config),
            "max_tokens": config.max_tokens, "generator_options": dict(config.generator_options),
            # --obfuscate: the renaming the prompts show and the readers undo (frozen.tasks_of attaches it)
            **({"obfuscate": list(config.obfuscate)} if config.obfuscate else {}),
            **_prompt_settings(config)}


def _prompt_settings(config) -> dict:
    """--prompt-dir / --novelty-prompt and the digest of the templates, when either is set."""
    user_dir, novelty = getattr(config, "prompt_dir", None), getattr(config, "novelty_prompt", None)
    if not user_dir and not novelty:
        return {}
    return {"prompt_dir": user_dir, "novelty_prompt": novelty, "prompt_digest": prompt_digest(user_dir, novelty)}


def max_tokens_of(items, mode: Mode, cap: int | None, registry) -> int:
    """`score`'s max_tokens of the items (``--max-tokens``, else the per-item default), the largest."""
    return max(max_tokens_for(i, mode, cap, registry) for i in items)


def max_tokens_for(item, mode: Mode, cap: int | None, registry=None) -> int:
    """The max_tokens `score` sends for ``item`` in ``mode`` (``--max-tokens``, else the default)."""
    if cap is not None:
        return cap
    return default_max_tokens(item, mode, registry) or DEFAULT_MAX_TOKENS[mode_name(mode.thinking)]


def _check_round_trip(out: Path, items: dict, styles, registry) -> None:
    """The folder gives back the very items and prompts that were built (a bug if not)."""
    back = frozen.read_items(out)
    for sub, its in items.items():
        if back[sub] != its:
            raise RuntimeError(f"export: the items of {sub} do not read back equal")
        for a, b in zip(its, back[sub]):
            for style in styles:
                if prompts_for(a, Mode(style, False), registry) != prompts_for(b, Mode(style, False), registry):
                    raise RuntimeError(f"export: the prompts of {a.id} ({style}) do not read back equal")


def _write_jsonl(path: Path, rows: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n")
