"""The search-method registry: one record per `solve --method`, found by scanning `widthbench.searches.methods`.

A method is one module under ``searches/methods/`` that defines ``METHODS = (SearchMethod(...), ...)``
(a family sharing its code, such as ToT's BFS and DFS, may define several records in one module).
A record holds the method's name (what ``--method`` takes and summary.json's ``config.method``
says), its label in the tables and figures (the paper's "DFS", "MCTS"...), its order there, its
settings, and the function that runs it on one problem. `searches.config.METHODS`, the dispatch of
`searches.solve_run.solve_one`, `solve --method`'s choices and help, the flags of the methods' own
settings and the reports' names all come from here. The recipe is in docs/searches.md ("Adding a
method").

A method's ``run(problem, config, llm, hooks, rng)`` is an async function returning an `Outcome`:
the plan (or None), the engine's check of it, whether a goal was claimed, and for tree searches the
tree and its goal node. ``tree=True`` methods get the four hooks (`searches.hooks.build_hooks`) and
their tokens charged to tree nodes; other methods get ``hooks=None`` and talk to the model
through ``llm`` themselves.

Settings: a method's settings that are `SearchConfig` fields (``max_depth``, ``rollouts``...) keep
their own flags; any other setting is kept in ``SearchConfig.settings`` (in the run identity only
for the method that declares it, so runs of the other methods are unchanged) and gets the flag
``--<name with dashes>``.

A `MethodRegistry` is an immutable value: `MethodRegistry.default()` holds the built-in methods;
`MethodRegistry.from_modules([path, ...])` adds the ``METHODS`` of module files (`solve
--method-module FILE`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from widthbench.core.discovery import Records, records_in_file
from widthbench.core.errors import UserError

METHODS_PACKAGE = "widthbench.searches.methods"


@dataclass(frozen=True, slots=True)
class Setting:
    """One setting of a method: its ``name`` (a key of ``SearchConfig.settings``, or with
    ``config_field`` a `SearchConfig` field that has its own flag), its ``default``, the flag's
    ``help``, and the ``choices`` or the value ``type`` (int, str) its flag takes."""

    name: str
    default: Any = None
    help: str = ""
    choices: tuple | None = None
    type: Callable = str
    config_field: bool = False
    metavar: str | None = None  # the flag's value in the help (default: the name in capitals)

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")


@dataclass(frozen=True, slots=True)
class Outcome:
    """What one method made of one problem. ``check``: the engine's verdict on ``plan``
    (``plan_valid``, ``solved``, ``reason``; `StripsProblem.check`); ``fields``: more fields of the
    instance's record (a method's own measures: rounds, steps, invalid actions...)."""

    plan: Any
    check: dict
    goal_claimed: bool
    tree: Any = None
    goal: Any = None
    stats: dict = field(default_factory=dict)
    reply_text: str | None = None
    fields: dict = field(default_factory=dict)


@dataclass(frozen=True)
class SearchMethod:
    """One search method (see the module docstring).

    run(problem, config, llm, hooks, rng) -> Outcome   async; hooks is None unless ``tree``
    summary(items) -> dict                             the method's own summary.json fields (optional)
    check(config, problems) -> None                    raise UserError for a setting the problems cannot take
    """

    name: str
    label: str
    order: int
    run: Callable[..., Any]
    settings: tuple[Setting, ...] = ()
    help: str = ""
    tree: bool = True
    summary: Callable[[list], dict] | None = None
    check: Callable[..., None] | None = None

    def setting(self, name: str) -> Setting | None:
        return next((s for s in self.settings if s.name == name), None)


class MethodRegistry(Records):
    """An ordered, immutable set of search methods; ``paths``: the module files it was given
    beyond the built-in ones (so that a worker process can load the same registry)."""

    PACKAGE, ATTRIBUTE, WHAT = METHODS_PACKAGE, "METHODS", "search method"

    def __init__(self, methods: Iterable[SearchMethod], paths: tuple[str, ...] = ()):
        super().__init__(methods)
        self.paths = tuple(paths)

    @classmethod
    def from_modules(cls, paths, base: "MethodRegistry | None" = None) -> "MethodRegistry":
        """``base`` (default: the built-in methods) plus the ``METHODS`` of module files."""
        base = base or cls.default()
        extra = []
        for path in paths:
            try:
                extra += records_in_file(path, "METHODS", "search-method")
            except FileNotFoundError:
                raise UserError(f"--method-module {path}: not found") from None
        return MethodRegistry([*base, *extra], paths=(*base.paths, *map(str, paths)))

    def uses_hooks(self, name: str) -> bool:
        """Whether method ``name`` searches a tree over the hooks (an unknown name: as if so)."""
        return name not in self._records or self._records[name].tree

    def labels(self) -> dict[str, str]:
        """{method: its name in the tables and figures}."""
        return {m.name: m.label for m in self}

    def label_order(self) -> list[str]:
        """The tables' labels in the methods' order."""
        return list(dict.fromkeys(m.label for m in self))

    def own_settings(self) -> dict[str, Setting]:
        """{name: Setting} of every method's settings that are not `SearchConfig` fields (the
        flags `solve` adds for them), first declaration first."""
        out: dict[str, Setting] = {}
        for m in self:
            for s in m.settings:
                if not s.config_field:
                    out.setdefault(s.name, s)
        return out


def tree_outcome(problem, tree, goal, stats: dict | None = None) -> Outcome:
    """The outcome of a tree search: the plan to its goal node, checked on the engine; no goal:
    why (the budget used up, or the tree ran out of nodes)."""
    plan = tree.plan(goal) if goal is not None else None
    if goal is not None:
        check = problem.check(plan, goal.state)
    else:
        check = {"plan_valid": False, "solved": False,
                 "reason": "budget used up" if tree.exhausted() else "search ended without a goal"}
    return Outcome(plan, check, goal is not None, tree=tree, goal=goal, stats=dict(stats or {}))
