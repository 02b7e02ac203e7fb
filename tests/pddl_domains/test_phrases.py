"""phrases.txt, the readers' English phrases: its form reads back exactly, its references resolve, every
phrase the code names is in it, and every phrase in it is named by the code."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from widthbench.pddl_domains.readers import phrases

PACKAGE = Path(phrases.__file__).resolve().parents[2]
READERS = Path(phrases.__file__).resolve().parent


def _write(entries: dict[str, dict[str, tuple[str, list[str]]]]) -> str:
    out = []
    for where, items in entries.items():
        out += [f"[{where}]", ""]
        for name, (kind, lines) in items.items():
            out.append(f"{name} ({kind}):" if kind else f"{name}:")
            out += ["    " + line for line in lines]
            out.append("")
    return "\n".join(out)


# pattern lines: anything but a newline, never ending in a space, never holding "{name}"
_LINE = st.text(st.characters(blacklist_categories=("Cs", "Zl", "Zp", "Cc"), blacklist_characters="{}"),
                min_size=1, max_size=30).filter(lambda s: not s[-1].isspace())
_NAME = st.from_regex(r"[A-Z][A-Z0-9_]{0,8}", fullmatch=True)


@given(st.dictionaries(st.sampled_from(["mood", "steps", "layout"]),
                       st.dictionaries(_NAME, st.tuples(st.sampled_from(["", "part", "multiline", "ignorecase, dotall"]),
                                                        st.lists(_LINE, min_size=1, max_size=4)),
                                       min_size=1, max_size=5),
                       min_size=1, max_size=3))
def test_the_form_reads_back_each_pattern_as_its_lines_joined(entries):
    parsed = phrases.parse(_write(entries))
    assert parsed == {where: {name: (kind, "".join(lines)) for name, (kind, lines) in items.items()}
                      for where, items in entries.items()}


def test_references_fill_in_parts_across_sections_and_leave_quantifiers():
    text = _write({"a": {"WORD": ("part", ["(?:yes|", "no)"]), "LONG": ("", [r"^{WORD}\s{1,40}{b.MARK}$"])},
                   "b": {"MARK": ("part", ["[!?]{2}"])}})
    texts = phrases.resolve(phrases.parse(text))
    assert texts["a"]["LONG"] == r"^(?:yes|no)\s{1,40}[!?]{2}$"


def test_a_comment_between_a_patterns_lines_is_not_part_of_it():
    text = "[s]\n\nX:\n    a\n# what the next line matches\n    |b\n\nY:\n    c\n"
    assert phrases.parse(text) == {"s": {"X": ("", "a|b"), "Y": ("", "c")}}


@pytest.mark.parametrize("text, says", [
    ("[s]\n\nX:\n    a \n", "s.txt:4: a pattern line ends in a space"),
    ("    a\n", "s.txt:1: an indented line outside an entry"),
    ("X:\n    a\n", "s.txt:1: an entry before the first [section]"),
    ("[s]\nX:\n    a\nX:\n    b\n", "s.txt:4: X again in its section"),
    ("[s]\nX:\n\nY:\n    b\n", "s.txt:3: X has no pattern lines"),
    ("[s]\nX (bold):\n    a\n", "s.txt:2: X: '(bold)' is neither (part) nor flags"),
    ("[s]\n  X:\n", "s.txt:2: not a [section]"),
])
def test_a_malformed_file_names_its_line(text, says):
    with pytest.raises(ValueError, match=re.escape(says)):
        phrases.parse(text, "s.txt")


@pytest.mark.parametrize("text, says", [
    ("[s]\nX:\n    {Y}\n", "[s] X uses {s.Y}, which is not there"),
    ("[s]\nX:\n    {Y}\nY:\n    a\n", "[s] X uses Y, a pattern, not a part"),
    ("[s]\nX (part):\n    {Y}\nY (part):\n    {X}\n", "uses itself"),
])
def test_a_reference_that_cannot_be_filled_in_is_an_error(text, says):
    with pytest.raises(ValueError, match=re.escape(says)):
        phrases.resolve(phrases.parse(text))


def test_a_section_is_read_only_and_names_what_it_lacks():
    words = phrases.section("mood")
    with pytest.raises(AttributeError, match=r"phrases.txt has no NO_SUCH_PHRASE in \[mood\]"):
        words.NO_SUCH_PHRASE  # noqa: B018
    with pytest.raises(AttributeError, match="read-only"):
        words.OPENS_NOW = re.compile("x")
    with pytest.raises(ValueError, match=r"no section \[nowhere\]"):
        phrases.section("nowhere")


def _named_in_code() -> dict[str, set[str]]:
    """Section -> the phrase names the package's code uses (``WORDS.X``, ``module.WORDS.X``, and the
    names a module binds to other sections, ``MOOD = phrases.section("mood")``)."""
    named: dict[str, set[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        if ".venv" in path.parts or "tests" in path.parts:
            continue
        text = path.read_text(encoding="utf-8")
        bound = {}
        for m in re.finditer(r"^((?:[A-Z_]+,\s*)*[A-Z_]+)\s*=\s*((?:phrases\.section\(\"\w+\"\),?\s*)+)$", text, re.M):
            for alias, where in zip(re.split(r",\s*", m.group(1)), re.findall(r'section\("(\w+)"\)', m.group(2))):
                bound[alias] = where
        for alias, where in bound.items():
            for name in re.findall(rf"(?<![\w.]){alias}\.([A-Z][A-Z0-9_]*)", text):
                named.setdefault(where, set()).add(name)
        for where, name in re.findall(r"\b([a-z_]+)\.WORDS\.([A-Z][A-Z0-9_]*)", text):
            named.setdefault(where, set()).add(name)
    return named


def test_every_phrase_the_code_names_is_in_the_file_and_every_phrase_in_it_is_named():
    sections = phrases.parse((READERS / "phrases.txt").read_text(encoding="utf-8"))
    texts = phrases.resolve(sections)
    named = _named_in_code()
    assert named, "no phrase named in the code: the scan is broken"
    missing = {f"[{w}] {n}" for w, names in named.items() for n in names if n not in sections.get(w, {})}
    assert not missing, f"named in the code, not in phrases.txt: {sorted(missing)}"
    used_as_part = {(w2 or w, n) for w, items in sections.items() for _, t in items.values()
                    for w2, n in re.findall(r"\{(?:([a-z_]+)\.)?([A-Z][A-Z0-9_]*)\}", t)}
    unused = {f"[{w}] {n}" for w, items in sections.items() for n in items
              if n not in named.get(w, set()) and (w, n) not in used_as_part}
    assert not unused, f"in phrases.txt, named by no code and no other phrase: {sorted(unused)}"
    # and every pattern compiles with its flags
    for where, items in sections.items():
        words = phrases.section(where)
        for name, (kind, _) in items.items():
            value = getattr(words, name)
            assert value == texts[where][name] if kind == "part" else value.pattern == texts[where][name]
