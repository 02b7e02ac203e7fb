"""The domain registry: one record per built-in domain, found by scanning `widthbench.generators.domains`.

A built-in domain is one module under ``generators/domains/`` that defines ``DOMAINS =
(BuiltinDomain(...), ...)`` plus its data files: the domain ``pddl_domains/<name>.pddl`` (required),
its natural-language templates ``pddl_domains/<name>.<set>.toml`` (optional: templates are generated
from the domain's names otherwise) and its prompt context ``llm/prompts/context.<name>.txt``
(optional: generated from the PDDL otherwise). The record holds the name, the generator
(``generate(count, seed, **options) -> [Instance]``), the generator's own options, which are the
flags of `widthbench generate`, and the help text of the commands that generate instances.
`generators.generate`, `generate`, `score`, `solve`, `widths`, the inspect tasks and the harness logs
read the registry; nothing else lists the built-in domains. Record modules stay light (the CLI reads
them to build its parser): a generator that needs the engine imports it when it runs.

Like the sub-task registry (`widthbench.subtasks.registry`), a `DomainRegistry` is an immutable
value: `DomainRegistry.default()` scans the package once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType

from widthbench.core.discovery import Records

DOMAINS_PACKAGE = "widthbench.generators.domains"
# Where a built-in domain's data files are: the folders `planners.strips` and `subtasks.prompts`
# read them from by the domain's name.
DOMAIN_DIR = Path(__file__).resolve().parents[2] / "pddl_domains"
PROMPT_DIR = Path(__file__).resolve().parents[2] / "llm" / "prompts"
# Options every generator takes (`generators.common.collect`): not a domain's own flags.
COMMON_OPTIONS = ("min_plan_length", "max_plan_length", "width", "optimal", "planner", "timeout",
                  "max_failed_draws", "progress")


@dataclass(frozen=True, slots=True)
class GeneratorOption:
    """One option of a domain's generator: its keyword ``name`` (the flag is ``--name``), the help
    text of the flag (saying its default) and the flag's metavar."""

    name: str
    help: str
    metavar: str = "N|LO-HI"

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")


@dataclass(frozen=True, slots=True)
class BuiltinDomain:
    """One built-in domain (see the module docstring).

    name      the domain's name: `generate NAME`, `--domain NAME`, the stem of its data files
    title     the domain's name in prose ("Blocksworld")
    generate  generate(count, seed, **options) -> [Instance]: options are ``options`` plus
              `COMMON_OPTIONS`
    options   the generator's own options, in flag order
    default   what a generated set holds without options, for help texts ("4-5 blocks")
    order     the domain's place in choices and help texts
    """

    name: str
    title: str
    generate: Callable[..., list]
    options: tuple[GeneratorOption, ...] = ()
    default: str = ""
    order: int = 100

    @property
    def domain_file(self) -> Path:
        return DOMAIN_DIR / f"{self.name}.pddl"

    @property
    def templates(self) -> MappingProxyType:
        """{template set: file} of the NL template files it has (``nl`` is the set "widthbench")."""
        out = {}
        for path in sorted(DOMAIN_DIR.glob(f"{self.name}.*.toml")):
            kind = path.name[len(self.name) + 1:-len(".toml")]
            out["widthbench" if kind == "nl" else kind] = path
        return MappingProxyType(out)

    @property
    def context_file(self) -> Path | None:
        path = PROMPT_DIR / f"context.{self.name}.txt"
        return path if path.is_file() else None

    @property
    def option_names(self) -> tuple[str, ...]:
        return tuple(o.name for o in self.options)

    def described(self) -> str:
        """``blocksworld (4-5 blocks)``: the name and what a set holds by default."""
        return f"{self.name} ({self.default})" if self.default else self.name


class DomainRegistry(Records):
    """An ordered, immutable set of built-in domain records."""

    PACKAGE, ATTRIBUTE, WHAT = DOMAINS_PACKAGE, "DOMAINS", "built-in domain"

    def __init__(self, domains: Iterable[BuiltinDomain]):
        super().__init__(domains)
        for d in self:
            if not d.domain_file.is_file():
                raise ValueError(f"built-in domain {d.name!r}: no domain file {d.domain_file}")

    def unknown(self, name: str) -> str:
        return f"no generator for domain {name!r} (choose from {', '.join(self.names)})"

    def options(self) -> tuple[tuple[GeneratorOption, tuple[str, ...]], ...]:
        """Every generator option once, in domain order, with the domains that take it."""
        seen: dict[str, tuple[GeneratorOption, list[str]]] = {}
        for d in self:
            for o in d.options:
                seen.setdefault(o.name, (o, []))[1].append(d.name)
        return tuple((o, tuple(names)) for o, names in seen.values())

    def listed(self, last: str = "or") -> str:
        """The names as prose: ``blocksworld or logistics``."""
        names = list(self.names)
        return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} {last} {names[-1]}"
