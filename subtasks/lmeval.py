"""The sub-tasks as an lm-evaluation-harness task folder, scored by widthbench's readers and scorer.

`export_lmeval(config, out)` builds the items exactly as `widthbench score` does (`run.build_all_items`
on the same `ScoreConfig`: same seeds, same ground truth) and writes, besides the frozen item set
(`subtasks.frozen`):

    data/<sub-task>/<style>.jsonl     one row per request: the system message (the domain context), the
                                      user message, the item (JSON) and which request of it this is
    <task>.yaml                       one lm-eval task per sub-task x style x thinking mode, named
                                      widthbench_<domain>_<sub_task>_<style>_<think|nothink>
    widthbench_<domain>.yaml          a group of every task of the domain
    widthbench_paper.yaml             a group of seed 000's Table 1 sub-tasks (registry ``paper``;
                                      Blocksworld exports only, the domain of that table)
    utils.py                          lm-eval's hooks: they import this module (no copy of a reader)
    README.md                         a dataset card (license, task categories, a config per sub-task)

Each task is ``generate_until`` with the sampling parameters `score` sends (the Qwen3 preset of the
mode), ``max_gen_toks`` sized as `score` sizes ``max_tokens`` (the largest over the task's items),
and thinking switched as vLLM's chat API takes it for Qwen3
(``chat_template_kwargs: {enable_thinking: ...}``). `process_results` reads a reply with both
readers, scores it against the item's truth with the sub-task's own scorer (`score.score_item`), and
returns the metrics of `score`'s summary: each metric as read by the flexible reader (the headline)
and by the strict one (``<metric>_strict``), and ``parse_error`` / ``parse_error_strict``.

A sub-task that asks several requests per item (successor-separate: one per action) has one row per
request; its item-level metrics are ``[item id, value]`` pairs that `all_per_item` / `any_per_item`
combine per item (an item is exact when every request is right; a parse error when any reply is
unreadable), and per-action counts ``[right, n]`` add up in `ratio`, as `score`'s rows count them.
"""

from __future__ import annotations

import dataclasses
import json
import re
import shutil
from pathlib import Path

from widthbench.errors import UserError
from widthbench.subtasks import frozen
from widthbench.subtasks.answers import HEADLINE_READER, READERS
from widthbench.subtasks.registry import Registry
from widthbench.subtasks.score import Mode, default_max_tokens, prompts_for, score_item

TEMPLATE_DIR = Path(__file__).resolve().parent  # lmeval_utils.py.txt, lmeval_card.md.txt
PAPER_GROUP = "widthbench_paper"
THINK_NAMES = {True: "think", False: "nothink"}


def task_name(domain: str, subtask: str, style: str, thinking: bool) -> str:
    """e.g. widthbench_blocksworld_successor_mapping_nl_nothink."""
    return "_".join(("widthbench", _slug(domain), _slug(subtask), style, THINK_NAMES[thinking]))


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")


# ---------------------------------------------------------------------------------------------
# Export


@dataclasses.dataclass(frozen=True)
class Export:
    folder: Path
    tasks: tuple[str, ...]
    groups: tuple[str, ...]
    items: dict  # sub-task -> number of items
    rows: int


def _rows_of(items, style: str, registry) -> list[dict]:
    rows = []
    for item in items:
        prompts = prompts_for(item, Mode(style, False), registry)
        if prompts != prompts_for(item, Mode(style, True), registry):
            raise RuntimeError(f"{item.id}: the prompt depends on the thinking mode; one row cannot serve both")
        data = json.loads(json.dumps(frozen.item_to_json(item), ensure_ascii=False))
        for part, messages in enumerate(prompts):
            if [m["role"] for m in messages] != ["system", "user"]:
                raise UserError(f"{item.subtask}: a request that is not a system and a user message "
                                "cannot be an lm-eval task")
            rows.append({"id": item.id if len(prompts) == 1 else f"{item.id}-{part}", "item_id": item.id,
                         "subtask": item.subtask, "domain": item.domain, "instance_id": item.instance_id,
                         "style": style, "part": part, "parts": len(prompts),
                         "system": messages[0]["content"], "user": messages[1]["content"],
                         "target": json.dumps(data["truth"], ensure_ascii=False),
                         "item": json.dumps(data, ensure_ascii=False, sort_keys=True)})
    return rows


def _split_by_action(item, n_prompts: int) -> bool:
    """Several requests per item are supported when each asks about one of the item's actions."""
    if n_prompts <= 1:
        return False
    if len(item.actions) != n_prompts or not isinstance(item.truth, dict) or set(item.truth) != set(item.actions):
        raise UserError(f"{item.subtask}: {n_prompts} requests per item that are not one per action "
                        "cannot be split into lm-eval rows")
    return True


def _check_out(out: Path, digest: str) -> None:
    if not out.exists():
        return
    if not out.is_dir():
        raise UserError(f"--out {out} exists and is not a folder")
    if not any(out.iterdir()):
        return
    if not (out / frozen.EXPORT_FILE).is_file():
        raise UserError(f"--out {out} exists and is not a widthbench export; use a new or empty folder")
    old = frozen.read_export(out).get("items_digest")
    if old != digest:
        raise UserError(f"--out {out} holds other items (items_digest {old}, these are {digest}); "
                        "use another --out or remove the folder")


def export_lmeval(config, out_dir, *, registry: Registry | None = None,
                  sampling: dict | None = None) -> Export:
    """Build ``config``'s items (as `score` builds them) and write the lm-eval task folder ``out_dir``
    for the styles and thinking modes of ``config``. A folder holding the same items is rewritten;
    one holding other items is refused. ``sampling``: the user's per-mode sampling settings (mode
    name -> {parameter: value}, `llm.types.resolve_params`) over the Qwen3 preset."""
    from widthbench.llm.types import mode_name

    from widthbench.generators import write_instance_set
    from widthbench.subtasks.run import build_all_items, instance_pool

    registry = registry or Registry.default()
    out = Path(out_dir)
    if True in config.extensions:
        raise UserError("export lm-eval: --prompt-extension is not exported (the tasks are seed 000's "
                        "Table 1 prompts, extension off)")
    pool = instance_pool(config)
    not_built: dict[str, str] = {}
    items = build_all_items(config, registry, not_built, pool=pool)
    items = {s: its for s, its in items.items() if its}
    if not items:
        raise UserError("export lm-eval: the item set is empty")
    item_json = [json.loads(json.dumps(frozen.item_to_json(i), ensure_ascii=False, sort_keys=True))
                 for its in items.values() for i in its]
    digest = frozen.items_digest(item_json)
    _check_out(out, digest)

    # the instances the items ask about, in pool order
    used = {i.instance_id for its in items.values() for i in its}
    instances = [pool.instance(k) for k in range(len(pool)) if pool.instance(k).id in used]
    shutil.rmtree(out / frozen.INSTANCES, ignore_errors=True)
    shutil.rmtree(out / frozen.DATA, ignore_errors=True)
    for old in out.glob("widthbench_*.yaml") if out.is_dir() else ():
        old.unlink()
    write_instance_set(out / frozen.INSTANCES, instances[0].domain_model or instances[0].domain, instances)

    domain = next(iter(items.values()))[0].domain
    tasks, paper_tasks, counts, n_rows, per_item = [], [], {}, 0, {}
    for sub, its in items.items():
        record = registry.get(sub)
        counts[sub] = len(its)
        per_item[sub] = any(_split_by_action(i, len(prompts_for(i, Mode(config.styles[0], False), registry)))
                            for i in its)
        for style in config.styles:
            rows = _rows_of(its, style, registry)
            for r in rows:
                r["per_item"] = per_item[sub]
            n_rows += len(rows)
            _write_jsonl(out / frozen.DATA / sub / f"{style}.jsonl", rows)
            for thinking in config.thinking:
                name = task_name(domain, sub, style, thinking)
                mine = (sampling or {}).get(mode_name(thinking), {})
                max_tokens = _max_gen_toks(its, Mode(style, thinking), mine.get("max_tokens", config.max_tokens),
                                           registry)
                (out / f"{name}.yaml").write_text(
                    task_yaml(name, sub, style, thinking, record.metrics, per_item[sub], max_tokens, sampling),
                    encoding="utf-8")
                tasks.append(name)
                if record.paper and domain == "blocksworld":  # seed 000's Table 1 is on Blocksworld
                    paper_tasks.append(name)
    groups = [f"widthbench_{_slug(domain)}"]
    (out / f"{groups[0]}.yaml").write_text(group_yaml(groups[0], tasks), encoding="utf-8")
    if paper_tasks:
        groups.append(PAPER_GROUP)
        (out / f"{PAPER_GROUP}.yaml").write_text(group_yaml(PAPER_GROUP, paper_tasks), encoding="utf-8")
    (out / "utils.py").write_text((TEMPLATE_DIR / "lmeval_utils.py.txt").read_text(encoding="utf-8"), encoding="utf-8")
    meta = {"format": frozen.FORMAT, "domain": domain, "subtasks": list(items), "styles": list(config.styles),
            "thinking": [THINK_NAMES[t] for t in config.thinking], "items": counts, "items_digest": digest,
            "not_built": not_built, "tasks": tasks, "groups": groups,
            "settings": {**_settings(config), **({"sampling": sampling} if sampling else {})}}
    (out / frozen.EXPORT_FILE).write_text(json.dumps(meta, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    (out / "README.md").write_text(dataset_card(meta, config), encoding="utf-8")
    _check_round_trip(out, items, config.styles, registry)
    return Export(out, tuple(tasks), tuple(groups), counts, n_rows)


def _settings(config) -> dict:
    from widthbench.subtasks.run import _max_width

    return {"domain": config.domain, "instances": config.instances, "domain_file": config.domain_file,
            "count": config.count, "seed": config.seed, "invalid_kind": config.invalid_kind,
            "prompt_budget": config.prompt_budget, "max_width": _max_width(config),
            "max_tokens": config.max_tokens, "generator_options": dict(config.generator_options),
            **_prompt_settings(config)}


def _prompt_settings(config) -> dict:
    """--prompt-dir / --novelty-prompt and the digest of the templates, when either is set."""
    from widthbench.subtasks.prompts import prompt_digest

    user_dir, novelty = getattr(config, "prompt_dir", None), getattr(config, "novelty_prompt", None)
    if not user_dir and not novelty:
        return {}
    return {"prompt_dir": user_dir, "novelty_prompt": novelty, "prompt_digest": prompt_digest(user_dir, novelty)}


def _max_gen_toks(items, mode: Mode, cap: int | None, registry) -> int:
    """`score`'s max_tokens of the task's items (``--max-tokens``, else the per-item default), the largest."""
    from widthbench.llm.types import DEFAULT_MAX_TOKENS, mode_name

    if cap is not None:
        return cap
    return max(default_max_tokens(i, mode, registry) or DEFAULT_MAX_TOKENS[mode_name(mode.thinking)] for i in items)


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


# ---------------------------------------------------------------------------------------------
# YAML and the dataset card (written by hand: JSON strings are YAML scalars)


def _q(text) -> str:
    return json.dumps(text, ensure_ascii=False)


def metric_names(metrics) -> list[str]:
    """The lm-eval metrics of a sub-task: each of its metrics by both readers, and the parse errors."""
    out = []
    for m in metrics:
        out += [m, f"{m}_strict"]
    return out + ["parse_error", "parse_error_strict"]


def task_yaml(name, subtask, style, thinking, metrics, per_item, max_tokens, user_sampling=None) -> str:
    from widthbench.llm.types import mode_name, mode_params

    sampling = mode_params("qwen3", sampling=user_sampling)[mode_name(thinking)]
    sampling.pop("max_tokens", None)  # max_gen_toks
    lines = [f"task: {name}", "tag:", "  - widthbench",
             "custom_dataset: !function utils.load_dataset",
             "dataset_kwargs:", f"  subtask: {_q(subtask)}",
             f"test_split: {style}", "output_type: generate_until",
             "description: system", "doc_to_text: user", "doc_to_target: target",
             f"process_results: !function utils.process_results_{THINK_NAMES[thinking]}",
             "generation_kwargs:", "  until: []", f"  max_gen_toks: {max_tokens}", "  do_sample: true"]
    lines += [f"  {k}: {_q(v)}" for k, v in sampling.items()]
    lines += ["  chat_template_kwargs:", f"    enable_thinking: {'true' if thinking else 'false'}", "metric_list:"]
    for m in metric_names(metrics):
        base = m.removesuffix("_strict")
        if base == "per-action":
            agg = "!function utils.ratio"
        elif per_item:
            agg = "!function utils.any_per_item" if base == "parse_error" else "!function utils.all_per_item"
        else:
            agg = "mean"
        lines += [f"  - metric: {_q(m)}", f"    aggregation: {agg}",
                  f"    higher_is_better: {'false' if base == 'parse_error' else 'true'}"]
    lines += ["metadata:", "  version: 1.0", ""]
    return "\n".join(lines)


def group_yaml(name: str, tasks) -> str:
    return "\n".join([f"group: {name}", "task:", *(f"  - {t}" for t in tasks), "metadata:", "  version: 1.0", ""])


def dataset_card(meta: dict, config) -> str:
    configs = []
    for sub in meta["subtasks"]:
        configs += [f"  - config_name: {sub}", "    data_files:"]
        configs += [f"      - split: {s}\n        path: data/{sub}/{s}.jsonl" for s in meta["styles"]]
    generated = not config.instances
    license_line = "mit" if generated else "other"
    source = (f"generated by widthbench (`--domain {config.domain} --seed {config.seed}`)" if generated
              else f"read from the instance folder {config.instances} (check the license of its problems)")
    rows = "\n".join(f"| `{s}` | {n} |" for s, n in meta["items"].items())
    text = (TEMPLATE_DIR / "lmeval_card.md.txt").read_text(encoding="utf-8")
    return text.format(license=license_line, configs="\n".join(configs), domain=meta["domain"], source=source,
                       digest=meta["items_digest"], rows=rows, tasks=len(meta["tasks"]),
                       groups=", ".join(f"`{g}`" for g in meta["groups"]),
                       styles=", ".join(meta["styles"]), thinking=", ".join(meta["thinking"]))


# ---------------------------------------------------------------------------------------------
# The lm-eval hooks (utils.py of an exported folder calls these)


def load_dataset(folder, subtask: str, **_ignored):
    """lm-eval's ``custom_dataset``: the rows of one sub-task, one split per style."""
    import datasets

    from widthbench.runfiles import read_jsonl

    base = Path(folder) / frozen.DATA / subtask
    return datasets.DatasetDict({p.stem: datasets.Dataset.from_list(read_jsonl(p))
                                 for p in sorted(base.glob("*.jsonl"))})


def _part(item, part: int):
    a = item.actions[part]
    return dataclasses.replace(item, actions=(a,), truth={a: item.truth[a]})


def process_results(folder, doc: dict, results: list, *, thinking: bool, registry: Registry | None = None) -> dict:
    """The metrics of one reply (lm-eval's ``process_results``), read and scored by widthbench."""
    registry = registry or Registry.default()
    item = frozen.item_of_row(folder, doc)
    text = results[0] if results and results[0] is not None else ""
    per_item = bool(doc.get("per_item"))
    asked = _part(item, doc["part"]) if per_item else item
    scored = score_item(asked, Mode(doc["style"], thinking), [text], reader=HEADLINE_READER, registry=registry)
    out = {}
    for reader in READERS:
        reading = scored["readings"][reader]
        suffix = "" if reader == HEADLINE_READER else f"_{reader}"
        for m in registry.get(item.subtask).metrics:
            value = reading["metrics"].get(m, 0)
            if isinstance(value, list):
                out[m + suffix] = list(value)
            else:
                value = int(value or 0)
                out[m + suffix] = [item.id, value] if per_item else value
        error = int(bool(reading["parse_error"]))
        out["parse_error" + suffix] = [item.id, error] if per_item else error
    return out


def ratio(values) -> float:
    """Per-action counts [right, n] added up: right / n over every action."""
    right = sum(v[0] for v in values)
    n = sum(v[1] for v in values)
    return right / n if n else 0.0


def _per_item(values, combine) -> float:
    by_item: dict[str, list[int]] = {}
    for key, v in values:
        by_item.setdefault(key, []).append(int(v))
    return sum(combine(vs) for vs in by_item.values()) / len(by_item) if by_item else 0.0


def all_per_item(values) -> float:
    """[item id, 0/1] per request: the share of items whose every request scored 1."""
    return _per_item(values, all)


def any_per_item(values) -> float:
    """[item id, 0/1] per request: the share of items with a 1 in any request (parse errors)."""
    return _per_item(values, any)
