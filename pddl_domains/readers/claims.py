"""Claims in a reasoning text: every action and fact a sentence states, its mood and its time.

Built on the task's grammar (`grammar.TaskGrammar.lead` for actions, `TaskGrammar.fact_clause` for
facts), so templates, paraphrases, PDDL forms and any domain's words (generated templates) read here
as in answers; the words of reasoning around them (`discourse` for sentences, `mood` for clauses)
say whether a claim is asserted and about which point. What the grammar does not read is never
guessed; this module only prepares clauses for it (docs/traces.md, "How a trace is read"):

- a sentence is cut into clauses at the grammar's separators (``,`` ``;`` ``:`` ``and`` ``then``),
  offsets into the text kept; asides in brackets are dropped in natural language (a bracket right
  after a word is call notation, "Unstack(blue, orange)", and is read);
- narration is dropped before the grammar reads: openers ("so", "wait,", "for example"), a subject
  with a modal ("I can", "we need to"), "after" / "by" before a gerund, read as its verb; "becomes",
  "remains", "is now" read as "is", "must be" / "needs to be" as "is" (a requirement);
- "it" after an action is the object named last before it in its sentence, else the first object
  of the last action, never an object its own clause names; a clause that is only a predicate
  ("clear") shares the subject of the fact before it; "which" opening a clause is the object named
  just before it, and a bare predicate after such a clause is not read;
- an action is taken only where it leads its clause and what follows it says only when, that it is
  done or what results (`taken_as_said`; in PDDL the words around a form read as in words,
  `ClaimReader._form_mood`); named among other words it is ``unsure``: followed, not judged; an
  aside between commas that names no object ("X, like every move, has its conditions") leaves the
  action the subject of what follows it; an if-clause inside a clause whose head reads as nothing
  and names no object ("I wonder what happens if I X") supposes its action;
- each claim's mood (`mood`): the sentence's question mark or if-part, the goal, a requirement lead
  ("we need", "Pre:", "the preconditions are") and what follows it in its sentence, an aim
  ("should", "will"), a hedge ("maybe"), an option considered (a "for example" / "maybe" sentence,
  "I could", "would be possible"), a rejected one ("I can't X", "instead of X"), "I can X";
- the question a sentence answers (`ClaimReader.read`): after a question that asks what an action
  requires its facts are requirements, after one that asks what would follow suppositions, and after
  one that asks whether what was just said is right, an answer no withdraws it;
- each fact's time: "now" / "currently" / "then ..." (the point the line is at); after an action
  in its sentence, after ":" or "because" / "since" (its preconditions: ``when="before"``); on the
  text line of the action just taken (its preconditions or its effects: ``when="either"``); else
  untied;
- negation and truth words ("no pain c", "pain c is false", "harmony: yes") and enumerations said
  complete ("only A and C are clear": A and C clear, every other object of "clear" not, the denials
  marked ``implied``).

In PDDL style every bracketed form of the task in a clause is a claim: an action form an action, a
predicate form a fact, ``(not (p ...))`` a denied fact.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from widthbench.core.errors import ParseError
from widthbench.pddl_domains.readers import discourse, layout, mood, phrases
from widthbench.pddl_domains.readers.lexicon import Lexicon, task_vocabulary
from widthbench.pddl_domains.readers.person import Teller
from widthbench.pddl_domains.readers.grammar import FORM, SEPARATORS, clean, pddl, strip_step_lead_in
from widthbench.pddl_domains.readers.mood import (ASSERT, CAN, CANDIDATE, GOAL, HEDGE, PLAN, QUESTION, REFERENCE,
                                                  REJECT, REQUIRE, SUPPOSE)
from widthbench.pddl_domains.readers.steps import StepReader, task_reader
from widthbench.planners.strips import Task, kept

__all__ = ["Claim", "Sentence", "ClaimReader", "claim_reader"]

#: The words of English this module reads with (phrases.txt): its own, and those of the clause's mood
#: and of the discourse around it.
WORDS, MOOD, DISCOURSE = phrases.section("claims"), phrases.section("mood"), phrases.section("discourse")


#: The most words of narration read before a fact ("the immediate consequence of this is that A is
#: clear"); each word is checked to name no object and to change nothing of what the fact says.
NARRATION_WORDS = 8


@dataclass(frozen=True, slots=True)
class Claim:
    kind: str  # "action" | "fact" | "goal-reached"
    span: tuple[int, int]  # character offsets into the text
    value: str  # PDDL action or atom text
    negated: bool = False  # a fact denied
    mood: str = ASSERT  # `mood.MOODS`: asserted, or a requirement, goal, plan, question, option, ...
    when: str = "untied"  # facts: "now" (said of the point the line is at) | "before" (the preconditions of
    #                       the action before it) | "either" (on the action's text line: before or after it) |
    #                       "start" ("initially": the state the trace starts from) | "untied"
    point: str = ""  # an action named as a point of a plan: "after" ("after unstacking A") | "at" ("when ...")
    implied: bool = False  # a denial an enumeration said to be complete implies ("only A is clear": B is not)
    unsure: bool = False  # an action named among words that are not read as taking it (`taken_as_said`,
    #                       `ClaimReader._form_mood`): it may be taken or only named; followed, never judged by its own words

    @property
    def asserted(self) -> bool:
        return self.mood == ASSERT


@dataclass(frozen=True, slots=True)
class Sentence:
    index: int
    span: tuple[int, int]
    marks: frozenset[str]  # `discourse.marks`, and "maybe-restart": a restart read only for a word not known
    claims: tuple[Claim, ...]
    retraction_at: int | None  # text offset of its first retraction marker (a withdrawal or a rejection)
    withdrawal_at: int | None  # text offset of its first withdrawal marker ("wait, no", "actually")
    answer_withdrawal_at: int | None  # the same, when an opening "no" / "nope" answers a question put before
    gap: int | None  # text offset of a clause that starts like an action but reads as none: the line is lost there
    names: bool = False  # it names an object of the task or a verb of its actions (it could state an action)
    unknown: tuple[str, ...] = ()  # its words (and signs) the verifier does not know (`lexicon`): its claims are not judged
    verbs: bool = False  # it names a verb of the task's actions (or, in PDDL, an action's form)


def lower(text: str) -> str:
    """Lower case with one character per character (offsets kept)."""
    return "".join(c.lower() if len(c.lower()) == 1 else c for c in text)


#: Where a clause of reasoning ends: where a step of an answer does (`grammar.SEPARATORS`), at a
#: slash between spaces ("No. 1 / X", "Chk: A / yes"), and at a markdown table's cell border
#: ("| pre | X | A and B |": each cell is a clause).
CLAUSES = re.compile(SEPARATORS.pattern + r"|\s/\s|\|")


def _pieces(low: str, start: int) -> list[tuple[int, int, str]]:
    """(start, end, separator after) of the clauses of one lower-cased sentence at text offset start."""
    depth, mask = 0, []
    for ch in low:
        depth = depth + 1 if ch == "(" else max(0, depth - 1) if ch == ")" else depth
        mask.append(depth)
    out, a = [], 0
    for m in CLAUSES.finditer(low):
        if mask[m.start()] == 0:
            out.append((start + a, start + m.start(), m.group(0).strip()))
            a = m.end()
    out.append((start + a, start + len(low), ""))
    return [p for p in out if p[1] > p[0]]


class ClaimReader:
    """Reads the claims of reasoning texts about one task in one style and template set."""

    def __init__(self, task: Task, style: str, templates: str):
        self.task = task
        self.style = style
        self.rd: StepReader = task_reader(task, style, templates)
        self.names = self.rd.r.names  # PDDL object -> its name in words
        vocabulary = task_vocabulary(self.rd)
        self.lexicon = Lexicon(vocabulary)
        # the third person and the past told in the first person and the present (`person`)
        self.teller = Teller({re.split(r"[\s_-]", v)[0] for v in self.rd.verbs if v}, vocabulary)
        self._past: tuple[int, ...] = ()
        names = sorted(self.rd.object_by_name, key=len, reverse=True)
        self._object_names = re.compile(r"(?<![\w-])(?:" + "|".join(map(re.escape, names)) + r")(?![\w-])") \
            if names and self.rd.nl else None
        self._named = None
        # An action's name written as one word ("pickup", "putdown"): read as its words ("pick up").
        self._spaced = {re.sub(r"[-_]", "", n): n.replace("-", " ").replace("_", " ")
                        for n in self.rd.arity_action if re.search(r"[-_]", n)}
        self._squashed = (re.compile(r"\b(?:" + "|".join(map(re.escape, self._spaced)) + r")\b")
                          if self._spaced and self.rd.nl else None)
        self.gerunds = {}
        for v in set(self.rd.verbs):
            head = v.split()[0] if v else v
            for g in (head + "ing", head[:-1] + "ing" if head.endswith("e") else None,
                      head + head[-1:] + "ing"):
                if g:
                    self.gerunds.setdefault(g, head)
        verbs = sorted({v for v in self.rd.verbs if len(v) > 2}, key=len, reverse=True)
        self._verbs = re.compile(r"(?<![\w-])(?:" + "|".join(map(re.escape, verbs)) + r")(?![\w-])") if verbs else None
        # the atoms of each predicate, for the scope of an enumeration
        self._by_predicate: dict[str, list[str]] = {}
        for atom in task.atoms:
            self._by_predicate.setdefault(atom[1:].split()[0].rstrip(")"), []).append(atom)

    # ---------------------------------------------------------------- sentences

    def read(self, text: str) -> list[Sentence]:
        told = self.teller.first_person(lower(text))
        low_all, self._past = told.text, told.past
        out = []
        prev_end, after_action, prev_planned, prev_goal, goal_talk = 0, False, False, False, False
        asked = None  # what the question just put asks ("required", "supposed", "said"): its answer's mood
        self._last_action = None
        self._either = False
        for i, (a, b) in enumerate(discourse.sentences(text)):
            low = low_all[a:b]
            norm = layout.normalise(low)
            marks = discourse.marks(norm)
            r, wd, wa = discourse.retraction_at(low), discourse.withdrawal_at(low), discourse.withdrawal_at(low, True)
            answer = asked if "question" not in marks else None
            if answer == "said" and MOOD.ANSWERS_NO.match(norm):
                r = wd = wa = 0  # "Was that true, what I just said? No, it was not: A": withdrawn
            same_line = "\n" not in text[prev_end:a]
            if marks & {"restart", "initial"}:
                self._either = False
            # "Then ..." after a sentence that plans goes on with the plan.
            goes_on = prev_planned and bool(MOOD.GOES_ON.match(norm))
            # After the goal is stated, "So blue is on the table, red on blue" restates it (the final
            # state), until an action, the initial or current state, or a restart is spoken of.
            if marks & {"goal", "goal-reached"}:
                goal_talk = True
            elif marks & {"initial", "restart"} or MOOD.CURRENT.search(low):
                goal_talk = False
            restates = goal_talk or (prev_goal and bool(MOOD.RESTATES.match(norm)))
            # A fact on the text line of the action just taken may state its preconditions or its
            # effects ("3. Unstack A from B: A is clear. Now A is held."): judged in either state.
            self._either = same_line and self._either
            claims = self._enumeration(low, a, marks)
            gap = None
            if claims is None:
                claims, gap = self._claims(low, a, marks, after_action, goes_on, restates)
                if any(c.kind == "action" and c.mood == SUPPOSE for c in claims):
                    marks = marks | {"hypothetical"}  # an action in an if-clause further into the sentence
            if "restart" in marks and DISCOURSE.LISTING.search(norm) and any(c.kind == "fact" for c in claims):
                marks = marks - {"restart"}  # "Let me list them: A, B": the facts listed, no new start
            if "restart" in marks and "restart" not in discourse.marks(self._without_unknown(norm)):
                # "let me go through where <unknown> we are now: ..." reads as a restart only for a word
                # it does not know: whether the trace starts again is not known (`verify`)
                marks = marks - {"restart"} | {"maybe-restart"}
            takes = any(c.kind == "action" and c.mood in (ASSERT, CAN) for c in claims)  # an action taken or said to apply
            if answer in ("required", "supposed") and not takes:
                # "Under what conditions may one X? Under these only: A", "What would happen if I were
                # to X? Then A": the answer says what the question asks, in its mood; a fact said of now
                # is said of now
                how = REQUIRE if answer == "required" else SUPPOSE
                claims = [replace(c, mood=how) if c.kind == "fact" and c.mood == ASSERT and c.when != "now" else c
                          for c in claims]
            asked = None if "question" not in marks else "required" if MOOD.ASKS_REQUIRED.search(norm) else \
                "supposed" if "hypothetical" in marks else "said" if MOOD.ASKS_SAID.search(norm) else None
            if "at-step" in marks and not takes:
                marks = marks | {"elsewhere"}  # "In step 1, A was clear": another point; "At step 2, I stack ...": its number
            if "alternative" in marks and not any(c.kind == "action" for c in claims) and not self._names_verb(norm):
                # "Alternatively, let's think again" starts over; "Alternatively, I might X" (an action or
                # its verb named): an option
                marks = marks | {"restart"}
                self._either = goal_talk = False
            # "we need to move orange to the table. Then place red on orange": the plan goes on
            prev_planned = any(c.kind == "action" and (c.mood in (PLAN, CANDIDATE) or c.point == "after")
                               for c in claims) or (
                "intent" in marks and not marks & {"goal", "goal-reached"} and not claims
                and bool(MOOD.PLANS_DOING.search(norm)))
            prev_goal = "goal" in marks
            if any(c.kind == "action" for c in claims):
                goal_talk = False
            prev_end = b
            after_action = bool(claims) and claims[-1].kind == "action" and claims[-1].mood != REJECT
            reached = DISCOURSE.GOAL_REACHED.search(low)
            if reached and "question" not in marks:
                said = MOOD.GOAL_WORD.sub(" ", low[:reached.end()])
                if not DISCOURSE.INTENT.search(said) and not re.search(r"\b(?:not|isn't|wasn't|if)\b", said) \
                        and not DISCOURSE.GOAL_DEFINED.match(low[reached.end():]):
                    claims.append(Claim("goal-reached", (a + reached.start(), a + reached.end()), "the goal"))
            out.append(Sentence(i, (a, b), marks, tuple(claims), None if r is None else a + r,
                                None if wd is None else a + wd, None if wa is None else a + wa, gap, self._names(norm),
                                self.lexicon.unknown(low), self._names_verb(norm)))
        return out

    def _without_unknown(self, norm: str) -> str:
        """``norm`` without the words and signs the verifier does not know (`lexicon`)."""
        for w in self.lexicon.unknown(norm):
            norm = re.sub(rf"(?<![\w']){re.escape(w)}(?![\w'])", " ", norm)
        return " ".join(norm.split())

    def _claims(self, low: str, start: int, marks: frozenset[str], after_action: bool = False,
                goes_on: bool = False, restates: bool = False) -> tuple[list[Claim], int | None]:
        if self.style == "pddl":
            return self._pddl_claims(low, start, marks), None
        claims: list[Claim] = []
        gap: int | None = None
        gap_sep = ""  # the separator after the clause that looked like a step and did not read
        last_action: str | None = None  # in this sentence
        subject: str | None = None
        before = False  # facts now state the preconditions of the last action
        hypothetical = "hypothetical" in marks
        question = "question" in marks
        considered = "candidate" in marks
        planned = goes_on
        requiring = False  # after "we need", "Pre:", "the preconditions are": requirements
        in_goal = False
        other_point = False  # after "after moving A, ...", "once that is done, ...": another point
        whole = layout.normalise(low)
        opening = MOOD.OPENER_WORDS.sub("", whole.lstrip(" -*•#>0123456789.)"))
        if MOOD.NOW.match(whole.lstrip(" -*•#>0123456789.)")) and not MOOD.AT_POINT.match(opening):
            before = False  # "Then red is on the table": no longer the preconditions
        after_point = False  # the clause before was "after X-ing": a bare gerund goes on with it
        listed = len(claims)  # where the run of facts a verdict clause speaks of starts
        opens_now = bool(MOOD.OPENS_NOW.match(whole)) or self._label_now(whole)
        opens_start = bool(MOOD.OPENS_START.match(whole))
        # "To unstack A, ...": facts are its requirements, but for a reason given ("because A is clear")
        purpose = bool(MOOD.PURPOSE.match(whole))
        answered = False  # after a "yes" that opens the sentence
        just_named = None  # the action the clause before named, if it named one
        only_if = False  # after "only if" in the sentence
        # the clause before named an action's verb and read as nothing ("the thing about X is that it
        # needs A"): the items of a list after it ("..., B and C") share its unread verb
        head_unread, prev_sep = False, ""
        for a, b, sep in _pieces(low, start):
            named_before, just_named = just_named, None
            listed_on = head_unread and prev_sep in (",", "and")
            aside = prev_sep == "," and sep == ","  # a clause between two commas: it may be an aside
            head_unread, prev_sep = False, sep
            raw = low[a - start:b - start]
            nraw = layout.normalise(raw)
            said = re.sub(r"\([^()]*\)", " ", nraw).strip(" ,.;:-*")
            verdict = MOOD.VERDICT.match(" ".join(said.split())) or \
                MOOD.VERDICT.match(" ".join(MOOD.OPENER_WORDS.sub("", said).split()))
            if verdict:
                # "its preconditions; A is clear, the hand is empty, are (not) satisfied": the verdict
                # on the facts listed just before it; "A and B are not satisfied" says only that not
                # all of them hold, which one is not said: not asserted
                if verdict.group("neg") or verdict.group("neg2"):
                    facts = [x for x in claims[listed:] if x.kind == "fact"]
                    claims[listed:] = [x if x.kind != "fact" else replace(x, negated=not x.negated) if len(facts) == 1
                                       else replace(x, mood=HEDGE) for x in claims[listed:]]
                elif verdict.group("yes"):
                    # "holding blue: yes": a requirement checked and met, a restated fact confirmed;
                    # "Yes, A is clear": the answer to a question, said of the state
                    answered = listed == len(claims)
                    claims[listed:] = [replace(x, mood=ASSERT) if x.kind == "fact" and x.mood in (REQUIRE, PLAN)
                                       and not in_goal else x for x in claims[listed:]]
                listed = len(claims)
                continue
            goal_word = bool(MOOD.GOAL_WORD.search(raw))
            in_goal = goal_word or (in_goal and not MOOD.GOAL_STOP.match(raw.strip()) and not MOOD.AIM.search(raw))
            planned = planned or bool(DISCOURSE.INTENT.search(raw))
            norm = nraw.strip(" ,.;:-*")
            bare = MOOD.OPENER_WORDS.sub("", norm)
            now_here = bool(MOOD.NOW.match(norm) or re.search(r"\bnow\b", norm)) and not MOOD.AT_POINT.match(bare)
            if now_here:
                before = purpose = False
            conditional = bool(MOOD.CONDITIONAL.match(clean(nraw)))
            confirmed = answered or bool(MOOD.CONFIRMED.search(norm))
            lead = MOOD.REQUIRE_LEAD.match(MOOD.OPENER.sub("", bare).strip())
            if not only_if and MOOD.ONLY_IF.search(low[:a - start]):
                only_if = requiring = True  # "The rules say I can X only if A, and B": A and B are required
                answered = False  # "Right, I can't X unless A": what follows the answer word is a rule
                confirmed = bool(MOOD.CONFIRMED.search(norm))
            if _named_last(claims, named_before) and _said_of_named(bare):
                # "X... that one is only allowed when A": said of X, as right after it
                claims[-1], requiring = _named_subject(named_before), True
            elif lead:
                requiring = True
                if answered:
                    # "Okay, it needs A", "Yes, we need A": the lead says what follows is required; the
                    # answer word before it confirms nothing of it
                    answered, confirmed = False, bool(MOOD.CONFIRMED.search(norm))
                if _named_last(claims, named_before):
                    # "Unstack A from B - precond: ...", "X: requires ...": the action is the subject of
                    # the requirements that follow it, named, not taken
                    claims[-1] = _named_subject(named_before)
            elif requiring and (WORDS.REQUIRE_STOP.match(bare) or now_here):
                requiring = False
            c = self._prepare(nraw)
            if not c:
                head_unread = listed_on
                just_named = named_before if aside else None
                continue
            why = MOOD.WHY.search(c)
            done = bool(MOOD.WHY_DONE.match(c[why.start():] if why else c))  # "because I put blue down": done before
            if why and not MOOD.BEFORE.match(c):
                c = c[why.end():].strip()  # "that's allowed because blue is clear"
            # "Unstack A from B: A is clear" may list preconditions or effects: judged in either
            # state (the line's "either"); "because", "since" state the preconditions.
            if MOOD.POST_LABEL.match(norm):
                before = False
            elif last_action and (MOOD.BEFORE.match(c) or why):
                before = True
            elif not claims and (MOOD.BEFORE.match(c) or why) and after_action:
                before = True  # "That's allowed because ...": the preconditions of the action before
            c = MOOD.BEFORE.sub("", c).strip()
            self._named = self._last_object(low[:a - start])
            if not requiring:
                got = self._action(c, last_action or self._last_action)
                inner = None if got is not None or conditional else MOOD.INNER_IF.search(c)
                if inner is not None and not self._names_object(c[:inner.start()]):
                    # "I wonder what happens if I X": X is supposed (and what follows it in its sentence)
                    got = self._action(c[inner.end():], last_action or self._last_action)
                    if got is not None and got[1] in (ASSERT, CAN) and not got[2]:
                        got, conditional = (got[0], ASSERT, got[2], got[3]), True
                    else:
                        got = None
                if got is not None:
                    action, how, point, rest = got
                    point = point or ("after" if done else "")
                    if how in (ASSERT, CAN) and conditional:
                        how = SUPPOSE  # "hypothetically, if I unstack A, ...": an action in an if-clause is supposed
                        hypothetical = True  # and what follows it in its sentence is said of that point
                    elif how in (ASSERT, CAN, CANDIDATE) and not point and MOOD.ONLY_IF.search(nraw):
                        point, requiring = "at", True  # "can only X if A", "X only works when A": its condition
                    if how == ASSERT:
                        how = SUPPOSE if hypothetical else QUESTION if question else \
                            CANDIDATE if considered else PLAN if planned else ASSERT
                    elif how == CAN:
                        how = SUPPOSE if hypothetical else QUESTION if question else \
                            CANDIDATE if considered else PLAN if planned else CAN
                    if point:
                        bare = MOOD.WHY_LEAD.sub("", bare)  # "because after stacking A" names the point after it
                        point = "after" if (done or MOOD.AFTER.match(bare) or (after_point and MOOD.BARE_GERUND.match(bare))) \
                            else "at"  # "when / by / while X-ing", or X-ing as the topic: the state at X
                        how = REFERENCE
                    # told in the past ("I unstacked A"): it may retell a step taken earlier
                    unsure = how in (ASSERT, CAN) and (not (taken_as_said(rest) and _aside_as_said(nraw))
                                                       or self._told_past(a, b))
                    claims.append(Claim("action", (a, b), action, how == REJECT, how, point=point, unsure=unsure))
                    just_named = claims[-1]
                    if how != REJECT:
                        # "when unstacking A: ..." states the state at that action, "after unstacking A" the one after
                        last_action, before = action, point == "at"
                        self._last_action = action
                        if how in (ASSERT, CAN):
                            self._either = True
                    subject = None
                    after_point = point == "after"
                    said = _said_after(rest)
                    needs = mood.OF_ACTION[0][1].match(said)
                    if needs:
                        # "unstack A from B requires A clear, ...": what follows are its requirements
                        requiring = True
                        fact = self._fact(mood.required_as_is(clean(said[needs.end():])), None)
                        if fact is not None:
                            claims.append(Claim("fact", (a, b), fact[1], fact[0], REQUIRE))
                            subject = _subject(fact[1])
                    listed = len(claims)
                    continue
            after_point = False
            # "which" that opens a requirement lead ("X, which is that it needs A") is no object
            relative = None if lead else MOOD.RELATIVE.match(c)
            if relative:
                # "red is on blue, which is on orange": "which" is the object named last before it; a
                # bare predicate after it ("..., on table") may be about either object: not read
                c = f"{self.names.get(self._named, self._named)} {c[relative.end():]}" if self._named else ""
            if lead:
                c = self._after_lead(c)
            own = mood.mood_of_fact(norm)
            c = mood.required_as_is(c)
            fact = self._fact(c, subject) if c else None
            if fact is None and MOOD.AT_POINT.match(bare):
                other_point = True
            if fact is not None:
                negated, atom = fact
                if question:
                    how = QUESTION
                elif conditional or other_point or (hypothetical and not any(x.kind == "action" for x in claims)):
                    how = SUPPOSE
                elif in_goal:
                    # the goal stated is judged against the task's goal; other talk of the goal
                    # ("in the goal, ...") asserts nothing of the state
                    how = GOAL if marks & {"goal", "goal-reached"} else PLAN
                elif (requiring or (purpose and not why) or own == REQUIRE) and not confirmed:
                    how = REQUIRE
                elif (planned or own == PLAN or (restates and not confirmed)) and not in_goal:
                    how = PLAN
                elif own == HEDGE or listed_on:
                    how = HEDGE  # hedged, or an item of a list whose head did not read: not asserted
                else:
                    how = ASSERT
                head_unread = listed_on
                start_here = opens_start or bool(MOOD.SAYS_START.search(re.sub(r"\([^()]*\)", " ", raw)))
                when = "before" if before else "start" if start_here else \
                    "now" if opens_now or self._says_now(raw, atom) else "either" if self._either else "untied"
                claims.append(Claim("fact", (a, b), atom, negated, how, when))
                subject = None if relative else _subject(atom)
            else:
                listed = len(claims)
                head_unread = self._names_verb(layout.normalise(raw))
                if not aside:
                    # "A is on the table; every other object -> not on the table": a clause that read as
                    # nothing may be the subject of the next; only the fact right before (or an aside
                    # after it) lends a bare predicate its subject
                    subject = None
                if named_before is not None and aside and not self._names_object(nraw):
                    # an aside that names no object between an action and what its sentence says of it
                    # ("X, like every move, has its conditions"): the action is still the subject of what follows
                    just_named = named_before
                # a step told in the past that did not read ("since we just stacked red there") retells
                # one taken earlier: no step taken here in words that did not read
                # "I take that back": words about what was said, in a verb of the task, are no step
                if self._looks_like_step(c) and gap is None and not requiring and not self._told_past(a, b) \
                        and not DISCOURSE.WITHDRAWAL.search(raw):
                    gap, gap_sep = a, sep
        if gap is not None and gap_sep == ":" and any(x.kind == "action" and x.span[0] > gap and x.mood in (ASSERT, CAN)
                                                       for x in claims):
            gap = None  # "Then I take care of package_0: I load it into truck_0": a label of the action after it
        return claims, gap

    def _told_past(self, a: int, b: int) -> bool:
        """Whether the clause at text offsets ``a``-``b`` holds a verb of the task's actions told in the past
        (`person`)."""
        return any(a <= p < b for p in self._past)

    def _after_lead(self, c: str) -> str:
        """A clause after its requirement lead ("the preconditions of X are A is clear" -> "A is
        clear"): the action named in the lead may hold "is" itself ("the block that is on top of B"),
        so each "are" / "is" is tried, the first whose remainder reads as a fact kept."""
        m = MOOD.REQUIRE_LEAD.match(c)
        if m is None:
            return c
        rest = c[m.end():].strip()
        if self._fact(mood.required_as_is(rest), None) is None:
            for v in re.finditer(r"\s(?:are|is|would\s+be|will\s+be)\s", c[m.end():]):
                tail = c[m.end() + v.end():].strip()
                if self._fact(mood.required_as_is(tail), None) is not None:
                    return tail
        return rest

    def _names(self, norm: str) -> bool:
        """Whether a sentence names an object of the task or a verb of its actions (not one whose object
        is the reasoning's own matter: "lay out the problem")."""
        if self._object_names is not None:
            if self._names_object(norm):
                return True
        elif any(m.group(1) in self.rd.arity_action or m.group(1) in self.rd.arity_atom
                 or set(m.group(2).split()) & self.rd.objects for m in FORM.finditer(norm)):
            return True  # PDDL: a form of the task ("a" alone is an English word too)
        return self._names_verb(norm)

    def _names_object(self, norm: str) -> bool:
        """Whether words (in natural language) name an object of the task."""
        return bool(self._object_names and self._object_names.search(norm))

    def _names_verb(self, norm: str) -> bool:
        """Whether a sentence names a verb of the task's actions (in PDDL, an action's form), not one
        whose object is the reasoning's own matter."""
        if self._object_names is None and any(m.group(1) in self.rd.arity_action for m in FORM.finditer(norm)):
            return True
        return bool(self._verbs) and any(not WORDS.ON_MATTER.match(norm, m.end()) for m in self._verbs.finditer(norm))

    def _label_now(self, norm: str) -> bool:
        """Whether a sentence opens with a label that says "now" and names nothing ("Holds now: ...",
        "State as of now: ..."): what follows it is said of the point the line is at."""
        m = layout.WORDS.LABEL.match(norm.lstrip(" -*•#>"))
        return bool(m and MOOD.SAYS_NOW.search(m.group(1)) and not self._names(m.group(1))
                    and not DISCOURSE.INITIAL.search(m.group(1)))

    def _says_now(self, raw: str, atom: str) -> bool:
        """Whether the clause says "now" / "currently" beyond the words of the fact's own template
        ("the hand is currently holding X" says nothing of when)."""
        said = len(MOOD.SAYS_NOW.findall(raw))
        if not said:
            return False
        try:
            own = len(MOOD.SAYS_NOW.findall(self.rd.r.atom(atom).lower()))
        except Exception:  # noqa: BLE001 - a fact the renderer has no words for: its words are the clause's
            own = 0
        return said > own

    def _prepare(self, c: str) -> str:
        """A (normalised) clause ready for the grammar (module docstring)."""
        if self._squashed is not None:
            c = self._squashed.sub(lambda m: self._spaced[m.group(0)], c)
        # an aside in brackets is dropped; a bracket right after a word is call notation ("Unstack(a, b)");
        # one that says what an action requires is kept ("X (requirements): A")
        c = re.sub(r"(?<!\w)\(([^()]*)\)", _aside, c) if self.rd.nl else c
        c = clean(c)
        for _ in range(3):
            c2 = MOOD.GOAL_LEAD.sub("", MOOD.OPENER.sub("", c).strip())
            c2 = clean(layout.strip_lead_in(c2) or c2)
            if c2 == c:
                break
            c = c2
        for pat, rep in mood.CHANGE:
            c = pat.sub(rep, c)
        c = " ".join(c.split()).strip(" .!?:;\"'*")
        return MOOD.TRAILING_TIME.sub("", c)

    # ---------------------------------------------------------------- actions

    def _action(self, c: str, last_action: str | None) -> tuple[str, str, bool, str] | None:
        """(action, mood, named as a point, the rest of the clause) of a clause that starts with an
        action, or None."""
        how, reference = ASSERT, False
        m = MOOD.NEGATED.match(c)
        if m:
            how, c = REJECT, c[m.end():].strip()
            c = re.sub(r"^(?:to\s+|be\s+able\s+to\s+|just\s+)", "", c)
        elif MOOD.ABILITY.match(c):
            how = CAN
        elif MOOD.CONSIDERED.search(c):
            how = CANDIDATE
        c = MOOD.SUBJECT_MODAL.sub("", c).strip()
        option = MOOD.OPTION_LEAD.match(c)
        if option:
            how, c = CANDIDATE, c[option.end():].strip()  # "a possibility is to unstack A": considered
        c = MOOD.PERFORMING.sub("", c)  # "Performing unstack A": the action taken
        lead = MOOD.GERUND_LEAD.match(c) or MOOD.AT_POINT.match(c) or MOOD.AT_MOMENT.match(c)
        inner = None if lead else MOOD.GERUND_LEAD.search(c)  # "the problem is that after unstacking A, ..."
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
                said = _said_of(body[r[1]:])
                if said == REFERENCE:
                    reference = True  # "unstack A from B requires ...": its requirements, at it
                elif said is not None and how == ASSERT:
                    how = said
                return pddl(name, args), how, reference, body[r[1]:]
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
        """Whether a clause that read as no claim starts like a step: an action word of the task, not
        followed by words for objects in general ("any block", "it", "something") or for the
        reasoning's own matter ("lay out the problem", "list the facts": the problem, the state, the
        plan, the goal, the facts, the options, the steps)."""
        c = MOOD.SUBJECT_MODAL.sub("", MOOD.NEGATED.sub("", c).strip()).strip()
        return self.rd.starts_with_verb(c) and not re.search(r"\b(?:a|another|any|each|every|one|them|"
                                                             r"blocks?|objects?|it|something)\b", c) \
            and not WORDS.REASONING_MATTER.search(c)

    # ---------------------------------------------------------------- facts

    def _fact(self, c: str, subject: str | None) -> tuple[bool, str] | None:
        r = self._one_fact(c)
        if r is None and subject and MOOD.PREDICATE_ONLY.match(c):
            name = self.names.get(subject, subject)
            for verb in ("is ", ""):
                r = self._one_fact(f"{name} {verb}{c}")
                if r is not None:
                    break
        return r

    def _one_fact(self, c: str) -> tuple[bool, str] | None:
        if re.match(r"^(?:was|were|had)\b", c) or DISCOURSE.PAST.search(c.split(" is ")[0] if " is " in c else c):
            return None
        r, first = self._truth_fact(c)
        if r is not None:
            return r
        # a fact after a few words of narration ("that gives A is clear", "resulting in A on B", "it is
        # now the case that the hand is empty"): read when those words name no object and change
        # nothing of what it says
        words = c.split()
        for k in range(1, min(NARRATION_WORDS, len(words) - 1) + 1):
            head = " ".join(words[:k])
            if MOOD.NOT_NARRATION.search(head) or self.rd.fact_clause(head) is not None:
                break
            r = self._truth_fact(" ".join(words[k:]))[0]
            if r is not None:
                return r
        return None

    def _truth_fact(self, c: str) -> tuple[tuple[bool, str] | None, object]:
        """(the fact a clause states, with its truth words read ("pain c is false", "no pain c"), or
        None; what the grammar reads of the clause as it stands: a fact, "mention" or None)."""
        first = r = self.rd.fact_clause(c)
        if r not in (None, "mention"):
            return r, first
        for body, negated in mood.truth_forms(c):
            r = self.rd.fact_clause(body.strip(" ,:-"))
            if r not in (None, "mention"):
                return ((negated != r[0]), r[1]), first
        return None, first

    # ---------------------------------------------------------------- enumerations

    def _enumeration(self, low: str, start: int, marks: frozenset[str]) -> list[Claim] | None:
        """The claims of a sentence that opens with an enumeration said to be complete ("Only A and
        C are clear, since ..."), or None: the listed facts asserted, and the other facts of the
        predicate it speaks of denied (``implied``)."""
        norm = layout.normalise(low)
        body = MOOD.OPENER.sub("", norm.lstrip(" -*•#>0123456789.)")).strip()
        listed = None
        # the enumeration may follow a label or a lead of narration ("Let me count them: ...", "As far
        # as I can tell, ..."): words before a ":" or "," that name nothing and negate nothing
        for cut in [0] + [m.end() for m in re.finditer(r"[:,]\s*", body)][:2]:
            head = body[:cut]
            if cut and (self._names(head) or MOOD.NOT_NARRATION.search(head)):
                break
            rest = MOOD.OPENER.sub("", body[cut:]).strip()
            stop = WORDS.CLAUSE_STOP.search(rest)
            seg = rest[:stop.start()] if stop else rest
            for en in mood.enumerations(seg):
                listed = self._enumerated(en)
                if listed is not None:
                    break
            if listed is not None:
                seg = body[:cut] + seg
                break
        if listed is None:
            return None
        atoms, scope = listed
        how = QUESTION if "question" in marks else SUPPOSE if "hypothetical" in marks else \
            GOAL if marks & {"goal", "goal-reached"} else ASSERT
        if MOOD.HEDGED.search(seg) or MOOD.REQUIRED_VERB.search(seg) or MOOD.REQUIRE_LEAD.match(seg):
            how = HEDGE if MOOD.HEDGED.search(seg) else REQUIRE
        when = "now" if MOOD.SAYS_NOW.search(norm[:len(norm) - len(body) + len(seg)]) else "untied"
        span = (start, start + len(low))
        out = [Claim("fact", span, x, neg, how, when) for x, neg in atoms]
        out += [Claim("fact", span, x, True, how, when, implied=True) for x in scope]
        return out

    def _enumerated(self, en: mood.Enumeration) -> tuple[list[tuple[str, bool]], list[str]] | None:
        """(the facts stated (atom, denied), the atoms implied false) of an enumeration; None when an
        item names no object or fact of the task, or the items are not of one predicate."""
        rd = self.rd
        if en.kind == "only-facts":
            got = [self._one_fact(clean(x)) for x in en.items]
            if any(g is None or g[0] for g in got):
                return None
            atoms = [g[1] for g in got]
            preds = {_predicate(x) for x in atoms}
            scope = [x for p in preds for x in self._by_predicate.get(p, ()) if x not in atoms]
            return [(x, False) for x in atoms], scope
        objs = [rd.call_argument(x) for x in en.items]
        if not objs or any(o is None for o in objs):
            return None
        atoms = []
        for o in objs:
            name = self.names.get(o, o) if rd.nl else o
            got = None
            for form in (f"{name} is {en.predicate}", f"{name} are {en.predicate}", f"{name} {en.predicate}",
                         f"{en.predicate} {name}"):
                got = self._one_fact(clean(form)) if rd.nl else None
                if got is not None and not got[0]:
                    break
                got = None
            if got is None:
                return None
            atoms.append(got[1])
        slots = _slot_of(atoms, objs)
        if slots is None:
            return None
        pred, slot, rest = slots
        family = [x for x in self._by_predicate.get(pred, ()) if _args(x)[:slot] + _args(x)[slot + 1:] == rest]
        if en.kind == "none":
            return [(x, True) for x in atoms], []
        if en.kind == "except":
            return [(x, True) for x in atoms] + [(x, False) for x in family if x not in atoms], []
        return [(x, False) for x in atoms], [x for x in family if x not in atoms]

    # ---------------------------------------------------------------- PDDL

    def _form_mood(self, clause: str, m: re.Match, text: str) -> str | None:
        """The mood the words around an action's form give it, as they would the action in words
        (`_action`: "I X", "one might X", "consider the case in which we were to X"), when the
        clause leads with it after the narration words read (earlier forms of a run of steps, "(X)
        (Y)", stand for nothing) and what follows it up to the next action's form is
        `taken_as_said`; else None: whether it is taken is not certain."""
        actions = [f for f in FORM.finditer(clause) if f.group(1) in self.rd.arity_action]
        ahead = clause[:m.start()]
        for f in reversed([f for f in actions if f.end() <= m.start()]):
            if ahead[f.end():].strip(" ,;>→-–—*"):
                break
            ahead = ahead[:f.start()]  # "(unstack a b) (put-down a)": a run of steps
        got = self._action(self._prepare(layout.normalise(ahead + m.group(0))), None)
        if got is None or got[0] != text or got[3].strip():
            return None
        after = [f.start() for f in actions if f.start() >= m.end()]
        if not taken_as_said(clause[m.end():after[0] if after else len(clause)]):
            return None
        return REFERENCE if got[2] else got[1]

    def _pddl_claims(self, low: str, start: int, marks: frozenset[str]) -> list[Claim]:
        claims: list[Claim] = []
        rd = self.rd
        hypothetical = "hypothetical" in marks
        question = "question" in marks
        considered = "candidate" in marks
        last_action = None
        planned = in_goal = requiring = False
        whole = layout.normalise(low)
        opens_now = bool(MOOD.OPENS_NOW.match(whole)) or self._label_now(whole)
        opens_start = bool(MOOD.OPENS_START.match(whole))
        # "To (X), ...": facts are its requirements, as in words, but for a reason given ("because (A)")
        # or facts said of now
        purpose = bool(MOOD.PURPOSE.match(whole))
        just_named = None  # the action the clause before named, if it named one
        prev_sep = ""
        for a, b, sep in _pieces(low, start):
            named_before, just_named = just_named, None
            aside, prev_sep = prev_sep == "," and sep == ",", sep  # a clause between two commas: it may be an aside
            c = low[a - start:b - start]
            if aside and not FORM.search(c):
                just_named = named_before  # "(X), like every move, has its conditions": as in words
            if MOOD.WHY.search(c) or MOOD.NOW.match(clean(layout.normalise(c)).strip()) or re.search(r"\bnow\b", c):
                purpose = False
            in_goal = bool(MOOD.GOAL_WORD.search(c)) or (in_goal and not MOOD.GOAL_STOP.match(c.strip()) and not MOOD.AIM.search(c))
            planned = planned or bool(DISCOURSE.INTENT.search(c))
            words = clean(MOOD.OPENER.sub("", clean(layout.normalise(c))))
            if _named_last(claims, named_before) and (_said_of_named(words) or MOOD.REQUIRE_LEAD.match(words)):
                # "(X)... that one is only allowed when A", "(X) - precond: ...": as in words
                claims[-1] = _named_subject(named_before)
            if MOOD.REQUIRE_LEAD.match(words) or MOOD.REQUIRED_VERB.search(words) or MOOD.ONLY_IF.search(words):
                requiring = True
            elif requiring and WORDS.REQUIRE_STOP.match(words):
                requiring = False
            confirmed = bool(MOOD.CONFIRMED.search(c))
            if MOOD.CONDITIONAL.match(clean(layout.normalise(c))):
                hypothetical = True  # "Playing it forward: if I (X), ...": supposed, as in words (the if-clause anywhere)
            negated_clause = bool(MOOD.NEGATED.match(words))
            before = bool(last_action and MOOD.BEFORE.match(words))
            denied = {m.start(1) for m in MOOD.NOT_FORM.finditer(c)}
            for m in FORM.finditer(c):
                name, args = m.group(1), tuple(m.group(2).split())
                if name == "not":
                    continue
                span = (a + m.start(), a + m.end())
                if name in rd.arity_action:
                    text = pddl(name, args)
                    if text in self.task.action_index:
                        said = _said_of(c[m.end():])
                        ahead = clean(MOOD.OPENER.sub("", clean(layout.normalise(c[:m.start()])))) + " "
                        point = "after" if MOOD.AFTER.match(ahead) else \
                            "at" if MOOD.AT_MOMENT.match(ahead) or MOOD.AT_POINT.match(ahead) else ""
                        # "consider (X)", "a possibility is to (X)": as in words (`_action`)
                        option = MOOD.OPTION_LEAD.match(MOOD.SUBJECT_MODAL.sub("", ahead).strip() + " ")
                        how = REJECT if negated_clause or said == REJECT else SUPPOSE if hypothetical \
                            else QUESTION if question else REFERENCE if said == REFERENCE or requiring or point \
                            else CANDIDATE if considered or said == CANDIDATE or option or MOOD.CONSIDERED.search(words) \
                            else PLAN if planned else CAN if said == CAN or MOOD.ABILITY.match(words) else ASSERT
                        unsure = False
                        if how in (ASSERT, CAN):
                            said_how = self._form_mood(c, m, text)  # as the same words would in words
                            unsure = said_how is None
                            how = how if said_how in (None, ASSERT) else said_how
                        claims.append(Claim("action", span, text, how == REJECT, how,
                                            point=(point or "at") if how == REFERENCE else "", unsure=unsure))
                        just_named = claims[-1]
                        if said == REFERENCE:
                            requiring = True  # "(stack a b) requires (holding a) (clear b)"
                        if how != REJECT:
                            last_action = text
                elif name in rd.arity_atom and len(args) == rd.arity_atom[name] and all(x in rd.objects for x in args):
                    neg = m.start() in denied or bool(MOOD.DENIED_AFTER.match(c[m.end():])) \
                        or bool(MOOD.DENIED_BEFORE.search(c[:m.start()])) or bool(re.search(r"\bno\s*$", c[:m.start()]))
                    if question:
                        how = QUESTION
                    elif hypothetical and not any(x.kind == "action" for x in claims):
                        how = SUPPOSE
                    elif in_goal:
                        how = GOAL if marks & {"goal", "goal-reached"} else PLAN  # as in words
                    elif (requiring or purpose) and not confirmed:
                        how = REQUIRE
                    elif planned and not in_goal:
                        how = PLAN
                    elif MOOD.HEDGED.search(c):
                        how = HEDGE
                    else:
                        how = ASSERT
                    claims.append(Claim("fact", span, pddl(name, args), neg, how,
                                        "before" if before else "start" if opens_start or MOOD.SAYS_START.search(c)
                                        else "now" if opens_now or MOOD.SAYS_NOW.search(c) else "untied"))
        return claims


def taken_as_said(rest: str) -> bool:
    """Whether the words after an action in its clause leave it taken as the clause says: nothing, or
    words of time, of its being done or of what results (phrases.txt: TAKEN_TAIL), or what the
    clause says of it (`mood.OF_ACTION`: "is possible", "requires ..."). Other words ("X permitted
    only given A", "the thing about X is that ...") say something of the action that is not read:
    whether it is taken is not certain, and it is not judged as taken (docs/traces.md, principle 7)."""
    return bool(MOOD.TAKEN_TAIL.match(rest)) or _said_of(rest) is not None


def _said_of(rest: str) -> str | None:
    """The mood what follows an action in its clause gives it (`mood.OF_ACTION`), or None."""
    rest = _said_after(rest)
    for how, pat in mood.OF_ACTION:
        if pat.match(rest):
            return how
    return None


def _aside_as_said(raw: str) -> bool:
    """Whether an aside in round brackets that closes a clause, dropped before the clause is read,
    leaves the action the clause opens with taken as its words say: not when it denies or doubts
    that the action is done (phrases.txt: ASIDE_UNDONE; "I X (not done yet)", "X (pending)"), which
    is said of the action and not read, as such words after it in its clause are (docs/traces.md,
    principle 7)."""
    m = re.search(r"\(([^()]*)\)[\s.,;:!?]*$", raw)
    if m is None:
        return True
    return not MOOD.ASIDE_UNDONE.search(m.group(1))


def _aside(m: re.Match) -> str:
    """A bracketed aside of a clause in words: dropped, unless it says what an action requires
    (phrases.txt: REQUIREMENT_ASIDE), which reads as its words do without the brackets."""
    inner = m.group(1)
    return f" {inner} " if MOOD.REQUIREMENT_ASIDE.match(inner) else " "


def _said_after(rest: str) -> str:
    """What follows an action in its clause, as said of it: an opening bracket between them does not
    part them ("X (requirements): A", "X [requires A]" say what X needs, as "X requires A" does)."""
    return re.sub(r"^\s*[(\[]\s*", " ", rest, count=1)


def _named_last(claims: list[Claim], named: Claim | None) -> bool:
    """Whether the last claim is the action the clause before named, read as taken or possible."""
    return bool(claims) and claims[-1] is named and named.mood in (ASSERT, CAN)


def _named_subject(claim: Claim) -> Claim:
    """An action that a clause after it says the requirements of: named at its point, not taken."""
    return replace(claim, mood=REFERENCE, point="at")


def _said_of_named(words: str) -> bool:
    """Whether a clause opens with a pronoun for the action just named and says what that action
    requires ("that one is only allowed when A", "it requires A", "which needs A"): said of the
    action, as the same words right after it would be (`_said_of`)."""
    pron = MOOD.NAMED_SUBJECT.match(words)
    if pron is None:
        return False
    rest = words[pron.end():]
    return _said_of(" is" + rest if pron.group(0).endswith("'s") else rest) == REFERENCE


def _predicate(atom: str) -> str:
    return atom[1:].split()[0].rstrip(")")


def _args(atom: str) -> list[str]:
    return atom.strip("()").split()[1:]


def _slot_of(atoms: list[str], objs: list[str]) -> tuple[str, int, list[str]] | None:
    """(predicate, the argument position the objects fill, the other arguments) shared by every atom
    of an enumeration; None when the atoms differ in more than that."""
    preds = {_predicate(x) for x in atoms}
    if len(preds) != 1:
        return None
    args = [_args(x) for x in atoms]
    slots = {i for o, ar in zip(objs, args) for i, x in enumerate(ar) if x == o}
    for slot in sorted(slots):
        rest = [ar[:slot] + ar[slot + 1:] for ar in args]
        if all(ar[slot] == o for o, ar in zip(objs, args)) and all(r == rest[0] for r in rest):
            return preds.pop(), slot, rest[0]
    return None


def _subject(atom: str) -> str | None:
    parts = atom.strip("()").split()
    return parts[1] if len(parts) > 1 else None


def claim_reader(task: Task, style: str, templates: str) -> ClaimReader:
    """The claim reader of a task, built once per task and kept in the task's own ``views``."""
    return kept(task, ("trace-claims", style, templates), lambda: ClaimReader(task, style, templates))
