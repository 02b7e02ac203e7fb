"""Verification of a trace's claims against the engine (docs/traces.md, "Verification").

Each line of reasoning is replayed on the engine from the state it starts from (the task's initial
state, or ``initial_state``). An action the trace takes advances the line it belongs to, found in
this order (`_place`): after "let me start over", the initial state; the current line; the end of
the last hypothetical or planned branch (the model goes on from what it imagined); an earlier point
of the current line where the same action was taken (the plan restated: the line rewinds); the
initial state (a restart without words; never for step 2 or later of a numbered list). When
exactly one applicable action would make it applicable in the current line, the trace skipped that
step in words ("stack red on blue" for "pick up red, stack it on blue"): both are taken, no error,
and this beats a rewind or a restart without words (`_Skip`: a retraction withdraws it; a fact said
of the line's point that holds only with the step left out makes it a precondition error). When none
fits and the line was followed, the action is an error (its unmet preconditions are the truth); when
the line was lost (a step that did not read, an action that failed before, a skip, or a fact wrong
now but right after one applicable action when a sentence that read as nothing stands since the last
action: a step taken in words that did not read), nothing is judged until an action places it again.

Which point a fact is about: the words that tie it (on the action's text line, "because", "after
X-ing", "now", "initially", a labelled state "Resulting State: ..."), else none: such a fact is
judged in its line's state only when the facts of its sentence held together at no state the trace
has reached (`seen`; else it is left unchecked, context "earlier"). A labelled state that holds in a
candidate line and not in the main one moves the trace to the candidate.

Which line the trace is on is not guessed: the other candidates (the initial state after a restart,
the end of a hypothetical or planned branch) go along with each action that applies in them too (at most
`MAX_AGE` actions), and are dropped when one does not; an action that fails in the current line is taken in a candidate
where it applies. A fact is judged in its line's state (``when="before"``: the state before the action it justifies);
after a restart, an "initially" sentence or a hypothetical, the facts until the next action may be
about the initial or the imagined state too, and are wrong only when wrong in every one of them.
Facts of a hypothetical's if-part, facts the trace plans ("should be") and questions are read but
not judged; an action considered ("if I ...") or planned ("I need to ...") is followed in a branch
of its own and is never a precondition error (it is not taken). A goal listed ("the goal is to have ...") is judged against the task's goal; "the goal is
reached" against the state.

A wrong claim is held back for `RETRACTION_WINDOW` sentences: a retraction in that window
withdraws it (verdict "retracted", not an error; a withdrawn action is undone), else it is an error.
Error kinds: ``initial-state`` (a fact of the initial state misstated), ``false-fact`` (asserted,
false in the state), ``denied-fact`` (denied, true in the state), ``precondition`` (an action taken
whose preconditions fail), ``goal`` (the goal misstated, or said reached when it is not).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from widthbench.pddl_domains.readers.claims import Claim, Sentence, claim_reader
from widthbench.pddl_domains.readers.mood import (ASSERT, CAN, CANDIDATE, GOAL, PLAN, QUESTION, REFERENCE, REJECT,
                                                  SUPPOSE)
from widthbench.planners.strips import Task, applicable_actions, successor

#: How many sentences after a wrong claim a retraction may still withdraw it (and after an option
#: considered, reject it).
RETRACTION_WINDOW = 4
MAX_ALTERNATES = 4  # other lines kept as candidates at once
MAX_AGE = 2  # actions a candidate goes along with before it is dropped
MAX_SILENT = 20_000  # states followed after words it does not know; more: any state (`_Replay.silent`)
ANY = frozenset({-1})  # the states after words it does not know are too many to follow: any
NEAR_STEPS = 1  # a fact true this many actions back on its line is not judged (`_held_before`)
KINDS = ("initial-state", "false-fact", "denied-fact", "precondition", "goal")


@dataclass(slots=True)
class Line:
    """One line of reasoning: the state reached, the actions taken and the state before each."""

    state: int
    actions: list = field(default_factory=list)
    befores: list = field(default_factory=list)
    age: int = 0  # as a candidate: actions taken in the current line since it was imagined
    origin: int = -1  # as a candidate: the sentence whose option, plan or supposition made it (-1: none)

    def copy(self) -> "Line":
        return Line(self.state, list(self.actions), list(self.befores), self.age, self.origin)

    def apply(self, action) -> None:
        self.befores.append(self.state)
        self.actions.append(str(action))
        self.state = (self.state & ~action.dele) | action.add


@dataclass(slots=True)
class _Pending:
    record: dict  # the claim's output record (its verdict changes)
    error: dict
    sentence: int
    undo: tuple | None  # (main line, alternates) before a wrong action
    fact: tuple | None = None  # (atom, negated) of a wrong fact
    step: int = 0  # actions of its line when claimed


@dataclass(slots=True)
class _Told:
    """An option considered (or a plan, a supposition, "I can X") whose action does not apply where it
    was considered: no error, unless the trace goes on from its result (the next action applies only
    after it, or a fact said next holds only after it), until a retraction rejects it or the trace
    takes another action."""

    sentence: int
    record: dict  # the action's claim record
    claim: Claim
    start: Line  # where it was considered
    told: Line  # the line with its effects applied anyway
    untrusted: bool = False  # an action said in words the verifier does not know (`_untrusted_action`)


@dataclass(slots=True)
class _Skip:
    """An action taken with one step skipped in words, until the trace goes on to another action; or
    one that may follow a step in words that did not read (``told`` is ``taken``: nothing the trace
    says next can contradict it, and only a retraction undoes it)."""

    sentence: int
    undo: tuple  # (main line, alternates, lost) before it
    record: dict  # the action's claim record
    claim: Claim
    told: Line  # the line as the trace tells it: the action taken with its preconditions unmet
    taken: Line  # the line with the skipped step: the state before the action is its befores[-1]


class _Replay:
    def __init__(self, task: Task, init: int):
        self.task = task
        self.init = init
        self.main = Line(init)
        self.alternates: list[Line] = []  # other states the next facts may be about
        self.unread = False  # a sentence without claims that names an object or an action word, since the last action placed
        self.unread_at = -1  # the last sentence without claims
        self.last_before: int | None = None  # the state before the last action taken
        self.skipped_from: int | None = None  # the state before a step left out in words before it
        self.last_actions: list[str] = []  # the actions of its line before it
        self.restart = False
        self.last_untaken = False  # the action `last_before` is the state before was not taken
        self.lost = False
        # lost in words it does not know: a step may have been taken there, so the line is placed again
        # only where the next action applies, or one step on (`_place`), never by a guess
        self.unsure = False
        # the states the trace may be in when sentences in words it does not know took a step each (or
        # none), followed along the actions taken since: a fact or an action right in one of them is not
        # judged (`_silent_right`); None: no such sentence since the last restart
        self.silent: frozenset[int] | None = None
        self.stale = False  # unsure, and an action applied nowhere the line may be: the main line is not where the trace is
        self.initial_sentence = False
        self.pending: list[_Pending] = []
        self.errors: list[dict] = []
        self.records: list[dict] = []
        self.prev_end = 0  # where the sentence before ends
        self.item = 0  # the number of the numbered step the trace is in ("3. ..."), 0 outside a list
        self._guessed = ""  # how the last `_place` went back to a point no words named: "rewind" | "init"
        self._again = False  # the last `_place` went back to before the action the line took last (said again)
        self.skips: list[_Skip] = []  # actions taken with a step skipped in words, not yet settled
        self.seen: set[int] = {init}  # every state of every line the trace has reached (`_remember`)
        self.told: list[_Told] = []  # options considered that do not apply, not yet settled
        self.asked: list[int] = []  # the sentences that put a question or an option
        self.named_before: list[str] = []  # the actions the sentence before named (any mood)
        self.skip_from: int | None = None  # the last action taken: the state before the step it left out

    # ---------------------------------------------------------------- judging

    def atom_true(self, atom: str, state: int) -> bool:
        i = self.task.atom_index.get(atom)
        if i is not None:
            return bool(state >> i & 1)
        return atom in self.task.static_atoms

    def error(self, rec: dict, kind: str, claim: Claim, text: str, claimed: str, truth: str,
              line: Line, s: Sentence, undo: tuple | None = None) -> None:
        rec["verdict"] = "wrong"
        err = {"kind": kind, "span": list(claim.span), "quote": text[claim.span[0]:claim.span[1]].strip(),
               "claimed": claimed, "truth": truth, "actions": list(line.actions)}
        fact = (claim.value, claim.negated) if claim.kind == "fact" and claim.mood != GOAL else None
        self.pending.append(_Pending(rec, err, s.index, undo, fact, len(line.actions)))

    def settle(self, s: Sentence | None) -> None:
        """Withdraw the pending errors a retraction in ``s`` reaches; confirm those out of reach."""
        keep = []
        for p in self.pending:
            # a rejection ("I can't", "not possible") withdraws an action, a withdrawal ("wait, no") any
            # claim; "No, ..." after a question or an option put since the claim answers it
            answered = s is not None and any(p.sentence < i < s.index for i in self.asked)
            at = None if s is None else s.retraction_at if p.undo is not None else \
                s.answer_withdrawal_at if answered else s.withdrawal_at
            if at is not None and s.index - p.sentence <= RETRACTION_WINDOW \
                    and (p.sentence < s.index or p.error["span"][1] <= at):
                p.record["verdict"] = "retracted"
                if p.undo is not None:
                    self.main, self.alternates = p.undo[0], list(p.undo[1])
                    self.lost = self.unsure = self.stale = False
                    self._withdrawn()
                continue
            if s is not None and s.unknown and s.index - p.sentence <= RETRACTION_WINDOW and self._may_withdraw(p, s):
                # words it does not know that speak of the erring claim again, or stand right after it
                # with no claim: they may take it back ("I misspoke: ..."), so it is not reported
                p.record["verdict"], p.record["context"] = "unchecked", "unknown-words"
                if p.undo is not None:
                    self.main, self.alternates = p.undo[0], list(p.undo[1])
                    self._unsure()
                continue
            if s is None or s.index - p.sentence > RETRACTION_WINDOW:
                self.errors.append(p.error)
                continue
            keep.append(p)
        self.pending = keep
        skips = []
        for sk in self.skips:
            if s is not None and s.retraction_at is not None and sk.sentence < s.index \
                    and s.index - sk.sentence <= RETRACTION_WINDOW:
                # "2. Unstack orange from red. Wait, can't do that": the action and its skipped step are withdrawn
                self.main, self.alternates, self.lost = sk.undo[0], list(sk.undo[1]), sk.undo[2]
                self.unsure = self.stale = False
                self._withdrawn()
                sk.record["verdict"] = "retracted"
                skips = []
                break
            if s is not None and s.index - sk.sentence <= RETRACTION_WINDOW:
                skips.append(sk)
        self.skips = skips

    # ---------------------------------------------------------------- sentences

    def sentence(self, s: Sentence, text: str) -> None:
        self.settle(s)
        if s.marks & {"question", "candidate", "hypothetical"}:
            self.asked.append(s.index)
        numbered = _STEP_NUMBER.match(text, s.span[0])
        if numbered:
            self.item = int(next(g for g in numbered.groups() if g))
            if self.item == 1 and self.main.actions and (not self.lost or self.unsure):
                self.alternates.append(Line(self.init))  # "1. ..." may restate the plan from the start
        elif "restart" in s.marks or re.search(r"\n[ \t]*\n", text[self.prev_end:s.span[0]]):
            self.item = 0  # a paragraph that opens with no number ends the list
        self.prev_end = s.span[1]
        # a will or a would somewhere in a sentence that names an action's verb and did not read is no
        # sign that nothing was done ("I said I would X, and now I do"): what it says is not known
        narrates_none = s.marks & _NOT_NARRATED - ({"intent"} if s.verbs else set())
        if not s.claims and s.names and not narrates_none:
            self.unread, self.unread_at = True, s.index  # it may state an action in words that did not read
            if s.verbs and not s.unknown:
                self._maybe_step()  # an action's verb: what it may have done is followed (`silent`)
        if not s.claims and s.verbs and s.unknown:
            # an action's verb in words it does not know (whatever else they seem to say): it may be a
            # step taken, and where the line stands is not known until an action places it
            self._unsure()
        if "maybe-restart" in s.marks:
            # a restart read only for a word it does not know: the start becomes one more place the
            # line may be, and a state the words it did not know may have reached (`silent`)
            self.alternates.append(Line(self.init))
            self._widen(lambda st: (), self.init)
        if "restart" in s.marks:
            self.restart, self.silent = True, None
            self.alternates = [Line(self.init)]
            self.told = []
        if "initial" in s.marks:
            self.alternates.append(Line(self.init))
        self.told = [t for t in self.told if s.index - t.sentence <= RETRACTION_WINDOW]
        if s.retraction_at is not None:
            # "For example, stack A on B. But that's not possible": the option is rejected
            self.told = [t for t in self.told if t.sentence == s.index and t.record["span"][0] > s.retraction_at]
            if s.withdrawal_at is None:
                # rejected, not taken back ("..., so it won't work"): the line of the option last put is
                # no candidate any more
                last = max((x.origin for x in self.alternates if s.index - x.origin <= RETRACTION_WINDOW), default=-1)
                if last >= 0:
                    self.alternates = [x for x in self.alternates if x.origin != last]
        hypothetical = "hypothetical" in s.marks
        branch: Line | None = None
        sketch_ended = False  # an option or plan that could not be placed: followed no further
        referenced = False  # "after unstacking A, ...": the facts after it are about that point
        last_before, last_actions = self.last_before, self.last_actions  # the state before the last action
        # the action last named was not taken (an option, a requirement's subject): a reason given for it
        # may be about the state it was named in (the main line's) as well
        untaken = self.last_untaken
        skipped_from = self.skipped_from
        self._remember(self.main, *self.alternates)
        said: list[tuple[str, bool]] = []  # the facts of the sentence no words tie to a point
        deferred: list[tuple] = []  # those of them wrong in their line, judged at the sentence's end
        stated: list[tuple[str, bool]] = []  # the facts of a labelled state ("Current State: ...")
        gap_passed = False  # the claims after a step that did not read: the line is lost there
        for c in s.claims:
            if s.gap is not None and c.span[0] > s.gap and not gap_passed:
                gap_passed, self.lost, self.alternates = True, True, []  # "..., stack orange on table, then ..."
            rec = {"kind": c.kind, "span": list(c.span), "claimed": _claimed(c), "verdict": "unchecked",
                   "context": "main", "mood": c.mood}
            if c.implied:
                rec["implied"] = True
            self.records.append(rec)
            if s.unknown:
                rec["context"] = "unknown-words"
            if c.kind == "action":
                if c.mood == REJECT:
                    continue
                if c.mood not in (ASSERT, CAN):
                    rec["context"] = "unknown-words" if s.unknown else _CONTEXT[c.mood]
                    referenced = referenced or bool(c.point)
                    if sketch_ended:
                        continue
                    a = self.task.action_index[c.value]
                    if s.unknown and not c.point:
                        # a plan or an option in words it does not know may be a step taken ("X - exec'd")
                        self._follow(a)
                    # a lost line still gives branches from the initial state after a restart
                    start = branch if branch is not None else self.main.copy() if not self.lost \
                        else Line(self.init) if self.restart else None
                    if start is None:
                        if c.point != "after":
                            last_before = None  # a reason given for it ("because A is clear") is not judged
                        continue
                    placed = self._place(a, start, restart=self.restart and branch is None,
                                         alternates=self.alternates if branch is None else [])
                    skip_from = None
                    if placed is None and not c.point:
                        # "after unstacking blue, unstack orange": a step left out in words (put blue down)
                        for ln in [start] + (list(reversed(self.alternates)) if branch is None else []):
                            skipped = self._one_step_short(a, ln.state)
                            if skipped is not None:
                                placed, skip_from = ln.copy(), ln.state
                                placed.apply(skipped)
                                break
                    if placed is not None:
                        if c.point == "at" and self.main.actions and self.main.actions[-1] == c.value:
                            self._restated(len(self.main.actions) - 1, self.main.befores[-1])  # "so unstacking is allowed"
                        branch = placed.copy()
                        if c.point != "after":  # "after X-ing" is no action the next facts justify
                            last_before, last_actions, skipped_from = branch.state, list(branch.actions), skip_from
                            untaken = True
                        if rec["verdict"] == "unchecked":
                            rec["verdict"] = "right"
                        branch.apply(a)
                        self._remember(branch)
                    else:
                        # an option, a plan or a supposition is taken in no line: one that cannot be
                        # placed is no error unless the trace goes on from its result (`_Told`)
                        if c.mood != REFERENCE and not c.point and not s.unknown:
                            told = start.copy()
                            told.apply(a)
                            self.told.append(_Told(s.index, rec, c, start.copy(), told))
                        branch, sketch_ended = None, True
                        if c.point != "after":
                            last_before = None
                    continue
                if s.unknown or c.unsure:
                    if c.unsure and not s.unknown:
                        rec["context"] = "uncertain"  # named among words not read as taking it
                    self._untrusted_action(c, rec, s)
                else:
                    if referenced and branch is not None and not sketch_ended and _applies(self.task.action_index[c.value], branch.state):
                        # "after unstacking A, put A down": taken from the point the sentence named
                        self.main, self.lost, self.restart, self.unsure, self.stale = branch.copy(), False, False, False, False
                    self.action(c, rec, text, s)
                self._remember(self.main, *self.alternates)
                last_before, last_actions = (self.main.befores[-1] if self.main.befores else None), self.main.actions[:-1]
                untaken = False
                if self.lost and rec["verdict"] == "unchecked":
                    last_before = None  # placed in no line: the state its reason speaks of is not known
                skipped_from = self.skip_from
                continue
            if c.mood not in (ASSERT, GOAL) or "elsewhere" in s.marks:
                continue  # a requirement, a plan, a question, a supposition, a hedge: not asserted
            if s.unknown:
                continue  # words it does not know may make it anything but an assertion of now
            if c.kind == "goal-reached":
                states = [self.main.state] + [x.state for x in self.alternates]
                if self.lost:
                    continue
                ok = any(self.task.goal & st == self.task.goal for st in states)
                rec["verdict"] = "right" if ok else "wrong"
                if not ok:
                    self.error(rec, "goal", c, text, "the goal is reached",
                               "unmet goal: " + " ".join(self._atoms(self.task.goal & ~self.main.state)), self.main, s)
                continue
            if c.mood == GOAL:
                if c.negated:
                    continue
                i = self.task.atom_index.get(c.value)
                ok = i is not None and bool(self.task.goal >> i & 1)
                rec["verdict"], rec["context"] = ("right" if ok else "wrong"), "goal"
                if not ok:
                    self.error(rec, "goal", c, text, f"goal {c.value}",
                               "the goal is " + " ".join(self._atoms(self.task.goal)), self.main, s)
                continue
            # a fact of a state
            sk = self._contradicted(c) if c.when == "now" or "state" in s.marks else None
            if sk is not None:
                # "Unstack orange from red. ... the blue block is in the hand": the step taken as
                # skipped (put down blue) was not taken: the action is taken with its preconditions unmet
                self._unskip(sk, text, s)
                last_before, last_actions, skipped_from = sk.undo[0].state, list(sk.undo[0].actions), None
                continue
            if c.when == "before":
                if last_before is None:
                    continue
                lines = [Line(last_before, list(last_actions))]
                if skipped_from is not None:
                    lines.append(Line(skipped_from))  # a reason for the left-out step as well
                if untaken and not self.lost:
                    lines.append(Line(self.main.state, list(self.main.actions)))
                if referenced and branch is not None and not sketch_ended:
                    lines.append(branch)  # "because when you stack A on B, A is clear": at it or after it
            elif (hypothetical or referenced) and branch is not None and not sketch_ended:
                lines, rec["context"] = [branch], "hypothetical"
            elif referenced or (hypothetical and any(x.kind == "action" for x in s.claims)):
                continue  # about a point of a plan or a hypothetical that could not be placed
            elif c.when == "start":
                lines = [Line(self.init)]  # "Initially, A is on B": the state the trace starts from
            elif c.when == "either" and not self.lost and self.main.befores:
                lines = [self.main, Line(self.main.befores[-1], self.main.actions[:-1])] + self.alternates
            else:
                t = self._untrusted_told(lambda st: self.atom_true(c.value, st) != c.negated) \
                    if self.lost and (c.when == "now" or "state" in s.marks) else None
                if t is not None:
                    rec["verdict"] = "unchecked"  # "<X in words it does not know>. Now A is held": X taken
                    self._take_told(t, text, s)
                    continue
                if self.lost and not self.alternates:
                    continue
                lines = ([] if self.lost else [self.main]) + self.alternates
                if "initial" in s.marks:
                    lines = [Line(self.init)] + lines
            holds = [self.atom_true(c.value, ln.state) for ln in lines]
            ok = any(h != c.negated for h in holds)
            # a fact said of a supposed or referenced point is about that point: never a sign that the
            # trace went on from an option
            told = self._told_fact(c) if not ok and c.when != "before" and rec["context"] != "hypothetical" else None
            if told is not None and told.sentence > self.unread_at:
                # "Maybe stack A on B. Now A is on B": the trace goes on from an option that does not apply
                rec["verdict"] = "unchecked"
                self._take_told(told, text, s)
                continue
            if not ok and self._silent_right(lambda st: self.atom_true(c.value, st) != c.negated):
                rec["context"] = "unknown-words"  # right one step on from words it does not know
                continue
            if not ok and self.unread and lines and lines[0] is self.main and self._silent_step(c):
                self.lost, self.alternates = True, []  # a step taken in words that did not read
                continue
            if not ok and "state" not in s.marks and any(self._held_before(c, ln) for ln in lines):
                continue  # true just behind its line: which point it speaks of is not known
            if ("state" in s.marks or c.when == "now") and c.when != "before" and not hypothetical and not referenced:
                stated.append((c.value, c.negated))  # said of the point the line is at
            untied = c.when in ("untied", "either") and not s.marks & {"initial", "state"}
            # nothing ties it to the state now, and as a statement of the goal or of what an action
            # under discussion requires it would be right: whether it is asserted is not certain
            uncertain = untied and not ok and self._mood_uncertain(c, s)
            if untied and not uncertain:
                said.append((c.value, c.negated))
            rec["verdict"] = "right" if ok else "wrong"
            if uncertain:
                rec["verdict"], rec["context"] = "unchecked", "uncertain"
                continue
            if not ok:
                if told is not None:
                    rec["verdict"] = "unchecked"  # the trace goes on from an option that does not apply
                    self._take_told(told, text, s)
                    continue
                ln = lines[0]
                # about the state the trace starts from when it says so, or when no line it may be on
                # has taken an action
                initial = "initial" in s.marks or c.when == "start" or not any(x.actions for x in lines)
                kind = "initial-state" if initial else "denied-fact" if c.negated else "false-fact"
                truth = f"{c.value} holds" if holds[0] else f"{c.value} is false"
                if untied:
                    deferred.append((rec, kind, c, truth, ln))
                else:
                    self.error(rec, kind, c, text, _claimed(c), truth, ln, s)
        if deferred and self._seen_together(said):
            # Nothing in the sentence ties its facts to a point, and together they held at a point the
            # trace has spoken of: which point it speaks of is not known, and nothing is judged.
            for rec, *_ in deferred:
                rec["verdict"], rec["context"] = "unchecked", "earlier"
        else:
            for rec, kind, c, truth, ln in deferred:
                self.error(rec, kind, c, text, _claimed(c), truth, ln, s)
        if stated and not self.lost and not self._all_hold(stated, self.main.state):
            # "1. Current State: ..." (or facts said of now) that hold in a candidate line and not in
            # the main one: the trace is on the candidate ("(Alternative sequence) 1. Current State:
            # <the initial state>"; "I'll unstack A. Now A is held": it went on from the option)
            for alt in reversed(self.alternates):
                if self._all_hold(stated, alt.state):
                    self.alternates.remove(alt)
                    self.main = alt
                    break
        if branch is not None:
            made = branch.copy()
            made.origin = s.index
            self.alternates.append(made)
        if s.retraction_at is not None:
            # "I could stack A on B, but that is not allowed": rejected in its own sentence
            self.told = [t for t in self.told if not (t.sentence == s.index and t.record["span"][0] < s.retraction_at)]
        if "elsewhere" in s.marks:
            self.lost, self.alternates = True, []
        if s.gap is not None:
            self.lost = True  # a step that did not read: the state is not known until an action places it
        self.last_before, self.last_actions, self.skipped_from = last_before, last_actions, skipped_from
        self.last_untaken = untaken
        self.named_before = [x.value for x in s.claims if x.kind == "action"]

    def _unsure(self) -> None:
        """Lost in words it does not know, which may have taken a step (`unsure`, `silent`)."""
        self._maybe_step()
        self.lost, self.alternates, self.unsure = True, [], True

    def _maybe_step(self) -> None:
        """A sentence may have taken a step in words that did not read: the states one step on (or
        none) are followed in `silent`."""
        self._widen(lambda st: (successor(st, b) for b in applicable_actions(self.task, st)))

    def _widen(self, more, *extra: int) -> None:
        """Add to `silent` (when it follows nothing yet: the main line's state, and after a restart the
        initial state too) the states ``more(st)`` of each state in it, and ``extra``; past `MAX_SILENT`
        states, any state."""
        base = self.silent if self.silent is not None else \
            frozenset([self.main.state] + ([self.init] if self.restart else []))
        if base is not ANY:
            grown = set(base) | set(extra)
            for st in base:
                grown.update(more(st))
                if len(grown) > MAX_SILENT:
                    break
            base = frozenset(grown) if len(grown) <= MAX_SILENT else ANY
        self.silent = base

    def _follow(self, a, *extra: int) -> None:
        """Action ``a`` may have been taken in words it does not know: its result, where it applies, is
        followed in `silent` beside the states there already (and ``extra``)."""
        self._widen(lambda st: (successor(st, a),) if _applies(a, st) else (), *extra)

    def _silent_went(self, a) -> None:
        """Action ``a`` was taken: the states words it did not know may have reached go along with it
        (those where it does not apply are dropped; none left: the trace is in none of them)."""
        if self.silent is not None and self.silent is not ANY:
            self.silent = frozenset(successor(st, a) for st in self.silent if _applies(a, st)) or None

    def _silent_right(self, test) -> bool:
        """Whether ``test`` holds of a state the trace may be in after words it did not know (`silent`)."""
        if self.silent is None:
            return False
        return self.silent is ANY or any(test(st) for st in self.silent)

    def _untrusted_action(self, c: Claim, rec: dict, s: Sentence) -> None:
        """An action said in words the verifier does not know: it may be taken, or only considered.
        Taken where it applies (the line where it stood stays a candidate, as for "I can X", and both
        states are followed in `silent`), never an error by its own words: where it applies in no line,
        the line is lost until an action places it, unless the trace goes on from its result in words
        it knows (an action that applies, or a fact said of now that holds, only after it: `_untrusted_told`)."""
        a = self.task.action_index[c.value]
        self.skip_from = None
        self.skips = []
        line = self._place(a, self.main, self.restart, self.alternates)
        # words it does not know are no sign that the trace went back (a rewind, a restart), nor, once
        # the line is lost, that they say again the action it took last; nor, as it applies at a point
        # the trace went through, is it an option that applies nowhere (`_untrusted_told`)
        went_back = line is not None and bool(self._guessed or (self.lost and self._again))
        if went_back:
            line = None
        if line is None:
            if not self.lost and not self.unsure and not went_back:
                told = self.main.copy()
                told.apply(a)
                self.told.append(_Told(s.index, rec, c, self.main.copy(), told, untrusted=True))
            self._unsure()
            return
        stood = [] if self.lost else [self.main.copy()]
        kept = self._carried(a, line)
        taken = line.copy()
        taken.apply(a)
        # taken or not: the trace may be in either state from here on
        self._follow(a, taken.state)
        self.main, self.lost, self.restart, self.unread = taken, False, False, False
        self.unsure = self.stale = False
        self.alternates = (kept + stood)[-MAX_ALTERNATES:]
        self.told = []

    def _may_withdraw(self, p: "_Pending", s: Sentence) -> bool:
        """Whether sentence ``s`` (in words the verifier does not know) may take back pending error ``p``:
        it stands right after it and states nothing, or it states the erring fact the other way, names
        the erring action again, or states a fact the action lacked."""
        if not s.claims:
            return s.index == p.sentence + 1
        for c in s.claims:
            if p.fact is not None and c.kind == "fact" and c.value == p.fact[0] and c.negated != p.fact[1]:
                return True
            if p.undo is not None and c.kind == "action" and c.value == p.error["claimed"]:
                return True
            if p.undo is not None and c.kind == "fact" and c.value in p.error["truth"]:
                return True
        return False

    def _carried(self, a, line: Line) -> list[Line]:
        """The other lines the trace may be on, each gone along with action ``a`` while it applies there
        too (at most `MAX_AGE` actions), but for one in the state of ``line``, where it is taken."""
        kept = []
        for alt in self.alternates:
            if _applies(a, alt.state) and alt.state != line.state and alt.age < MAX_AGE:
                alt = alt.copy()
                alt.apply(a)
                alt.age += 1
                kept.append(alt)
        return kept

    def _mood_uncertain(self, c: Claim, s: Sentence) -> bool:
        """Whether a fact wrong in the state would be right as a statement of the goal, or of what an
        action named in its sentence or the one before requires."""
        i = self.task.atom_index.get(c.value)
        if i is None:
            return False
        bit = 1 << i
        if not c.negated and self.task.goal & bit:
            return True
        for value in self.named_before + [x.value for x in s.claims if x.kind == "action"]:
            a = self.task.action_index[value]
            if (a.neg_pre if c.negated else a.pre) & bit:
                return True
        return False

    def _told_fact(self, c: Claim) -> "_Told | None":
        """The option considered that the (wrong) fact ``c`` goes on from: it holds after the option's
        action, which does not apply where it was considered. None when a step the words it did not
        read may have taken (words that name an action's verb: `silent`) makes it right as well:
        which of the two it goes on from is not known."""
        if self._silent_right(lambda st: self.atom_true(c.value, st) != c.negated):
            return None
        for t in reversed(self.told):
            if self.atom_true(c.value, t.told.state) != c.negated:
                return t
        return None

    def _untrusted_told(self, test) -> "_Told | None":
        """The action said in words the verifier does not know, applying nowhere, that the trace goes
        on from: ``test`` holds after it, neither where it was said nor in any state the words around
        it may have reached (`silent`)."""
        for t in reversed(self.told):
            if t.untrusted and test(t.told.state) and not test(t.start.state) and not self._silent_right(test):
                return t
        return None

    def _take_told(self, t: "_Told", text: str, s: Sentence) -> None:
        """The trace goes on from an option that does not apply: a precondition error at the option."""
        self.told = []
        a = self.task.action_index[t.claim.value]
        t.record["context"] = "main"
        self.error(t.record, "precondition", t.claim, text, t.claim.value, self._unmet(a, t.start.state), t.start, s,
                   (t.start.copy(), []))
        self.main, self.alternates, self.lost = t.told.copy(), [], False
        self.unsure = self.stale = False

    def action(self, c: Claim, rec: dict, text: str, s: Sentence) -> None:
        a = self.task.action_index[c.value]
        self.skip_from = None
        if self.restart and self.item > 1:
            self.restart = False  # "So steps: ... 5. Pick up blue": a list that goes on, not a new start
        line = self._place(a, self.main, self.restart, self.alternates)
        if line is not None and self._guessed == "init" and self.item > 1:
            line = None  # step 3 of a list goes on from step 2, not from the initial state
        self.skips = []  # a skip stands once the trace goes on to another action
        if line is not None and self._guessed and not self.lost and s.retraction_at is None \
                and (self._one_step_short(a) is not None or self.unread and self._one_step_on(a)):
            # the current line one step short beats a rewind or a restart without words; so does a
            # step that words which did not read may have taken, whichever step that was
            line = None
        if line is not None and line is not self.main and len(line.actions) < len(self.main.actions) \
                and self.main.actions[len(line.actions)] == str(a):
            self._restated(len(line.actions), line.state)
        if line is not None:
            self.told = []  # the trace goes on from where it stood, not from an option considered
            # "I can X" says X applies; whether the trace goes on from it is told by what follows:
            # the line where it stood stays a candidate
            stood = [Line(self.main.state, list(self.main.actions), list(self.main.befores))] \
                if c.mood == CAN and not self.lost else []
            self.main, self.lost, self.restart = line, False, False
            self.alternates = (self._carried(a, line) + stood)[-MAX_ALTERNATES:]
            self.unsure = self.stale = False
            self.unread = False
            rec["verdict"] = "right"
            self.main.apply(a)
            self._silent_went(a)
            return
        if self.lost:
            t = self._untrusted_told(lambda st: _applies(a, st))
            if t is not None:
                # "<X in words it does not know>. Stack A on B": B was reached only by X, which does not apply
                self._take_told(t, text, s)
                rec["verdict"] = "right"
                self.main.apply(a)
                self._silent_went(a)
                return
            if self.unsure:
                # it applies nowhere the line may be: the words it did not know took a step, and the
                # line is placed again only by a restart or a list that starts again ("1. ...")
                self.stale = True
                self._silent_went(a)
            # taken where it applies in no line the trace may be on: it is on none of them any more
            # (a state said of the start while lost is no place to judge what it says next)
            self.alternates = []
            return
        skipped = self._one_step_short(a) if s.retraction_at is None else None  # "wait, I can't": judged
        if skipped is not None:
            # "pick up red" left out before "stack red on blue": a step skipped in words, not an error,
            # unless what the trace says next holds only with the step left out (`_unskip`)
            told = self.main.copy()
            told.apply(a)
            undo = (self.main, list(self.alternates), self.lost)
            self.skip_from = self.main.state
            self.main = self.main.copy()
            self.main.apply(skipped)
            self.main.apply(a)
            self.alternates = []
            self.lost = True  # which step was skipped is read off the line: the next action must place it
            self.skips.append(_Skip(s.index, undo, rec, c, told, self.main))
            return
        for t in reversed(self.told):
            if _applies(a, t.told.state):
                # "Maybe stack A on B. ... Pick up C": the trace went on from an option that does not apply
                self._take_told(t, text, s)
                rec["verdict"] = "right"
                self.main.apply(a)
                return
        if self._silent_right(lambda st: _applies(a, st)):
            self._unsure()  # it applies one unread step on: those words may have taken the step
            return
        if self.unread and self._one_step_on(a):
            # "Then I deal with A somehow. Pick up B": words that named an object and did not read may
            # have taken the step it needs, as for a fact said after them (`_silent_step`); a
            # retraction right after it ("Pick up B. Wait, no") puts the line back where it stood
            undo = (self.main, list(self.alternates), self.lost)
            self._unsure()
            self.skips.append(_Skip(s.index, undo, rec, c, self.main, self.main))
            return
        undo = (self.main.copy(), [x.copy() for x in self.alternates])
        self.error(rec, "precondition", c, text, c.value, self._unmet(a, self.main.state), self.main, s, undo)
        self.main = self.main.copy()
        self.main.apply(a)
        self.lost = True

    def _one_step_on(self, a) -> bool:
        """Whether ``a`` applies one step on from the main line (after some action applicable there)."""
        return any(_applies(a, successor(self.main.state, b)) for b in applicable_actions(self.task, self.main.state))

    def _one_step_short(self, a, state: int | None = None):
        """The one action applicable in ``state`` (the main line's) after which ``a`` applies, if
        exactly one."""
        state = self.main.state if state is None else state
        fits = []
        for b in applicable_actions(self.task, state):
            t = successor(state, b)
            if _applies(a, t):
                fits.append(b)
        return fits[0] if len(fits) == 1 else None

    def _contradicted(self, c: Claim) -> "_Skip | None":
        """The skip that fact ``c`` (said of the point the line is at) contradicts: false in the line
        with the skipped step, true in the line as the trace tells it."""
        for sk in self.skips:
            if self.atom_true(c.value, sk.taken.state) == c.negated and self.atom_true(c.value, sk.told.state) != c.negated:
                return sk
        return None

    def _unskip(self, sk: _Skip, text: str, s: Sentence) -> None:
        self.skips = []
        before = sk.undo[0]
        a = self.task.action_index[sk.claim.value]
        self.error(sk.record, "precondition", sk.claim, text, sk.claim.value, self._unmet(a, before.state), before, s,
                   (before.copy(), list(sk.undo[1])))
        self.main, self.alternates, self.lost = sk.told.copy(), [], True

    def _withdrawn(self) -> None:
        """An action was withdrawn: "can't do that because ..." states why, in the state it was tried in."""
        self.last_before, self.last_actions = self.main.state, list(self.main.actions)

    def _remember(self, *lines: Line) -> None:
        """Add the states ``lines`` reached to the points the trace has spoken of: each line's state and
        the one before it (a skipped step takes two actions at once); the states before those were
        remembered when they were reached."""
        for ln in lines:
            self.seen.add(ln.state)
            if ln.befores:
                self.seen.add(ln.befores[-1])

    def _all_hold(self, facts: list[tuple[str, bool]], state: int) -> bool:
        return all(self.atom_true(atom, state) != negated for atom, negated in facts)

    def _seen_together(self, facts: list[tuple[str, bool]]) -> bool:
        """Whether the facts (atom, denied) all held together at one point the trace has spoken of."""
        return any(self._all_hold(facts, st) for st in self.seen)

    def _held_before(self, c: Claim, line: Line) -> bool:
        """Whether the fact claimed holds in one of the states before the last `NEAR_STEPS` actions of
        ``line``: a model that names an action and then states its preconditions speaks of the state
        just behind the line's."""
        return any(self.atom_true(c.value, st) != c.negated for st in line.befores[-NEAR_STEPS:])

    def _silent_step(self, c: Claim) -> bool:
        """Whether one action applicable in the main line would make the fact claimed right."""
        i = self.task.atom_index.get(c.value)
        if i is None:
            return False
        for a in applicable_actions(self.task, self.main.state):
            if bool(successor(self.main.state, a) >> i & 1) != c.negated:
                return True
        return False

    def _restated(self, i: int, before: int) -> None:
        """Action i of the line is restated: the facts said between its two mentions may be its
        preconditions (the state before it); those right there are not errors."""
        for p in list(self.pending):
            if p.fact is not None and p.step == i + 1 and self.atom_true(p.fact[0], before) != p.fact[1]:
                p.record["verdict"] = "right"
                self.pending.remove(p)

    def _place(self, a, line: Line, restart: bool, alternates: list) -> Line | None:
        """The line in which action ``a`` is taken (module docstring), or None."""
        def ok(state: int) -> bool:
            return _applies(a, state)

        self._guessed, self._again = "", False
        if restart and ok(self.init):
            return Line(self.init)
        if ok(line.state) and not (self.stale and line is self.main):
            return line
        for alt in reversed(alternates):
            if ok(alt.state):
                return alt.copy()
        if self.unsure and line is self.main:
            return None  # after words it does not know, which step they took is not guessed, nor a rewind or a restart
        # no words say the trace went back: a rewind to where it took the same action, or a restart
        for i in range(len(line.actions) - 1, -1, -1):
            if line.actions[i] == str(a) and ok(line.befores[i]):
                self._guessed = "rewind" if i < len(line.actions) - 1 else ""  # the action just taken, said again
                self._again = not self._guessed
                return Line(line.befores[i], line.actions[:i], line.befores[:i])
        if ok(self.init):
            self._guessed = "init"
            return Line(self.init)
        return None

    def _unmet(self, a, state: int) -> str:
        unmet = self._atoms(a.pre & ~state)
        bad = self._atoms(a.neg_pre & state)
        return "unmet: " + " ".join(unmet + [f"(not {x})" for x in bad])

    def _atoms(self, mask: int) -> list[str]:
        return [self.task.atoms[i] for i in range(self.task.n_atoms) if mask >> i & 1]


#: Sentences that narrate no step taken: an aim, the goal, a question, a supposition, an option, a
#: rejection, a requirement.
_NOT_NARRATED = frozenset({"intent", "goal", "question", "hypothetical", "candidate", "retraction", "requirement"})
_CONTEXT = {CANDIDATE: "candidate", PLAN: "planned", REFERENCE: "planned", SUPPOSE: "hypothetical", QUESTION: "candidate"}
_STEP_NUMBER = re.compile(r"[\s>*_#-]*(?:step\s*#?(\d+)\s*[.):=]?|(?:move|action)\s*#?(\d+)\s*[.):=]|(\d+)\s*[.):]|\[(\d+)\])",
                          re.I)


def _applies(a, state: int) -> bool:
    """Whether engine action ``a`` applies in ``state``."""
    return state & a.pre == a.pre and not state & a.neg_pre


def _claimed(c: Claim) -> str:
    if c.kind == "fact":
        return f"(not {c.value})" if c.negated else c.value
    if c.kind == "action" and c.mood == REJECT:
        return f"not {c.value}"
    return c.value


def verify_trace(task: Task, text: str, *, style: str, templates: str = "widthbench",
                 initial_state: int | None = None, final_answer_correct: bool | None = None) -> dict:
    """The ``trace`` field of a record that holds a reasoning trace (docs/traces.md).

    ``task``: the engine task; ``text``: the thinking (or a chain-of-thought answer); ``style``:
    "nl" or "pddl", as the prompt was written; ``templates``: the template set of the prompt
    ("widthbench", "planbench"; a domain no file covers reads its generated templates);
    ``initial_state``: the state the trace reasons from when it is not the task's initial state
    (a successor or verification item's state); ``final_answer_correct``: the answer's verdict,
    kept beside the first error.
    """
    text = text or ""
    sentences = claim_reader(task, style, templates).read(text)
    replay = _Replay(task, task.init if initial_state is None else initial_state)
    for s in sentences:
        replay.sentence(s, text)
    replay.settle(None)
    errors = sorted(replay.errors, key=lambda e: e["span"][0])
    checked = sum(1 for r in replay.records if r["verdict"] != "unchecked")
    with_claims = sum(1 for s in sentences if s.claims)
    unknown: dict[str, None] = {}
    for s in sentences:
        if s.claims:
            unknown.update(dict.fromkeys(s.unknown))
    return {
        "claims": replay.records,
        "checked": checked,
        "coverage": round(with_claims / len(sentences), 4) if sentences else 0.0,
        "first_error": errors[0] if errors else None,
        "errors": len(errors),
        "sentences": len(sentences),
        "final_answer_correct": final_answer_correct,
        "unknown_words": list(unknown),
    }
