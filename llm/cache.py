"""The on-disk reply cache: one SQLite file in WAL mode, safe for concurrent writers.

Each successful reply is committed as soon as it arrives, so a run killed at any point keeps every
reply it received, and a restart sends only the missing requests. Failed replies (error set) are never
stored: a rerun retries them. The key is `types.cache_key` (model, base model, messages, sampling
parameters, thinking, seed); the canonical request JSON is stored beside the reply for inspection.

Location: `cache_dir` argument, else $WIDTHBENCH_CACHE_DIR, else $XDG_CACHE_HOME/widthbench/llm
(~/.cache/widthbench/llm). Read when a model is opened, never at import.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
from collections.abc import Iterable
from pathlib import Path

from widthbench.llm.types import Reply
from widthbench.core.runfiles import make_output_dir

FILENAME = "replies.sqlite"


def default_cache_dir() -> Path:
    env = os.environ.get("WIDTHBENCH_CACHE_DIR")
    if env:
        return Path(env).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "widthbench" / "llm"


class ReplyCache:
    def __init__(self, directory: str | os.PathLike[str]):
        self.directory = make_output_dir(directory, "reply cache folder")
        self.path = self.directory / FILENAME
        # isolation_level=None: autocommit; each put is its own short transaction.
        self._db = sqlite3.connect(self.path, timeout=60, isolation_level=None,
                                   check_same_thread=False)
        self._lock = threading.Lock()  # one connection, possibly used from a helper thread
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")  # WAL + NORMAL: durable across process kills
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS replies (key TEXT PRIMARY KEY, model TEXT NOT NULL, "
            "request TEXT NOT NULL, reply TEXT NOT NULL, created REAL NOT NULL)"
        )

    def get_many(self, keys: Iterable[str]) -> dict[str, Reply]:
        keys = list(dict.fromkeys(keys))
        found: dict[str, Reply] = {}
        for i in range(0, len(keys), 500):
            chunk = keys[i : i + 500]
            marks = ",".join("?" * len(chunk))
            with self._lock:
                rows = self._db.execute(
                    f"SELECT key, reply FROM replies WHERE key IN ({marks})", chunk).fetchall()
            for key, data in rows:
                found[key] = Reply.from_dict(json.loads(data))
        return found

    def get(self, key: str) -> Reply | None:
        return self.get_many([key]).get(key)

    def put(self, key: str, model: str, request_json: str, reply: Reply) -> None:
        if reply.error is not None:
            return
        data = reply.to_dict()
        data["cached"] = False
        row = (key, model, request_json, json.dumps(data, ensure_ascii=False), time.time())
        with self._lock:
            self._db.execute("INSERT OR REPLACE INTO replies (key, model, request, reply, created) "
                             "VALUES (?,?,?,?,?)", row)

    def __len__(self) -> int:
        with self._lock:
            return self._db.execute("SELECT COUNT(*) FROM replies").fetchone()[0]

    def close(self) -> None:
        self._db.close()
