"""The sentences of a reasoning text and what each does to its line of reasoning.

How models write while they think, in words of English reasoning and of no domain, so that the same
rules read every domain (docs/traces.md, "How a trace is read"). A text is cut into sentences
(`sentences`: a line break, or ``.`` ``!`` ``?`` before white space, outside brackets; "1." opening a
numbered line ends none, nor does an ellipsis before a lower-case word: "X... uh, that one needs A"
is one sentence), each with its character span. `marks` names what a sentence does:

- ``restart``: "let me start over", "from the beginning", "let me check each step", "the plan is:":
  the next action may be taken from the initial state again;
- ``retraction``: "wait, no", "actually", "that's wrong" (a withdrawal of what was just said), or
  "I can't", "not possible", "so no" (the rejection of an action or option just named);
- ``hypothetical``: "if I unstack A, ...", "suppose", "what if": an imagined point, not the state;
  at the sentence's start or after a colon that ends its lead-in ("A sketch, not done: if I X, A");
- ``candidate``: "for example", "maybe", "perhaps", "what about", "let's try", "alternatively", "a
  possibility is", "whether to": an option considered, not (yet) taken;
- ``requirement``: "requires", "we need A", "the preconditions are": what an action needs (the
  clauses say which facts are requirements; the mark says the sentence narrates no step);
- ``question``: a sentence ending in "?": nothing in it is asserted;
- ``goal``: the goal stated ("the goal is to have ...", "my goal is"); ``goal-reached``: "the goal
  is achieved"; ``intent``: what should, must or needs to be (an aim, not the state);
- ``initial``: the initial state stated ("initially", "the initial conditions");
- ``elsewhere``: the state after some other point ("after step 2", "after all these");
- ``alternative``: "alternatively, let me ...": a restart when the sentence names no action (the
  claims reader decides);
- ``at-step``: a step named by its number ("at step 2", "in move 3"): the number of the action the
  sentence takes, or another point when it takes none (the claims reader decides);
- ``state``: a labelled state ("Current state: ...", "Resulting State: ...", "the state is now"):
  about the point the line of reasoning is at, as the label says.
"""

from __future__ import annotations

import re

from widthbench.pddl_domains.readers import phrases


#: This module's words of English: its section of phrases.txt.
WORDS = phrases.section("discourse")


def sentences(text: str) -> list[tuple[int, int]]:
    """The (start, end) spans of the sentences of ``text``, in order, white space trimmed."""
    out = []
    for line in re.finditer(r"[^\n]+", text):
        start, depth = line.start(), 0
        s = line.group(0)
        for i, ch in enumerate(s):
            if ch == "(":
                depth += 1
            elif ch == ")":
                depth = max(0, depth - 1)
            elif ch in ".!?" and depth == 0 and (i + 1 == len(s) or s[i + 1].isspace()):
                # "1." opening a numbered line ends no sentence
                if ch == "." and re.fullmatch(r"\s*(?:step\s*)?\d+", s[start - line.start():i], re.I):
                    continue
                # "Opt. (untested): X", "prev. line": an abbreviation's period, unless a capital follows
                after = s[i + 1:].lstrip()
                if ch == "." and after and not after[0].isupper() \
                        and WORDS.ABBREVIATION.search(s[start - line.start():i].lower()):
                    continue
                if ch == "." and after[:1].isdigit() and WORDS.NUMBER_SIGN.search(s[start - line.start():i].lower()):
                    continue  # "No. 1 / X": the sign of a number
                if ch == "." and s[max(0, i - 2):i] == ".." and after[:1].islower():
                    continue  # "X... uh, that one needs A": an ellipsis before a lower-case word is a pause
                out.append((start, line.start() + i + 1))
                start = line.start() + i + 1
        out.append((start, line.end()))
    trimmed = []
    for a, b in out:
        while a < b and text[a].isspace():
            a += 1
        while b > a and text[b - 1].isspace():
            b -= 1
        if a < b and re.search(r"[A-Za-z]", text[a:b]):
            trimmed.append((a, b))
    return trimmed


#: The marks a sentence carries by its words alone, each with the test that finds it ("goal" and
#: "goal-reached" exclude each other, and "state" depends on the others: `marks`).
_MARKS = (("restart", WORDS.RESTART.search), ("retraction", lambda low: retraction_at(low) is not None), ("hypothetical", lambda low: _opens(WORDS.HYPOTHETICAL.match, low)),
          ("candidate", WORDS.CANDIDATE.search), ("requirement", WORDS.REQUIREMENT.search),
          ("question", lambda low: low.rstrip(" )*_\"'").endswith("?")),
          ("intent", WORDS.INTENT.search), ("initial", WORDS.INITIAL.search), ("elsewhere", WORDS.ELSEWHERE.search),
          ("at-step", WORDS.AT_STEP.search), ("alternative", WORDS.ALTERNATIVELY.search))


def _opens(match, low: str) -> bool:
    """Whether ``match`` reads at the start of the sentence ``low`` or right after a colon in it: a
    lead-in or label that ends in a colon opens what it introduces ("A plan only sketched: if I X, A")."""
    return bool(match(low)) or any(match(low[m.end():]) for m in re.finditer(r":(?!\d)", low))


def marks(low: str) -> frozenset[str]:
    """What the (lower-case, normalised) sentence ``low`` does to its line of reasoning (module docstring)."""
    out = {name for name, says in _MARKS if says(low)}
    if WORDS.GOAL_REACHED.search(low):
        out.add("goal-reached")
    elif WORDS.GOAL.search(low):
        out.add("goal")
    if WORDS.STATE_LABEL.search(low) and not out & {"initial", "goal", "goal-reached", "intent", "elsewhere", "at-step"}:
        out.add("state")
    return frozenset(out)


def _marker_at(pattern: re.Pattern, low: str, start: int = 0) -> int | None:
    """Where the first match of ``pattern`` from ``start`` stands that is not inside a verdict the
    sentence denies ("I can't say it's wrong": `WORDS.DENIED_VERDICT`), or None."""
    denied = [m.span() for m in WORDS.DENIED_VERDICT.finditer(low)]
    for m in pattern.finditer(low, start):
        if not any(m.start() < b and a < m.end() for a, b in denied):
            return m.start()
    return None


def retraction_at(low: str) -> int | None:
    """Where in the sentence the first retraction marker (a withdrawal or a rejection) stands (None: none)."""
    return _marker_at(WORDS.RETRACTION, low)


def withdrawal_at(low: str, answer: bool = False) -> int | None:
    """Where in the sentence the first withdrawal marker stands (None: none). ``answer``: the sentence
    answers a question or rejects an option just put, so an opening "no" / "nope" withdraws nothing;
    a later marker still does."""
    start = 0
    if answer and WORDS.ANSWER_NO.match(low):
        start = WORDS.ANSWER_NO.match(low).end()
    return _marker_at(WORDS.WITHDRAWAL, low, start)
