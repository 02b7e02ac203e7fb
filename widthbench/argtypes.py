"""argparse types for the paths a command reads: a missing path is one line at parse time,
``argument --instances: not found: sets/bw`` (exit 2), and a file where a folder is wanted (or the
reverse) says so, before any work is done (`widthbench.cli.Parser` prints argparse errors as one
line). A path that exists and is no folder is a file to these types, /dev/null and a FIFO too: its
reader says what it holds ("empty"), never "not found". Output folders are checked by
`widthbench.core.runfiles.check_output_dir` instead.

`PATHS_READ` names every path a subcommand reads, command -> {argument dest: type} (`INPUT_PATHS`:
(command, dest) -> type); `cli.build_parser` gives each its type, so the command modules declare
their options as before, and tests/test_cli_errors.py checks that every option whose metavar names a
file or folder is listed."""

from __future__ import annotations

import argparse
from pathlib import Path
from widthbench.core.errors import listed
from widthbench.generators.domains import DomainRegistry
from widthbench.planners.strips import DOMAINS_DIR


def folder(text: str) -> str:
    """An existing folder."""
    p = Path(text)
    if not p.exists():
        raise argparse.ArgumentTypeError(f"not found: {text}")
    if not p.is_dir():
        raise argparse.ArgumentTypeError(f"not a folder: {text}")
    return text


def file(text: str) -> str:
    """An existing file."""
    p = Path(text)
    if not p.exists():
        raise argparse.ArgumentTypeError(f"not found: {text}")
    if p.is_dir():
        raise argparse.ArgumentTypeError(f"a folder, not a file: {text}")
    return text


def file_or_folder(text: str) -> str:
    """An existing file or folder."""
    if not Path(text).exists():
        raise argparse.ArgumentTypeError(f"not found: {text}")
    return text


def file_or_stdin(text: str) -> str:
    """An existing file, or ``-`` (standard input)."""
    return text if text == "-" else file(text)


def name_or_path(names: tuple[str, ...] | None, what: str = "domain", folders: bool = False):
    """One of ``names`` (built-in ones; None: the domains under pddl_domains/) or an existing file
    (a folder too with ``folders``): ``--domain NAME|FILE``, ``widths TARGET``."""

    def parse(text: str) -> str:
        known = names if names is not None else _domain_names()
        if text in known:
            return text
        p = Path(text)
        if p.is_dir():
            if folders:
                return text
            raise argparse.ArgumentTypeError(f"a folder, not a {what} file: {text}")
        if p.exists():  # a file, or what reads like one (/dev/null): its reader says what it holds
            return text
        if "/" in text or "." in text:
            raise argparse.ArgumentTypeError(f"not found: {text}")
        raise argparse.ArgumentTypeError(f"unknown {what} {text!r} (choose from {listed(known)}, "
                                         f"or give a {'folder or ' if folders else ''}file)")

    parse.__name__ = what
    parse.path_type = True
    return parse


def _domain_names() -> tuple[str, ...]:
    return tuple(sorted(p.stem for p in DOMAINS_DIR.glob("*.pddl")))


for _t in (folder, file, file_or_folder, file_or_stdin):
    _t.path_type = True

_GENERATED = DomainRegistry.default().names  # the built-in domains (`widthbench.generators.domains`)
#: The paths each command reads: argument dest -> type.
PATHS_READ = {
    "render": {
        "problem": file,
        "domain": name_or_path(None),
        "templates": name_or_path(("widthbench", "planbench"), "template set"),
    },
    "validate": {"domain": name_or_path(None), "problem": file, "plan": file_or_stdin},
    "equivalent": {"domain": name_or_path(None), "problem_a": file, "problem_b": file},
    "equivalent-domain": {"domain": name_or_path(None), "model_domain": file, "problems": file},
    "plan": {"domain": name_or_path(None), "problem": file},
    "widths": {"target": name_or_path(("game24", *_GENERATED), "target", folders=True), "domain": file},
    # a run folder, or a harness log (an inspect .eval file)
    "report": {"runs": file_or_folder},
    "compare": {"run_a": file_or_folder, "run_b": file_or_folder},
    "rescore": {"files": file, "instances": folder},
    "score": {
        "domain": name_or_path(_GENERATED),
        "context": file,
        "templates": file,
        "instances": folder,
        "items": folder,
        "prompt_dir": folder,
    },
    "solve": {
        "domain": name_or_path(("game24", *_GENERATED)),
        "instances": folder,
        "tasks": file_or_folder,
        "prompt_dir": folder,
        "method_module": file,
    },
    "export": {"domain": name_or_path(_GENERATED), "instances": folder, "prompt_dir": folder},
    "traces": {"source": file_or_folder, "instances": folder, "domain": name_or_path(_GENERATED)},
}
INPUT_PATHS = {(command, dest): kind for command, paths in PATHS_READ.items() for dest, kind in paths.items()}


def type_input_paths(command: str, parser: argparse.ArgumentParser) -> None:
    """Give each path ``command`` reads (`INPUT_PATHS`) its checking type."""
    for action in parser._actions:
        kind = INPUT_PATHS.get((command, action.dest))
        if kind is not None:
            action.type = kind
