"""PDDL written in a reply: a problem file, a goal or a domain file (the formalization sub-tasks'
answers, docs/formalization.md).

A *form* is one balanced parenthesised PDDL expression of the kind asked: ``(define (problem ...)
...)``, ``(:goal ...)`` or ``(define (domain ...) ...)``. ``;`` comments count as spacing. The value
read is the form's text as written; whether it means the right thing is the judge's business
(`planners.equivalence`, `planners.domain_equivalence`), not the reader's.

- Strict policy (format compliance): the answer section (`reply.answer_section`), code-fence lines
  left out, is one form of the kind asked and nothing else.
- Flexible policy: in the answer region (`reply.region`: after the last answer label, else the whole
  reply), every form of the kind asked; a goal may also sit inside a whole problem the reply writes.
  One form, or several that are the same text up to spacing, case and comments, is the answer;
  several different ones are `Ambiguous`, a parse error unless the scorer judges every one alike
  (`subtasks.scoring`): reading never picks one; none is a parse error.
"""

from __future__ import annotations

import re

from widthbench.core.errors import ParseError
from widthbench.pddl_domains.readers import Ambiguous, Reading, phrases
from widthbench.pddl_domains.readers.reply import answer_section, region
from widthbench.planners import strips

#: This module's words of English: its section of phrases.txt.
WORDS = phrases.section("pddl_text")

FORMS = {
    "problem": re.compile(r"\(\s*define\s*\(\s*problem\b", re.I),
    "domain": re.compile(r"\(\s*define\s*\(\s*domain\b", re.I),
    "goal": re.compile(r"\(\s*:goal\b", re.I),
}
_WHAT = {"problem": "PDDL problem (define (problem ...) ...)", "domain": "PDDL domain (define (domain ...) ...)",
         "goal": "PDDL goal (:goal ...)"}


def form_end(text: str, start: int) -> int:
    """The index just past the parenthesis that closes the one opened at ``start`` (``;`` comments
    skipped); ParseError when it is never closed."""
    end, depth = strips.form_end(text, start)
    if end is not None:
        return end
    raise ParseError(f"the PDDL that starts with {text[start:start + 30].strip()!r} is never closed "
                     f"({depth} parenthesis(es) left open)")


def normalised(form: str) -> str:
    """A form without comments, in lower case, with spacing collapsed (around parentheses too)."""
    t = re.sub(r";[^\n]*", " ", form).lower()
    t = re.sub(r"\s*([()])\s*", r" \1 ", t)
    return " ".join(t.split())


def forms(text: str, kind: str, start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
    """(start, end) of each form of ``kind`` in ``text[start:end]``, outermost only (a goal inside a
    problem is found: it is the outermost goal form)."""
    end = len(text) if end is None else end
    out: list[tuple[int, int]] = []
    pos = start
    head = FORMS[kind]
    while True:
        m = head.search(text, pos, end)
        if m is None:
            return out
        stop = form_end(text, m.start())
        if stop > end:
            raise ParseError(f"the {kind} that starts with {text[m.start():m.start() + 30].strip()!r} is never closed")
        out.append((m.start(), stop))
        pos = stop


def strict(text: str | None, kind: str) -> str:
    """The strict policy: the answer section is one form of ``kind`` and nothing else."""
    section = WORDS.FENCE.sub("", answer_section(text))
    body = re.sub(r";[^\n]*", lambda m: " " * len(m.group(0)), section)  # comments as spacing, offsets kept
    s = len(body) - len(body.lstrip())
    if not body.strip():
        raise ParseError(f"no answer: expected a {_WHAT[kind]}")
    if FORMS[kind].match(body, s) is None:
        raise ParseError(f"the answer is not a {_WHAT[kind]}: it starts with {body[s:s + 40].strip()!r}")
    stop = form_end(section, s)
    if body[stop:].strip():
        raise ParseError(f"text after the {kind}: {body[stop:stop + 40].strip()!r}")
    return section[s:stop]


def read(text: str | None, kind: str) -> Reading:
    """The flexible policy: the one form of ``kind`` in the answer region (see the module docstring)."""
    t, start, end, label = region(text)
    found = forms(t, kind, start, end)
    if not found:
        raise ParseError(f"no {_WHAT[kind]} in the answer")
    distinct: dict[str, tuple[int, int]] = {}
    for s, e in found:
        distinct.setdefault(normalised(t[s:e]), (s, e))
    rule = "answer-label" if label else "whole-reply"
    readings = [Reading(t[s:e], (s, e), rule) for s, e in distinct.values()]
    if len(readings) > 1:
        raise Ambiguous(f"the answer writes {len(readings)} different {kind}s", readings)
    return readings[0]
