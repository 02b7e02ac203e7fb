"""Reading answers as a model writes them: normalising text, dropping layout, splitting clauses.

The rules (also in docs/rendering.md):

1. Normalise: lower-case; drop code-fence lines (```...), markdown emphasis (``**``, ``__``, back-ticks,
   single ``_`` or ``*`` around words but never inside a name like ``object_0``),
   heading marks (``#``), block quotes (``>``) and XML-like tags (``<answer>``); collapse spaces.
2. Per line: drop a leading bullet or number (``-``, ``*``, ``•``, ``+``, ``1.``, ``1)``, ``(1)``,
   ``step 1:``) and a leading label (at most six words, no brackets, ending in ``:``, e.g.
   ``Answer:``, ``The resulting state is:``).
3. Split the rest into clauses at ``,`` ``;`` ``.`` (sentence ends) and the words ``and`` / ``then``
   (never inside brackets). Leading connectives (``and``, ``then``, ``also``, ``first``, ``finally``,
   ``next``, ``after that``, ``lastly``) are dropped.
4. A clause that is empty, or is one of a small fixed set of filler phrases (``FILLER``: "the
   resulting state is", "[plan end]", "answer", ...), is skipped. Every other clause must be read
   completely -- by one template (natural language) or as one PDDL form -- or the parse fails with a
   ``ParseError`` naming the clause. Nothing is skipped silently.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from widthbench.core.errors import ParseError
from widthbench.pddl_domains.readers import phrases

#: This module's words of English: its section of phrases.txt.
WORDS = phrases.section("layout")

ARTICLES = ("the", "a", "an")


@dataclass(frozen=True, slots=True)
class Clause:
    text: str  # normalised clause text
    line: int  # 1-based line number in the original text
    whole: str = ""  # the clause before a leading connective was dropped ("next" is a word of some vocabularies)


def normalise(text: str) -> str:
    """Lower-case and remove markup; newlines are kept, other runs of white space become one space."""
    t = text.replace("\r\n", "\n").replace("\r", "\n").lower()
    t = WORDS.FENCE.sub("", t)
    t = WORDS.TAG.sub(" ", t)
    t = WORDS.EMPHASIS.sub("", t)
    t = WORDS.SINGLE_EMPHASIS.sub(r"\2", t)
    t = t.replace("\u2019", "'").replace("\u2013", "-").replace("\u2014", "-").replace("\u2192", ",")
    t = t.replace("->", ",")
    return "\n".join(re.sub(r"[ \t\f\v\u00a0]+", " ", line).strip() for line in t.split("\n"))


def strip_line_prefix(line: str) -> str:
    """Drop bullets/numbering and a short leading label ("Answer:") from one line."""
    prev = None
    while prev != line:
        prev = line
        line = WORDS.BULLET.sub("", line, count=1).strip()
        m = WORDS.LABEL.match(line)
        if m and len(m.group(1).split()) <= 6:
            line = line[m.end():].strip()
    return line


def split_depth0(text: str, pattern: re.Pattern) -> list[str]:
    """Split ``text`` at matches of ``pattern`` that are outside any brackets."""
    depth = 0
    mask = []
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth = max(0, depth - 1)
        mask.append(depth)
    out, start = [], 0
    for m in pattern.finditer(text):
        if mask[m.start()] == 0:
            out.append(text[start:m.start()])
            start = m.end()
    out.append(text[start:])
    return out


def clauses(text: str) -> list[Clause]:
    """The non-filler clauses of ``text`` (already normalised), in order."""
    out = []
    for n, raw in enumerate(text.split("\n"), start=1):
        line = strip_line_prefix(raw)
        for part in split_depth0(line, WORDS.SEPARATORS):
            c = clean_clause(part)
            if c and not WORDS.FILLER.match(c):
                out.append(Clause(c, n, part.strip().rstrip(".!?:;").strip()))
    return out


def clean_clause(part: str, connectives: bool = True) -> str:
    """``part`` without quotes, end punctuation, bullets, labels and (``connectives``) leading
    connectives ("then", "next"; kept with ``connectives=False``: a vocabulary may use one as a name,
    as PlanBench's deceptive Logistics writes "next a b" for "at")."""
    c = part.strip().strip("\"'“”‘’").strip()
    prev = None
    while prev != c:
        prev = c
        if connectives:
            c = WORDS.CONNECTIVE.sub("", c).strip()
        c = c.rstrip(".!?:;").strip()
        c = c.strip("\"'“”‘’").strip()
        c = strip_line_prefix(c)
    return c


def is_empty_answer(text: str) -> bool:
    t = " ".join(strip_line_prefix(l) for l in text.split("\n")).strip().rstrip(".!").strip()
    return bool(WORDS.EMPTY.match(t))


def strip_lead_in(clause: str) -> str | None:
    m = WORDS.LEAD_IN.match(clause)
    return clause[m.end():] if m else None


# ------------------------------------------------------------------------------------------
# PDDL forms inside free text: (on a b), (and (on a b) (clear c)), on(a, b), bare "on a b".


@dataclass(frozen=True, slots=True)
class Form:
    name: str
    args: tuple[str, ...]
    negated: bool
    fragment: str  # the text it was read from (for error messages)


def scan_pddl(text: str, read_bare) -> list[Form]:
    """Read all PDDL forms of ``text`` (normalised) in order.

    ``read_bare(clause) -> Form | None`` reads a clause outside brackets (bare ``on a b``).
    Text between forms must be separators, bullets, labels or filler; anything else is an error.
    """
    # Numbering such as "1)" would read as a stray bracket: drop bullets and labels first.
    text = "\n".join(strip_line_prefix(line) for line in text.split("\n"))
    forms: list[Form] = []
    i, n = 0, len(text)
    chunk_start = 0
    while i < n:
        ch = text[i]
        m = WORDS.IDENT_PAREN.match(text, i) if (ch.isalpha() or ch == "_") else None
        if ch == "(" or m:
            _leftover(text[chunk_start:i], forms, read_bare)
            open_at = m.end() - 1 if m else i
            close = _matching(text, open_at)
            inner = text[open_at + 1:close]
            if m:
                if "(" in inner:
                    raise ParseError(f"cannot read {text[i:close + 1]!r}: nested brackets in a functional form")
                forms.append(Form(m.group(1), tuple(WORDS.TOKEN.findall(inner)), False, text[i:close + 1]))
            else:
                forms.extend(_sexpr(text[i:close + 1]))
            i = chunk_start = close + 1
            continue
        if ch == ")":
            raise ParseError(f"unbalanced ')' in {_around(text, i)!r}")
        i += 1
    _leftover(text[chunk_start:], forms, read_bare)
    return forms


def _matching(text: str, open_at: int) -> int:
    depth = 0
    for j in range(open_at, len(text)):
        if text[j] == "(":
            depth += 1
        elif text[j] == ")":
            depth -= 1
            if depth == 0:
                return j
    raise ParseError(f"unbalanced '(' in {_around(text, open_at)!r}")


def _around(text: str, i: int) -> str:
    return text[max(0, i - 20):i + 30].replace("\n", " ")


def _sexpr(group: str) -> list[Form]:
    tokens = re.findall(r"\(|\)|[^\s(),]+", group)
    pos = 0

    def parse():
        nonlocal pos
        if tokens[pos] != "(":
            tok = tokens[pos]
            pos += 1
            return tok
        pos += 1
        items = []
        while tokens[pos] != ")":
            items.append(parse())
        pos += 1
        return items

    tree = parse()
    out: list[Form] = []

    def walk(node, negated=False):
        if not isinstance(node, list) or not node or isinstance(node[0], list):
            raise ParseError(f"cannot read {group!r} as PDDL atoms")
        head = node[0]
        if head == "and" and not negated:
            for child in node[1:]:
                walk(child)
            return
        if head == "not" and not negated and len(node) == 2:
            walk(node[1], negated=True)
            return
        if any(isinstance(x, list) for x in node[1:]):
            raise ParseError(f"cannot read {group!r}: only atoms, (and ...) and (not atom) are understood")
        out.append(Form(head, tuple(node[1:]), negated, group))

    walk(tree)
    return out


def _leftover(chunk: str, forms: list[Form], read_bare) -> None:
    for line in chunk.split("\n"):
        line = strip_line_prefix(line.strip())
        for part in split_depth0(line, WORDS.SEPARATORS):
            c = clean_clause(part)
            if not c or WORDS.FILLER.match(c):
                continue
            form = read_bare(c)
            if form is None:
                raise ParseError(f"cannot read {c!r}: not a PDDL atom or action of this task")
            forms.append(form)
