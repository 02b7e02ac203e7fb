"""A grid of search configurations run as one study (`solve --method tot-bfs,tot-dfs --mapping
direct,esa --novelty off,llm --thinking both`): the product of the listed values, one run folder per
configuration inside the study folder, all sharing the same problems (built once), ground truth and
reply cache. docs/searches.md, "Grids".

A configuration's folder is named by the values that vary across the grid only
(``tot-bfs.esa.nov-llm.thinking-on``); a grid in which only the thinking mode varies keeps the
``thinking-on`` / ``thinking-off`` folders of `solve --thinking both`. A configuration that the
naive baseline makes identical to another (naive has no mapping, novelty or verifier) is run once.
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
from pathlib import Path

from widthbench.core.errors import UserError
from widthbench.core.runfiles import make_output_dir
from widthbench.core.runstore import write_json
from widthbench.core.schema import SCHEMA
from widthbench.llm.types import mode_name
from widthbench.searches.config import MAPPINGS, METHODS, NOVELTY, VERIFY, SearchConfig
from widthbench.searches.registry import MethodRegistry

#: The options that take lists, with their allowed values, in the order folders name them.
LIST_OPTIONS = {"method": METHODS, "mapping": MAPPINGS, "novelty": NOVELTY, "verify": VERIFY}


def parse_list(text: str, option: str, allowed: tuple[str, ...]) -> tuple[str, ...]:
    """``"a,b"`` as ("a", "b"), each checked against ``allowed`` (one line naming the bad value)."""
    values = tuple(dict.fromkeys(v.strip() for v in text.split(",") if v.strip()))
    if not values:
        raise UserError(f"--{option}: give one or more of {', '.join(allowed)} (comma-separated)")
    bad = [v for v in values if v not in allowed]
    if bad:
        raise UserError(f"--{option} {bad[0]!r}: choose from {', '.join(allowed)} (a comma-separated list runs each)")
    return values


def list_type(option: str, allowed: tuple[str, ...]):
    """An argparse ``type`` reading a comma-separated list of ``allowed`` values (a bad value is
    one line naming the option's allowed values); ``.allowed`` says which values those are."""
    def read(text: str) -> tuple[str, ...]:
        try:
            return parse_list(text, option, allowed)
        except UserError as exc:
            raise argparse.ArgumentTypeError(str(exc).removeprefix(f"--{option} ")) from None

    read.allowed = allowed
    read.__name__ = f"{option} list"
    return read


def _canonical(config: SearchConfig) -> SearchConfig:
    """A method without the hooks (the naive baseline...) ignores the tree-search settings: one run
    stands for all of them."""
    if not MethodRegistry.default().uses_hooks(config.method):
        return dataclasses.replace(config, mapping="direct", novelty="off", verify="engine")
    return config


def grid_configs(base: SearchConfig, lists: dict[str, tuple], thinking: tuple[bool, ...],
                 methods: MethodRegistry | None = None) -> list[SearchConfig]:
    """The product of ``lists`` (option -> values) and ``thinking`` over ``base``, each checked,
    without repeats, in the order of the lists."""
    names = [n for n in LIST_OPTIONS if n in lists]
    out: dict[SearchConfig, None] = {}
    for values in itertools.product(*(lists[n] for n in names), thinking):
        *picked, think = values
        config = dataclasses.replace(base, thinking=think, **dict(zip(names, picked)))
        out.setdefault(_canonical(config).check(methods))
    return list(out)


def _part(name: str, config: SearchConfig) -> str:
    if name == "thinking":
        return f"thinking-{'on' if config.thinking else 'off'}"
    value = getattr(config, name)
    return {"novelty": f"nov-{value}", "verify": f"verify-{value}"}.get(name, value)


def run_folders(out: str | Path, configs: list[SearchConfig]) -> list[Path]:
    """One folder per configuration: ``out`` itself for a single one, else ``out/<varying values>``."""
    out = Path(out)
    if len(configs) == 1:
        return [out]
    varying = [n for n in (*LIST_OPTIONS, "thinking")
               if len({getattr(c, n) for c in configs}) > 1]
    return [out / ".".join(_part(n, c) for n in varying) for c in configs]


def too_deep(problems: list, max_depth: int) -> tuple[int, int]:
    """(instances whose optimal plan is longer than ``max_depth``, instances with a known length):
    a search limited to ``max_depth`` steps can never solve the first."""
    known = [p.optimal_length for p in problems if getattr(p, "optimal_length", None) is not None]
    return sum(1 for n in known if n > max_depth), len(known)


def depth_warning(problems: list, max_depth: int) -> str | None:
    deep, known = too_deep(problems, max_depth)
    if not deep:
        return None
    longest = max(p.optimal_length for p in problems if getattr(p, "optimal_length", None) is not None)
    return (f"solve: warning: {deep} of {known} instances need more than --max-depth {max_depth} steps "
            f"(optimal plans up to {longest}); no search can solve them (--max-plan-length {max_depth} "
            "leaves them out)")


GRID = "grid.json"


def write_grid(out: str | Path, configs: list[SearchConfig], folders: list[Path]) -> Path:
    """RUN/grid.json: the study's configurations and their run folders (what `report RUN` reads)."""
    path = make_output_dir(out, "--out") / GRID
    write_json(path, {"schema": SCHEMA, "kind": "grid", "runs": [{"folder": f.name, "label": c.label(), "config": c.to_dict()}
                                               for c, f in zip(configs, folders)]})
    return path


def describe(configs: list[SearchConfig]) -> str:
    modes = sorted({mode_name(c.thinking) for c in configs})
    return f"{len(configs)} configuration(s) ({', '.join(modes)})"
