"""Withdrawals: the words by which a reply takes a step of its plan back (docs/subtasks.md, "Flexible
reader", rule 9).

A withdrawal names a step of the plan and withdraws it. It names the step by its number ("step 3",
"steps 2 and 4", "the third step"), by reference ("this step", "that move", "the previous action",
"it", "which" right after the step), or by being said of the step on the step's own line ("Stack the
red block on the blue block is not possible, so ..."); and it withdraws it in one of two ways:

- a *removal* says the step is to go: "remove / skip / omit / drop / delete step 3", "step 3 should
  be skipped", "step 3 is unnecessary / redundant / not needed";
- a *rejection* says the step is wrong and leaves what to do instead unsaid, or a self-correction
  stops short of it: "that step is wrong", "this is not possible", "(wait, no ...)", "oops, scratch
  that", "my mistake", a plan or answer said to be wrong.

Words about what an action does ("restores its province, removing its pain", "which undoes the
craving", "the red block is no longer clear"), about the goal or the state withdraw nothing: they
name no step, or say nothing against one. A *concession* keeps the step: a step said to be not needed
and then, after "but" (or "though", "yet"), kept for a reason ("this step is not necessary, but it is
here to show that b is clear") is a remark on a step of the plan as written, like "this step is
optional" — unless what follows the "but" withdraws, removes or offers another way itself ("but the
plan would also work without it", "but instead ..."). A removal by number is applied by the plan reader; any
other withdrawal makes the answer unreadable (a `ParseError`): a withdrawn step is never credited.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from widthbench.pddl_domains.readers import phrases


#: This module's words of English: its section of phrases.txt.
WORDS = phrases.section("withdrawals")
#: An attempt rejected as a whole ("this plan won't work", "my mistake", "Discard."; docs/subtasks.md,
#: rule 11): the plan reader withdraws the attempts before it, the step reader reads its line as no step.
ATTEMPT_FAILS = WORDS.ATTEMPT_FAILS


#: Words that offer another plan than the one written ("the correct plan is ...", "another plan that
#: works", "alternatively", "Instead, ...", struck-through text).
ANOTHER_PLAN = re.compile(
    r"\b(?:another|alternative)\s+(?:plan|solution|sequence|answer)\b"
    r"|\b(?:another|an\s+alternative|a\s+shorter|a\s+simpler|a\s+better|a\s+different|a\s+faster)\s+"
    r"(?:way|option|approach|route|order)\b"
    r"|\b(?:correct|better|new|updated|fixed|real|actual|revised|corrected|shorter|simpler)\s+"
    r"(?:plan|solution|sequence(?:\s+of\s+actions)?|answer)\s*(?::|is\b|would\s+be\b|should\s+be\b|below\b|"
    r"as\s+follows\b)"
    r"|\b(?:alternativ\w*|revised|revise|correction|corrected)\b|(?:^|[.!?;:]\s+|\n)instead\s*,"
    r"|~~|<\s*(?:s|del|strike)\s*>")
_NUMBER_WORDS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
                 "eighth": 8, "ninth": 9, "tenth": 10}


@dataclass(frozen=True, slots=True)
class Withdrawal:
    """A withdrawal found in a text: ``kind`` "removal" or "rejection", ``steps`` the step numbers it
    names (empty when it names the step otherwise), ``words`` the words that withdraw."""

    kind: str
    steps: frozenset[int]
    words: str


def _conceded(text: str, m: re.Match, names: frozenset[str]) -> bool:
    """Whether the needless-step words ``m`` are conceded: "… not necessary, but <a reason to keep
    it>", the reason withdrawing nothing and offering no other way (module docstring)."""
    if not re.search(WORDS.NEEDLESS, m.group(0)):
        return False
    c = WORDS.CONCESSION.match(text[m.end():])
    if not c:
        return False
    tail = c.group("tail")
    return not WORDS.OTHER_WAY.search(tail) and not ANOTHER_PLAN.search(tail) and withdrawal(tail, names=names) is None


def withdrawal(text: str, said_of_step: bool = False, names: frozenset[str] = frozenset(),
               after_action: bool = False) -> Withdrawal | None:
    """The withdrawal ``text`` (normalised, lower case) makes, or None. ``said_of_step``: the text
    follows a step's action on its own line, so words said of it ("is not correct", ", which is
    wrong") withdraw that step. ``after_action``: the text follows the action in the action's own
    clause, so a verdict withdraws the step after words that only modify the action too ("pick up the
    blue block | from the table is not correct"), not after words that open a clause of their own
    ("... because stacking is not possible"). ``names``: words of the task's vocabulary (a domain
    whose action is "drop" or "wait"): a withdrawing word that is one of them names the action
    instead."""
    if not WORDS.ANY.search(text):
        return None
    if said_of_step or after_action:
        m = (WORDS.SAID_AFTER_ACTION if after_action else WORDS.SAID_OF_IT).search(text)
        if m and not _conceded(text, m, names):
            return Withdrawal("rejection", frozenset(), m.group(0).strip())
    for pattern, kind in ((WORDS.INTERJECTION, "rejection"), (WORDS.REJECTION, "rejection"), (WORDS.REMOVAL, "removal")):
        for m in pattern.finditer(text):
            first = re.match(r"[\W]*(\w+)", m.group(0))
            if first and first.group(1) in names:
                continue
            if first and first.group(1) == "it" and re.match(r"\s+to\b", text[m.end():]):
                continue  # "it is not possible to pick up b": the "it" of a sentence, no step
            if kind == "removal" and _conceded(text, m, names):
                continue
            return Withdrawal(kind, _numbers(m) if kind != "rejection" or pattern is WORDS.REJECTION else frozenset(),
                              m.group(0).strip())
    return None


def _numbers(m: re.Match) -> frozenset[int]:
    n = re.search(rf"\bsteps?\s+({WORDS.NUMBERS})", m.group(0))
    if n:
        return frozenset(int(x) for x in re.findall(r"\d+", n.group(1)))
    word = re.search(r"\b(first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|(\d+)(?:st|nd|rd|th))\s+"
                     + WORDS.NOUN, m.group(0))
    if word:
        return frozenset({int(word.group(2)) if word.group(2) else _NUMBER_WORDS[word.group(1)]})
    return frozenset()


def removal_by_number(line: str, names: frozenset[str] = frozenset()) -> frozenset[int] | None:
    """The step numbers a line removes when the line does nothing but remove steps named by number
    ("Remove step 3.", "Step 3 is unnecessary, skip it.", "Skip steps 2 and 4"); None otherwise (a
    line that also says what to do instead, or rejects a step, is no plain removal)."""
    numbers: set[int] = set()
    for clause in WORDS.CLAUSES.split(line):
        c = clause.strip(" .!-*")
        while WORDS.LEAD.match(c):
            c = WORDS.LEAD.sub("", c, count=1)
        if not c:
            continue
        w = withdrawal(c, names=names)
        if w is None or w.kind != "removal" or (not w.steps and not re.fullmatch(rf"{WORDS.VERB}\s+(?:it|them|that|this)", c)):
            return None
        if w.words.strip() != c:
            return None
        numbers |= w.steps
    return frozenset(numbers) or None
