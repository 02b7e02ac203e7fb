"""Parsers of the search-only answers: judge scores, values, numbered score lists, the direct
"Action: / Resulting state:" block. Same rules as `widthbench.subtasks.strict` (answer section after
the last "Answer:" label; never guess: raise ParseError)."""

from __future__ import annotations

import re

from widthbench.core.errors import ParseError
from widthbench.subtasks.strict import answer_section, split_mapping_blocks

_NUMBER = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)(?![\w.])")
_OUT_OF = re.compile(r"\s*(?:/|out\s+of)\s*10\b", re.I)
_SCORE_LINE = re.compile(r"^[\s>*#_`\-]*(?:candidate|action)?\s*(\d+)\s*[:.)\-=]\s*[*_`]*\s*(\d+(?:\.\d+)?)"
                         r"(?:\s*(?:/|out\s+of)\s*10)?[*_`]*\s*\.?\s*$", re.I)


def parse_score(text: str, top: float = 10.0) -> float:
    """One number from 0 to ``top`` ("7", "7.5", "7/10", "7 out of 10")."""
    section = _OUT_OF.sub("", answer_section(text)).strip()
    if not section:
        raise ParseError("empty answer: expected a score")
    numbers = [float(x) for x in _NUMBER.findall(section)]
    if not numbers:
        raise ParseError("no score in the answer")
    if len(set(numbers)) > 1:
        raise ParseError(f"several numbers in the answer: {', '.join(map(lambda x: f'{x:g}', dict.fromkeys(numbers)))}")
    if not 0 <= numbers[0] <= top:
        raise ParseError(f"score {numbers[0]:g} is outside 0-{top:g}")
    return numbers[0]


def parse_scores(text: str, count: int, top: float = 10.0) -> list[float]:
    """Scores of candidates 1..count from "N: score" lines (every candidate exactly once)."""
    found: dict[int, float] = {}
    for line in answer_section(text).splitlines():
        if not line.strip():
            continue
        m = _SCORE_LINE.match(line)
        if not m:
            raise ParseError(f"cannot read the score line {line.strip()[:60]!r} (expected 'N: score')")
        i, score = int(m.group(1)), float(m.group(2))
        if not 1 <= i <= count:
            raise ParseError(f"candidate {i} does not exist (there are {count})")
        if i in found:
            raise ParseError(f"candidate {i} is scored twice")
        if not 0 <= score <= top:
            raise ParseError(f"score {score:g} of candidate {i} is outside 0-{top:g}")
        found[i] = score
    missing = [i for i in range(1, count + 1) if i not in found]
    if missing:
        raise ParseError(f"no score for candidate(s) {', '.join(map(str, missing))}")
    return [found[i] for i in range(1, count + 1)]


def split_direct(text: str) -> tuple[str, str]:
    """(action text, state text) of a direct answer: exactly one Action / Resulting state block."""
    blocks = split_mapping_blocks(answer_section(text))
    if len(blocks) != 1:
        raise ParseError(f"expected one action and its resulting state, found {len(blocks)} blocks")
    return blocks[0]


def numbered(items: list[str]) -> str:
    return "\n".join(f"{i}. {t}" for i, t in enumerate(items, 1))
