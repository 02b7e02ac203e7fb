"""Claims from a trace: every action and fact a sentence states, with its character span.

Built on the reader package (`widthbench.pddl_domains.readers`): a clause is read by the task's
grammar (`TaskGrammar.lead` for actions, `TaskGrammar.fact_clause` for facts), so templates,
paraphrases, PDDL forms and any domain's words (generated templates) read here as in answers.
What the grammar does not read is never guessed; this module only prepares clauses for it:

- a sentence is cut into clauses at the grammar's separators (``,`` ``;`` ``:`` ``and`` ``then``),
  with offsets into the trace kept; asides in brackets are dropped in natural language (a bracket
  right after a word is call notation, "Unstack(blue, orange)", and is read);
- words of narration are dropped before the grammar reads: openers ("so", "wait,", "now"), a
  subject with a modal ("I can", "we need to", "I'll"), "after" / "by" before a gerund, which is read
  as its verb ("unstacking" -> "unstack"); a clause whose verb of change is "becomes" / "remains" /
  "is now" reads as "is"; "isn't" as "is not";
- "it" after an action is the object the last action moved (its first argument): "put it down";
- a clause that is only a predicate ("clear", "on the table") shares the subject of the fact before
  it in its sentence ("orange is on the table and clear"); "which" opening a clause is the object
  named last before it ("red is on blue, which is on orange"), and a bare predicate after such a
  clause is not read (it may be about either object);
- a negated action ("I can't unstack B", "instead of stacking") is read but asserts nothing; an
  action after "because I" ("because I put blue down") is a point reached, not an action taken;
- a fact whose clause says "now" or "currently" beyond its template's own words (``now``) is about
  the point the line is at;
- a fact that follows an action after ":" or "because" / "since" / "as" / "requires" in its sentence
  states the action's preconditions: it is judged in the state before that action
  (``when="before"``); any other fact on the text line of the action just taken may state its
  preconditions or its effects ("3. Unstack A from B. A is clear. Now I hold A."): it is judged in
  either state (``when="either"``), wrong only when wrong in both;
- a gerund names an action as a point of a plan (``reference``): "after unstacking A" the state
  after it, "when / by unstacking A" or "unstacking A:" the state at it.

In PDDL style every bracketed form of the task in a clause is a claim: an action form an action, a
predicate form a fact, ``(not (p ...))`` a denied fact.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from widthbench.core.errors import ParseError
from widthbench.pddl_domains.readers import layout
from widthbench.pddl_domains.readers.grammar import FORM, SEPARATORS, clean, pddl, strip_step_lead_in
from widthbench.pddl_domains.readers.steps import StepReader, task_reader
from widthbench.planners.strips import Task
from widthbench.subtasks.traces import structure


@dataclass(frozen=True, slots=True)
class Claim:
    kind: str  # "action" | "fact"
    span: tuple[int, int]  # character offsets into the trace
    value: str  # PDDL action or atom text
    negated: bool = False  # a fact denied; an action said not to be taken or not possible
    when: str = "now"  # facts: "now" (the current state) | "before" (preconditions of the action before it)
    #                    | "either" (right after an action, no "now": its preconditions or its effects)
    condition: bool = False  # a fact in the if-part of a hypothetical: not asserted
    planned: bool = False  # after "should", "need to", "will", ... in its sentence: an aim, not the state
    reference: str = ""  # an action named as a point of a plan: "after" ("after unstacking A") | "at" ("when ...")
    goal: bool = False  # a fact listed as the goal ("the goal is to have ...")
    now: bool = False  # a fact whose clause says "now" / "currently": about the point the line is at


@dataclass(frozen=True, slots=True)
class Sentence:
    index: int
    span: tuple[int, int]
    marks: frozenset[str]
    claims: tuple[Claim, ...]
    retraction_at: int | None  # trace offset of its first retraction marker
    gap: int | None  # trace offset of a clause that starts like an action but reads as none: the line is lost there


_SUBJECT_MODAL = re.compile(
    r"^(?:(?:(?:i|we|you)\s+|(?=can\b|could\b|should\b|will\b|need\s+to\b|have\s+to\b))(?:(?:can|could|might|may|will|would|should|must|shall|'ll|am\s+going\s+to|"
    r"are\s+going\s+to|need\s+to|have\s+to|want\s+to|try\s+to|decide\s+to|first|then|now|next|also|just|"
    r"only|still|finally|can\s+now|'d)\s+)*)"
    r"|^(?:let\s+me|let's|let\s+us|i'll|we'll|i'd)\s+(?:(?:first|then|now|next|also|just)\s+)*")
_OPENER = re.compile(r"^(?:(?:so|but|and|now|then|okay|ok|well|hmm+|alright|oh|also|wait|no|yes|actually|"
                     r"first|firstly|second|next|finally|lastly|after\s+that|afterwards|thus|therefore|hence|"
                     r"here|this\s+way|that\s+way|if|suppose|supposing|assuming|what\s+if|imagine|when|once|(?:(?:the\s+)?(?:first|next|last|final)\s+)?(?:step|action|move)"
                     r"(?:\s*\d+(?:\s+(?:is|would\s+be|will\s+be|should\s+be|could\s+be)(?:\s+to)?)?"
                     r"|\s+(?:is|would\s+be|will\s+be|should\s+be|could\s+be)(?:\s+to)?|(?=\s*:))|\d+[.)])\b[\s,.!:;-]*)+")
_NEGATED = re.compile(r"^(?:(?:i|we|you)\s+)?(?:can't|cannot|can\s+not|couldn't|don't|do\s+not|shouldn't|"
                      r"should\s+not|won't|will\s+not|mustn't|must\s+not|never|not|no\s+need\s+to|avoid|"
                      r"instead\s+of|without|before|until|unless|rather\s+than|trying\s+to|try\s+to)\b")
_GERUND_LEAD = re.compile(r"(?:^|(?<=\s))(?:after|by|when|once|upon|from)\s+(?=\w+ing\b)")
_CHANGE = ((re.compile(r"\b(?:becomes|remains|stays|is\s+now|is\s+still|gets|is\s+then)\b"), "is"),
           (re.compile(r"\b(?:become|remain|stay|are\s+now|are\s+still)\b"), "are"),
           (re.compile(r"\bisn't\b"), "is not"), (re.compile(r"\baren't\b"), "are not"),
           (re.compile(r"\b(?:it's|it\s+is)\s+(?=now\b|still\b)"), "it is "))
_BEFORE = re.compile(r"^(?:because|since|as|given\s+that|requires?|needs?|precondition[s]?|for\s+this|"
                     r"which\s+requires?|check(?:ing)?|that\s+requires?)\b\s*:?\s*")
_PREDICATE_ONLY = re.compile(r"^(?:not\s+|no\s+longer\s+)?(?:\S+\s*){1,5}$")
_GOAL_WORD = re.compile(r"\b(?:goal|goals)\b")
_GOAL_STOP = re.compile(r"^(?:so|which|because|since|meaning|i\.?e|then|thus|but|while|where|that\s+means|now|"
                        r"currently|initially|right\s+now|at\s+the\s+moment)\b")
_CONDITIONAL = re.compile(r"^(?:(?:so|but|and|now|then|wait|well|okay|ok|also)\b[\s,]*)*"
                          r"(?:if|unless|whether|when|once|assuming|suppose|supposing|provided|in\s+case)\b")
_PRE_LABEL = re.compile(r"^(?:pre|pre-?conditions?|requires|requirements?|needs)\b")
_POST_LABEL = re.compile(r"^(?:post|post-?conditions?|effects?|result|after|afterwards?)\b")
_AFTER = re.compile(r"^(?:after|once|upon)\b")
_BARE_GERUND = re.compile(r"^\w+ing\b")
_OPENER_WORDS = re.compile(r"^(?:(?:so|but|and|now|then|wait|well|okay|ok|also|yes|no|hmm+|actually)\b[\s,]*)+")
_AT_MOMENT = re.compile(r"^(?:when|while|before|upon|to|for|in\s+order\s+to)\s+")
_AT_POINT = re.compile(r"^(?:after|once|when|until|upon)\s+")
_RESTATES = re.compile(r"^[\W_]*(?:so|that\s+is|that\s+means|i\.?e\.?|which\s+means|meaning|in\s+other\s+words)\b")
_CURRENT = re.compile(r"\b(?:currently|right\s+now|at\s+the\s+moment|now|initially|initial|start|starting|"
                      r"step\s*\d|first|after\s+step)\b")
_GOES_ON = re.compile(r"^[\W_]*(?:then|and\s+then|next|after\s+that|afterwards)\b")
_SAYS_NOW = re.compile(r"\b(?:now|currently|right\s+now|at\s+this\s+point|at\s+the\s+moment|at\s+present)\b")
_RELATIVE = re.compile(r"^(?:which|who)\s+(?=(?:is|are|now|remains|becomes|stays|sits|rests|has|holds)\b)")
_WHY_DONE = re.compile(r"^(?:because|since|as)\s+(?:i|we)\s+(?:already\s+|just\s+)?(?!(?:can|could|will|would|should|"
                       r"need|needs|must|have|has|am|are|was|were|want|'m|'ll|'d)\b)[a-z]+")
_WHY_LEAD = re.compile(r"^(?:because|since|as|given\s+that)\s+(?=(?:after|once|upon)\b)")
_WHY = re.compile(r"\b(?:because|since|given\s+that)\b\s*")
_NOW = re.compile(r"^(?:after|afterwards|then|now|next|so\s+now|and\s+now|once\s+done|as\s+a\s+result|"
                  r"this\s+(?:makes|leaves)|which\s+(?:makes|leaves))\b")
_JUSTIFIES = re.compile(r"\b(?:allowed|possible|valid|legal|okay|ok|fine|works?|permitted|applicable)\b")
_AIM = re.compile(r"\b(?:should|must|needs?|would|will|'ll|could|might|want)\b")
_NOT_FORM = re.compile(r"\(\s*not\s*(\(\s*[a-z_][\w\-]*(?:\s+[^\s()]+)*\s*\))\s*\)")
_DENIED_AFTER = re.compile(r"^\s*(?:is|are)\s+(?:not|false|no\s+longer)|^\s*(?:doesn't|does\s+not)\s+hold")
_DENIED_BEFORE = re.compile(r"\b(?:not|no\s+longer|false)\s*$")


def _lower(text: str) -> str:
    """Lower case with one character per character (offsets kept)."""
    return "".join(c.lower() if len(c.lower()) == 1 else c for c in text)


def _pieces(low: str, start: int) -> list[tuple[int, int, str]]:
    """(start, end, separator after) of the clauses of one lower-cased sentence at trace offset start."""
    depth, mask = 0, []
    for ch in low:
        depth = depth + 1 if ch == "(" else max(0, depth - 1) if ch == ")" else depth
        mask.append(depth)
    out, a = [], 0
    for m in SEPARATORS.finditer(low):
        if mask[m.start()] == 0:
            out.append((start + a, start + m.start(), m.group(0).strip()))
            a = m.end()
    out.append((start + a, start + len(low), ""))
    return [p for p in out if p[1] > p[0]]


class ClaimReader:
    """Reads the claims of traces of one task in one style and template set."""

    def __init__(self, task: Task, style: str, templates: str):
        self.task = task
        self.style = style
        self.rd: StepReader = task_reader(task, style, templates)
        self.names = self.rd.r.names  # PDDL object -> its name in words
        names = sorted(self.rd.object_by_name, key=len, reverse=True)
        self._object_names = re.compile(r"(?<![\w-])(?:" + "|".join(map(re.escape, names)) + r")(?![\w-])") \
            if names and self.rd.nl else None
        self._named = None
        # An action's name written as one word ("pickup", "putdown"): read as its words ("pick up").
        self._spaced = {re.sub(r"[-_]", "", n): n.replace("-", " ").replace("_", " ")
                        for n in self.rd.arity_action if re.search(r"[-_]", n)}
        self._squashed = (re.compile(r"\b(?:" + "|".join(map(re.escape, self._spaced)) + r")\b")
                          if self._spaced and self.rd.nl else None)
        verbs = set(self.rd.verbs)
        self.gerunds = {}
        for v in verbs:
            head = v.split()[0] if v else v
            for g in (head + "ing", head[:-1] + "ing" if head.endswith("e") else None,
                      head + head[-1:] + "ing"):
                if g:
                    self.gerunds.setdefault(g, head)

    # ---------------------------------------------------------------- sentences

    def read(self, text: str) -> list[Sentence]:
        low_all = _lower(text)
        out = []
        prev_end, after_action, prev_planned, prev_goal, goal_talk = 0, False, False, False, False
        self._last_action = None
        self._either = self._colon_list = False
        for i, (a, b) in enumerate(structure.sentences(text)):
            low = low_all[a:b]
            marks = structure.marks(layout.normalise(low))
            r = structure.retraction_at(low)
            # A list of preconditions after "Action:" goes on to the end of its line.
            same_line = "\n" not in text[prev_end:a]
            if marks & {"restart", "initial"}:
                self._either = False
            # "Then ..." after a sentence that plans goes on with the plan.
            goes_on = prev_planned and bool(_GOES_ON.match(layout.normalise(low)))
            # After the goal is stated, "So blue is on the table, red on blue" restates it (the final
            # state), until an action, the initial or current state, or a restart is spoken of.
            if marks & {"goal", "goal-reached"}:
                goal_talk = True
            elif marks & {"initial", "restart"} or _CURRENT.search(low):
                goal_talk = False
            restates = goal_talk or (prev_goal and bool(_RESTATES.match(layout.normalise(low))))
            # A fact on the text line of the action just taken may state its preconditions or its
            # effects ("3. Unstack A from B: A is clear. Now A is held."): judged in either state.
            self._either = same_line and self._either
            claims, gap = self._claims(low, a, marks, False, after_action, goes_on, restates)
            # "we need to move orange to the table. Then place red on orange": the plan goes on
            prev_planned = any(c.kind == "action" and c.planned and not c.negated for c in claims) or (
                "intent" in marks and not marks & {"goal", "goal-reached"} and not any(c.kind == "action" for c in claims))
            prev_goal = "goal" in marks
            if any(c.kind == "action" for c in claims):
                goal_talk = False
            prev_end = b
            after_action = bool(claims) and claims[-1].kind == "action" and not claims[-1].negated
            reached = structure.GOAL_REACHED.search(low)
            if reached and "question" not in marks:
                said = _GOAL_WORD.sub(" ", low[:reached.end()])
                if not structure.INTENT.search(said) and not re.search(r"\b(?:not|isn't|wasn't|if)\b", said):
                    claims.append(Claim("goal-reached", (a + reached.start(), a + reached.end()), "the goal"))
            out.append(Sentence(i, (a, b), marks, tuple(claims), None if r is None else a + r, gap))
        return out

    def _claims(self, low: str, start: int, marks: frozenset[str], carry_before: bool = False,
                after_action: bool = False, goes_on: bool = False,
                restates: bool = False) -> tuple[list[Claim], int | None]:
        if self.style == "pddl":
            return self._pddl_claims(low, start, marks), None
        claims: list[Claim] = []
        gap: int | None = None
        last_action: str | None = None  # in this sentence
        subject: str | None = None
        before = carry_before  # facts now state the preconditions of the last action
        hypothetical = "hypothetical" in marks
        prev_sep = ""
        planned = goes_on
        in_goal = False
        other_point = False  # after "after moving A, ...", "once that is done, ...": another point
        self._colon_list = False
        opening = _OPENER_WORDS.sub("", layout.normalise(low).lstrip(" -*•#>0123456789.)"))
        if _NOW.match(layout.normalise(low).lstrip(" -*•#>0123456789.)")) and not _AT_POINT.match(opening):
            before = False  # "Then red is on the table": no longer the preconditions
        after_point = False  # the clause before was "after X-ing": a bare gerund goes on with it
        for a, b, sep in _pieces(low, start):
            raw = low[a - start:b - start]
            goal_word = bool(_GOAL_WORD.search(raw))
            in_goal = goal_word or (in_goal and not _GOAL_STOP.match(raw.strip()) and not _AIM.search(raw))
            planned_here = planned or bool(structure.INTENT.search(raw))
            planned = planned_here
            norm = layout.normalise(raw).strip(" ,.;:-*")
            bare = _OPENER_WORDS.sub("", norm)
            now_here = bool(_NOW.match(norm) or re.search(r"\bnow\b", norm)) and not _AT_POINT.match(bare)
            if now_here:
                before = self._colon_list = False
            conditional = bool(_CONDITIONAL.match(clean(layout.normalise(raw))))
            c = self._prepare(raw)
            if not c:
                prev_sep = sep or prev_sep
                continue
            why = _WHY.search(c)
            done = bool(_WHY_DONE.match(c[why.start():] if why else c))  # "because I put blue down": done before
            if why and not _BEFORE.match(c):
                c = c[why.end():].strip()  # "that's allowed because blue is clear"
            # "Unstack A from B: A is clear" may list preconditions or effects: judged in either
            # state (the line's "either"); "Pre:", "because", "requires" state the preconditions.
            if _PRE_LABEL.match(norm) and last_action:
                before = True
            elif _POST_LABEL.match(norm):
                before = False
            elif last_action and (_BEFORE.match(c) or why):
                before = True
            elif not claims and (_BEFORE.match(c) or why) and (carry_before or after_action):
                before = True  # "That's allowed because ...": the preconditions of the action before
            c = _BEFORE.sub("", c).strip()
            self._named = self._last_object(low[:a - start])
            got = self._action(c, last_action or self._last_action)
            if got is not None:
                action, negated, reference = got
                reference = reference or done
                bare = _WHY_LEAD.sub("", bare)  # "because after stacking A" names the point after it
                point = "" if not reference else "after" if (done or _AFTER.match(bare) or (after_point and _BARE_GERUND.match(bare))) \
                    else "at"  # "when / by / while X-ing", or X-ing as the topic: the state at X
                claims.append(Claim("action", (a, b), action, negated, planned=planned_here or reference,
                                    reference=point))
                if not negated:
                    # "when unstacking A: ..." states the state at that action, "after unstacking A" the one after
                    last_action, before = action, point == "at"
                    self._last_action = action
                    if not (planned_here or reference or hypothetical):
                        self._either = True
                subject = None
                prev_sep = sep
                after_point = point == "after"
                continue
            after_point = False
            relative = _RELATIVE.match(c)
            if relative:
                # "red is on blue, which is on orange": "which" is the object named last before it; a
                # bare predicate after it ("..., on table") may be about either object: not read
                c = f"{self.names.get(self._named, self._named)} {c[relative.end():]}" if self._named else ""
            fact = self._fact(c, subject) if c else None
            if fact is None and _AT_POINT.match(bare):
                other_point = True
            if fact is not None:
                negated, atom = fact
                when = "before" if before else "either" if self._either else "now"
                claims.append(Claim("fact", (a, b), atom, negated, when,
                                    condition=conditional or other_point
                                    or (hypothetical and not any(x.kind == "action" for x in claims)),
                                    planned=(planned_here or restates) and not in_goal, goal=in_goal and bool(marks & {"goal", "goal-reached"}),
                                    now=self._says_now(raw, atom)))
                subject = None if relative else _subject(atom)
            elif self._looks_like_step(c) and gap is None:
                gap = a
            prev_sep = sep
        return claims, gap

    def _says_now(self, raw: str, atom: str) -> bool:
        """Whether the clause says "now" / "currently" beyond the words of the fact's own template
        ("the hand is currently holding X" says nothing of when)."""
        said = len(_SAYS_NOW.findall(raw))
        if not said:
            return False
        try:
            own = len(_SAYS_NOW.findall(self.rd.r.atom(atom).lower()))
        except Exception:  # noqa: BLE001 - a fact the renderer has no words for: its words are the clause's
            own = 0
        return said > own

    def _prepare(self, raw: str) -> str:
        c = layout.normalise(raw)
        if self._squashed is not None:
            c = self._squashed.sub(lambda m: self._spaced[m.group(0)], c)
        # an aside in brackets is dropped; a bracket right after a word is call notation ("Unstack(a, b)")
        c = re.sub(r"(?<!\w)\([^()]*\)", " ", c) if self.rd.nl else c
        c = clean(c)
        for _ in range(3):
            c2 = _OPENER.sub("", c).strip()
            c2 = clean(layout.strip_lead_in(c2) or c2)
            if c2 == c:
                break
            c = c2
        for pat, rep in _CHANGE:
            c = pat.sub(rep, c)
        return " ".join(c.split()).strip(" .!?:;\"'*")

    # ---------------------------------------------------------------- actions

    def _action(self, c: str, last_action: str | None) -> tuple[str, bool, bool] | None:
        negated = reference = False
        m = _NEGATED.match(c)
        if m:
            negated, c = True, c[m.end():].strip()
            c = re.sub(r"^(?:to\s+|be\s+able\s+to\s+|just\s+)", "", c)
        c = _SUBJECT_MODAL.sub("", c).strip()
        lead = _GERUND_LEAD.match(c) or _AT_POINT.match(c) or _AT_MOMENT.match(c)
        inner = None if lead else _GERUND_LEAD.search(c)  # "the problem is that after unstacking A, ..."
        if lead or inner:
            c, reference = c[(lead or inner).end():].strip(), True
        g = re.match(r"^(\w+ing)\b", c)
        if g and g.group(1) in self.gerunds:
            c = self.gerunds[g.group(1)] + c[g.end():]
            reference = True
        for attempt in (c, self._resolve_it(c, last_action)):
            if attempt is None:
                continue
            body = strip_step_lead_in(attempt)
            try:
                r = self.rd.lead(body)
            except ParseError:
                r = None
            if r is not None and len(r[0]) == 1:
                name, args = r[0][0]
                if attempt is not c and len(set(args)) < len(args):
                    continue  # "stack red on it": "it" is no object its own clause names (not guessed)
                return pddl(name, args), negated, reference
        return None

    def _resolve_it(self, c: str, last_action: str | None) -> str | None:
        """"it": the object last named before it in its sentence, else the first object of the last
        action; never an object its own clause names ("stack red on it" is not read)."""
        if not re.search(r"\bit\b", c):
            return None
        obj = self._named
        if obj is None and last_action:
            obj = (last_action.strip("()").split()[1:2] or [None])[0]
        if obj is None:
            return None
        return re.sub(r"\bit\b", self.names.get(obj, obj), c, count=1)

    def _last_object(self, text: str) -> str | None:
        if self._object_names is None or not text:
            return None
        found = None
        for m in self._object_names.finditer(text):
            found = m.group(0)
        return self.rd.object_by_name.get(found) if found else None

    def _looks_like_step(self, c: str) -> bool:
        c = _SUBJECT_MODAL.sub("", _NEGATED.sub("", c).strip()).strip()
        return self.rd.starts_with_verb(c) and not re.search(r"\b(?:a|another|any|each|every|one|them|"
                                                             r"blocks?|objects?|it|something)\b", c)

    # ---------------------------------------------------------------- facts

    def _fact(self, c: str, subject: str | None) -> tuple[bool, str] | None:
        r = self._one_fact(c)
        if r is None and subject and _PREDICATE_ONLY.match(c):
            name = self.names.get(subject, subject)
            for verb in ("is ", ""):
                r = self._one_fact(f"{name} {verb}{c}")
                if r is not None:
                    break
        return r

    def _one_fact(self, c: str) -> tuple[bool, str] | None:
        if re.match(r"^(?:was|were|had)\b", c) or structure.PAST.search(c.split(" is ")[0] if " is " in c else c):
            return None
        r = self.rd.fact_clause(c)
        if r in (None, "mention"):
            return None
        return r

    # ---------------------------------------------------------------- PDDL

    def _pddl_claims(self, low: str, start: int, marks: frozenset[str]) -> list[Claim]:
        claims: list[Claim] = []
        rd = self.rd
        hypothetical = "hypothetical" in marks
        last_action = None
        planned = in_goal = False
        for a, b, sep in _pieces(low, start):
            c = low[a - start:b - start]
            in_goal = bool(_GOAL_WORD.search(c)) or (in_goal and not _GOAL_STOP.match(c.strip()) and not _AIM.search(c))
            planned = planned or bool(structure.INTENT.search(c))
            negated_clause = bool(_NEGATED.match(clean(_OPENER.sub("", clean(layout.normalise(c))))))
            before = bool(last_action and _BEFORE.match(clean(_OPENER.sub("", clean(layout.normalise(c))))))
            denied = {m.start(1) for m in _NOT_FORM.finditer(c)}
            for m in FORM.finditer(c):
                name, args = m.group(1), tuple(m.group(2).split())
                if name == "not":
                    continue
                span = (a + m.start(), a + m.end())
                if name in rd.arity_action:
                    text = pddl(name, args)
                    if text in self.task.action_index:
                        claims.append(Claim("action", span, text, negated_clause, planned=planned))
                        if not negated_clause:
                            last_action = text
                elif name in rd.arity_atom and len(args) == rd.arity_atom[name] and all(x in rd.objects for x in args):
                    neg = m.start() in denied or bool(_DENIED_AFTER.match(c[m.end():])) \
                        or bool(_DENIED_BEFORE.search(c[:m.start()]))
                    claims.append(Claim("fact", span, pddl(name, args), neg, "before" if before else "now",
                                        condition=hypothetical and not any(x.kind == "action" for x in claims),
                                        planned=planned and not in_goal, goal=in_goal and "goal" in marks,
                                        now=bool(_SAYS_NOW.search(c))))
        return claims


def _subject(atom: str) -> str | None:
    parts = atom.strip("()").split()
    return parts[1] if len(parts) > 1 else None


def reader(task: Task, style: str, templates: str) -> ClaimReader:
    """The claim reader of a task, built once per task and kept in the task's own ``views``."""
    key = ("trace-claims", style, templates)
    got = task.views.get(key)
    if got is None:
        got = task.views[key] = ClaimReader(task, style, templates)
    return got
