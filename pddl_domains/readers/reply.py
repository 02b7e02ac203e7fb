"""Reply splitting: where the answer is inside a reply.

Strict policy (docs/subtasks.md, "Parsing rules"): the text after the last ``</think>`` is the reply;
if a line starts with an "Answer:" label (any case, markdown allowed: ``**Answer:**``,
``### Final answer:``) the answer section is what follows the last such label, otherwise the whole
reply; a one-value answer (one action, one number) whose section does not read may be its first line
after the label, when no later line reads as an answer too (`one_value`).

Flexible policy (docs/subtasks.md, "Flexible reader", rules 1-2): Unicode spacing and punctuation
read as ASCII (`plain`: offsets kept); a reply that opens ``<think>`` and
never closes it holds no answer; a reply that goes on to pose a new problem (``[STATEMENT]``) ends
there; the region is what follows the last answer label (also ``Final plan:``), else the whole reply
(`region`); a closing marker of a block the reply never opened ends the answer (`answer_end`).
Inside it, blocks marked ``[PLAN]`` ... ``[PLAN END]`` (any ``[X]`` / ``[X END]``,
``_END``; a closing marker alone closes what precedes it) and code fences are found by `find_blocks`;
`strip_number` drops numbering ("1.", "1)", "Step 1:") and bullets and returns the number.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from widthbench.core.errors import ParseError
from widthbench.pddl_domains.readers import layout, phrases

#: This module's words of English: its section of phrases.txt.
WORDS = phrases.section("reply")


def reply_text(text: str | None) -> str:
    """The reply without a leading ``<think>…</think>`` block."""
    t = text or ""
    if "</think>" in t:
        t = t.rsplit("</think>", 1)[1]
    return t


def answer_section(text: str | None) -> str:
    """The part of a reply that holds the answer (rule 1)."""
    t = reply_text(text)
    last = None
    for m in WORDS.STRICT_LABEL.finditer(t):
        last = m
    return t[last.end():] if last else t


def answer_lines(text: str | None) -> list[str] | None:
    """The non-empty lines after the last "Answer:" label (its own line first); None without a label."""
    t = reply_text(text)
    last = None
    for m in WORDS.STRICT_LABEL.finditer(t):
        last = m
    if last is None:
        return None
    return [line for line in t[last.end():].split("\n") if line.strip()]


def one_value(parse, text: str | None):
    """``parse(section)``; if that fails, the first line after the "Answer:" label alone, provided
    no later line reads as an answer too (rule 5). The first error is raised otherwise."""
    try:
        return parse(answer_section(text))
    except ParseError as first:
        lines = answer_lines(text)
        if not lines or len(lines) < 2:
            raise
        try:
            value = parse(lines[0])
        except ParseError:
            raise first from None
        for other in lines[1:]:
            try:
                parse(other)
            except ParseError:
                continue
            raise ParseError(f"more than one answer: {lines[0].strip()!r} and {other.strip()!r}") from None
        return value


#: An answer label ("Answer:", "**Final plan:**", "My final answer is"): its words on one line (a
#: line that ends in "my" or "final" before a line "Answer:" is not part of the label).
FLEXIBLE_LABEL = re.compile(r"(?im)^[ \t>*#_`\-]*(?:my[ \t]+|the[ \t]+|our[ \t]+)?"
                            r"(?:(?:final[ \t]+)?answer|final[ \t]+(?:plan|solution))"
                            r"[ \t*_`]*(?:is)?[ \t*_`]*"
                            r"(?::|(?=[ \t*_`]*$))[*_`]*")
MARK = re.compile(r"^\[\s*([a-z][a-z _\-]*?)\s*\]$")
# "and"/"then" as words, never inside a hyphenated name (pickup-and-loose)

@dataclass(frozen=True, slots=True)
class Line:
    start: int
    end: int
    raw: str
    norm: str
    fence: bool


def _plain_char(c: str) -> str:
    if c in _SPACES or (c.isspace() and c not in "\n\r\t"):
        return " "
    if "\uff01" <= c <= "\uff5e":  # full-width ASCII: digits, letters, brackets
        return chr(ord(c) - 0xFEE0)
    if "\u2080" <= c <= "\u2089":  # subscript digits: "package₀" is package 0 (docs/subtasks.md, rule 3)
        return chr(ord(c) - 0x2080 + ord("0"))
    return _PUNCTUATION.get(c, c)


_SPACES = frozenset("\u00a0\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000")
_PUNCTUATION = {"\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u2032": "'", "\u201c": '"',
                "\u201d": '"', "\u201e": '"', "\u2033": '"', "\u2010": "-", "\u2011": "-", "\u2012": "-",
                "\u2013": "-", "\u2014": "-", "\u2015": "-", "\u2212": "-", "\u208b": "-", "\u2024": ".", "\u2044": "/",
                "\u200b": " ", "\u200c": " ", "\u200d": " ", "\u2060": " ", "\ufeff": " "}


def plain(text: str) -> str:
    """``text`` with Unicode spaces (no-break, narrow no-break, thin, zero-width, ideographic) as
    spaces, typographic quotes and dashes as ASCII, full-width ASCII and subscript digits as ASCII
    ("l₁₋₀" as "l1-0"); one character for one,
    so that offsets into the reply stay offsets into the original."""
    if text.isascii():
        return text
    return "".join(_plain_char(c) for c in text)


def struck_out(text: str) -> str:
    """``text`` with struck-through text blanked (offsets kept): what a reply strikes through it
    withdraws ("2. ~~Stack the red block on the blue block~~"), never part of the answer (`region`:
    a strike mark left open in the answer is a ParseError, since what it withdraws is not said)."""
    if "~~" not in text and "<" not in text:
        return text
    return WORDS.STRUCK.sub(lambda m: "".join(c if c == "\n" else " " for c in m.group(0)), text)


def region(text: str | None, stated=None) -> tuple[str, int, int, bool]:
    """(reply text, start, end, label?) of the answer region (rule 1); the text is `plain`.

    ``stated(section) -> True | False | None`` tells whether a part of the reply that poses a problem
    (from a ``[STATEMENT]`` line to the next) states the problem asked (`problem_sections`)."""
    t = struck_out(plain(text or ""))
    low = t.lower()
    start = 0
    k = low.rfind("</think>")
    if k >= 0:
        start = k + len("</think>")
    elif "<think>" in low:
        raise ParseError("the reply ends inside its thinking (<think> without </think>): no answer after it")
    if not t[start:].strip():
        raise ParseError("empty answer" + (" after the thinking" if k >= 0 else ""))
    end = len(t)
    if stated is not None:
        t = problem_sections(t, start, stated)
    for m in WORDS.NEW_PROBLEM.finditer(t, start):
        if t[start:m.start()].strip():
            end = m.start()  # the reply goes on to pose a new problem: the answer ends here
            break
    if WORDS.OPEN_STRIKE.search(t, start, end):
        raise ParseError("struck-through text that is never closed (~~ or <s>/<del> without its end)")
    last = None
    for m in FLEXIBLE_LABEL.finditer(t[start:end]):
        last = m
    if last is not None:
        if not t[start + last.end():end].strip():
            raise ParseError("nothing after the last 'Answer:' label")
        return t, start + last.end(), end, True
    return t, start, end, False


def answer_end(t: str, start: int, end: int) -> tuple[int, int]:
    """(where the answer in ``t[start:end]`` ends, where the text after its end marker starts): the
    answer ends at a closing marker (``[PLAN END]``) that closes a block the reply never opened (the
    prompt opened it: "My plan is as follows: [PLAN]"), when text precedes it; else (end, end).
    What follows the answer's end marker is not the answer (a completion running on into another
    problem or more lines); the readers still refuse an answer that takes a step back or offers
    another plan there (docs/subtasks.md, "Flexible reader", rule 1)."""
    for m in WORDS.MARK_LINE.finditer(t, start, end):
        if not WORDS.MARK_END.search(m.group(1).lower()):
            return end, end  # the reply opens a block itself: its blocks are read (rule 2)
        if t[start:m.start()].strip():
            return m.start(), m.end()
    return end, end


def problem_sections(t: str, start: int, stated) -> str:
    """``t`` with the parts that pose and solve another problem blanked out (offsets kept).

    A reply may copy the prompt's example, or solve another problem, then restate the problem asked
    and solve it. Each part from a ``[STATEMENT]`` line to the next is judged by ``stated``: the parts
    that state another problem are blanked; when some part states the problem asked, those parts and
    the text before the first statement are the answer (a plan in each must agree), with the markers
    blanked; otherwise nothing changes (rule 1: a reply that goes on to pose a new problem ends there).
    Raises ParseError when every statement is another problem and nothing is left to read."""
    marks = list(WORDS.NEW_PROBLEM.finditer(t, start))
    if not marks:
        return t
    parts = [(m.start(), marks[i + 1].start() if i + 1 < len(marks) else len(t), m.end()) for i, m in enumerate(marks)]
    verdicts = [stated(t[s:e]) for s, e, _ in parts]
    if True not in verdicts:
        if verdicts and all(v is False for v in verdicts) and not t[start:marks[0].start()].strip():
            raise ParseError("the reply solves another problem than the one asked")
        return t
    out = list(t)
    for (s, e, head), v in zip(parts, verdicts):
        stop = e if v is False else head  # another problem: all of it; the problem asked: its marker
        out[s:stop] = [c if c == "\n" else " " for c in t[s:stop]]
    return "".join(out)


def region_lines(text: str, start: int, end: int) -> list[Line]:
    out, pos = [], start
    for raw in text[start:end].split("\n"):
        out.append(Line(pos, pos + len(raw), raw, layout.normalise(raw).strip(),
                         raw.strip().startswith(("```", "~~~"))))
        pos += len(raw) + 1
    return out


def find_blocks(lines: list[Line]) -> list[tuple[str, list[Line]]]:
    """Marked blocks and code fences of the region, in order (rule 2)."""
    blocks: list[tuple[str, list[Line]]] = []
    open_kind, open_at, last_close = None, -1, -1
    for i, ln in enumerate(lines):
        if ln.fence:
            if open_kind == "fence":
                blocks.append(("code-fence", lines[open_at + 1:i]))
                open_kind, last_close = None, i
            elif open_kind is None:
                open_kind, open_at = "fence", i
            continue
        if open_kind == "fence":
            continue
        m = MARK.match(ln.norm)
        if not m:
            continue
        if WORDS.MARK_END.search(m.group(1)):
            first = open_at + 1 if open_kind == "tag" else last_close + 1
            blocks.append(("plan-block", lines[first:i]))
            open_kind, last_close = None, i
        else:
            if open_kind == "tag":
                blocks.append(("plan-block", lines[open_at + 1:i]))
            open_kind, open_at = "tag", i
    if open_kind is not None:
        blocks.append(("code-fence" if open_kind == "fence" else "plan-block", lines[open_at + 1:]))
    return [(k, b) for k, b in blocks if any(x.norm for x in b)]


def outside_blocks(lines: list[Line], blocks) -> list[Line]:
    """The lines of the region outside every block (markers and fences excluded)."""
    inside = {ln.start for _, b in blocks for ln in b}
    return [ln for ln in lines if ln.start not in inside and not ln.fence and not MARK.match(ln.norm)]


def strip_number(s: str) -> tuple[int | None, str]:
    number = None
    while True:
        m = WORDS.NUMBER.match(s)
        if not m or m.end() == 0:
            return number, s
        if number is None and (m.group(1) or m.group(2) or m.group(3)):
            number = int(m.group(1) or m.group(2) or m.group(3))
        s = s[m.end():].strip()


def span_of(lines: list[Line]) -> tuple[int, int]:
    used = [ln for ln in lines if ln.norm]
    if not used:
        return (lines[0].start, lines[0].start) if lines else (0, 0)
    return used[0].start, used[-1].end

def located(label: bool, rule: str | None, whole: bool) -> str:
    if rule:
        return rule
    if label:
        return "answer-label"
    return "whole-reply" if whole else "action-lines"
