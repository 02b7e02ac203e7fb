"""What a backend does, and how it reports failure.

An online backend opens a session per run, which makes one attempt per `attempt` call; the
Model owns retries, concurrency, caching and the ledger. A batch backend (`run_batch`) answers a
whole list of pending requests.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from widthbench.llm.types import Reply, Request


class RetryableError(Exception):
    """A transient failure (connection, timeout, 429, 5xx, broken body): try again after a backoff."""

    def __init__(self, message: str, retry_after: float | None = None, where: str | None = None):
        super().__init__(message)
        self.retry_after = retry_after
        self.where = where  # the server that failed, so the next try can go elsewhere


class FatalError(Exception):
    """A failure that retrying cannot fix (400, 404, ...): the request's final error."""


@dataclass(frozen=True, slots=True)
class Pending:
    """A request waiting to be sent: the request, its full sampling parameters and cache key."""

    request: Request
    params: dict[str, Any]
    key: str
    key_json: str


class Session(Protocol):
    async def attempt(self, item: Pending, avoid: str | None = None) -> Reply:
        """One try; raises RetryableError or FatalError. `avoid`: where the last try failed."""

    async def close(self) -> None: ...


class OnlineBackend(Protocol):
    simulated: bool

    async def open(self, pending: int) -> Session:
        """A session for one run, opened only if something must be sent (connections belong to
        one event loop, so each run has its own)."""


class BatchBackend(Protocol):
    simulated: bool

    def run_batch(self, items: list[Pending], on_reply) -> None:
        """Answer all items, calling on_reply(item, reply) as each result is read."""
