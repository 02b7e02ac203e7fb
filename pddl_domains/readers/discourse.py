"""The sentences of a reasoning text and what each does to its line of reasoning.

How models write while they think, in words of English reasoning and of no domain, so that the same
rules read every domain (docs/traces.md, "How a trace is read"). A text is cut into sentences
(`sentences`: a line break, or ``.`` ``!`` ``?`` before white space, outside brackets; "1." opening a
numbered line ends none), each with its character span. `marks` names what a sentence does:

- ``restart``: "let me start over", "from the beginning", "let me check each step", "the plan is:":
  the next action may be taken from the initial state again;
- ``retraction``: "wait, no", "actually", "that's wrong" (a withdrawal of what was just said), or
  "I can't", "not possible", "so no" (the rejection of an action or option just named);
- ``hypothetical``: "if I unstack A, ...", "suppose", "what if": an imagined point, not the state;
- ``candidate``: "for example", "maybe", "perhaps", "what about", "let's try", "alternatively", "a
  possibility is", "whether to": an option considered, not (yet) taken;
- ``requirement``: "requires", "we need A", "the preconditions are": what an action needs (the
  clauses say which facts are requirements; the mark says the sentence narrates no step);
- ``question``: a sentence ending in "?": nothing in it is asserted;
- ``goal``: the goal stated ("the goal is to have ...", "my goal is"); ``goal-reached``: "the goal
  is achieved"; ``intent``: what should, must or needs to be (an aim, not the state);
- ``initial``: the initial state stated ("initially", "the initial conditions");
- ``elsewhere``: the state after some other point ("after step 2", "after all these");
- ``state``: a labelled state ("Current state: ...", "Resulting State: ...", "the state is now"):
  about the point the line of reasoning is at, as the label says.
"""

from __future__ import annotations

import re

OPENER = r"^[\W_]*(?:(?:so|but|and|now|then|okay|ok|well|hmm+|alright|right|oh|also|or|maybe|perhaps|" \
         r"alternatively|wait|no(?=\s*[,.!;:])|yes)\b[\s,.!:;-]*)*"
RESTART = re.compile(
    r"\b(?:start(?:ing)?\s+(?:over|again|afresh|from\s+scratch)|from\s+the\s+(?:beginning|start)\b(?!\s+of)|"
    r"(?:let\s+me|let's|i'll|i\s+will|i\s+should)\s+(?:re-?trace|redo|re-?start|re-?think|re-?examine|"
    r"re-?check|re-?evaluate|re-?verify|go\s+back|go\s+through|walk\s+through|outline|list|write|"
    r"try\s+again|verify|check|confirm|double-check|simulate|re-?do|test|go\s+over)\b(?![^.]*\b(?:it|this|that)\s+(?:again|step))|"
    r"back\s+to\s+the\s+(?:initial|original|start|beginning)|(?:try|consider)\s+(?:another|a\s+different)\s+"
    r"(?:approach|way|plan|order|sequence)|(?:another|an|alternative)\s+(?:approach|way|plan)\s*:|another\s+approach|alternatively\s*,?\s*(?:let|we|i)\b|step\s+by\s+step|the\s+(?:plan|steps)\s+(?:is|are|would\s+be)|"
    r"(?:plan|steps|sequence)(?:\s+(?:is|are|would\s+be|should\s+be|will\s+be|could\s+be))?\s*:)")
#: Words that withdraw what was just said ("wait, no", "actually", "that's wrong"): a withdrawal
#: reaches facts as well as actions.
WITHDRAWAL = re.compile(
    r"(?:^|[\s,.;:(\-])(?:wait|no\s*,|nope|oops|hmm+|actually|correction|sorry|scratch\s+that|i\s+mean|"
    r"not\s+(?:right|correct|true)|(?:is|was|that's|that\s+is|this\s+is)\s+(?:wrong|incorrect|a\s+mistake|not\s+right)|"
    r"mistake|i\s+made\s+an\s+error)\b")
#: Withdrawals, and the words that reject an option or an action just named ("I can't", "not
#: possible", "so no"): a rejection reaches actions only.
RETRACTION = re.compile(
    r"(?:^|[\s,.;:(\-])(?:wait|no\s*,|nope|oops|hmm+|actually|correction|sorry|scratch\s+that|i\s+mean|"
    r"not\s+(?:right|correct|possible|allowed|valid|true|an\s+option|applicable)|(?:is|was|that's|that\s+is|this\s+is)\s+"
    r"(?:wrong|incorrect|a\s+mistake|invalid|impossible|not\s+right)|mistake|i\s+made\s+an\s+error|"
    r"can'?t|cannot|can\s+not|couldn'?t|doesn'?t\s+work|won'?t\s+work|isn'?t\s+possible|isn'?t\s+allowed|"
    r"that\s+(?:won't|doesn't|can't|fails)|no\s+longer\s+(?:possible|valid)|so\s+no|rule[sd]?\s+(?:it|that|this)\s+out|"
    r"no\s+good|not\s+an\s+option)\b")
#: A supposition: the if-part of a conditional, "suppose", "what if", and the adverbs that say the
#: sentence imagines a point ("hypothetically", "theoretically", "in theory").
HYPOTHETICAL = re.compile(OPENER + r"(?:if|suppose|supposing|assume|assuming|what\s+if|let's\s+say|let\s+us\s+say|"
                          r"say|imagine|in\s+case|when\s+i\s+try|should\s+i|were\s+(?:i|we|you|it)\s+to|"
                          r"had\s+(?:i|we|you)|what\s+would\s+happen\s+if|hypothetically|theoretically|"
                          r"in\s+theory|in\s+principle|conceivably)\b")
CANDIDATE = re.compile(
    r"\b(?:for\s+example|for\s+instance|e\.\s?g\.|maybe|perhaps|possibly|what\s+about|how\s+about|"
    r"(?:one|another|an|a)\s+(?:option|possibility|idea|candidate|alternative|choice)|"
    r"(?:option|idea|candidate)\s*\d*(?=\s*:)|alternatively|whether\s+(?:or\s+not\s+)?to|"
    r"whether\s+(?:i|we)\s+(?:should|could|can|might)|"
    r"let(?:'s|\s+me|\s+us)\s+(?:try|consider|see\s+(?:if|whether))|i\s+(?:could|might)|we\s+(?:could|might)|"
    r"(?:would|could|might)\s+(?:be\s+)?(?:possible|allowed|valid|work|an\s+option)|trying|consider(?:ing)?)\b")
REQUIREMENT = re.compile(r"\b(?:requires?|required|needs?(?!\s+to\s+(?!be\b))|pre-?conditions?|prerequisites?|demands?|"
                         r"requirements?|conditions?\s+(?:are|is|for|of)|only\s+possible\s+if)\b")
GOAL = re.compile(r"\b(?:goal|goals|objective|target)\b[^.]{0,40}?\b(?:is|are|was|says|states|requires|"
                  r"wants|needs|to\s+have|:)|\bmy\s+goal\b|\bi\s+(?:want|need)\s+to\s+have\b")
GOAL_REACHED = re.compile(r"\b(?:goal|goals)\b[^.]{0,30}?\b(?:is|are|has\s+been|have\s+been|now)?\s*"
                          r"(?:achieved|reached|met|satisfied|accomplished|done|complete[d]?)\b")
INTENT = re.compile(r"\b(?:should|must|needs?\s+to|have\s+to|has\s+to|want|wants|wanted|ought|would|will|'ll|'d|"
                    r"final|eventually|end\s+up|desired|required|requires|target|supposed|aim|aims|aiming|so\s+that|"
                    r"hope|hoping|wish|like\s+to\s+have|going\s+to|"
                    r"ideally|hopefully|(?:at|in|by)\s+the\s+end|"
                    r"in\s+order|to\s+get|to\s+make|to\s+have|to\s+achieve|goal|goals|"
                    r"(?:step|plan|idea|move|thing)\s+(?:is|was|would\s+be|will\s+be)\s+to)\b")
INITIAL = re.compile(r"\b(?:initial|initially|originally|at\s+the\s+(?:start|beginning)|to\s+start\s+with|"
                     r"starting\s+state|start\s+state|in\s+the\s+beginning)\b")
ELSEWHERE = re.compile(r"\b(?:after|before|at|in|from)\s+(?:steps?|actions?|moves?)\s+(?:\d|one|two|three|four|five)|"
                       r"\bafter\s+(?:all|these|those|the\s+(?:first|above|previous))\b")
STATE_LABEL = re.compile(
    r"^[\W_]*(?:(?:step\s*)?\d+[.):]\s*)?(?:(?:so|now|then|and|okay|ok)\b[\s,]*)*(?:the\s+)?(?:(?:current|resulting|"
    r"result|new|updated|present|next|intermediate)\s+)?state\b[^:\n]{0,30}?(?:\bis\b|:)|"
    r"\bthe\s+state\s+(?:is\s+)?now\b|\bnow\s*,?\s*the\s+state\s+is\b")
PAST = re.compile(r"\b(?:was|were|had|did|used\s+to|before|previously|earlier|originally)\b")


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
_MARKS = (("restart", RESTART.search), ("retraction", RETRACTION.search), ("hypothetical", HYPOTHETICAL.match),
          ("candidate", CANDIDATE.search), ("requirement", REQUIREMENT.search),
          ("question", lambda low: low.rstrip(" )*_\"'").endswith("?")),
          ("intent", INTENT.search), ("initial", INITIAL.search), ("elsewhere", ELSEWHERE.search))


def marks(low: str) -> frozenset[str]:
    """What the (lower-case, normalised) sentence ``low`` does to its line of reasoning (module docstring)."""
    out = {name for name, says in _MARKS if says(low)}
    if GOAL_REACHED.search(low):
        out.add("goal-reached")
    elif GOAL.search(low):
        out.add("goal")
    if STATE_LABEL.search(low) and not out & {"initial", "goal", "goal-reached", "intent", "elsewhere"}:
        out.add("state")
    return frozenset(out)


def retraction_at(low: str) -> int | None:
    """Where in the sentence the first retraction marker (a withdrawal or a rejection) stands (None: none)."""
    m = RETRACTION.search(low)
    return m.start() if m else None


#: "No," / "nope": a withdrawal, or the answer to a question just asked (`withdrawal_at`).
ANSWER_NO = re.compile(r"^[\W_]*(?:so\s+)?(?:no\b|nope\b)")


def withdrawal_at(low: str, answer: bool = False) -> int | None:
    """Where in the sentence the first withdrawal marker stands (None: none). ``answer``: the sentence
    answers a question or rejects an option just put, so an opening "no" / "nope" withdraws nothing;
    a later marker still does."""
    start = 0
    if answer and ANSWER_NO.match(low):
        start = ANSWER_NO.match(low).end()
    m = WITHDRAWAL.search(low, start)
    return m.start() if m else None
