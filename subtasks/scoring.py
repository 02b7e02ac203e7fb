"""Asking items in one mode and scoring the replies symbolically, with both readers.

`requests_for(item, mode)` builds the model requests of one item in one mode (one request, or one
per action for successor-separate); `score_item(item, mode, replies)` reads the replies with each
reader (`strict` and `flexible`, docs/subtasks.md "Readers") and compares what was read with the
item's truth. Nothing is judged by a model. An answer that cannot be read is a parse error: the
item counts as wrong and the error is recorded apart. The metrics of each sub-task are in its
record (`widthbench.subtasks.registry`); the first is its headline.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from widthbench.pddl_domains.readers import Ambiguous, Reading, alike
from widthbench.subtasks.answers import HEADLINE_READER, READERS, read_all
from widthbench.subtasks.items import Item, derive_seed
from widthbench.llm import Request
from widthbench.llm.types import max_tokens_for_answer, mode_name
from widthbench.subtasks.registry import Registry


@dataclass(frozen=True, slots=True)
class Mode:
    style: str  # "pddl" | "nl"
    thinking: bool
    extension: bool = False  # action-single only: the domain's prompt extension

    @property
    def label(self) -> str:
        return f"{self.style}/{mode_name(self.thinking)}" + ("/ext" if self.extension else "")


def _registry(registry):
    return registry or Registry.default()


def prompts_for(item: Item, mode: Mode, registry=None) -> list[list[dict]]:
    """The chat messages of each request of ``item`` in ``mode``."""
    return _registry(registry).get(item.subtask).prompts(item, mode)


def constraint_for(item: Item, mode: Mode, registry=None) -> dict | None:
    """vLLM ``structured_outputs`` for the item's answers under constrained decoding."""
    return _registry(registry).get(item.subtask).answer.constraint(item, mode.style)


def requests_for(item: Item, mode: Mode, seed: int | None, max_tokens: int | None = None, *,
                 constrained: bool = False, registry=None) -> list:
    """The requests of ``item`` in ``mode``; ``seed`` (the run seed) gives each request its own
    sampling seed, None sends none (the server samples freshly; the reply cache still makes reruns
    repeat the same answers). ``constrained`` adds the answer kind's decoding constraint."""
    extra = {"constraint": constraint_for(item, mode, registry)} if constrained else {}
    if max_tokens is None:
        max_tokens = default_max_tokens(item, mode, registry)
    return [Request(messages=m, thinking=mode.thinking, purpose=item.subtask, max_tokens=max_tokens,
                    seed=None if seed is None else derive_seed(seed, item.id, n) % 2**31, **extra)
            for n, m in enumerate(prompts_for(item, mode, registry))]


def default_max_tokens(item: Item, mode: Mode, registry=None) -> int | None:
    """max_tokens for ``item`` when none is given (`llm.types.max_tokens_for_answer`): the
    per-mode default unless the record's estimate of a correct answer (``answer_tokens``: word
    pieces times TOKEN_SAFETY, as the novelty prompt budget counts) does not fit in it."""
    size_of = _registry(registry).get(item.subtask).answer_tokens
    if size_of is None:
        return None
    return max_tokens_for_answer(size_of(item, mode.style), mode.thinking)


def score_with(item: Item, mode: Mode, texts: list[str], reader: str, registry=None) -> dict:
    """{"parsed", "truth", "correct", "metrics", "parse_error"} of one reader (JSON-ready); the
    flexible reader adds "span" and "rule" (lists for multi-request items)."""
    record = _registry(registry).get(item.subtask)
    outcomes = read_all(record.answer, reader, item, texts, mode.style)
    outcomes = _judged_alike(record, item, mode, outcomes)
    out = record.score(item, mode, outcomes)
    if len(outcomes) == 1 and getattr(outcomes[0], "ambiguous", ()):
        out["ambiguous"] = [_json_value(v) for v in outcomes[0].ambiguous]
    if reader != "strict":
        spans = [None if isinstance(o, Exception) else (list(o.span) if o.span else None) for o in outcomes]
        rules = [None if isinstance(o, Exception) else o.rule for o in outcomes]
        out["span"], out["rule"] = (spans[0], rules[0]) if len(texts) == 1 else (spans, rules)
    return out


def _judged_alike(record, item: Item, mode: Mode, outcomes: list) -> list:
    """A one-reply item whose reply reads several ways (`readers.Ambiguous`) is scored when every
    reading scores alike (the same ``correct`` and ``metrics``, the metrics' free-text ``reason``
    aside: two plans failing at step 1 fail for their own actions): its first reading, the others in
    ``ambiguous`` (`readers.alike`); otherwise it stays a parse error."""
    if len(outcomes) != 1 or not isinstance(outcomes[0], Ambiguous):
        return outcomes
    exc = outcomes[0]

    def verdict(value):
        scored = record.score(item, mode, [Reading(value)])
        metrics = {k: v for k, v in scored["metrics"].items() if k != "reason"}
        return json.dumps([scored["correct"], metrics], sort_keys=True, default=str)

    try:
        return [alike(exc, verdict)]
    except Ambiguous as again:
        return [again]


def _json_value(v):
    return list(v) if isinstance(v, tuple) else v


def score_item(item: Item, mode: Mode, texts: list[str], *, reader: str = HEADLINE_READER,
               registry=None) -> dict:
    """The headline reader's result (``parsed``, ``truth``, ``correct``, ``metrics``,
    ``parse_error``) plus ``reader`` (which one that is) and ``readings`` (every reader's result)."""
    readings = {r: score_with(item, mode, texts, r, registry) for r in READERS}
    head = readings[reader]
    out = {k: head[k] for k in ("parsed", "truth", "correct", "metrics", "parse_error")}
    out["reader"] = reader
    out["readings"] = {r: {k: v for k, v in res.items() if k != "truth"} for r, res in readings.items()}
    return out
