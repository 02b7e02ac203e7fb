"""The token ledger: prompt, completion and thinking tokens per purpose, per mode and in total.

Cached replies count with the tokens they cost when they were made, so a resumed or rerun experiment
reports the same costs as a clean one; `cached` and `requests` say how many were actually sent.
`completion` includes `thinking` (as vLLM's usage does); `answer` = completion − thinking.
A reply whose thinking could not be counted adds to `thinking_uncounted`, never silently to 0.
A request skipped because its prompt does not fit the server's context (never sent) counts in
`calls` and `skipped` only.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from widthbench.llm.types import Reply

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
