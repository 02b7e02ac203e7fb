"""The mood and the time of a clause: whether a model asserts what it writes, and about which point.

Words of English reasoning, no domain's (docs/traces.md, "How a trace is read"). A claim is judged
only when both are certain; everything here only says what the words say.

Mood (`MOODS`): a clause asserts (the state is so, the action is taken), or it states a requirement
("we need A clear", "requires", "must be", "Pre:", "X demands A"), a goal, a plan or aim ("should",
"will", "to get", "ideally", "I'm going to"), a question, a supposition (the if-part of "if ...",
"were I to"), an option considered ("maybe", "for example", "I could", "would be possible"), a
rejected option ("I can't", "instead of", "X is not possible"), or names an action as a point ("after
unstacking A", "X requires ..."); "I can X" asserts that X applies where the line is. Hedged facts
("maybe A is clear") are not asserted.

Time: "now", "currently", "at this point", a sentence that opens with a time word or a consequence
("At this point, ...", "As a result, ...", "Which means ...") (the point the line is at); "because",
"since" after an action (the state before it); "initially" (the start); "after X-ing" (after X) and
"when X-ing" (at X). Narration before a fact that names no object and negates nothing ("we've got",
"that gives") is not part of the fact.

Negation and truth words: "no pain c", "not clear", "A is not clear" (`grammar.fact_forms`), "pain c
is false", "planet b: no"; "province b is true", "harmony: yes", "(yes)". Enumerations the text says
are complete (`enumerations`): "only A and C are clear", "only <fact> and <fact> hold", "nothing
besides <fact> holds", "none but A is clear", "none of A, B
is clear", "neither A nor B is clear", "all blocks are clear except A".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from widthbench.pddl_domains.readers.phrases import section

#: This module's words of English: its section of phrases.txt.
WORDS = section("mood")

# ---------------------------------------------------------------------------------------------- moods

ASSERT = "assert"  # a fact asserted; an action taken
CAN = "can"  # "I can X": X asserted applicable where the line is, not taken
REQUIRE = "require"
GOAL = "goal"
PLAN = "plan"
QUESTION = "question"
SUPPOSE = "suppose"
CANDIDATE = "candidate"
REJECT = "reject"
REFERENCE = "reference"
HEDGE = "hedge"
MOODS = (ASSERT, CAN, REQUIRE, GOAL, PLAN, QUESTION, SUPPOSE, CANDIDATE, REJECT, REFERENCE, HEDGE)

# ---------------------------------------------------------------------------------------------- narration

#: Verbs of change and contractions read as the grammar's "is".
CHANGE = ((re.compile(r"\b(?:becomes|remains|stays|is\s+now|is\s+still|gets|is\s+then)\b"), "is"),
          (re.compile(r"\b(?:become|remain|stay|are\s+now|are\s+still)\b"), "are"),
          (re.compile(r"\bisn't\b"), "is not"), (re.compile(r"\baren't\b"), "are not"),
          (re.compile(r"\b(?:it's|it\s+is)\s+(?=now\b|still\b)"), "it is "))
#: What a clause says of the action it opens with, after it: its requirements ("X requires A",
#: "X needs"; a point named, not an action taken), that it would be possible (an option), that it is
#: possible or allowed ("X is possible": asserted applicable, not taken), that it is not.
OF_ACTION = (
    (REFERENCE, re.compile(r"^\s*(?:(?:we|i|you|one)\s+(?:would\s+|will\s+|first\s+)?(?:need|require)|requires?|needs?|would\s+(?:need|require)|"
                           r"demands?|calls?\s+for|depends?\s+on|presupposes|is\s+(?:only\s+)?(?:allowed|possible|legal)\s+only\s+(?:if|when)|"
                           r"is\s+only\s+(?:allowed|legal)\s+(?:if|when)|can\s+only\s+(?:be\s+done|happen)\s+(?:if|when)|has\s+(?:the\s+)?(?:pre-?conditions?|requirements?)|"
                           r"pre-?conditions?|is\s+only\s+possible\s+if|is\s+possible\s+only\s+if)\b")),
    (REJECT, re.compile(r"^\s*(?:(?:is|was|would\s+be|seems)\s+(?:not|n't)\s+|isn't\s+|wasn't\s+|(?:is|would\s+be)\s+im)"
                        r"(?:possible|allowed|valid|applicable|legal|an\s+option)|^\s*(?:can't|cannot|won't|doesn't)\b")),
    (CANDIDATE, re.compile(r"^\s*(?:would|could|might|may)\s+(?:be\s+)?(?:possible|allowed|valid|work|an\s+option|fine|ok|okay)\b"
                           r"|^\s*(?:might|could|may)\b|^\s*\?")),
    (CAN, re.compile(r"^\s*(?:is|seems|looks)\s+(?:possible|allowed|valid|applicable|legal|fine|ok|okay)\b")),
)

# ---------------------------------------------------------------------------------------------- truth words


def truth_forms(c: str):
    """(fact text, negated) readings of a clause that carries its truth in words: "no pain c",
    "not clear a", "pain c is false", "planet b: no" (denied); "province b is true", "harmony: yes",
    "holding blue (yes)" (asserted). Nothing when the clause has no such words."""
    m = WORDS.NO.match(c)
    if m:
        yield c[m.end():], True
    m = WORDS.FALSE_AFTER.search(c)
    if m and m.start() > 0:
        yield c[:m.start()], True
    m = WORDS.TRUE_AFTER.search(c)
    if m and m.start() > 0:
        yield c[:m.start()], False


# ---------------------------------------------------------------------------------------------- enumerations

#: Words that make a list exclusive: "only", "just", "exactly", "solely", and "nothing / none / no one /
#: no other <noun>" followed by "but", "besides", "except", "other than", "apart from", "beyond", "save".
_BUT = r"(?:but|besides|except|other\s+than|apart\s+from|beyond|save)"
_ONLY = (r"(?:only|just|exactly|solely|exclusively|nothing\s+(?:else\s+)?" + _BUT + r"|none\s+(?:other\s+)?" + _BUT +
         r"|no\s+one\s+(?:else\s+)?" + _BUT + r"|no\s+(?:other\s+)?(?:blocks?|objects?|ones?|facts?)\s+" + _BUT + r")")
_ENUMERATIONS = (
    # "only a and c are clear", "only the red block is clear", "none besides a is clear"
    ("only", re.compile(r"^" + _ONLY + r"\s+(?P<objs>.+?)\s+(?:is|are)\s+(?P<pred>(?!the\s+only\b).+)$")),
    # "a and c are the only clear blocks", "a is the only one that is clear"
    ("only", re.compile(r"^(?P<objs>.+?)\s+(?:is|are)\s+the\s+only\s+(?:ones?|blocks?|objects?)\s+(?:that\s+(?:is|are)\s+)?(?P<pred>.+)$")),
    ("only", re.compile(r"^the\s+only\s+(?P<pred>[\w-]+)\s+(?:ones?|blocks?|objects?)\s+(?:is|are)\s+(?P<objs>.+)$")),
    # "only <fact> and <fact> hold"
    ("only-facts", re.compile(r"^" + _ONLY + r"\s+(?P<facts>.+?)\s+(?:hold|holds|are\s+true|is\s+true)$")),
    ("only-facts", re.compile(r"^" + _ONLY + r"\s+(?:these|the\s+following)\s+(?:facts\s+)?(?:hold|are\s+true)(?:\s+now)?\s*:?\s*"
                              r"(?P<facts>.+)$")),
    ("none", re.compile(r"^none\s+of\s+(?P<objs>.+?)\s+(?:is|are)\s+(?P<pred>.+)$")),
    ("none", re.compile(r"^neither\s+(?P<objs>.+?\s+nor\s+.+?)\s+(?:is|are)\s+(?P<pred>.+)$")),
    # "all blocks are clear except a", "every block except a is clear"
    ("except", re.compile(r"^(?:all|every|each)\s+(?:of\s+)?(?:the\s+)?(?:[\w-]+\s+)?(?:is|are)\s+(?P<pred>.+?)\s+"
                          r"(?:except|but|other\s+than|apart\s+from)\s+(?:for\s+)?(?P<objs>.+)$")),
    ("except", re.compile(r"^(?:all|every|each)\s+(?:of\s+)?(?:the\s+)?(?:[\w-]+\s+)?(?:except|but|other\s+than|apart\s+from)\s+"
                          r"(?:for\s+)?(?P<objs>.+?)\s+(?:is|are)\s+(?P<pred>.+)$")),
)


@dataclass(frozen=True, slots=True)
class Enumeration:
    """An enumeration read from a clause: ``kind`` "only" (the objects listed are the only ones the
    predicate holds of), "only-facts" (the facts listed are the only ones of their predicates),
    "none" (it holds of none of them), "except" (of all but them); ``items`` the object phrases (or
    fact phrases), ``predicate`` the predicate phrase ("clear", "on the table")."""

    kind: str
    items: tuple[str, ...]
    predicate: str = ""


def enumerations(clause: str) -> list[Enumeration]:
    """The enumerations a (normalised, opener-free) clause may state, in the order of `_ENUMERATIONS`
    (the reader keeps the first whose items name objects or facts of its task)."""
    c = WORDS.TRAILING_TIME.sub("", " ".join(clause.split()).strip(" .!;:"))
    out = []
    for kind, pat in _ENUMERATIONS:
        m = pat.match(c)
        if not m:
            continue
        if kind == "only-facts":
            items = tuple(y for x in WORDS.LIST_SPLIT.split(m.group("facts")) for y in re.split(r"(?<=\))\s+(?=\()", x) if y)
            if items:
                out.append(Enumeration(kind, items))
            continue
        items = tuple(re.sub(r"^(?:both|either|neither)\s+", "", x) for x in WORDS.LIST_SPLIT.split(m.group("objs")) if x)
        out.append(Enumeration(kind, items, m.group("pred").strip()))
    return out


def mood_of_fact(raw: str) -> str | None:
    """The mood a fact clause's own words give it (None: none of its own, the sentence decides):
    a requirement written into its verb, or a hedge."""
    if WORDS.REQUIRED_VERB.search(raw):
        return REQUIRE
    if WORDS.AIMED_VERB.search(raw):
        return PLAN
    if WORDS.HEDGED.search(raw):
        return HEDGE
    return None


def required_as_is(c: str) -> str:
    """``c`` with a requirement or an aim written into its verb read as "is" ("A must be clear" -> "A
    is clear")."""
    return WORDS.AIMED_VERB.sub("is", WORDS.REQUIRED_VERB.sub("is", c))
