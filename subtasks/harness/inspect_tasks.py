"""The sub-tasks as inspect_ai tasks, scored by widthbench's readers on the engine (docs/inspect.md).

Installed with ``pip install 'widthbench[inspect]'`` and registered through inspect's entry point
group (``inspect_ai``, name ``widthbench``: pyproject.toml), so ``inspect eval
widthbench/plan_verification -T style=nl -T thinking=off -T count=50 -T seed=0 -T domain=blocksworld``
runs one sub-task in one mode. The task functions are made from the sub-task registry when the module
loads (`TASKS`: one per sub-task, named with _ for -); all of them call `widthbench_task`, which builds the items exactly as `widthbench score` does
(`run.build_all_items` on a `ScoreConfig` of the same options: same seeds, same ground truth) or reads
a frozen item set (``-T items=DIR``, what `widthbench export inspect` writes, whose own task file
calls `frozen_task`).

One sample per item, its input the messages `score` sends (the domain context as the system
message, the question as the user message). The solver sends each request of the item (one, or one
per action for successor-separate) with the sampling preset `score` sends for the mode, thinking
switched per request as vLLM takes it for Qwen3 (``extra_body: {chat_template_kwargs:
{enable_thinking: ...}}``, beside ``top_k`` and ``min_p``), and ``max_tokens`` sized per item as
`score` sizes it (`export.max_tokens_for`); the replies go in the sample's store
(``widthbench_replies``). The scorer reads them with both readers and scores them on the item's
truth with the sub-task's own scorer (`score.score_item`), so a sample's verdict is the one `score`
records for the same reply text. Its value holds each metric as read by the flexible reader (the
headline) and the strict one (``<metric>_strict``), and ``parse_error`` / ``parse_error_strict``;
its metadata the reading and the reason of each reader. `widthbench_metrics` aggregates them as
`score`'s summary rows do: means over items, and ``per-action`` as right actions over all actions.

inspect_ai is imported here at the top: this module is loaded only by inspect (the entry point, an
exported task file) or by code that uses it.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessageSystem, ChatMessageUser, GenerateConfig
from inspect_ai.scorer import Metric, SampleScore, Score, Target, metric, scorer
from inspect_ai.solver import Generate, TaskState, solver

from widthbench.core.errors import UserError
from widthbench.generators.domains import DomainRegistry
from widthbench.llm.types import PRESETS, mode_name
from widthbench.subtasks.items import item_to_json
from widthbench.subtasks.harness import frozen
from widthbench.subtasks.answers import HEADLINE_READER, READERS
from widthbench.subtasks.harness.item_sets import max_tokens_for
from widthbench.subtasks.registry import COUNTS, Registry, add_pairs, share
from widthbench.subtasks.scoring import Mode, prompts_for, score_item
from widthbench.subtasks.harness.item_sets import task_name
from widthbench.subtasks.score_run import ScoreConfig, build_all_items

REPLIES = "widthbench_replies"  # the sample store's key of the replies (text, reasoning, stop reason)
PARSE_ERROR = "parse_error"
# Sampling parameters the OpenAI chat API names; the preset's others travel in extra_body, as score sends them.
_CHAT_PARAMS = {"temperature", "top_p", "presence_penalty", "frequency_penalty", "seed"}


def _suffix(reader: str) -> str:
    return "" if reader == HEADLINE_READER else f"_{reader}"


def _thinking(value) -> bool:
    if isinstance(value, bool):
        return value
    if str(value) in ("on", "off"):
        return str(value) == "on"
    raise UserError(f"thinking must be on or off, got {value!r}")


def generate_config(thinking: bool) -> GenerateConfig:
    """The Qwen3 sampling preset of the mode, as `score` sends it, with the thinking switch."""
    preset = dict(PRESETS["qwen3"][mode_name(thinking)])
    chat = {k: v for k, v in preset.items() if k in _CHAT_PARAMS}
    extra = {k: v for k, v in preset.items() if k not in _CHAT_PARAMS}
    extra["chat_template_kwargs"] = {"enable_thinking": thinking}
    return GenerateConfig(**chat, extra_body=extra)


# ---------------------------------------------------------------------------------------------
# The task


def widthbench_task(subtask: str, *, style: str = "nl", thinking="off", count: int = 50, seed: int = 0,
                    domain: str = "blocksworld", instances: str | None = None, items: str | None = None,
                    max_tokens: int | None = None, invalid_kind: str = "non-goal", name: str | None = None) -> Task:
    """The inspect task of ``subtask`` in one mode: its items built as `score` builds them from
    ``domain``/``instances``, ``count`` and ``seed``, or read from the frozen item set ``items``."""
    registry = Registry.default()
    record = registry.get(subtask)
    think = _thinking(thinking)
    if style not in ("nl", "pddl"):
        raise UserError(f"style must be nl or pddl, got {style!r}")
    domains = DomainRegistry.default()
    builtin = domain in domains
    if not builtin and not instances and not items:
        raise UserError(f"domain {domain!r}: generated instances are {domains.listed()}; "
                        "give a domain file together with instances=DIR")
    config = ScoreConfig(subtasks=(subtask,), styles=(style,), thinking=(think,), count=int(count),
                         seed=int(seed), domain=domain if builtin else "blocksworld", instances=instances,
                         domain_file=None if builtin else domain, items=items, invalid_kind=invalid_kind,
                         max_tokens=None if max_tokens is None else int(max_tokens))
    built = build_all_items(config, registry)[subtask]
    mode = Mode(style, think)
    source = {"items": str(Path(items).resolve()) if items else None,
              "items_digest": frozen.read_export(items).get("items_digest") if items else None,
              "settings": {"domain": domain, "instances": instances, "count": int(count), "seed": int(seed),
                           "invalid_kind": invalid_kind}}
    samples = [_sample(item, mode, config.max_tokens, registry) for item in built]
    return Task(dataset=MemoryDataset(samples, name=f"widthbench-{subtask}-{style}"),
                solver=ask_requests(),
                scorer=widthbench_scorer(subtask, think, ItemIndex(f"{len(built)} {subtask} items",
                                                                   {i.id: i for i in built})),
                config=generate_config(think), name=name,
                metadata={"widthbench": {"subtask": subtask, "style": style, "thinking": think,
                                         "metrics": [m.name for m in record.metrics], **source}})


def frozen_task(folder, subtask: str, style: str, thinking: bool) -> Task:
    """A task of an exported folder (`widthbench export inspect`): its frozen items in one mode."""
    meta = frozen.read_export(folder)
    settings = meta.get("settings") or {}
    return widthbench_task(subtask, style=style, thinking=thinking, items=str(folder),
                           max_tokens=settings.get("max_tokens"),
                           name=task_name(meta["domain"], subtask, style, thinking))


def _sample(item, mode: Mode, cap, registry) -> Sample:
    requests = prompts_for(item, mode, registry)
    for messages in requests:
        if [m["role"] for m in messages] != ["system", "user"]:
            raise UserError(f"{item.subtask}: a request that is not a system and a user message "
                            "cannot be an inspect sample")
    first = requests[0]
    return Sample(id=item.id, input=[ChatMessageSystem(content=first[0]["content"]),
                                     ChatMessageUser(content=first[1]["content"])],
                  target=json.dumps(item_to_json(item)["truth"], sort_keys=True),
                  metadata={"subtask": item.subtask, "item_id": item.id, "instance_id": item.instance_id,
                            "style": mode.style, "thinking": mode.thinking,
                            "max_tokens": max_tokens_for(item, mode, cap, registry),
                            "requests": [[m["content"] for m in messages] for messages in requests]})


@solver
def ask_requests():
    """Send each request of the sample's item (max_tokens as `score` sizes it); keep every reply."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        replies = []
        for system, user in state.metadata["requests"]:
            state.messages = [ChatMessageSystem(content=system), ChatMessageUser(content=user)]
            state = await generate(state, max_tokens=state.metadata["max_tokens"])
            out = state.output
            reasoning = [c.reasoning for c in (out.message.content if out.choices and
                                                not isinstance(out.message.content, str) else [])
                         if getattr(c, "type", None) == "reasoning"]
            replies.append({"text": out.completion or "", "reasoning": "\n".join(reasoning) or None,
                            "stop_reason": out.stop_reason if out.choices else None,
                            "usage": out.usage.model_dump() if out.usage else None})
        state.store.set(REPLIES, replies)
        return state

    return solve


# ---------------------------------------------------------------------------------------------
# Scorer and metrics


def sample_values(scored: dict, subtask: str, registry: Registry | None = None) -> tuple[dict, dict]:
    """(score value, per-action counts) of `score.score_item`'s result: each metric by each reader
    (per-action as a fraction, its [right, n] counts apart), and the parse errors as 0/1."""
    registry = registry or Registry.default()
    value, counts = {}, {}
    for reader in READERS:
        reading = scored["readings"][reader]
        suffix = _suffix(reader)
        for metric in registry.get(subtask).metrics:  # aggregated as each metric declares
            m, got = metric.name, reading["metrics"].get(metric.name, 0)
            if metric.aggregate == COUNTS:
                right, n = metric.count(got)
                counts[m + suffix] = [right, n]
                value[m + suffix] = share(right, n)
            else:
                value[m + suffix] = int(got or 0)
        value[PARSE_ERROR + suffix] = int(bool(reading["parse_error"]))
    return value, counts


@metric
def widthbench_metrics() -> Metric:
    """`score`'s summary rows: per key of the score value, the mean over the samples; a per-action
    key as right actions over all actions (the counts in each score's metadata)."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        keys = list(dict.fromkeys(k for s in scores if isinstance(s.score.value, dict) for k in s.score.value))
        out = {}
        for key in keys:
            counts = [(s.score.metadata or {}).get("counts", {}).get(key) for s in scores]
            if any(c is not None for c in counts):  # `registry.add_pairs`, as score's rows add up
                out[key] = share(*add_pairs(c for c in counts if c))
            else:
                out[key] = share(*add_pairs((s.score.value[key], 1) for s in scores))
        return out

    return compute


@dataclass(frozen=True)
class ItemIndex:
    """The items of a task by id, handed to the scorer (inspect logs a scorer argument by its ``name``)."""
    name: str
    items: Mapping


@scorer(metrics=[widthbench_metrics()], name="widthbench")
def widthbench_scorer(subtask: str, thinking: bool, index: ItemIndex):
    """Read the sample's replies with both readers and judge them on the engine (`score.score_item`)."""
    registry = Registry.default()

    async def score(state: TaskState, target: Target) -> Score:
        item = index.items[state.metadata["item_id"]]
        texts = [r["text"] for r in state.store.get(REPLIES) or []]
        scored = score_item(item, Mode(state.metadata["style"], thinking), texts, reader=HEADLINE_READER,
                            registry=registry)
        value, counts = sample_values(scored, subtask, registry)
        head = scored["readings"][HEADLINE_READER]
        readings = {r: {"parsed": x["parsed"], "correct": x["correct"], "parse_error": x["parse_error"],
                        "rule": x.get("rule"), "span": x.get("span")}
                    for r, x in scored["readings"].items()}
        return Score(value=value, answer=None if head["parsed"] is None else str(head["parsed"]),
                     explanation=head["parse_error"] or ("correct" if head["correct"] else "wrong"),
                     metadata={"reader": HEADLINE_READER, "counts": counts, "readings": readings,
                               "truth": scored["truth"]})

    return score


# ---------------------------------------------------------------------------------------------
# One task per sub-task: `inspect eval widthbench/<name>` (the registry's sub-tasks, with _ for -),
# made from the registry when inspect loads this module through the entry point, so a new sub-task
# is a task without a line here. Every task takes the parameters of `widthbench_task` below, plus the
# item options its sub-task reads (`SubTask.item_options`: plan-verification's invalid_kind).

TASK_PARAMETERS = {"style": "nl", "thinking": "off", "count": 50, "seed": 0, "domain": "blocksworld",
                   "instances": None, "items": None, "max_tokens": None}
ITEM_OPTION_DEFAULTS = {"invalid_kind": "non-goal"}


def task_function(record):
    """The inspect task of one sub-task record, registered under its name with _ for -."""
    defaults = {**TASK_PARAMETERS, **{o: ITEM_OPTION_DEFAULTS[o] for o in record.item_options}}

    def make(**kwargs):
        return widthbench_task(record.name, **{**defaults, **kwargs})

    make.__name__ = make.__qualname__ = record.name.replace("-", "_")
    make.__doc__ = f"widthbench's {record.name} sub-task in one mode (docs/inspect.md)."
    make.__signature__ = signature_of(defaults)
    return task(make)


def signature_of(defaults: Mapping) -> inspect.Signature:
    """Keyword parameters with their defaults (what inspect reads as the task's -T parameters)."""
    return inspect.Signature([inspect.Parameter(k, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=v)
                              for k, v in defaults.items()])


# inspect task name -> task: `python -c "from widthbench.subtasks.harness.inspect_tasks import TASKS;
# print(*TASKS)"` lists them (`inspect list tasks` reads task files as text and lists none of these)
TASKS = {record.name.replace("-", "_"): task_function(record) for record in Registry.default()}
