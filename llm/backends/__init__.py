"""The model-backend registry: spec prefix -> backend, found by scanning `widthbench.llm.backends`.

A model backend is one module under ``llm/backends/`` that defines ``BACKENDS = (ModelBackend(...),
...)``: the spec prefix (``openai`` for ``openai:NAME``), how the spec is written (for help texts and
errors), and ``open(name, options) -> backend``, which builds an object with the protocol of
`widthbench.llm.backend` (an online backend's ``open(n)`` session, or a batch backend's
``run_batch``) from the spec's name and the `BackendOptions` of `open_model`. `open_model` reads
the registry; cache, retries, ledger, run identity and ``Reply.made_by`` come from `Model`, so a
backend only answers requests. Record modules stay light: a client library is imported when a
backend is opened.

Like the sub-task registry, a `BackendRegistry` is an immutable value: `BackendRegistry.default()`
scans the package once.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from widthbench.core.discovery import Records
from widthbench.core.errors import UserError

BACKENDS_PACKAGE = "widthbench.llm.backends"


@dataclass(frozen=True, slots=True)
class BackendOptions:
    """What `open_model` knows that a backend may need (each backend reads its own)."""

    spec: str
    base_urls: tuple[str, ...] = ()
    timeout: float = 1800.0
    api_key: str | None = None
    preflight: bool = True
    concurrency: int = 8
    max_model_len: int | None = None
    batch_cmd: str | None = None
    batch_size: int = 2000
    work_dir: str | os.PathLike[str] | None = None
    model_dir: str | os.PathLike[str] | None = None
    use_cache: bool = True
    simulator: Any = None


@dataclass(frozen=True, slots=True)
class ModelBackend:
    """One kind of model spec (see the module docstring).

    prefix         the spec's prefix: ``PREFIX:NAME``
    usage          how the spec is written, for errors and help ("openai:NAME")
    open           open(name, options) -> backend (`widthbench.llm.backend` protocols)
    name_is_spec   the model's name is the whole spec (simulated models: ``sim:noisy:0.1``),
                   else the part after the prefix (the served name every request carries)
    order          its place in help texts and errors
    """

    prefix: str
    usage: str
    open: Callable[[str, BackendOptions], Any]
    name_is_spec: bool = False
    order: int = 100


class BackendRegistry(Records):
    """An ordered, immutable set of model backends, by spec prefix."""

    PACKAGE, ATTRIBUTE, KEY, WHAT = BACKENDS_PACKAGE, "BACKENDS", "prefix", "model backend"

    @property
    def prefixes(self) -> tuple[str, ...]:
        return self.names

    def usage(self) -> str:
        """``openai:NAME, vllm-batch:NAME or sim:KIND (...)``: every spec form."""
        forms = [self._records[p].usage for p in self.prefixes]
        return forms[0] if len(forms) == 1 else f"{', '.join(forms[:-1])} or {forms[-1]}"

    def for_spec(self, spec: str) -> tuple[ModelBackend, str]:
        """The backend of ``spec`` and the model's name; an unknown prefix is a UserError."""
        prefix, sep, rest = spec.partition(":")
        record = self._records.get(prefix)
        if not sep or not rest or record is None:
            raise UserError(f"unknown model spec {spec!r}: use {self.usage()}")
        return record, spec if record.name_is_spec else rest


def split_urls(base_urls: str | Sequence[str] | None) -> tuple[str, ...]:
    """Base URLs from one URL, a comma-separated list or a list (default $WIDTHBENCH_BASE_URL)."""
    if base_urls is None:
        base_urls = os.environ.get("WIDTHBENCH_BASE_URL", "")
    if isinstance(base_urls, str):
        base_urls = [base_urls]
    return tuple(u.strip() for item in base_urls for u in item.split(",") if u.strip())
