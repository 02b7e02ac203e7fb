"""Run folders on disk: the one reader of RUN/summary.json and of the runs' JSON-lines files, the
one maker of output folders (`check_output_dir`, `make_output_dir`), and the one check of a file a
command reads (`input_file`).

Every run writes ``summary.json`` with a ``"kind"`` ("score" for the sub-task grid, "solve" for tree
searches); reports read it through `load_summary`, which turns a missing file, bad JSON or the
wrong kind into a one-line `UserError`. The JSON-lines files (`read_jsonl`) pass over only a torn
last line (a kill during the write); any other line that does not read is a one-line `UserError`
naming the file and the line. An output or cache folder that cannot be made (a file is
there or above it, or nothing may be created there, such as /proc/x) is a one-line `UserError` too,
raised before anything is written. Imports only the standard library and widthbench.core.errors, so
any layer may use it.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from pathlib import Path

from widthbench.core.errors import UserError

SUMMARY = "summary.json"

# What a user runs to make a finished folder of each kind.
_MAKES = {"score": "widthbench score", "solve": "widthbench solve"}


def check_output_dir(path: str | os.PathLike, what: str = "output folder") -> Path:
    """``path`` as a Path if a folder is there or can be made there; else a one-line `UserError`
    that starts with ``what`` (e.g. "--out") and the path. Creates nothing: commands call it before
    they do any work, so a bad --out fails at once and leaves nothing behind."""
    p = Path(path)
    where, base = f"{what} {path}", p
    try:
        if p.exists() and not p.is_dir():
            raise UserError(f"{where}: a file is there, not a folder")
        while not base.exists() and base != base.parent:
            base = base.parent
        if not base.is_dir():
            raise UserError(f"{where}: {base} is a file, not a folder")
        # Permission bits do not tell (root may write anywhere but /proc, read-only mounts): try.
        os.rmdir(tempfile.mkdtemp(prefix=".widthbench-probe-", dir=base))
    except OSError as exc:
        raise UserError(f"{where}: nothing can be created in {base} ({exc.strerror or exc})") from None
    return p


def make_output_dir(path: str | os.PathLike, what: str = "output folder") -> Path:
    """Create the folder ``path`` (and its parents) unless it exists; a one-line `UserError` when it
    cannot be made (`check_output_dir`)."""
    p = check_output_dir(path, what)
    try:
        p.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UserError(f"{what} {path}: cannot create it ({exc.strerror or exc})") from None
    return p


@contextlib.contextmanager
def removed_if_left_empty(path: str | os.PathLike):
    """Around a command's work: if it fails, the folders it created for ``path`` (the folder and any
    new parents) that are still empty are removed, so that bad input (a mistyped --instances) leaves
    no empty run folder behind. Anything written into them stays (a killed run resumes)."""
    p = Path(path).absolute()
    new = [d for d in (p, *p.parents) if not d.exists()]  # deepest first
    try:
        yield
    except BaseException:
        for d in new:
            try:
                d.rmdir()  # only an empty folder
            except OSError:
                break
        raise


def input_file(path: str | os.PathLike, what: str) -> Path:
    """``path`` as a Path if a file can be read there: a regular file, or anything but a folder that
    reads like one (/dev/null, a FIFO, /dev/stdin); else a one-line `UserError` that starts with
    ``what`` ("plan file"): "not found" only when nothing is there. What the file holds (nothing at
    all, for /dev/null) is for its reader to say."""
    p = Path(path)
    if p.is_dir():
        raise UserError(f"{what} {p}: a folder, not a file")
    if not p.exists():
        raise UserError(f"{what} not found: {p}")
    return p


def summary_kind(run_dir: str | os.PathLike) -> str:
    """The ``"kind"`` of RUN/summary.json ("" when the file has none)."""
    return str(_read(Path(run_dir)).get("kind", ""))


def load_summary(run_dir: str | os.PathLike, kind: str | None = None) -> dict:
    """RUN/summary.json as a dict; with ``kind``, refuse a summary of another kind."""
    run_dir = Path(run_dir)
    summary = _read(run_dir)
    if kind is not None and summary.get("kind") != kind:
        raise UserError(f"{run_dir / SUMMARY}: kind {summary.get('kind')!r}, expected {kind!r} "
                        f"(a folder written by `{_MAKES.get(kind, 'widthbench')} --out {run_dir}`)")
    return summary


def read_jsonl(path: str | os.PathLike, check=None) -> list[dict]:
    """The records of a JSON-lines file (none if it does not exist). One policy for every run file
    written as JSON lines (docs/design.md, "The run store"): a last line without its newline that
    does not read (a kill during the write) is left out, and its record is made again when the run
    is resumed (the run store cuts it); any other line that is not a JSON object is a one-line
    `UserError` naming the file and the line, so that no record is ever dropped silently. Blank
    lines hold no record and are passed over. ``check(record)`` raises ValueError for a record of
    the wrong shape, said as a `UserError` naming the file and the line (a score run's
    `ScoreRecord.from_json`)."""
    out = []
    path = Path(path)
    if not path.exists() or path.is_dir():
        return out
    try:
        with open(path, "rb") as f:
            lines = f.read().split(b"\n")
    except OSError as exc:
        raise UserError(f"{path}: cannot read ({exc.strerror or exc})") from None
    last = len(lines)  # the piece after the last newline: b"" unless the last line is torn
    for n, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError as exc:  # JSONDecodeError, or bytes that are not UTF-8
            if n == last:
                continue
            raise UserError(f"{path}:{n}: not JSON ({_why(exc)}), a damaged line (only a torn last "
                            "line is passed over): repair or delete it") from None
        if not isinstance(record, dict):
            raise UserError(f"{path}:{n}: not a record (a JSON object expected)")
        if check is not None:
            try:
                check(record)
            except ValueError as exc:
                raise UserError(f"{path}:{n}: not a record of this run ({exc})") from None
        out.append(record)
    return out


def _why(exc: ValueError) -> str:
    return exc.msg if isinstance(exc, json.JSONDecodeError) else "not UTF-8 text"


def _read(run_dir: Path) -> dict:
    path = run_dir / SUMMARY
    if not path.is_file():
        raise UserError(f"{run_dir}: no {SUMMARY} (not a finished run folder)")
    try:
        summary = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise UserError(f"{path}: not valid JSON ({exc.msg}, line {exc.lineno})") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"{path}: cannot read ({exc})") from None
    if not isinstance(summary, dict):
        raise UserError(f"{path}: not a summary (a JSON object expected)")
    return summary
