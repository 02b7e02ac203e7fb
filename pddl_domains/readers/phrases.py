"""The English phrases the readers know, read from one data file, phrases.txt.

Every reader module's words of English (labels, connectives, moods, withdrawals, truth words) stand
in `phrases.txt` as regular expressions, one section a module, each with what it is for. A module
takes its section once: ``WORDS = phrases.section("mood")``, then ``WORDS.OPENS_NOW.match(text)``.

The file's form, so that a pattern reads as it matches:

- ``[name]`` opens a section; ``#`` at the start of a line is a comment (between a pattern's lines
  too: it says what the lines after it match);
- ``NAME:`` opens a pattern, compiled with `re.compile`; ``NAME (part):`` a piece of text other
  entries use, not compiled; ``NAME (multiline, dotall, ignorecase):`` a pattern compiled with
  those flags (any of the three);
- the lines after it, indented by four spaces, are the pattern, joined as they stand (what follows
  the indent, to the end of the line, spaces included; a line never ends in a space);
- ``{NAME}`` inside a pattern stands for the part NAME of the same section, ``{section.NAME}`` for
  one of another section (a regular expression's own braces hold digits, ``{1,40}``, never a name).

A malformed file is a `ValueError` naming the line; the file ships with the package, so that is a bug
of the package, not of its input.
"""

from __future__ import annotations

import re
from functools import cache
from importlib import resources

__all__ = ["Phrases", "section"]

_HEADER = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)(?:\s+\(([a-z, ]+)\))?:$")
_FLAGS = {"multiline": re.MULTILINE, "dotall": re.DOTALL, "ignorecase": re.IGNORECASE}
_SECTION = re.compile(r"^\[([a-z_]+)\]$")
_REFERENCE = re.compile(r"\{(?:([a-z_]+)\.)?([A-Za-z_][A-Za-z0-9_]*)\}")
_INDENT = "    "


def _flags(kind: str) -> int | None:
    """The `re` flags a pattern's ``(...)`` names ("" for none), or None when it names other words."""
    flags = 0
    for word in filter(None, (w.strip() for w in kind.split(","))):
        if word not in _FLAGS:
            return None
        flags |= _FLAGS[word]
    return flags


class Phrases:
    """One section of phrases.txt: its patterns (compiled) and parts (text) as read-only attributes."""

    __slots__ = ("_name", "__dict__")

    def __init__(self, name: str, entries: dict[str, object]) -> None:
        object.__setattr__(self, "_name", name)
        self.__dict__.update(entries)

    def __setattr__(self, key: str, value: object) -> None:
        raise AttributeError(f"phrases [{self._name}] are read-only")

    def __getattr__(self, key: str) -> object:  # only reached when the entry is missing
        raise AttributeError(f"phrases.txt has no {key} in [{self._name}]")

    def __repr__(self) -> str:
        return f"<phrases [{self._name}]: {len(self.__dict__)} entries>"


def parse(text: str, where: str = "phrases.txt") -> dict[str, dict[str, tuple[str, str]]]:
    """Section -> name -> (kind, template): the file as written, references not yet filled in."""
    sections: dict[str, dict[str, tuple[str, str]]] = {}
    current: dict[str, tuple[str, str]] | None = None
    name = kind = ""
    pieces: list[str] = []

    def close(number: int) -> None:
        if name:
            if not pieces:
                raise ValueError(f"{where}:{number}: {name} has no pattern lines")
            current[name] = (kind, "".join(pieces))

    for number, line in enumerate(text.splitlines(), 1):
        if line.startswith(_INDENT):
            if not name:
                raise ValueError(f"{where}:{number}: an indented line outside an entry")
            if line != line.rstrip():
                raise ValueError(f"{where}:{number}: a pattern line ends in a space")
            pieces.append(line[len(_INDENT):])
            continue
        if line.startswith("#"):
            continue
        close(number)
        name, pieces = "", []
        if not line.strip():
            continue
        if match := _SECTION.match(line):
            if match.group(1) in sections:
                raise ValueError(f"{where}:{number}: section [{match.group(1)}] again")
            current = sections[match.group(1)] = {}
        elif match := _HEADER.match(line):
            if current is None:
                raise ValueError(f"{where}:{number}: an entry before the first [section]")
            name, kind = match.group(1), match.group(2) or ""
            if kind != "part" and _flags(kind) is None:
                raise ValueError(f"{where}:{number}: {name}: '({kind})' is neither (part) nor flags of "
                                 f"{sorted(_FLAGS)}")
            if name in current:
                raise ValueError(f"{where}:{number}: {name} again in its section")
        else:
            raise ValueError(f"{where}:{number}: not a [section], an entry 'NAME:', a comment or a pattern "
                             f"line: {line!r}")
    close(len(text.splitlines()))
    return sections


def resolve(sections: dict[str, dict[str, tuple[str, str]]]) -> dict[str, dict[str, str]]:
    """Section -> name -> text with every ``{NAME}`` filled in (a part may use parts, not itself)."""
    done: dict[tuple[str, str], str] = {}

    def text_of(where: str, name: str, seen: tuple[tuple[str, str], ...]) -> str:
        key = (where, name)
        if where not in sections or name not in sections[where]:
            raise ValueError(f"phrases.txt: [{seen[-1][0]}] {seen[-1][1]} uses {{{where}.{name}}}, which is not there")
        kind, template = sections[where][name]
        if seen and kind != "part":
            raise ValueError(f"phrases.txt: [{seen[-1][0]}] {seen[-1][1]} uses {name}, a pattern, not a part")
        if key in done:
            return done[key]
        if key in seen:
            raise ValueError(f"phrases.txt: [{where}] {name} uses itself")

        def fill(match: re.Match[str]) -> str:
            return text_of(match.group(1) or where, match.group(2), (*seen, key))

        done[key] = _REFERENCE.sub(fill, template)
        return done[key]

    return {where: {name: text_of(where, name, ()) for name in entries} for where, entries in sections.items()}


@cache
def _all() -> dict[str, Phrases]:
    text = resources.files(__package__).joinpath("phrases.txt").read_text(encoding="utf-8")
    sections = parse(text)
    texts = resolve(sections)
    out = {}
    for where, entries in sections.items():
        values: dict[str, object] = {}
        for name, (kind, _) in entries.items():
            value = texts[where][name]
            values[name] = value if kind == "part" else re.compile(value, _flags(kind))
        out[where] = Phrases(where, values)
    return out


def section(name: str) -> Phrases:
    """The phrases of one section of phrases.txt (read and compiled once per process)."""
    sections = _all()
    if name not in sections:
        raise ValueError(f"phrases.txt has no section [{name}]")
    return sections[name]
