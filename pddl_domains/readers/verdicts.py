"""The verdict / number reader: yes/no, plan verdicts, novelty decisions, whole numbers.

Strict (docs/subtasks.md, "Parsing rules"): the first or the last word of the answer section must be
the verdict word, and the opposite word must not occur anywhere in it ("yes, it reaches the goal"
reads; "yes and no" does not); a section holding exactly one whole number (digits or one..ten) reads
as it.

Flexible: what the strict rule reads; otherwise the sentences of the region that state a verdict
("the plan is valid", "the goal is not satisfied", "the state is novel") must all agree, and a number
must be the one number set off as the result (bold, ``\\boxed{}``, "is N" / "= N" closing a line).
"""

from __future__ import annotations

import re

from widthbench.core.errors import ParseError
from widthbench.pddl_domains.readers import Reading, layout, phrases
from widthbench.pddl_domains.readers.reply import answer_section, one_value, region, strip_number

__all__ = ["parse_yes_no", "parse_verdict", "parse_novelty", "parse_integer",
           "read_verdict", "read_yes_no", "read_novelty", "read_integer"]

#: This module's words of English: its section of phrases.txt.
WORDS = phrases.section("verdicts")

NUMBER_WORDS = {"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
                "eight": 8, "nine": 9, "ten": 10}


def _words(section: str) -> list[str]:
    return WORDS.WORD.findall(layout.normalise(section))


def _verdict(text: str, true_words: frozenset, false_words: frozenset, what: str,
             phrases: tuple = ()) -> bool:
    section = answer_section(text)
    norm = layout.normalise(section)
    for phrase, word in phrases:
        norm = re.sub(rf"\b{phrase}\b", word, norm)
    words = WORDS.WORD.findall(norm)
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
# ---------------------------------------------------------------------------------------------
# Verdicts and numbers

_VERDICT_PHRASES = (
    # (pattern, value) over one normalised sentence; {T}/{F} are the true/false words
    (r"^(?:so\s+|thus\s+|therefore\s+)?(yes|no)\b", None),
    (r"\b(yes|no)$", None),
    (r"\b(?:the\s+)?(?:above\s+|given\s+|proposed\s+|provided\s+|this\s+|whole\s+)?plan\s+(?:is|would\s+be|will\s+be)\s+"
     r"(not\s+valid|not\s+correct|invalid|incorrect|valid|correct)\b", None),
)
_PLAN_WORDS = {"valid": True, "correct": True, "invalid": False, "incorrect": False, "not valid": False,
               "not correct": False, "yes": True, "no": False}


def _flex_verdict(text: str, strict_parse, sentence_rules) -> Reading:
    t, start, end, label = region(text)
    body = t[start:end]
    try:
        value = strict_parse(t)  # the strict rule on the reply (it finds the same region itself)
        return Reading(value, (start + len(body) - len(body.lstrip()), start + len(body.rstrip())),
                       "answer-label" if label else "whole-reply")
    except ParseError as first:
        error = first
    found: list[tuple[bool, int, int]] = []
    for m in re.finditer(r"[^.!?\n]+", body):
        sentence = layout.normalise(m.group(0)).strip()
        sentence = strip_number(sentence)[1]
        for pattern, words in sentence_rules:
            for mm in re.finditer(pattern, sentence):
                word = " ".join(mm.group(1).split())
                if word in words:
                    found.append((words[word], start + m.start(), start + m.end()))
    values = {v for v, _, _ in found}
    if len(values) > 1:
        raise ParseError("two different verdicts in the answer")
    if not values:
        raise error
    v, s, e = found[0]
    return Reading(v, (s, e), "verdict-sentence")


def read_verdict(text: str) -> Reading:
    """Plan verification (True = the plan reaches the goal), like `parse.parse_verdict`."""
    return _flex_verdict(text, parse_verdict, [(p, _PLAN_WORDS) for p, _ in _VERDICT_PHRASES])


def read_yes_no(text: str) -> Reading:
    """True for yes, False for no, like `parse.parse_yes_no`."""
    rules = [(_VERDICT_PHRASES[0][0], {"yes": True, "no": False}), (_VERDICT_PHRASES[1][0], {"yes": True, "no": False}),
             (r"\bgoal\s+(?:is|has\s+been)\s+(not\s+satisfied|not\s+reached|not\s+met|not\s+achieved|satisfied|"
              r"reached|met|achieved)\b",
              {"satisfied": True, "reached": True, "met": True, "achieved": True, "not satisfied": False,
               "not reached": False, "not met": False, "not achieved": False})]
    return _flex_verdict(text, parse_yes_no, rules)


def read_novelty(text: str) -> Reading:
    """True = novel (keep), False = prune, like `parse.parse_novelty`."""
    rules = [(_VERDICT_PHRASES[0][0], {"yes": True, "no": False}), (_VERDICT_PHRASES[1][0], {"yes": True, "no": False}),
             (r"\b(?:state\s+)?(?:is|should\s+be|would\s+be)\s+(not\s+novel|novel|kept|pruned|a\s+duplicate)\b",
              {"novel": True, "kept": True, "not novel": False, "pruned": False, "a duplicate": False}),
             (r"^(keep|prune)\b", {"keep": True, "prune": False})]
    return _flex_verdict(text, parse_novelty, rules)


def read_integer(text: str) -> Reading:
    """One whole number, like `parse.parse_integer`; else the one number set off as the result
    (bold, ``\\boxed{}``, "is N" / "= N" closing a line)."""
    t, start, end, label = region(text)
    body = t[start:end]
    try:
        value = parse_integer(t)
        return Reading(value, (start + len(body) - len(body.lstrip()), start + len(body.rstrip())),
                       "answer-label" if label else "whole-reply")
    except ParseError as exc:
        error = exc
    found: list[tuple[int, int, int]] = []
    for pattern in (r"\*\*\s*(\d+)\s*\*\*", r"\\boxed\{\s*(\d+)\s*\}",
                    r"(?im)(?:\bis|=|:)\s*\**\s*(\d+)\s*\**\s*\.?\s*$"):
        for m in re.finditer(pattern, body):
            found.append((int(m.group(1)), start + m.start(1), start + m.end(1)))
    values = {v for v, _, _ in found}
    if len(values) != 1:
        if len(values) > 1:
            raise ParseError(f"several numbers set off as the answer: {', '.join(map(str, sorted(values)))}")
        raise error
    v, s, e = found[0]
    return Reading(v, (s, e), "number-emphasis")