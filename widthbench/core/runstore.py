"""The one run store: the folder a `score`, `solve`, `widths` or `rescore` run writes, created or
resumed under a complete run identity (docs/design.md, "The run store").

A run folder holds ``config.json``::

    {"kind": "score", "run_id": "…", "identity": {…}, "described": {…, "invocations": [...]}}

``identity`` is everything that decides an answer (model, items, instance digests, prompt texts,
sampling values per mode, …): a rerun into the same folder must have the same identity, or it is
refused before any work with one line naming each changed field and its old and new value.
``described`` is what only says how the run was made (server URLs, executor and jobs, the
widthbench version, when each invocation started): it may change between invocations, and each
invocation is appended to its ``invocations``. ``run_id`` is drawn when a run is first made and
kept across resumes (the reply cache records which run made a reply, so that a resumed run counts
its own earlier replies as its own: `widthbench.llm.ledger.ledger_from_calls`).

A folder whose config.json names another identity but holds no answers yet (a run that failed
before its first answer: an unreachable server) is reused freely; ``replace=True`` (the demo, a
rescore, `traces --out`) clears an earlier run of its own kind whatever it holds, never another kind's.

Records are JSON lines appended as they are made (flushed and synced per batch). One policy for a
torn last line (a kill during the write): it is dropped when the store is opened, and its record
is made again; any other line that does not read is a one-line error naming the file and the line
(`widthbench.core.runfiles.read_jsonl`), never a record dropped in silence. Summaries and ledgers are written atomically (a temporary file, then a rename).
Every file the store writes holds ``"schema"`` (`widthbench.core.schema.SCHEMA`): config.json,
each record (a field beside its own) and each summary or ledger. The lifecycle is the same for every
kind (`widthbench.core.schema.RUN_KINDS`: score, solve, widths, rescore, traces): ``open`` ->
``append`` -> ``finish(summary, ledger)``.
Imports only the standard library and layer 0, so every layer may use it.
"""

from __future__ import annotations

import json
import os
import shutil
import time
import uuid
from collections.abc import Callable, Hashable, Iterable
from pathlib import Path
from typing import Any

from widthbench.core.errors import UserError, fitting
from widthbench.core.runfiles import make_output_dir, read_jsonl
from widthbench.core.schema import RUN_KINDS, SCHEMA, migrate_record

CONFIG = "config.json"
RECORDS = "items.jsonl"
SUMMARY = "summary.json"
TOKENS = "tokens.json"
# What a run writes besides config.json and its records: cleared when a run is replaced.
RUN_FILES = ("summary.json", "tokens.json", "trees")


def flatten(data: Any, prefix: str = "") -> dict[str, Any]:
    """A nested dict as {"dotted.key": leaf value}; lists and other values are leaves."""
    if not isinstance(data, dict):
        return {prefix: data} if prefix else {"": data}
    out: dict[str, Any] = {}
    for key, value in data.items():
        name = f"{prefix}.{key}" if prefix else str(key)
        if isinstance(value, dict) and value:
            out.update(flatten(value, name))
        else:
            out[name] = value
    return out


def identity_diff(old: dict, new: dict) -> list[tuple[str, Any, Any]]:
    """[(dotted field, old value, new value)] of every field that differs (missing = None)."""
    a, b = flatten(old), flatten(new)
    return [(k, a.get(k), b.get(k)) for k in dict.fromkeys([*a, *b]) if a.get(k) != b.get(k)]


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, sort_keys=True) if not isinstance(value, str) else repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def diff_text(diffs: list[tuple[str, Any, Any]], width: int = 120) -> str:
    """``field: old -> new`` of each changed field, joined by "; ", as many as fit in about
    ``width`` characters (at least one), then how many more: an error line stays one short line
    however many fields changed."""
    shown, rest = fitting([f"{k}: {_short(o)} -> {_short(n)}" for k, o, n in diffs], width, "; ")
    return "; ".join(shown) + (f"; and {rest} more field{'s' if rest > 1 else ''}" if rest else "")


def answered(record: dict) -> bool:
    """A record that holds an answer (not a request that failed or was never sent)."""
    return not record.get("request_error") and not record.get("skipped")


def write_json(path: Path, data: Any) -> None:
    """Write JSON atomically: a reader never sees half a file, a kill leaves the old one."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def read_json(path: Path) -> dict | None:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return None
    return data if isinstance(data, dict) else None


def _stamped(data: dict) -> dict:
    """``data`` with ``"schema"`` first (this layout's, whatever it held)."""
    return {"schema": SCHEMA, **{k: v for k, v in data.items() if k != "schema"}}


def drop_torn_line(path: Path) -> None:
    """The one torn-line policy: a last line without its newline (a kill during the write) is cut."""
    if not path.is_file():
        return
    data = path.read_bytes()
    if data and not data.endswith(b"\n"):
        with open(path, "rb+") as f:
            f.truncate(data.rfind(b"\n") + 1)


class RunStore:
    """A run folder opened for one run (`RunStore.open`); records keyed by ``key``, each read
    through ``check`` (raises ValueError for a record of the wrong shape: `read_jsonl`)."""

    def __init__(self, path: Path, *, kind: str, run_id: str, identity: dict,
                 key: Callable[[dict], Hashable] | None = None, records: str | None = None, check=None):
        self.path = path
        self.kind = kind
        self.run_id = run_id
        self.identity = identity
        declared = RUN_KINDS.get(kind)
        self.key = key or (declared.key_of if declared else None)
        self.records_path = path / (records or (declared.records if declared else RECORDS))
        self.check = check or (declared.check if declared and declared.fields else None)

    @classmethod
    def open(cls, out: str | os.PathLike, *, kind: str, identity: dict, described: dict | None = None,
             key: Callable[[dict], Hashable] | None = None, records: str | None = None, replace: bool = False,
             what: str = "--out", check=None) -> "RunStore":
        """Create the run folder ``out`` or resume the run in it (see the module docstring). The
        records file and the key of a record are the kind's (`RUN_KINDS`) unless given."""
        path = make_output_dir(out, what)
        old = read_json(path / CONFIG)
        if (path / CONFIG).is_file() and old is None:
            raise UserError(f"{path / CONFIG}: not a run configuration (not valid JSON); use another {what}")
        store = cls(path, kind=kind, run_id="", identity=identity, key=key, records=records, check=check)
        drop_torn_line(store.records_path)
        run_id, invocations = None, []
        if old is not None:
            old_kind = old.get("kind", kind)
            # the earlier run's own records tell whether it holds answers (another kind keeps them
            # in another file)
            held = RUN_KINDS[old_kind].records if old_kind != kind and old_kind in RUN_KINDS \
                else store.records_path.name
            diffs = identity_diff(old.get("identity", {}), identity)
            if old_kind != kind:
                diffs.insert(0, ("kind", old_kind, kind))
            if not diffs:
                run_id = old.get("run_id")
                invocations = list((old.get("described") or {}).get("invocations", []))
            elif (replace and old_kind == kind) or not any(answered(r) for r in read_jsonl(path / held)):
                store.clear(held)
            elif old_kind != kind:
                raise UserError(f"{path} holds a {old_kind} run, not a {kind} run; use another {what}")
            else:
                raise UserError(f"{path} holds a run with other settings ({diff_text(diffs)}); "
                                f"use another {what}")
        store.run_id = run_id or uuid.uuid4().hex
        now = dict(described or {})
        write_json(path / CONFIG, {"schema": SCHEMA, "kind": kind, "run_id": store.run_id, "identity": identity,
                                   "described": {**now, "invocations": invocations + [now]}})
        return store

    def clear(self, records: str | None = None) -> None:
        """Remove the records (``records``: an earlier run's of another kind) and the outputs of an
        earlier run in this folder."""
        declared = RUN_KINDS.get(self.kind)
        for name in (*dict.fromkeys([self.records_path.name, records or self.records_path.name]), *RUN_FILES,
                     *([declared.listed] if declared and declared.listed else [])):
            p = self.path / name
            if p.is_dir():
                shutil.rmtree(p)
            elif p.exists():
                p.unlink()

    def _read(self) -> list[dict]:
        return read_jsonl(self.records_path, check=self.check)

    def records(self) -> list[dict]:
        """The latest record per key, in the order their keys were first written."""
        return latest_records(self.records_path, self.key, check=self.check)

    def done(self) -> set:
        """Keys of the records that hold an answer (failed and skipped ones are asked again)."""
        return {self.key(r) for r in self.records() if answered(r)}

    def append(self, records: Iterable[dict]) -> None:
        """Add records (each with ``"schema"``), flushed and synced."""
        lines = "".join(json.dumps(_stamped(r), ensure_ascii=False) + "\n" for r in records)
        if not lines:
            return
        with open(self.records_path, "a", encoding="utf-8") as f:
            f.write(lines)
            f.flush()
            os.fsync(f.fileno())
        _hold_for_tests(self.records_path)

    def write_json(self, name: str, data: Any) -> Path:
        """Write RUN/name atomically; a JSON object gets ``"schema"``."""
        write_json(self.path / name, _stamped(data) if isinstance(data, dict) else data)
        return self.path / name

    def write_jsonl(self, name: str, records: Iterable[dict]) -> Path:
        """Write RUN/name, a JSON-lines file of results listed whole (widths.jsonl), atomically, each
        record with ``"schema"``."""
        tmp = self.path / (name + ".tmp")
        tmp.write_text("".join(json.dumps(_stamped(r), ensure_ascii=False) + "\n" for r in records),
                       encoding="utf-8")
        os.replace(tmp, self.path / name)
        return self.path / name

    def finish(self, summary: dict, ledger: dict | None = None) -> Path:
        """The end of a run: summary.json (with ``"schema"`` and the kind's ``"kind"`` unless it names
        its own) and, given one, the token ledger tokens.json."""
        declared = RUN_KINDS.get(self.kind)
        kind = summary.get("kind") or (declared.says if declared else self.kind)
        path = self.write_json(SUMMARY, {"kind": kind, **summary})
        if ledger is not None:
            self.write_json(TOKENS, ledger)
        return path

    def read_json(self, name: str) -> dict | None:
        return read_json(self.path / name)


#: The tests' handle on a run in mid-write (tests/test_run_store.py): with ``WIDTHBENCH_HOLD_AT=N`` in
#: the environment, a process whose records file reaches N lines stops there and waits for a signal,
#: so that a test interrupts it at a point it chose, on a machine of any speed. While it waits, the
#: file ``<records file>.held`` exists: the test signals only a process that is holding.
HOLD_AT = "WIDTHBENCH_HOLD_AT"
HELD = ".held"


def _hold_for_tests(path: Path) -> None:
    at = os.environ.get(HOLD_AT)
    if not at:
        return
    with open(path, "rb") as f:
        if f.read().count(b"\n") < int(at):
            return
    os.environ.pop(HOLD_AT)
    path.with_name(path.name + HELD).touch()
    while True:  # until a signal ends the process (SIGINT: KeyboardInterrupt, exit 130)
        time.sleep(0.05)


def latest_records(path: str | os.PathLike, key: Callable[[dict], Hashable], check=None) -> list[dict]:
    """The latest record per ``key`` of a JSON-lines file, in the order the keys were first
    written, each as the code reads it (`widthbench.core.schema.migrate_record`: without its
    ``"schema"``) (`read_jsonl`: a torn last line is passed over, its record is made again; a damaged
    line elsewhere, or a record ``check`` refuses, is a `UserError`)."""
    latest: dict[Hashable, dict] = {}
    for rec in read_jsonl(path, check=check):
        rec = migrate_record(rec, path)
        latest[key(rec)] = rec
    return list(latest.values())
