"""Run folders on disk: the one reader of RUN/summary.json and of the runs' JSON-lines files.

Every run writes ``summary.json`` with a ``"kind"`` ("score" for the sub-task grid, "solve" for tree
searches); reports read it through `load_summary`, which turns a missing file, bad JSON or the
wrong kind into a one-line `UserError`. Imports only the standard library and widthbench.errors, so
any layer may use it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from widthbench.errors import UserError

SUMMARY = "summary.json"

# What a user runs to make a finished folder of each kind.
_MAKES = {"score": "widthbench score", "solve": "widthbench solve"}


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


def read_jsonl(path: str | os.PathLike) -> list[dict]:
    """The records of a JSON-lines file written as a run goes (none if it does not exist). A line
    cut by a kill, or blank, is skipped: the run redoes its item."""
    out = []
    path = Path(path)
    if not path.is_file():
        return out
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError:
                continue
    return out


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
