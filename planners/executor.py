"""One executor for every fan-out of CPU work: ``map(fn, items)``, results in the order of the items.

Back-ends:

- ``local`` (``--jobs N``): N = 1 runs each call in this process, one after the other; N > 1 runs
  them in N worker processes of this machine, forked from this one (they find every function this
  process has, a script's included), or started by a fork server when this process already runs
  threads (a model client's, Ray's), which a fork would copy in an unknown state.
- ``ray`` (``--executor ray [--ray-address ADDR]``): each call is a Ray task. Without an address a
  local Ray instance is started (``--jobs N``: with N CPUs; default all of the machine's) and stopped
  at the end; ``auto`` joins the cluster this machine belongs to (``ray start`` ran here); any other
  ADDR (``HOST:PORT`` of the head, or ``ray://HOST:10001``) joins that cluster. A task whose worker
  process dies is run again by Ray (``max_retries``, default 3); an exception raised by ``fn`` is
  not retried and is raised here as itself (a `UserError` stays one line, exit 2). Ray is imported
  only when this back-end is asked for (``pip install -e '.[ray]'``).

``map`` calls ``on_result(index, result)`` as each call finishes (in completion order, so a command
can write finished work at once and a rerun resumes), shows a progress bar on a terminal, and returns
the list of results in the order of ``items``. Nothing about the result depends on the back-end or
the number of workers: ``fn`` gets its item and nothing else (tests/planners/test_executor.py and
the commands' tests compare the outputs of ``--jobs 1``, ``--jobs 2`` and ``--executor ray``).

When the machines go away under a run (a local worker process killed, the Ray cluster lost), `map`
raises `ClusterLost`; the CLI prints it as one line and exits 3, and a rerun of the same command
resumes from what was written.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Sequence

from widthbench.core.errors import UserError

BACKENDS = ("local", "ray")
DEFAULT_RETRIES = 3
PROBE_SECONDS = 5.0  # Ray: how long to wait for a result before checking that the cluster's head is up
LOST_EXIT = 3  # the exit code of a run whose machines went away (as an incomplete score/solve run)


class ClusterLost(Exception):
    """The workers of a run went away (a local worker killed, the Ray cluster lost): one line, exit 3."""


@dataclass(frozen=True, slots=True)
class ExecutorSpec:
    """What the user asked for (picklable: a worker can be handed it)."""

    backend: str = "local"
    jobs: int | None = None  # local: processes (None = 1); ray: CPUs of a started instance, tasks in flight
    address: str | None = None  # ray: None = start a local instance; "auto" or HOST:PORT = join
    max_retries: int = DEFAULT_RETRIES

    @property
    def workers(self) -> int:
        """How many calls run at once at most, as far as this process knows (Ray: the CPUs asked for)."""
        return max(1, self.jobs or (os.cpu_count() or 1 if self.backend == "ray" else 1))

    def describe(self) -> str:
        if self.backend == "local":
            return f"local, {self.jobs or 1} process{'es' if (self.jobs or 1) > 1 else ''}"
        where = self.address or "a local instance"
        return f"ray ({where}{f', {self.jobs} CPUs' if self.jobs else ''})"


def add_executor_arguments(parser: argparse.ArgumentParser, *, what: str = "instances") -> None:
    """--jobs, --executor, --ray-address: the same three flags on every command that fans out."""
    g = parser.add_argument_group("executor (docs/scale.md)")
    g.add_argument("--jobs", type=int, default=None, metavar="N",
                   help=f"{what} worked on at once: worker processes of this machine (default 1), or "
                        "with --executor ray the CPUs of the Ray instance started here (default all)")
    g.add_argument("--executor", choices=BACKENDS, default="local",
                   help="local (processes of this machine, the default) or ray (a Ray cluster: "
                        "pip install -e '.[ray]')")
    g.add_argument("--ray-address", default=None, metavar="ADDR",
                   help="with --executor ray: join this cluster (HOST:PORT, ray://HOST:10001, or auto "
                        "for the cluster of this machine) instead of starting a local Ray instance")


def spec_from_args(args: argparse.Namespace) -> ExecutorSpec:
    jobs = getattr(args, "jobs", None)
    if jobs is not None and jobs < 1:
        raise UserError(f"--jobs must be >= 1, got {jobs}")
    backend = getattr(args, "executor", "local") or "local"
    address = getattr(args, "ray_address", None)
    if address is not None and backend != "ray":
        raise UserError("--ray-address needs --executor ray")
    return ExecutorSpec(backend=backend, jobs=jobs, address=address)


def open_executor(spec: ExecutorSpec | None = None) -> "Executor":
    spec = spec or ExecutorSpec()
    if spec.backend not in BACKENDS:
        raise UserError(f"unknown executor {spec.backend!r} (known: {', '.join(BACKENDS)})")
    return RayExecutor(spec) if spec.backend == "ray" else LocalExecutor(spec)


class Executor:
    """``with open_executor(spec) as ex: results = ex.map(fn, items)``; see the module docstring."""

    def __init__(self, spec: ExecutorSpec):
        self.spec = spec

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        pass

    @property
    def parallel(self) -> bool:
        """False for the local back-end with one job: calls run in this process, on its objects."""
        return self.spec.backend != "local" or (self.spec.jobs or 1) > 1

    def map(self, fn: Callable[[Any], Any], items: Iterable, *, on_result: Callable[[int, Any], None] | None = None,
            desc: str | None = None, quiet: bool = False, weights: Sequence[int] | None = None,
            unit: str = "it") -> list:
        """``[fn(x) for x in items]``, computed by the back-end. ``weights``: what each item counts
        for on the progress bar (e.g. the puzzles of a chunk)."""
        items = list(items)
        results: list = [None] * len(items)
        if not items:
            return results
        weights = list(weights) if weights is not None else [1] * len(items)
        from tqdm import tqdm

        class Bar(tqdm):
            monitor_interval = 0  # no monitor thread: a process without threads can fork its workers

        show = not quiet and sys.stderr.isatty()
        with Bar(total=sum(weights), desc=desc, unit=unit, file=sys.stderr, disable=not show) as bar:
            for i, result in self._run(fn, items):
                results[i] = result
                if on_result is not None:
                    on_result(i, result)
                bar.update(weights[i])
        return results

    def _run(self, fn, items):  # yields (index, result) as calls finish
        raise NotImplementedError


class LocalExecutor(Executor):
    def __init__(self, spec: ExecutorSpec):
        super().__init__(spec)
        self._pool = None  # the worker processes, started at the first map and kept until close

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(cancel_futures=True)
            self._pool = None

    def _run(self, fn, items):
        if (self.spec.jobs or 1) == 1:
            for i, x in enumerate(items):
                yield i, fn(x)
            return
        import multiprocessing
        from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
        from concurrent.futures.process import BrokenProcessPool

        if self._pool is None:
            import threading

            ctx = multiprocessing.get_context("fork" if threading.active_count() == 1 else "forkserver")
            self._pool = ProcessPoolExecutor(max_workers=self.spec.jobs, mp_context=ctx)
        pending = {}
        try:
            # Forked workers share this process's objects until they touch them; the cyclic garbage
            # collector touches them all on each full collection (a copy of every page, a few times
            # slower per call): frozen, the collector of the workers leaves them alone.
            gc.freeze()
            try:
                pending = {self._pool.submit(fn, x): i for i, x in enumerate(items)}
            finally:
                gc.unfreeze()
            while pending:
                done, _ = wait(pending, return_when=FIRST_COMPLETED)
                for fut in done:
                    yield pending.pop(fut), fut.result()
        except BrokenProcessPool:
            self._pool = None
            raise ClusterLost("a worker process died (killed, or out of memory); what finished "
                              "is kept: rerun to resume") from None
        finally:
            for fut in pending:
                fut.cancel()


class RayExecutor(Executor):
    def __init__(self, spec: ExecutorSpec):
        super().__init__(spec)
        self._ray = None
        self._started = False  # this executor called ray.init (and so calls ray.shutdown)
        self._task = None  # the remote function, defined once per connection
        self._gcs: str | None = None  # HOST:PORT of the cluster's head (its GCS)
        self._lost = False

    def _connect(self):
        if self._ray is not None:
            return self._ray
        try:
            import ray
        except ImportError:
            raise UserError("--executor ray needs Ray: pip install -e '.[ray]' (or pip install 'ray==2.60.0')") from None
        if not ray.is_initialized():
            import logging

            options = dict(include_dashboard=False, log_to_driver=False, logging_level=logging.WARNING)
            if self.spec.address is None:
                options["num_cpus"] = self.spec.jobs  # None: all of the machine's
            try:
                ray.init(address=self.spec.address, **options)
            except (ConnectionError, RuntimeError, ValueError) as exc:
                where = self.spec.address or "a local instance"
                raise UserError(f"--executor ray: cannot start or join {where}: "
                                f"{str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__}") from None
            self._started = True
        self._ray = ray
        try:
            self._gcs = ray.get_runtime_context().gcs_address
        except Exception:  # noqa: BLE001 (a client connection, ray://, has none: no probe)
            self._gcs = None
        return ray

    def _head_alive(self) -> bool:
        """Whether the head's GCS port still accepts a connection. Ray itself ends this process a
        minute after its head is gone, with no word a user can act on; probing first lets the run
        end with one line and exit 3."""
        if not self._gcs or ":" not in self._gcs:
            return True
        import socket

        host, _, port = self._gcs.rpartition(":")
        try:
            with socket.create_connection((host, int(port)), timeout=3):
                return True
        except (OSError, ValueError):
            return False

    def close(self) -> None:
        if self._started and self._ray is not None and not self._lost:
            self._ray.shutdown()
        self._started = False
        self._ray = None
        self._task = None

    def _run(self, fn, items):
        ray = self._connect()
        from ray import exceptions as rex

        if self._task is None:
            self._task = ray.remote(max_retries=self.spec.max_retries, retry_exceptions=False, num_cpus=1)(_call)
        task = self._task.options(name=getattr(fn, "__name__", "widthbench"))
        fn_ref = ray.put(fn)
        limit = self.spec.jobs if self.spec.address is not None and self.spec.jobs else len(items)
        queue = list(enumerate(items))[::-1]
        pending: dict = {}
        misses = 0  # probes in a row that found the head down
        try:
            while queue or pending:
                while queue and len(pending) < limit:
                    i, x = queue.pop()
                    pending[task.remote(fn_ref, x)] = i
                done, _ = ray.wait(list(pending), num_returns=1, timeout=PROBE_SECONDS)
                if not done:
                    misses = 0 if self._head_alive() else misses + 1
                    if misses >= 2:
                        self._lost = True
                        raise ClusterLost(f"the Ray cluster at {self._gcs} was lost (its head does not "
                                          "answer); what finished is kept: rerun to resume")
                    continue
                misses = 0
                for ref in done:
                    i = pending.pop(ref)
                    try:
                        result = ray.get(ref)
                    except rex.RayTaskError as exc:  # fn raised: that exception, as itself
                        cause = getattr(exc, "cause", None)
                        if isinstance(cause, BaseException):
                            raise cause from None
                        raise
                    yield i, result
        except (rex.RaySystemError, rex.WorkerCrashedError, rex.NodeDiedError, rex.ObjectLostError,
                rex.LocalRayletDiedError, rex.OwnerDiedError, rex.GetTimeoutError, ConnectionError) as exc:
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise ClusterLost(f"the Ray cluster was lost ({type(exc).__name__}: {first[:200]}); what "
                              "finished is kept: rerun to resume") from None


def _call(fn, x):
    return fn(x)
