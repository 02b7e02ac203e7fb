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
besides <fact> holds", "none but A is clear", "none of A, B is clear", "neither A nor B is clear",
"all blocks are clear except A", "A is clear, and no other object is", "<fact> <fact>, and that's
the complete list", "Complete list: <fact> <fact>", "it's A and nothing else that is clear".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from widthbench.pddl_domains.readers import phrases


#: This module's words of English: its section of phrases.txt.
WORDS = phrases.section("mood")

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

#: Verbs of change and contractions read as the grammar's "is" (phrases.txt: BECOMES ... IT_IS_NOW).
CHANGE = ((WORDS.BECOMES, "is"), (WORDS.BECOME, "are"), (WORDS.ISNT, "is not"), (WORDS.ARENT, "are not"),
          (WORDS.IT_IS_NOW, "it is "))
#: What a clause says of the action it opens with, after it (phrases.txt: ACTION_NEEDS ... ACTION_CAN).
OF_ACTION = ((REFERENCE, WORDS.ACTION_NEEDS), (REJECT, WORDS.ACTION_REJECTED), (CANDIDATE, WORDS.ACTION_CONSIDERED),
             (CAN, WORDS.ACTION_CAN))

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

#: The enumerations a clause may state, by kind, in the order they are tried (phrases.txt: ONLY_OBJECTS ...
#: ALL_EXCEPT_ARE; the words that make a list exclusive are its part ONLY).
_ENUMERATIONS = (("only", WORDS.ONLY_OBJECTS), ("only", WORDS.OBJECTS_THE_ONLY), ("only", WORDS.THE_ONLY_OBJECTS),
                 ("only-facts", WORDS.ONLY_FACTS), ("only-facts", WORDS.ONLY_THESE_FACTS),
                 ("only-facts", WORDS.THE_ONLY_FACTS), ("only-facts", WORDS.FACTS_ARE_ONLY),
                 ("only-facts", WORDS.ALL_THAT_HOLDS), ("none", WORDS.NONE_OF), ("none", WORDS.NEITHER_NOR),
                 ("except", WORDS.ALL_EXCEPT), ("except", WORDS.ALL_EXCEPT_ARE), ("only", WORDS.OBJECTS_NO_OTHER),
                 ("only-facts", WORDS.FACTS_NO_OTHER), ("only-facts", WORDS.COMPLETE_LIST),
                 ("only", WORDS.CLEFT_ONLY), ("only", WORDS.CLEFT_NO_OTHER))


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
    c = WORDS.TIME_BEFORE_TAIL.sub("", WORDS.TRAILING_TIME.sub("", " ".join(clause.split()).strip(" .!;:")))
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
        out.append(Enumeration(kind, items, WORDS.TRAILING_TIME.sub("", m.group("pred").strip())))
    return out


def mood_of_fact(raw: str) -> str | None:
    """The mood a fact clause's own words give it (None: none of its own, the sentence decides):
    a requirement written into its verb or set as a condition ("only if"), or a hedge."""
    if WORDS.REQUIRED_VERB.search(raw) or WORDS.ONLY_IF.search(raw):
        return REQUIRE  # "A must be clear", "that works only when A"
    if WORDS.AIMED_VERB.search(raw):
        return PLAN
    if WORDS.HEDGED.search(raw):
        return HEDGE
    return None


def required_as_is(c: str) -> str:
    """``c`` with a requirement or an aim written into its verb read as "is" ("A must be clear" -> "A
    is clear")."""
    return WORDS.AIMED_VERB.sub("is", WORDS.REQUIRED_VERB.sub("is", c))
