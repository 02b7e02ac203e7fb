"""argparse types for the paths a command reads: a missing path is one line at parse time,
``argument --instances: not found: sets/bw`` (exit 2), and a file where a folder is wanted (or the
reverse) says so, before any work is done (`widthbench.cli.Parser` prints argparse errors as one
line). Output folders are checked by `widthbench.runfiles.check_output_dir` instead."""

from __future__ import annotations

import argparse
from pathlib import Path


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


def name_or_file(names: tuple[str, ...]):
    """One of ``names`` (a built-in domain) or an existing file: ``--domain NAME|FILE``."""

    def parse(text: str) -> str:
        if text in names:
            return text
        p = Path(text)
        if p.is_file():
            return text
        if p.is_dir():
            raise argparse.ArgumentTypeError(f"a folder, not a domain file: {text}")
        if "/" in text or "." in text:
            raise argparse.ArgumentTypeError(f"not found: {text}")
        raise argparse.ArgumentTypeError(f"unknown domain {text!r} (choose from {', '.join(names)}, "
                                         "or give a domain file)")

    parse.__name__ = "domain"
    return parse


PATH_TYPES = (folder, file, file_or_folder)
