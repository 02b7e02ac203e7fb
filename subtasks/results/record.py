"""A score run's record (one line of items.jsonl) and each reader's judgement of it, as typed values.

`score` builds a record per item and mode (per sample with --samples: `score_run.answer_record`)
and every command that reads a score run reads it back through `ScoreRecord.from_json`, which
checks its shape: a line that lacks a field the results need, or holds one of the wrong type, is
refused in one line naming the file, the line and the field (`score_run.read_records`), instead
of failing later inside a report. The record's other fields (the prompt, the replies, the item,
the trace, ...) and the cell's fields as the record spells them are kept in ``more`` as written, so
that ``ScoreRecord.from_json(r).to_json() == r`` for every record `score` writes.

    Judged(parsed, correct, metrics, parse_error, more)      what one reader made of the answer
    ScoreRecord(cell, item_id, model, reader, readings, tokens, request_error, skipped, sample, more)
    record.reading(reader) -> Judged | None
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from widthbench.subtasks.results.cells import Cell

_JUDGED = ("parsed", "correct", "metrics", "parse_error")


@dataclass(frozen=True, slots=True)
class Judged:
    """One reader's judgement: what it ``parsed``, whether it is ``correct``, the sub-task's
    ``metrics`` and its ``parse_error`` (None when it read); ``more``: what the reader adds (the
    flexible reader's ``span`` and ``rule``, the readings of an ambiguous answer)."""

    parsed: Any
    correct: bool | None
    metrics: Mapping[str, Any]
    parse_error: str | None
    more: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict:
        return {"parsed": self.parsed, "correct": self.correct, "metrics": dict(self.metrics),
                "parse_error": self.parse_error, **self.more}

    @classmethod
    def from_json(cls, data: Mapping) -> Judged:
        if not isinstance(data, Mapping):
            raise ValueError(f"a reading is an object, not {type(data).__name__}")
        metrics = data.get("metrics") or {}
        if not isinstance(metrics, Mapping):
            raise ValueError(f"'metrics' is an object, not {type(metrics).__name__}")
        error = data.get("parse_error")
        if error is not None and not isinstance(error, str):
            raise ValueError(f"'parse_error' is text or null, not {type(error).__name__}")
        return cls(data.get("parsed"), data.get("correct"), metrics, error,
                   {k: v for k, v in data.items() if k not in _JUDGED})


def _text(data: Mapping, name: str) -> str:
    if name not in data:
        raise ValueError(f"the record has no '{name}'")
    if not isinstance(data[name], str):
        raise ValueError(f"'{name}' is text, not {type(data[name]).__name__}")
    return data[name]


@dataclass(frozen=True, slots=True)
class ScoreRecord:
    """One item-mode (or sample) of a score run (module docstring). ``reader`` is the reader whose
    judgement the record repeats at its top (None for a record of one reader, from before there
    were two); ``readings`` holds every reader's."""

    cell: Cell
    item_id: str
    model: str | None
    reader: str | None
    readings: Mapping[str, Judged]
    tokens: Mapping[str, Any] | None
    request_error: str | None
    skipped: Any
    sample: int | None
    more: Mapping[str, Any]
    order: tuple[str, ...]  # the record's fields in the order it was written

    @property
    def answered(self) -> bool:
        """An answer to judge: neither a failed request nor a skipped item-mode."""
        return not self.request_error and not self.skipped

    def reading(self, reader: str) -> Judged | None:
        return self.readings.get(reader)

    @classmethod
    def from_json(cls, data: Mapping) -> ScoreRecord:
        """The typed record of a line of items.jsonl (ValueError naming what is wrong)."""
        if not isinstance(data, Mapping):
            raise ValueError("a record is an object")
        for name in ("subtask", "item_id", "style"):
            _text(data, name)
        if "thinking" not in data:
            raise ValueError("the record has no 'thinking'")
        cell = Cell.of(data)
        raw = data.get("readings")
        if raw is not None and not isinstance(raw, Mapping):
            raise ValueError(f"'readings' is an object, not {type(raw).__name__}")
        try:
            top = Judged.from_json(data)  # the headline's judgement, repeated at the top
            if raw is None:  # a record of one reader: its own fields are its reading
                readings = {data.get("reader") or "strict": top}
            else:
                readings = {name: Judged.from_json(got) for name, got in raw.items()}
        except ValueError as exc:
            raise ValueError(f"reading: {exc}") from None
        tokens = data.get("tokens")
        if tokens is not None and not isinstance(tokens, Mapping):
            raise ValueError(f"'tokens' is an object, not {type(tokens).__name__}")
        sample = data.get("sample")
        if sample is not None and (not isinstance(sample, int) or isinstance(sample, bool) or sample < 0):
            raise ValueError(f"'sample' is a whole number >= 0, not {sample!r}")
        typed = ("item_id", "model", "reader", "readings", "tokens", "request_error", "skipped", "sample")
        return cls(cell=cell, item_id=data["item_id"], model=data.get("model"), reader=data.get("reader"),
                   readings=readings, tokens=tokens, request_error=data.get("request_error"),
                   skipped=data.get("skipped"), sample=sample,
                   more={k: v for k, v in data.items() if k not in typed}, order=tuple(data))

    def to_json(self) -> dict:
        """The record as items.jsonl holds it (its fields in their written order)."""
        typed = {"item_id": self.item_id, "model": self.model, "reader": self.reader,
                 "readings": {name: j.to_json() for name, j in self.readings.items()}, "tokens": self.tokens,
                 "request_error": self.request_error, "skipped": self.skipped, "sample": self.sample}
        out = {}
        for k in self.order:
            out[k] = self.more[k] if k in self.more else typed[k]
        return out
