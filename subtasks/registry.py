"""The sub-task registry: one record per sub-task, found by scanning `widthbench.subtasks.definitions`.

A sub-task is one module under ``subtasks/definitions/`` that defines ``SUBTASKS = (SubTask(...), ...)``
(a family that shares its construction, such as the four novelty variants, may define several
records in one module). The record holds everything the pipeline needs: how to build items, the
prompt of each request, the answer kind (which fixes the strict and flexible readers and the
constraint for constrained decoding), the scorer and its metrics, the table labels, the summary
extras, the error analysis, and the simulated answer to its prompt. `score`, `report`, the demo
and the searches read the registry; nothing else lists sub-tasks. The contributor recipe is in
docs/design.md ("Adding a sub-task").

A `Registry` is an immutable value: `Registry.default()` holds the built-in sub-tasks, and
``registry.with_subtasks(record, ...)`` gives a new registry with more (a test adds a toy sub-task
that way, or `Registry.from_modules([...])` from module files).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from widthbench.core.discovery import Records, records_in_file
from widthbench.core.errors import UserError, listed
from widthbench.subtasks.answers import AnswerKind

TASKS_PACKAGE = "widthbench.subtasks.definitions"

# How a metric's per-item values add up into a summary row (`Metric.aggregate`):
PER_ITEM = "per-item"  # one 0/1 per answered item: correct = items right, n = items answered
COUNTS = "counts"      # one [right, n] pair per item (e.g. per-action counts): both summed
AGGREGATES = (PER_ITEM, COUNTS)


@dataclass(frozen=True, slots=True)
class Metric:
    """One metric of a sub-task, declared as a value: its ``name`` (the key of the records'
    ``metrics``), how it ``aggregate``s into a summary row (`PER_ITEM` or `COUNTS`), the ``label``
    of its Table-1 row and that row's ``order``; a sub-task that takes the prompt extension labels
    its extension rows with ``extension_label`` / ``extension_order``. A metric counted per item of
    a paper sub-task is a row of the paper's Table 1 unless it says ``table1=False`` (a variant of
    the headline, such as action generation with no-op moves ignored). Nothing reads a metric's
    name to decide how it adds up or where it shows: `widthbench.subtasks.results.rows` asks
    `count`, the tables ask `in_table1`."""

    name: str
    label: str
    order: int
    aggregate: str = PER_ITEM
    extension_label: str | None = None
    extension_order: int | None = None
    table1: bool = True

    def __post_init__(self) -> None:
        if self.aggregate not in AGGREGATES:
            raise ValueError(f"metric {self.name!r}: aggregate {self.aggregate!r} is not one of {AGGREGATES}")

    def count(self, value) -> tuple[int, int]:
        """(right, n) of one item's value: 0/1 counts as one item, [right, n] as n."""
        if self.aggregate == COUNTS:
            right, n = value if isinstance(value, (list, tuple)) and len(value) == 2 else (0, 0)
            return int(right), int(n)
        return int(bool(value)), 1

    @property
    def in_table1(self) -> bool:
        """A row of the paper's Table 1 when its sub-task is one of the paper's (`SubTask.paper`)."""
        return self.table1 and self.aggregate == PER_ITEM

    def right(self, value) -> bool:
        """Whether one item's value is entirely right (a count: every one of its n, n > 0)."""
        right, n = self.count(value)
        return n > 0 and right == n

    def labelled(self) -> dict[tuple[str, bool], tuple[int, str]]:
        """{(name, extension): (order, label)} of the rows this metric labels."""
        out = {(self.name, False): (self.order, self.label)}
        if self.extension_label is not None:
            order = self.extension_order if self.extension_order is not None else self.order
            out[(self.name, True)] = (order, self.extension_label)
        return out


def add_pairs(pairs: Iterable) -> tuple[int, int]:
    """(right, n) summed over (right, n) pairs: how every figure of a metric adds up."""
    right = n = 0
    for k, m in pairs:
        right, n = right + int(k), n + int(m)
    return right, n


def add_up(metric: Metric, values: Iterable) -> tuple[int, int]:
    """(right, n) of ``metric`` over items' values, as it declares it adds up (`Metric.count`). The
    one aggregation of the project: summary rows and their cells, difficulty bins, comparisons, the
    lm-eval and inspect scorers all come to this."""
    return add_pairs(metric.count(v) for v in values)


def share(right: int, n: int) -> float:
    """right / n, 0.0 for no item (what the harness metrics report for an empty set)."""
    return right / n if n else 0.0


def inferred_metric(name: str, value) -> Metric:
    """The metric of a record whose sub-task no registry knows (a module no longer loaded): a
    [right, n] value counts, any other value is 0/1 per item."""
    return Metric(name, name, 10**6, COUNTS if isinstance(value, (list, tuple)) else PER_ITEM)


@dataclass(frozen=True)
class SubTask:
    """Everything about one sub-task (see the module docstring).

    build(pool, i, index, count, options) -> Item | None   item ``index`` from instance ``i`` (None: skip it)
    prompts(item, mode) -> [messages, ...]                 the chat messages of each request
    score(item, mode, outcomes) -> dict                    outcomes: one `Reading` or `ParseError` per
                                                           reply; returns {"parsed", "truth", "correct",
                                                           "metrics", "parse_error"} (JSON-ready)
    metrics: (Metric, ...)                                 the summary's metrics, headline first: how each
                                                           aggregates, its Table-1 label and order
    row_extras(records, metric) -> dict                    extra fields of a summary row
    errors(record, bump) -> None                           error analysis: bump(kind, key) per mistake
    simulate: {prompt kind: answer(q, mode, corrupt, rng) -> (text, note)}   simulated answers
    answer_tokens(item, style) -> int                      estimated tokens of a correct answer to one
                                                           request (the longest, for several); sizes
                                                           the default max_tokens (`score.requests_for`)
    no_item                                                why an instance may yield no item: text,
                                                           or no_item(pool, options) -> text
    item_options                                           the `ItemOptions` it reads (task parameters)
    """

    name: str
    build: Callable[..., Any]
    prompts: Callable[..., list]
    answer: AnswerKind
    score: Callable[..., dict]
    metrics: tuple[Metric, ...]
    paper: bool = False
    extensions: bool = False
    row_extras: Callable[..., dict] | None = None
    errors: Callable[..., None] | None = None
    simulate: Mapping[str, Callable[..., tuple[str, str]]] = field(default_factory=dict)
    answer_tokens: Callable[..., int] | None = None
    # why an instance may yield no item (said when none does): text, or (pool, options) -> text
    no_item: Any = None
    # item options it reads beyond count, seed and domain (`ItemOptions` field names, such as
    # "invalid_kind"): the harness tasks take each as a parameter
    item_options: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "metrics", tuple(self.metrics))
        object.__setattr__(self, "simulate", MappingProxyType(dict(self.simulate)))
        if not self.metrics:
            raise ValueError(f"sub-task {self.name!r} has no metrics")
        if not all(isinstance(m, Metric) for m in self.metrics):
            raise ValueError(f"sub-task {self.name!r}: metrics must be Metric values")

    @property
    def labels(self) -> Mapping[tuple[str, bool], tuple[int, str]]:
        """{(metric, extension): (order, label)}: the rows of the Table-1 report, from the metrics."""
        out: dict = {}
        for m in self.metrics:
            out.update(m.labelled())
        return MappingProxyType(out)

    @property
    def metric_names(self) -> tuple[str, ...]:
        return tuple(m.name for m in self.metrics)

    def metric(self, name: str) -> Metric | None:
        return next((m for m in self.metrics if m.name == name), None)

    def headline_metric(self) -> Metric:
        """The first metric counted per item (the one a difficulty curve plots), else the first."""
        return next((m for m in self.metrics if m.aggregate == PER_ITEM), self.metrics[0])


class Registry(Records):
    """An ordered, immutable set of sub-task records, in the order of their first table row."""

    PACKAGE, ATTRIBUTE, WHAT = TASKS_PACKAGE, "SUBTASKS", "sub-task"

    def __init__(self, subtasks: Iterable[SubTask]):
        super().__init__(subtasks)
        records = self._records
        self.paper: tuple[str, ...] = tuple(n for n in self.names if records[n].paper)
        labels = [((s.name, m, e), o, text) for s in self for (m, e), (o, text) in s.labels.items()]
        self._label_order = {k: (o, text) for k, o, text in labels}

    def order_key(self, name: str, record: SubTask):
        # sub-tasks whose first rows tie keep their definition order
        return min((o for o, _ in record.labels.values()), default=10**6)

    @classmethod
    def from_modules(cls, paths, base: "Registry | None" = None) -> "Registry":
        """``base`` (default: the built-in sub-tasks) plus the ``SUBTASKS`` of module files."""
        extra = [r for path in paths for r in records_in_file(path, "SUBTASKS", "sub-task")]
        return (base or cls.default()).with_subtasks(*extra)

    def with_subtasks(self, *records: SubTask) -> "Registry":
        return Registry([*self._records.values(), *records])

    def unknown(self, name: str) -> str:
        return f"unknown sub-task {name!r} (known: {listed([*self.names, 'all', 'paper'], 200)})"

    def named(self, text: str) -> tuple[str, ...]:
        """The sub-tasks ``text`` names one by one (not through "all" or "paper")."""
        names = [x.strip() for x in text.split(",")]
        return tuple(n for n in self.expand(text) if n in names)

    def expand(self, text: str) -> tuple[str, ...]:
        """Comma-separated sub-task names; "all" = every sub-task, "paper" = the paper's Table 1."""
        out: list[str] = []
        for name in (x.strip() for x in text.split(",")):
            if not name:
                continue
            if name == "all":
                out += self.names
            elif name == "paper":
                out += self.paper
            elif name in self._records:
                out.append(name)
            else:
                raise UserError(f"unknown --subtask {name!r} (known: {listed([*self.names, 'all', 'paper'], 200)})")
        if not out:
            raise UserError("--subtask is empty")
        return tuple(dict.fromkeys(out))

    # ------------------------------------------------------------------ table labels

    def label(self, row: Mapping) -> str:
        key = (row["subtask"], row["metric"], bool(row.get("extension")))
        hit = self._label_order.get(key)
        if hit:
            return hit[1]
        return f"{row['subtask']} {row['metric']}" + (" + extension" if key[2] else "")

    def label_order(self, row: Mapping) -> tuple:
        key = (row["subtask"], row["metric"], bool(row.get("extension")))
        hit = self._label_order.get(key)
        return (hit[0] if hit else 10**6, self.label(row))

    def simulated_answers(self) -> dict[str, Callable]:
        """Prompt kind -> simulated answer function, over every sub-task."""
        out: dict[str, Callable] = {}
        for s in self:
            out.update(s.simulate)
        return out
