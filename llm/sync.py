"""Running a coroutine from sync code, also from inside a running event loop."""

from __future__ import annotations

import asyncio
import threading
from typing import Any


def run_sync(coro) -> Any:
    """Run ``coro`` to completion; inside a running event loop (a notebook, an async caller) it
    runs on a helper thread with its own loop, and its exception is re-raised here."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["out"] = asyncio.run(coro)
        except BaseException as exc:  # re-raised in the caller's thread
            box["exc"] = exc

    t = threading.Thread(target=target)
    t.start()
    t.join()
    if "exc" in box:
        raise box["exc"]
    return box.get("out")
