"""The layout of a run folder: its schema number, the kinds of run, and the one migration of a folder
written by an earlier layout (docs/design.md, "The run store").

    SCHEMA                          the layout this widthbench writes (2)
    RUN_KINDS["score"]              a kind: its records file, the fields that key a record, ...
    migrate(run_dir, config, summary) -> (kind, config, summary)

Every file a run writes says its layout: config.json, summary.json and tokens.json hold ``"schema"``
at the top, and every line of a JSON-lines records file holds ``"schema"`` beside the record's own
fields (a field in each record, not a header line: each line stays one whole record, as the tools
that read JSON lines expect). Layout 1 is a folder written before the field existed: no file holds
it. `migrate` is the one place an earlier layout is read; a folder of a layout this widthbench does
not know (a newer one) is refused in one line that names its schema. Imports only the standard
library and layer 0.
"""

from __future__ import annotations

import os
from collections.abc import Hashable
from dataclasses import dataclass
from pathlib import Path

from widthbench.core.errors import UserError

SCHEMA = 2
# 1: before "schema" existed (widthbench up to commit c1767de): no file holds the field.
KNOWN = (1, 2)


@dataclass(frozen=True, slots=True)
class RunKind:
    """What a kind of run declares to the store: its records file and the fields that key a record
    (the latest record per key counts), the ``kind`` its summary.json names, and the file of records
    a report reads (the records file unless the run lists its results apart)."""

    name: str
    records: str
    key: tuple[str, ...]
    summary_kind: str = ""
    listed: str = ""
    # the fields every record holds, with their JSON types: what its summary is computed from
    fields: tuple[tuple[str, tuple[type, ...]], ...] = ()

    def key_of(self, record: dict) -> Hashable:
        return tuple(_hashable(record.get(f)) for f in self.key)

    def check(self, record: dict) -> None:
        """ValueError naming the first declared field the record lacks or holds with another type
        (the run store and the loader say it as the file and line: `runfiles.read_jsonl`)."""
        for name, types in self.fields:
            if name not in record:
                raise ValueError(f"the record has no '{name}'")
            if not isinstance(record[name], types):
                raise ValueError(f"'{name}' is {_JSON_NAMES.get(types, types[0].__name__)}, "
                                 f"not {type(record[name]).__name__}")

    @property
    def shown(self) -> str:
        """The file a report reads the run's records from."""
        return self.listed or self.records

    @property
    def says(self) -> str:
        """The ``kind`` its summary.json names."""
        return self.summary_kind or self.name


_NUMBER = (int, float)
_JSON_NAMES = {(str,): "text", (bool,): "true or false", _NUMBER: "a number", (dict,): "an object",
               (str, type(None)): "text or null"}
_SOLVE_FIELDS = (("id", (str,)), ("domain", (str, type(None))), ("solved", (bool,)), ("plan_valid", (bool,)),
                 ("goal_claimed", (bool,)), ("tokens", _NUMBER), ("states_generated", _NUMBER),
                 ("states_pruned", _NUMBER), ("dead_nodes", _NUMBER), ("llm_calls", _NUMBER),
                 ("wall_time", _NUMBER), ("tokens_by_purpose", (dict,)))


def _hashable(value):
    return tuple(value) if isinstance(value, list) else value


RUN_KINDS = {k.name: k for k in (
    RunKind("score", "items.jsonl", ("subtask", "item_id", "style", "thinking", "extension")),
    RunKind("solve", "items.jsonl", ("id",), fields=_SOLVE_FIELDS),
    # a widths run records each finished job (resumed by job); its rows are listed in widths.jsonl
    RunKind("widths", "widths.jobs.jsonl", ("key",), listed="widths.jsonl"),
    RunKind("rescore", "answers.jsonl", ("file", "instance_id", "task"), summary_kind="rescore-planbench"),
    RunKind("traces", "traces.jsonl", ("subtask", "item_id", "mode", "reply")),
)}
_BY_SUMMARY = {k.says: k.name for k in RUN_KINDS.values()}


def schema_of(data: dict, where: str | os.PathLike) -> int:
    """The layout a file says it has (1 when it says none); a layout this widthbench cannot read is a
    one-line `UserError` naming the file and the schema."""
    value = data.get("schema", 1)
    if isinstance(value, bool) or value not in KNOWN:
        raise UserError(f"{where}: schema {value!r}, which this widthbench cannot read (it reads schemas "
                        f"{KNOWN[0]} to {SCHEMA}; a newer widthbench wrote it?)")
    return value


def migrate(run_dir: str | os.PathLike, config: dict | None, summary: dict) -> tuple[str, dict | None, dict]:
    """THE migration: (kind, config.json, summary.json) of a run folder as this layout has them.

    The kind is config.json's (the store's), else the one summary.json names. A layout-1 folder
    differs in two ways, both mended here: a widths summary names no kind (its config.json does), and
    a `traces --out` folder has no config.json and a summary without a kind (it is told by its
    traces.jsonl). Any other file of a layout-1 run reads as it is."""
    run_dir = Path(run_dir)
    schema_of(summary, run_dir / "summary.json")
    if config is not None:
        schema_of(config, run_dir / "config.json")
    kind = (config or {}).get("kind") or _BY_SUMMARY.get(summary.get("kind", ""), summary.get("kind", ""))
    if not kind and config is None and "cells" in summary and (run_dir / RUN_KINDS["traces"].records).is_file():
        kind = "traces"
    if kind not in RUN_KINDS:
        raise UserError(f"unknown summary kind {kind!r} in {run_dir / 'summary.json'}: expected "
                        + ", ".join(repr(k) for k in RUN_KINDS))
    summary = {**summary, "schema": SCHEMA, "kind": summary.get("kind") or RUN_KINDS[kind].says}
    return kind, config, summary


def migrate_record(record: dict, where: str | os.PathLike) -> dict:
    """A record as the code reads it: its own fields, without the ``"schema"`` that says its layout
    (layout-1 records read as they are); a record of a layout this widthbench cannot read is refused
    in one line naming the file."""
    if "schema" not in record:
        return record
    schema_of(record, where)
    return {k: v for k, v in record.items() if k != "schema"}
