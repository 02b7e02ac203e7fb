"""Reading answers: the answer section, yes/no verdicts, integers, successor mappings.

Rules (docs/subtasks.md):

1. Answer section. Text after the last ``</think>`` (servers without a reasoning parser) is the reply.
   If a line starts with an "Answer:" label (any case, markdown allowed: ``**Answer:**``,
   ``### Final answer:``), the section is what follows the last such label; otherwise the whole reply.
2. States and actions are read by the renderer's parsers (`widthbench.pddl_domains.render`), which
   drop bullets, numbering, markdown and filler phrases and fail on anything else.
3. Verdicts: the first or the last word of the section must be the verdict word, and the opposite
   word must not occur anywhere in it ("yes, it reaches the goal" reads; "yes and no" does not).
4. Numbers: a section holding exactly one whole number (digits or one..ten) reads as it.
5. One-value answers (a single action, a number): if the section does not read but its first line
   after the "Answer:" label does, that line is the answer and the rest is taken as explanation.
Nothing is guessed: anything else raises `ParseError` with the reason.
"""

from __future__ import annotations

import re

from widthbench.errors import ParseError
from widthbench.pddl_domains import nl_parse

_LABEL_LINE = re.compile(r"(?im)^[\s>*#_`\-]*(?:my\s+|the\s+)?(?:final\s+)?answer[\s*_`]*(?:is)?[\s*_`]*:[*_`]*")
_WORD = re.compile(r"[a-z]+|\d+")
NUMBER_WORDS = {"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
                "eight": 8, "nine": 9, "ten": 10}


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
    for m in _LABEL_LINE.finditer(t):
        last = m
    return t[last.end():] if last else t


def answer_lines(text: str | None) -> list[str] | None:
    """The non-empty lines after the last "Answer:" label (its own line first); None without a label."""
    t = reply_text(text)
    last = None
    for m in _LABEL_LINE.finditer(t):
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


def _words(section: str) -> list[str]:
    return _WORD.findall(nl_parse.normalise(section))


def _verdict(text: str, true_words: frozenset, false_words: frozenset, what: str,
             phrases: tuple = ()) -> bool:
    section = answer_section(text)
    norm = nl_parse.normalise(section)
    for phrase, word in phrases:
        norm = re.sub(rf"\b{phrase}\b", word, norm)
    words = _WORD.findall(norm)
    if not words:
        raise ParseError(f"empty answer: expected {what}")
    has_true = any(w in true_words for w in words)
    has_false = any(w in false_words for w in words)
    if has_true and has_false:
        raise ParseError(f"the answer says both {what.replace(' or ', ' and ')}")
    for w in (words[0], words[-1]):
        if w in true_words:
            return True
        if w in false_words:
            return False
    shown = " ".join(words[:12]) + (" ..." if len(words) > 12 else "")
    raise ParseError(f"expected {what} at the start or end of the answer, got {shown!r}")


_YES = frozenset({"yes"})
_NO = frozenset({"no"})


def parse_yes_no(text: str) -> bool:
    """True for yes, False for no (rule 3)."""
    return _verdict(text, _YES, _NO, "yes or no")


def parse_verdict(text: str) -> bool:
    """Plan verification: True = the plan reaches the goal ("yes")."""
    return _verdict(text, _YES | {"valid"}, _NO | {"invalid"}, "yes or no",
                    phrases=(("not valid", "invalid"),))


def parse_novelty(text: str) -> bool:
    """Novelty: True = novel, keep ("yes", "novel", "keep"); False = prune ("no", "not novel", "prune")."""
    return _verdict(text, _YES | {"novel", "keep"}, _NO | {"prune", "pruned", "duplicate"},
                    "yes or no", phrases=(("not novel", "prune"),))


def parse_integer(text: str) -> int:
    """One whole number (rules 4 and 5)."""
    return one_value(_integer, text)


def _integer(section: str) -> int:
    words = _words(section)
    numbers = [int(w) if w.isdigit() else NUMBER_WORDS[w] for w in words if w.isdigit() or w in NUMBER_WORDS]
    if not words:
        raise ParseError("empty answer: expected a whole number")
    if not numbers:
        raise ParseError("no number in the answer")
    if len(set(numbers)) > 1:
        raise ParseError(f"several numbers in the answer: {', '.join(map(str, dict.fromkeys(numbers)))}")
    return numbers[0]


# ---------------------------------------------------------------------------------------------
# Successor mappings: blocks "Action: ..." / "Resulting state:" / facts


_ACTION_LINE = re.compile(r"^action(?:\s*\d+)?\s*[:.)\-]\s*(.*)$")
_STATE_LINE = re.compile(r"^(?:the\s+)?(?:resulting|new|next|successor|final)?\s*state(?:\s+after[^:]*)?"
                         r"(?:\s+(?:is|would\s+be|becomes))?\s*:\s*(.*)$")
_LEAD = re.compile(r"^(?:[-*•+>#]+|\(?\d+[.)]|step\s+\d+\s*[:.)-]?)\s*")


def split_mapping_blocks(section: str) -> list[tuple[str, str]]:
    """[(action text, state text)] of a successor-mapping answer section, in order."""
    blocks: list[list] = []
    expect_action = False
    for raw in nl_parse.normalise(section).split("\n"):
        line = raw.strip()
        bare = _LEAD.sub("", line, count=1).strip() if line else line
        m = _ACTION_LINE.match(bare)
        if m:
            blocks.append([m.group(1).strip(), []])
            expect_action = not m.group(1).strip()
            continue
        if not blocks:
            if line:
                raise ParseError(f"text before the first 'Action:' line: {line[:60]!r}")
            continue
        if expect_action and line:
            blocks[-1][0] = line
            expect_action = False
            continue
        s = _STATE_LINE.match(bare)
        if s:
            if s.group(1).strip():
                blocks[-1][1].append(s.group(1).strip())
            continue
        if line:
            blocks[-1][1].append(line)
    if not blocks:
        raise ParseError("no 'Action:' block in the answer")
    out = []
    for action, lines in blocks:
        if not action:
            raise ParseError("an 'Action:' line without an action")
        if not lines:
            raise ParseError(f"no resulting state after action {action!r}")
        out.append((action, "\n".join(lines)))
    return out
