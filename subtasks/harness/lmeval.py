"""The sub-tasks as an lm-evaluation-harness task folder, scored by widthbench's readers and scorer.

`export_lmeval(config, out)` builds the items exactly as `widthbench score` does (`run.build_all_items`
on the same `ScoreConfig`: same seeds, same ground truth) and writes, besides the frozen item set
(`subtasks.frozen`):

    data/<sub-task>/<style>.jsonl     one row per request: the system message (the domain context), the
                                      user message, the item (JSON) and which request of it this is
    <task>.yaml                       one lm-eval task per sub-task x style x thinking mode, named
                                      widthbench_<domain>_<sub_task>_<style>_<think|nothink>
    widthbench_<domain>.yaml          a group of every task of the domain
    widthbench_paper.yaml             a group of the paper's Table 1 sub-tasks (registry ``paper``;
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
from pathlib import Path

from widthbench.subtasks.harness import item_sets as export
from widthbench.subtasks.harness import frozen
from widthbench.subtasks.answers import HEADLINE_READER, READERS
from widthbench.subtasks.harness.item_sets import THINK_NAMES, task_name
from widthbench.subtasks.registry import COUNTS, Registry, add_pairs, share
from widthbench.subtasks.scoring import Mode, score_item
from widthbench.llm.types import mode_name, mode_params
from widthbench.core.runfiles import read_jsonl

TEMPLATE_DIR = Path(__file__).resolve().parent  # lmeval_utils.py.txt, lmeval_card.md.txt
PAPER_GROUP = "widthbench_paper"
HARNESS = "lm-eval"


# ---------------------------------------------------------------------------------------------
# Export


@dataclasses.dataclass(frozen=True)
class Export:
    folder: Path
    tasks: tuple[str, ...]
    groups: tuple[str, ...]
    items: dict  # sub-task -> number of items
    rows: int


def export_lmeval(config, out_dir, *, registry: Registry | None = None,
                  sampling: dict | None = None) -> Export:
    """Build ``config``'s items (as `score` builds them) and write the lm-eval task folder ``out_dir``
    for the styles and thinking modes of ``config``. A folder holding the same items is rewritten;
    one holding other items is refused. ``sampling``: the user's per-mode sampling settings (mode
    name -> {parameter: value}, `llm.types.resolve_params`) over the Qwen3 preset."""
    registry = registry or Registry.default()
    written = export.write_item_set(config, out_dir, harness=HARNESS, old_task_files=("widthbench_*.yaml",),
                                    registry=registry)
    out, domain = written.folder, written.domain
    tasks, paper_tasks = [], []
    for sub, its in written.items.items():
        record = registry.get(sub)
        for style in config.styles:
            for thinking in config.thinking:
                name = task_name(domain, sub, style, thinking)
                mine = (sampling or {}).get(mode_name(thinking), {})
                max_tokens = export.max_tokens_of(its, Mode(style, thinking), mine.get("max_tokens", config.max_tokens),
                                                  registry)
                (out / f"{name}.yaml").write_text(
                    task_yaml(name, sub, style, thinking, record.metrics, written.per_item[sub], max_tokens, sampling),
                    encoding="utf-8")
                tasks.append(name)
                if record.paper and domain == "blocksworld":  # the paper's Table 1 is on Blocksworld
                    paper_tasks.append(name)
    groups = [f"widthbench_{export.slug(domain)}"]
    (out / f"{groups[0]}.yaml").write_text(group_yaml(groups[0], tasks), encoding="utf-8")
    if paper_tasks:
        groups.append(PAPER_GROUP)
        (out / f"{PAPER_GROUP}.yaml").write_text(group_yaml(PAPER_GROUP, paper_tasks), encoding="utf-8")
    (out / "utils.py").write_text((TEMPLATE_DIR / "lmeval_utils.py.txt").read_text(encoding="utf-8"), encoding="utf-8")
    meta = export.finish(written, tasks, groups, registry, sampling=sampling)
    (out / "README.md").write_text(dataset_card(meta, config), encoding="utf-8")
    return Export(out, tuple(tasks), tuple(groups), written.meta["items"], written.rows)


# ---------------------------------------------------------------------------------------------
# YAML and the dataset card (written by hand: JSON strings are YAML scalars)


def _q(text) -> str:
    return json.dumps(text, ensure_ascii=False)


def metric_names(metrics) -> list[str]:
    """The lm-eval metrics of a sub-task (its `Metric` values): each by both readers, and the parse errors."""
    out = []
    for m in metrics:
        out += [m.name, f"{m.name}_strict"]
    return out + ["parse_error", "parse_error_strict"]


def _aggregation(metric, per_item: bool) -> str:
    """lm-eval's aggregation of a metric, as the metric declares it adds up (counts: `ratio`)."""
    if metric is not None and metric.aggregate == COUNTS:
        return "!function utils.ratio"
    if per_item:
        return "!function utils.any_per_item" if metric is None else "!function utils.all_per_item"
    return "mean"


def task_yaml(name, subtask, style, thinking, metrics, per_item, max_tokens, user_sampling=None) -> str:
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
    by_name = {m.name: m for m in metrics}
    for m in metric_names(metrics):
        metric = by_name.get(m.removesuffix("_strict"))  # None: the parse-error rate
        lines += [f"  - metric: {_q(m)}", f"    aggregation: {_aggregation(metric, per_item)}",
                  f"    higher_is_better: {'false' if metric is None else 'true'}"]
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
            right, n = m.count(reading["metrics"].get(m.name))
            if m.aggregate == COUNTS:
                out[m.name + suffix] = [right, n]
            else:
                out[m.name + suffix] = [item.id, right] if per_item else right
        error = int(bool(reading["parse_error"]))
        out["parse_error" + suffix] = [item.id, error] if per_item else error
    return out


def ratio(values) -> float:
    """Per-action counts [right, n] added up (`registry.add_pairs`): right / n over every action."""
    return share(*add_pairs(values))


def _per_item(values, combine) -> float:
    by_item: dict[str, list[int]] = {}
    for key, v in values:
        by_item.setdefault(key, []).append(int(v))
    return share(*add_pairs((combine(vs), 1) for vs in by_item.values()))


def all_per_item(values) -> float:
    """[item id, 0/1] per request: the share of items whose every request scored 1."""
    return _per_item(values, all)


def any_per_item(values) -> float:
    """[item id, 0/1] per request: the share of items with a 1 in any request (parse errors)."""
    return _per_item(values, any)
