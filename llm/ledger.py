"""The token ledger: prompt, completion and thinking tokens per purpose, per mode and in total.

Cached replies count with the tokens they cost when they were made, so a resumed or rerun experiment
reports the same costs as a clean one; `cached` and `requests` say how many were actually sent.
`completion` includes `thinking` (as vLLM's usage does); `answer` = completion − thinking.
A reply whose thinking could not be counted adds to `thinking_uncounted`, never silently to 0.
A request skipped because its prompt does not fit the server's context (never sent) counts in
`calls` and `skipped` only.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from widthbench.llm.types import Reply, Request

_FIELDS = ("calls", "cached", "sent", "errors", "skipped", "truncated", "prompt", "completion",
           "thinking", "answer", "thinking_uncounted", "latency")


@dataclass(slots=True)
class _Totals:
    calls: int = 0
    cached: int = 0
    sent: int = 0
    errors: int = 0
    skipped: int = 0
    truncated: int = 0
    prompt: int = 0
    completion: int = 0
    thinking: int = 0
    answer: int = 0
    thinking_uncounted: int = 0
    latency: float = 0.0

    def add(self, reply: Reply) -> None:
        self.calls += 1
        if reply.error is not None:
            self.errors += 1
            return
        if reply.skipped is not None:
            self.skipped += 1
            return
        self.cached += reply.cached
        self.sent += not reply.cached
        self.truncated += reply.finish_reason == "length"
        self.prompt += reply.prompt_tokens
        self.completion += reply.completion_tokens
        if reply.thinking_tokens is None:
            self.thinking_uncounted += 1
        else:
            self.thinking += reply.thinking_tokens
        self.answer += reply.completion_tokens - (reply.thinking_tokens or 0)
        self.latency += reply.latency

    def to_dict(self) -> dict[str, Any]:
        out = {name: getattr(self, name) for name in _FIELDS}
        out["latency"] = round(self.latency, 3)
        return out


class Ledger:
    """Token totals of a run. `add(reply, purpose, mode)`; `to_dict()`; `write(path)` (JSON)."""

    def __init__(self, run: str = "", models: Mapping[str, bool] | None = None):
        self.run = run
        self.models: dict[str, bool] = dict(models or {})  # model name -> simulated
        self.total = _Totals()
        self.by_purpose: dict[str, _Totals] = {}
        self.by_mode: dict[str, _Totals] = {}
        self.by_purpose_mode: dict[str, _Totals] = {}

    def add(self, reply: Reply, purpose: str, mode: str) -> None:
        if reply.model:
            self.models[reply.model] = self.models.get(reply.model, False) or reply.simulated
        self.total.add(reply)
        for table, key in ((self.by_purpose, purpose), (self.by_mode, mode),
                           (self.by_purpose_mode, f"{purpose}/{mode}")):
            table.setdefault(key, _Totals()).add(reply)

    def merge(self, other: "Ledger") -> None:
        """Add another ledger's totals (e.g. one per worker) into this one."""
        for name, sim in other.models.items():
            self.models[name] = self.models.get(name, False) or sim
        for mine, theirs in ((self.by_purpose, other.by_purpose), (self.by_mode, other.by_mode),
                             (self.by_purpose_mode, other.by_purpose_mode)):
            for key, totals in theirs.items():
                _add_totals(mine.setdefault(key, _Totals()), totals)
        _add_totals(self.total, other.total)

    @property
    def simulated(self) -> bool:
        return any(self.models.values())

    def to_dict(self) -> dict[str, Any]:
        return {
            "run": self.run,
            "simulated": self.simulated,
            "models": dict(sorted(self.models.items())),
            "total": self.total.to_dict(),
            "by_purpose": {k: v.to_dict() for k, v in sorted(self.by_purpose.items())},
            "by_mode": {k: v.to_dict() for k, v in sorted(self.by_mode.items())},
            "by_purpose_mode": {k: v.to_dict() for k, v in sorted(self.by_purpose_mode.items())},
        }

    def write(self, path: str | os.PathLike[str]) -> Path:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(path.suffix + ".tmp")
        tmp.write_text(json.dumps(self.to_dict(), indent=2) + "\n")
        os.replace(tmp, path)
        return path


def _add_totals(into: _Totals, other: _Totals) -> None:
    for name in _FIELDS:
        setattr(into, name, getattr(into, name) + getattr(other, name))


# ---- the ledger of a run folder -------------------------------------------------------------------
# A run's tokens.json is computed from its records, never from what one invocation saw: each record
# keeps one entry per model call (`call_entry`), and `ledger_from_calls` folds the entries of the
# run's final records in their order. A run interrupted and resumed any number of times therefore
# reports the same ledger as the run made in one go: replies its earlier invocations received and
# that came back from the reply cache were made by this run (`Reply.made_by`) and count as sent;
# `cached` counts replies made by other runs, and repeats of a request earlier in the same run.
# Wall-clock latency is not in it (a timing, recorded beside the run).

def request_key(request: Request) -> str:
    """What tells two calls of one run apart: the request's messages, thinking, seed, max_tokens and
    constraint (the model and its sampling values are the run's own)."""
    data = {"messages": request.message_dicts(), "thinking": request.thinking, "seed": request.seed,
            "max_tokens": request.max_tokens, "params": dict(request.params),
            "constraint": dict(request.constraint) if request.constraint is not None else None,
            **({"tools": request.tool_dicts()} if request.tools else {})}
    return hashlib.sha256(json.dumps(data, sort_keys=True, ensure_ascii=False).encode("utf-8")).hexdigest()


def call_entry(request: Request, reply: Reply) -> dict[str, Any]:
    """What the run ledger needs of one call."""
    return {"key": request_key(request), "purpose": request.purpose, "mode": request.mode, "model": reply.model,
            "simulated": bool(reply.simulated), "cached": bool(reply.cached), "made_by": reply.made_by,
            "error": reply.error is not None, "skipped": reply.skipped is not None,
            "finish_reason": reply.finish_reason, "prompt": reply.prompt_tokens,
            "completion": reply.completion_tokens, "thinking": reply.thinking_tokens}


def ledger_from_calls(calls: list[dict[str, Any]], run_id: str) -> dict[str, Any]:
    """The run's ledger (`Ledger.to_dict` without latency) from its call entries, in run order."""
    ledger = Ledger(run=run_id)
    seen: set[str] = set()
    for c in calls:
        from_elsewhere = c["cached"] and c.get("made_by") != run_id
        repeat = c["key"] in seen
        if not c["error"] and not c["skipped"]:
            seen.add(c["key"])
        reply = Reply(text="", prompt_tokens=c["prompt"], completion_tokens=c["completion"],
                      thinking_tokens=c["thinking"], finish_reason=c["finish_reason"],
                      cached=bool(from_elsewhere or repeat), model=c.get("model") or "",
                      simulated=bool(c.get("simulated")),
                      error="failed" if c["error"] else None, skipped="skipped" if c["skipped"] else None)
        ledger.add(reply, c["purpose"], c["mode"])
    out = ledger.to_dict()
    for table in [out["total"], *out["by_purpose"].values(), *out["by_mode"].values(),
                  *out["by_purpose_mode"].values()]:
        table.pop("latency", None)
    return out
