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

_ORDINAL = (r"(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|last|final|previous|preceding|"
            r"above|prior|former|next|\d+(?:st|nd|rd|th))")
_NOUN = r"(?:step|action|move|one|line|instruction)"
_NUMBERS = r"\d+(?:\s*(?:,|and|&|or)\s*\d+)*"
#: A step named: by number, by an ordinal, by a demonstrative with a step's noun, or the plan itself.
_NAMED = (rf"(?:steps?\s+{_NUMBERS}|(?:the\s+|this\s+|that\s+)?{_ORDINAL}\s+{_NOUN}s?"
          rf"|(?:this|that|these|those)\s+(?:last\s+|extra\s+|additional\s+)?{_NOUN}s?"
          r"|(?:the|this|that|my)\s+(?:whole\s+|above\s+|previous\s+)?(?:plan|solution|answer|sequence))")
#: A demonstrative standing for what was just said, never for an object: "that is wrong", "this is
#: not needed", not "remove this block" or "this makes b clear" ("it" stands for an object or a fact
#: as often as for a step: "since it's not needed" after "remove the craving").
_PRONOUN = (r"(?:this|that|which)(?=\s*(?:[,.;:!?)\]]|$)|'s\b|\s+(?:is|was|are|were|would|will|should|must|can|"
            r"could|may|needs?|has|have|seems?|looks?|isn't|wasn't|aren't|cannot|can't|won't|too|as\s+well|again|"
            r"altogether|entirely)\b)")
_STEP = rf"(?:{_NAMED}|{_PRONOUN})"
_REMOVED = (r"(?:removed|skipped|omitted|deleted|dropped|ignored|struck(?:\s+out)?|crossed\s+out|discarded|left\s+out|"
            r"taken\s+out|undone)")
_NEEDLESS = (r"(?:unnecessary|redundant|superfluous|unneeded|not\s+(?:needed|necessary|required)|"
             r"isn't\s+(?:needed|necessary|required)|no\s+longer\s+(?:needed|necessary|required))")
_WRONG = (r"(?:wrong|incorrect|invalid|impossible|illegal|a\s+mistake|an\s+error|a\s+typo|not\s+(?:correct|right|valid|"
          r"possible|allowed|applicable|legal|executable|feasible)|not\s+a\s+valid\s+\w+)")
_BE = r"(?:is|was|are|were|would\s+be|will\s+be|seems|seem|looks|'s|is\s+actually|was\s+actually)"
_MODAL = r"(?:should|must|can|could|may|needs\s+to|need\s+to|has\s+to|have\s+to|is\s+to|are\s+to|ought\s+to)"
#: Verbs that withdraw what they are said of; the first set also moves objects ("remove it from red"),
#: so it withdraws only a step named as one.
_VERB_NAMED = r"(?:remove|delete|drop|discard|eliminate|strike|cross\s+out|leave\s+out|take\s+out|cancel|replace)"
_VERB = r"(?:skip|omit|ignore|disregard|undo|scratch|forget)"

#: "<step> is unnecessary", "<step> should be skipped", "remove <step>", "<step> can be left out".
_REMOVAL = re.compile(
    rf"\b{_STEP}(?:\s+|(?='s))(?:{_BE}\s+{_NEEDLESS}|{_MODAL}\s+be\s+{_REMOVED}|isn't\s+needed)\b"
    rf"|\b{_VERB_NAMED}\s+{_NAMED}\b|\b{_VERB}\s+(?:{_NAMED}|this|that|it|which)\b")
#: "<step> is wrong / not possible / a mistake", "instead of <step>".
_REJECTION = re.compile(
    rf"\b{_STEP}(?:\s+|(?='s))(?:{_BE}|isn't|wasn't|aren't|cannot|can't|won't)\s+(?:{_WRONG}|be\s+(?:done|performed|applied|"
    r"executed|taken))\b"
    rf"|\binstead\s+of\s+{_STEP}\b")
#: A self-correction: what was just said is taken back.
_INTERJECTION = re.compile(
    r"\b(?:wait|oops|whoops|scratch\s+that|my\s+(?:mistake|bad)|never\s*mind|correction|i\s+made\s+a\s+mistake|"
    r"that\s+was\s+wrong|let\s+me\s+(?:correct|fix|redo|revise)|on\s+second\s+thought)\b"
    r"|(?:^|[(\[]\s*|[.!?;]\s+|\s-+\s*)no\s*(?:,|!|\.{1,3}|-+|\s+wait)")
#: Said of the step just named (its own line, after the action): "is not correct", ", which is wrong".
_SAID_OF_IT = re.compile(
    rf"^\s*[,;:]?\s*(?:which\s+)?(?:{_BE}|isn't|wasn't|cannot|can't)\s+(?:{_WRONG}|{_NEEDLESS}|be\s+(?:done|performed|"
    rf"applied|executed))\b"
    rf"|^\s*[,;:]?\s*(?:which\s+)?{_MODAL}\s+be\s+{_REMOVED}\b")
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


#: A word without which no withdrawal is made (a quick test before the grammar's patterns).
_ANY = re.compile(r"\b(?:wait|oops|whoops|scratch|mistake|bad|mind|correction|wrong|no|not|instead|second|incorrect|"
                  r"invalid|impossible|illegal|error|typo|unnecessary|redundant|superfluous|unneeded|isn't|wasn't|"
                  r"aren't|cannot|can't|won't|let|remove|skip|omit|delete|drop|ignore|disregard|discard|undo|"
                  r"eliminate|strike|cross|leave|take|cancel|forget|replace|removed|skipped|omitted|deleted|dropped|"
                  r"ignored|struck|crossed|discarded|left|taken|undone)\b")


_CONCESSION = re.compile(r"\s*[,;]?\s*(?:-+\s*)?(?:but|though|although|yet)\b(?P<tail>.*)", re.S)
#: What the kept-for-a-reason clause of a concession may not say: another way of doing the plan
#: ("would also work without it", "can start from the next action", "instead, ...").
_OTHER_WAY = re.compile(r"\b(?:can|could|would|might|may|should|instead|without|directly|rather|better|optimi[sz]ed|"
                        r"shorter|simpler|skip\w*|omit\w*|remov\w*|delet\w*|drop\w*|start\w*)\b")


def _conceded(text: str, m: re.Match, names: frozenset[str]) -> bool:
    """Whether the needless-step words ``m`` are conceded: "… not necessary, but <a reason to keep
    it>", the reason withdrawing nothing and offering no other way (module docstring)."""
    if not re.search(_NEEDLESS, m.group(0)):
        return False
    c = _CONCESSION.match(text[m.end():])
    if not c:
        return False
    tail = c.group("tail")
    return not _OTHER_WAY.search(tail) and not ANOTHER_PLAN.search(tail) and withdrawal(tail, names=names) is None


def withdrawal(text: str, said_of_step: bool = False, names: frozenset[str] = frozenset()) -> Withdrawal | None:
    """The withdrawal ``text`` (normalised, lower case) makes, or None. ``said_of_step``: the text
    follows a step's action on its own line, so words said of it ("is not correct", ", which is
    wrong") withdraw that step. ``names``: words of the task's vocabulary (a domain whose action is
    "drop" or "wait"): a withdrawing word that is one of them names the action instead."""
    if not _ANY.search(text):
        return None
    if said_of_step:
        m = _SAID_OF_IT.search(text)
        if m and not _conceded(text, m, names):
            return Withdrawal("rejection", frozenset(), m.group(0).strip())
    for pattern, kind in ((_INTERJECTION, "rejection"), (_REJECTION, "rejection"), (_REMOVAL, "removal")):
        for m in pattern.finditer(text):
            first = re.match(r"[\W]*(\w+)", m.group(0))
            if first and first.group(1) in names:
                continue
            if first and first.group(1) == "it" and re.match(r"\s+to\b", text[m.end():]):
                continue  # "it is not possible to pick up b": the "it" of a sentence, no step
            if kind == "removal" and _conceded(text, m, names):
                continue
            return Withdrawal(kind, _numbers(m) if kind != "rejection" or pattern is _REJECTION else frozenset(),
                              m.group(0).strip())
    return None


def _numbers(m: re.Match) -> frozenset[int]:
    n = re.search(rf"\bsteps?\s+({_NUMBERS})", m.group(0))
    if n:
        return frozenset(int(x) for x in re.findall(r"\d+", n.group(1)))
    word = re.search(r"\b(first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|(\d+)(?:st|nd|rd|th))\s+"
                     + _NOUN, m.group(0))
    if word:
        return frozenset({int(word.group(2)) if word.group(2) else _NUMBER_WORDS[word.group(1)]})
    return frozenset()


_CLAUSES = re.compile(r"[,;:]|\.(?=\s|$)|!|\bso\b")
_LEAD = re.compile(r"^(?:so|please|actually|also|and|note|then|hence|thus|therefore|ok|okay)\b\s*[,:]?\s*")


def removal_by_number(line: str, names: frozenset[str] = frozenset()) -> frozenset[int] | None:
    """The step numbers a line removes when the line does nothing but remove steps named by number
    ("Remove step 3.", "Step 3 is unnecessary, skip it.", "Skip steps 2 and 4"); None otherwise (a
    line that also says what to do instead, or rejects a step, is no plain removal)."""
    numbers: set[int] = set()
    for clause in _CLAUSES.split(line):
        c = clause.strip(" .!-*")
        while _LEAD.match(c):
            c = _LEAD.sub("", c, count=1)
        if not c:
            continue
        w = withdrawal(c, names=names)
        if w is None or w.kind != "removal" or (not w.steps and not re.fullmatch(rf"{_VERB}\s+(?:it|them|that|this)", c)):
            return None
        if w.words.strip() != c:
            return None
        numbers |= w.steps
    return frozenset(numbers) or None
