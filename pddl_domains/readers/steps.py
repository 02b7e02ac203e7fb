"""The step reader: which lines of a reply are steps, the actions of each, and runs of step lines.

Rules (docs/subtasks.md, "Flexible reader", rules 3-5):

3. A pronoun ("it") in a step that reads as no action as written stands for the object the previous
   step manipulated (its first argument), on the same line ("pick up a, then put it down") or on the
   step line before; the step is read with that object, and read only if it then reads as an action.
3. A line reads as actions when its first clause, after numbering, bullets, markdown, a connective
   ("then", "first") and a lead-in ("we need to") starts with an action (`grammar.TaskGrammar.lead`).
   What follows the action on its line is explanation, unless it starts another action (a one-line
   sequence ``(a x) (b y)`` or "unstack a from b, then put a down"). Other lines are prose; in a PDDL
   answer with bracketed actions, sentences in words are prose too.
4. A bold or labelled step title must name the same action as its text; an aside in brackets that
   reads as an action must name the action of its step.
   Also a step: an action's PDDL name in any spelling followed by its objects ("putdown orange",
   `grammar.TaskGrammar._named_call`), an action performed on its objects ("perform x on a and b",
   `performed`), a clause whose leading connective is a name of the vocabulary ("next a b"); the
   action's word and its objects across separators ("Feast: b, c") or on the line below the word
   ("1. **Feast**" / "   - b from c"). A step line that ends in its own withdrawal ("(skip this
   step)") is withdrawn (`LineRead.withdrawn`); any other withdrawal on or after a step
   (`withdrawals`) is a ParseError. A line that states a rule of an action in general, or what an
   action needs, is no step (`TaskGrammar.in_general`, `_REQUIRES`).
5. Never a guess: two different plans (runs of action lines that a heading, an introducing line
   ending in ":" or restarted numbering separates, or two marked blocks) -- the same plan restated
   is one reading; "pick up a or b"; a negated action ("do not unstack a"); a title or aside naming
   another action. A line next to steps or numbered that starts with an action verb but reads as no
   action ("put it down"), or that holds a step after prose, leaves a gap in its run (`Run.gaps`):
   the plan reader takes the run as a copy read partly, or raises the gap's reason.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from widthbench.core.errors import ParseError
from widthbench.pddl_domains.readers import layout, phrases
from widthbench.pddl_domains.readers.grammar import (FORM, SEPARATORS, TaskGrammar, clean, pddl,
                                                     strip_step_lead_in)
from widthbench.pddl_domains.readers.reply import MARK, Line, strip_number
from widthbench.pddl_domains.readers.withdrawals import ATTEMPT_FAILS, removal_by_number, withdrawal
from widthbench.planners.strips import Task, kept

__all__ = ["task_reader", "StepReader", "Run"]

#: This module's words of English: its section of phrases.txt.
WORDS = phrases.section("steps")


@dataclass(slots=True)
class Run:
    """A run of step lines: the actions read, the lines, and its gaps: (position in ``actions``, the
    least number of steps the gap stands for, why, the line's text) for each step line that read as
    no action (a numbered step in words no rule reads, "put it on it"); a run without gaps (other
    than a last numbered line that may be a closing remark) reads completely."""

    actions: list
    lines: list
    gaps: list
    listed: bool = False  # some line of the run is numbered or bulleted
    explains: bool = False  # some line says more than its actions

    @property
    def narration(self) -> bool:
        """Sentences that tell the plan and say more than its steps ("First we unstack a from b,
        then we free the hand, and finally ..."): a copy that may leave steps untold."""
        return self.explains and not self.listed

    @property
    def complete(self) -> bool:
        return not any(gap[1] for gap in self.gaps)

    def error(self) -> ParseError:
        return ParseError(next(gap[2] for gap in self.gaps if gap[1]))


class Unreadable(ParseError):
    """A line that starts with an action verb but reads as no action ("Put it down.")."""


class Alternatives(ParseError):
    """A step offered with another ("pick up a or b", "Alternatively, ...") or negated ("do not unstack a")."""


@dataclass(slots=True)
class LineRead:
    kind: str  # "blank" | "neutral" | "action" | "prose" | "intro" | "mixed" | "bad" | "word"
    actions: list = field(default_factory=list)
    number: int | None = None
    title: str | None = None  # a line that is only a (bold) step title naming this action
    marked: bool = False  # the line starts with a bullet or a number
    error: str = ""  # "bad": why the line does not read
    introduces: bool = False  # "So the plan is: ..." starts a new run; "bad": "Then ..." is a step
    indented: bool = False
    withdrawn: bool = False  # a step the line itself withdraws ("(skip this step)"): kept for its number only
    heading: bool = False  # an all-bold line naming one action: the indented lines below it explain it
    word: str | None = None  # "word": the line is an action's word alone ("**Feast**"); the variant written
    explains: bool = False  # "action": the line says more than its actions (clauses that read as no action)


class StepReader(TaskGrammar):
    """A task's grammar with the rules that read steps, lines and runs of step lines."""

    # ---------------------------------------------------------------- steps of one line

    def steps(self, s: str, bare: bool = True) -> list[str]:
        """The actions of one line's text (numbering already removed); [] when it is not a step line.

        ``bare=False`` (a PDDL answer that writes its actions in brackets): words are prose."""
        return self.told(s, bare)[0]

    def told(self, s: str, bare: bool = True) -> tuple[list[str], bool]:
        """(`steps`, whether the line says more than its actions: words after them or between them
        that read as no action)."""
        if self.style == "pddl":
            s = layout.split_depth0(s, WORDS.COMMENT)[0].strip()  # a PDDL comment (outside brackets)
        elif self.nl:
            s = self.performed(s)  # "perform x7q on object_0 and object_1"
        try:
            read = self._clauses(s, bare)
        except ParseError as exc:
            read, failed = ([], False), exc
        else:
            failed = None
            if read is None:
                return [], False
        if not read[0] and not (self.style == "pddl" and not bare):
            joined = self._word_call_line(s, bare)  # "Feast: b, c": the clauses part the word from its objects
            if joined != s:
                return self._clauses(joined, bare) or ([], False)
        if failed is not None:
            raise failed
        return read

    def _clauses(self, s: str, bare: bool) -> tuple[list[str], bool] | None:
        """`told` clause by clause: the first clause must start with an action for the line to be a
        step line; later clauses add the actions they start with; the rest is explanation. None: the
        line states what an action needs."""
        out: list[str] = []
        after: list[str] = []  # what follows each action in its own clause
        clauses: list[str] = []  # the clauses after one that start with no action
        content = False
        parts = layout.split_depth0(s, SEPARATORS)
        for i, part in enumerate(parts):
            if WORDS.SUBJECT_ALONE.match(clean(part)) and i + 1 < len(parts):
                parts[i + 1] = clean(part) + " " + parts[i + 1].strip()  # "we then unstack ...": split at "then"
                continue
            c = clean(part)
            if not c:
                continue
            first = not content
            content = True
            neg = WORDS.NEGATION.match(c)
            if neg and self._lead_safe(c[neg.end():]):
                raise Alternatives(f"a negated action: {c!r}")
            either = WORDS.EITHER.match(c)
            if either and self._lead_safe(c[either.end():]):
                raise Alternatives(f"alternative actions: {c!r}")
            if out and WORDS.ALTERNATIVE.match(c):
                raise Alternatives(f"alternative actions: {out[-1]}, {c!r}")
            body = strip_step_lead_in(c)
            r = self.lead(body, bare=bare)
            subject = WORDS.SUBJECT.match(body) if r is None else None
            if subject:  # "we unstack the red block", "you pick up the blue block"
                r2 = self.lead(body[subject.end():], bare=bare)
                if r2 is not None:
                    body, r = body[subject.end():], r2
            whole = layout.clean_clause(part, connectives=False)
            if r is None and whole != c:  # "next a b": a connective that is a name of this vocabulary
                r2 = self._lead_safe(whole, bare, lead_in=False)
                if r2 is not None:
                    body, r = whole, r2
            words_are_prose = self.style == "pddl" and not bare
            if r is None and out and self.nl:  # "pick up the red block, then put it down"
                resolved = self.resolve_pronoun(body, out[-1])
                r = self.lead(resolved, bare=bare) if resolved is not None else None
                if r is not None:
                    body = resolved
            if r is None:
                if first:
                    if self.starts_with_verb(c) and not words_are_prose:
                        raise Unreadable(f"cannot read the step {c!r}: it reads as no action of this task")
                    return [], False
                if self.starts_with_verb(c) and not FORM.match(c) and not words_are_prose:
                    raise ParseError(f"cannot read the step {c!r}: it reads as no action of this task")
                self._check_asides(c, out)
                clauses.append(" " + part.strip())
                continue
            (cand,), end = r
            if first and WORDS.REQUIRES.match(body[end:]):
                return None  # "feast b from c requires craves b c": what the action needs, no step
            out.append(pddl(*cand))
            after.append(body[end:])
            rest = body[end:].strip()
            while rest:
                if WORDS.ALTERNATIVE.match(rest):
                    raise Alternatives(f"alternative actions: {c!r}")
                r2 = self.lead(rest, bare=bare) if rest.startswith("(") or self.style == "pddl" else None
                if r2 is None:
                    break
                (cand2,), end2 = r2
                out.append(pddl(*cand2))
                rest = rest[end2:].strip()
            self._check_asides(rest, out)
        # a verdict said of the action, right after it or after words that only modify it, withdraws it
        # (`withdrawals.withdrawal`: ``after_action`` reads all that ``said_of_step`` reads, and more)
        if out and (withdrawal(s, names=self.vocabulary) or any(withdrawal(x, True, self.vocabulary) for x in clauses)
                    or any(withdrawal(x, names=self.vocabulary, after_action=True) for x in after)
                    or ATTEMPT_FAILS.search(s)):
            raise ParseError(f"a withdrawn or negated step: {s!r}")
        return out, any(WORDS.WORD.search(x) for x in after + clauses)

    def _word_call_line(self, s: str, bare: bool) -> str:
        """``s`` with a leading action word and its objects written across separators ("Feast: b, c",
        "unstack - R from B") as its PDDL form (`steps` asks when the line's first clause reads as
        no action: the clauses part the word from its objects); ``s`` itself otherwise."""
        head = strip_step_lead_in(s.strip().strip("\"'"))
        if not head or not self.starts_with_verb(re.sub(r"[:\-(]", " ", head)):
            return s
        r = self._named_call(head)
        if r is None:
            return s
        (cand,), end = r
        return pddl(*cand) + head[end:]

    def resolve_pronoun(self, text: str, previous: str) -> str | None:
        """``text`` with its one pronoun ("it") replaced by the name of the object the ``previous``
        step manipulated (its first argument: the block moved, the package carried); None when
        ``text`` has no single pronoun or the previous step has no argument."""
        args = previous.strip("()").split()[1:]
        if not args or len(WORDS.PRONOUN.findall(text)) != 1:
            return None
        name = self.r.names.get(args[0], args[0])
        return WORDS.PRONOUN.sub(lambda m: name, text)

    def _lead_safe(self, text: str, bare: bool = True, lead_in: bool = True):
        """The action ``text`` starts with (after a lead-in, or a subject: "we unstack ..."), or None."""
        try:
            if not lead_in:
                return self.lead(text, bare=bare)
            body = strip_step_lead_in(clean(text))
            r = self.lead(body, bare=bare)
            subject = WORDS.SUBJECT.match(body) if r is None else None
            return self.lead(body[subject.end():], bare=bare) if subject else r
        except ParseError:
            return None

    def _check_asides(self, text: str, read: list[str]) -> None:
        if not self.nl or not read:
            return
        for m in re.finditer(r"\(([^()]*)\)", text):
            other = self.full_action(WORDS.RESTATE.sub("", m.group(1).strip()))
            if other is not None and other != read[-1]:
                raise ParseError(f"the aside ({m.group(1)}) names {other}, but the step reads {read[-1]}")

    def read_line(self, ln: Line, bare: bool = True) -> LineRead:
        s = ln.norm
        if not s:
            return LineRead("blank")
        w = WORDS.WITHDRAW_THIS.search(s)
        if w and s[:w.start()].strip(" -([,;:"):  # "3. Put down the red block (skip this step)": withdrawn
            rest = (s[:w.start()] + s[w.end():]).strip()
            info = self.read_line(Line(ln.start, ln.end, ln.raw, rest, ln.fence), bare)
            if info.kind != "action":
                raise ParseError(f"a step withdrawn that reads as no action: {s!r}")
            info.withdrawn = True
            return info
        if MARK.match(s) or ln.fence:
            return LineRead("neutral")
        if s.startswith("|"):  # a markdown table row: | 1 | unstack the red block ... | why |
            cells = [c.strip() for c in s.strip("|").split("|")]
            if all(re.fullmatch(r":?-*:?", c) for c in cells):
                return LineRead("neutral")
            s = ". ".join(c for c in cells if c)
        s = re.sub(r'[\[\]{}"]', " ", s).strip()  # JSON or list punctuation: ["(a x)", "(b y)"]
        introduces = False
        before = s
        number, s = strip_number(s)
        marked = s != before
        s = WORDS.WRAPPER.sub("", s).strip()
        while s.endswith(")") and s.count(")") > s.count("("):
            s = s[:-1].rstrip()
        if not s:
            return LineRead("neutral", number=number)
        # A numbered line that is all bold ("1. **Unstack yellow from red**") titles the text below it.
        is_title = number is not None and bool(
            re.fullmatch(r"\s*(?:\d+[.):]|step\s*\d+\s*[:.)\-]?)\s*(\*\*|__)(?:(?!\1)[^*])+\1\s*:?\s*", ln.raw, re.I))
        # A line that is all bold (after a bullet or a number) heads the indented lines below it.
        heading = bool(re.fullmatch(r"\s*(?:(?:\d+[.):]|step\s*\d+\s*[:.)\-]?|[-*•+])\s*)?(\*\*|__)(?:(?!\1)[^*])+\1\s*:?\s*",
                                    ln.raw, re.I))
        if WORDS.ALT_MARKER.match(s) and (self._holds_step(s, bare) or self._lead_safe(WORDS.ALT_MARKER.sub("", s).strip(" ,:"))):
            raise Alternatives(f"an alternative answer: {s!r}")
        if self.in_general(s):
            return LineRead("prose", number=number)  # a rule of an action in general, no step
        word = self.action_word(s)
        if word is not None:  # "**Feast**", "Attack:": a label, or a step whose objects follow below
            return LineRead("word", number=number, marked=marked, word=word, indented=ln.raw[:1].isspace())
        m = _title_split(s)
        if m:
            title, body = m
            t_action = self.full_action(title)
            if t_action is not None:
                try:
                    b_actions = self.steps(body, bare) if body else []
                except Unreadable:
                    b_actions = []  # the title is the step; a text in other words after it explains it
                if b_actions and b_actions[0] != t_action:
                    raise ParseError(f"the step's title {title!r} names {t_action}, but its text reads {b_actions[0]}")
                return LineRead("action", b_actions or [t_action], number,
                                 title=t_action if not body else None)
            if not self.starts_with_verb(title):
                # A short label ("Plan:", "Step one:") or a description of the step in other words
                # followed by the step itself ("Put down block A on the table: (put-down a)").
                if not body and len(title.split()) <= 6:
                    return LineRead("intro", number=number)
                if body and number is None and WORDS.NAMES_A_STEP.search(title):
                    # "v2 step 3: unstack b from c not doable either", "Error at step 3: ...": a remark
                    # on a step the label names by its number, not a step of its own (between steps,
                    # a step not read)
                    return LineRead("mixed", indented=ln.raw[:1].isspace())
                if body and (len(title.split()) <= 6 or self._lead_safe(body, bare)):
                    s = body
                    introduces = bool(WORDS.INTRO_WORDS.search(title))
        try:
            acts, says_more = self.told(s, bare)
        except Unreadable as exc:
            if s.endswith(":"):
                return LineRead("intro", number=number)
            return LineRead("bad", number=number, marked=marked, error=str(exc),
                             introduces=bool(WORDS.STEP_CONNECTIVE.match(s)),  # "Then put it down."
                             indented=ln.raw[:1].isspace())
        if acts and ATTEMPT_FAILS.search(ln.norm):  # "Error at step 3: unstack b from c not applicable."
            raise ParseError(f"a withdrawn or negated step: {ln.norm!r}")
        if acts and number is None and not marked and WORDS.NAMES_A_STEP.search(s):
            # "unstack b from c @ step 2 blocked here as well": a remark on a step named by its number
            return LineRead("mixed", indented=ln.raw[:1].isspace())
        if acts:
            return LineRead("action", acts, number, title=acts[0] if is_title and len(acts) == 1 else None,
                             heading=heading and len(acts) == 1, marked=marked, introduces=introduces,
                             explains=says_more,
                             indented=ln.raw[:1].isspace() and not ln.raw.lstrip().startswith(("```", "~~~")))
        if s.endswith(":") or (ln.raw.lstrip().startswith("#") and number is None):
            return LineRead("intro", number=number)  # a numbered heading in words is a step not read
        return LineRead("mixed" if self._holds_step(s, bare) else "prose", number=number,
                        indented=ln.raw[:1].isspace())

    def _holds_step(self, s: str, bare: bool) -> bool:
        """A prose line that still holds a step: a later clause starts with an action, or a
        bracketed action form stands inside it ("To start, unstack a from b.")."""
        if any(name in self.arity_action for name, _ in FORM.findall(s)):
            return True
        parts = [c for c in (clean(p) for p in layout.split_depth0(s, SEPARATORS)) if c]
        for c in parts[1:]:
            try:
                if self.lead(strip_step_lead_in(c), bare=bare):
                    return True
            except ParseError:
                return True
        return False

    def has_forms(self, lines: list[Line]) -> bool:
        """True when some line holds a bracketed PDDL action form of the task."""
        return any(name in self.arity_action for ln in lines for name, _ in FORM.findall(ln.norm))

    def action_runs(self, lines: list[Line], bare: bool = True) -> list[Run]:
        """Runs of step lines; a heading, an introducing line or restarted numbering starts a new run.

        A step line that reads as no action (it starts like a step, or it is numbered between two
        steps) leaves a gap in its run: the run is a copy of a plan read partly, which the plan
        reader holds against the copies that read completely (`Run.gaps`)."""
        runs: list[Run] = []
        cur: Run | None = None
        last_number = None
        brk = False
        pending_title: str | None = None
        mixed: Line | None = None  # a prose line holding a step, after the last step line
        numbered_prose = None
        last_numbered = False
        words_are_prose = self.style == "pddl" and not bare  # sentences beside bracketed actions describe them
        lines = [part for ln in lines for part in _inline_steps(ln)]
        infos = self._word_and_objects([(ln, self._read_in_run(ln, bare)) for ln in lines], bare)
        if self.nl:
            infos = self._resolve_pronouns(infos, bare)
        significant = [info for _, info in infos if info.kind not in ("blank", "neutral")]
        for i, info in enumerate(significant):
            # A line that starts like a step but reads as none is a step not read next to step lines
            # or when numbered; elsewhere (a preamble: "Put simply, ...") it is prose.
            if info.kind in ("bad", "mixed") and info.indented and info.number is None \
                    and _under_title(significant, i):
                info.kind = "prose"  # an explanation below a step's title, in other words
                continue
            if info.kind == "bad":
                near = [significant[j].kind for j in (i - 1, i + 1) if 0 <= j < len(significant)]
                if info.marked or "action" in near or info.introduces:
                    info.kind = "unread"
            elif info.kind == "mixed" and info.number is not None:
                info.kind = "unread"
        # A line after a step that withdraws a step of the plan (`withdrawals`): unless another plan
        # follows (a new run, one more reading), the plan as written is not the answer and what is
        # meant is not said (a removal by number alone on its line is applied by the plan reader).
        withdrawn: Line | None = None
        for ln, info in infos:
            if cur is not None and info.kind not in ("action", "blank", "neutral", "intro", "unread") \
                    and (withdrawal(ln.norm, names=self.vocabulary) or ATTEMPT_FAILS.search(ln.norm)) \
                    and not removal_by_number(ln.norm, self.vocabulary):
                withdrawn = ln
            if info.kind == "intro":
                brk = cur is not None
                pending_title = mixed = None
                continue
            if info.kind == "mixed":
                mixed = ln if cur is not None else None
                continue
            if info.kind == "prose" and info.number is not None and (
                    info.number == 1 or (cur is not None and last_number is not None and info.number == last_number + 1)):
                if numbered_prose is not None and numbered_prose[2]:  # two in a row: no step of a plan here
                    cur.gaps.append(self._prose_gap(len(cur.actions), numbered_prose, 0))
                # Step N of a numbered plan that reads as no action; whether it goes on with the run's
                # numbering (in a PDDL answer, sentences beside bracketed actions describe them: they
                # go on with it only after numbered step lines).
                numbered_prose = (info.number, ln, cur is not None and info.number != 1
                                  and (last_numbered or not words_are_prose))
                last_number = info.number if info.number == 1 and cur is None else last_number
                continue
            if info.kind not in ("action", "unread"):
                continue
            gap = None
            if numbered_prose is not None and info.number == numbered_prose[0] + 1:
                # A numbered step between two steps that reads as no action; the list's first number
                # may be a preamble ("1. First, look at the goal."): it may stand for no step.
                gap = self._prose_gap(None, numbered_prose, 0 if numbered_prose[0] == 1 else 1)[1:]
            elif numbered_prose is not None and numbered_prose[2]:
                cur.gaps.append(self._prose_gap(len(cur.actions), numbered_prose, 0))  # the last number of its list
            numbered_prose = None
            acts = info.actions
            if pending_title is not None and info.number is None and not info.marked and acts:
                if acts[0] != pending_title:
                    raise ParseError(f"the step's title names {pending_title}, but its text reads {acts[0]}")
                acts = acts[1:]
            pending_title = info.title
            new = cur is None or brk or (info.introduces and info.kind == "action")
            if cur is not None and info.number is not None and last_number is not None:
                if info.number <= last_number:
                    new = True
                elif info.number == last_number + 1:
                    new = False
            if cur is not None and last_numbered and info.number is None and not new and acts:
                if not info.indented and acts[:1] == cur.actions[:1]:
                    new = True  # a numbered list, then unnumbered steps from its first step: a restatement
                elif info.indented and acts == cur.actions[-1:]:
                    acts = []  # an indented line restating its step
            elif cur is not None and not new and info.indented and info.number is None and acts \
                    and acts == cur.actions[-1:] and cur.lines and not cur.lines[-1].raw[:1].isspace():
                acts = []  # an indented line below a step (a bullet's, a bold line's) restating it
            if mixed is not None and not new:
                gap = gap or (1, f"cannot read the step {mixed.norm!r}: it does not start with an action", mixed.norm)
            mixed = None
            if withdrawn is not None and not new:
                raise ParseError(f"a step withdrawn or negated inside the plan: {withdrawn.norm!r}")
            withdrawn = None
            if new:
                cur = Run([], [], [])
                runs.append(cur)
            if gap is not None:
                cur.gaps.append((len(cur.actions), *gap))
            if info.kind == "unread":
                cur.gaps.append((len(cur.actions), 1, info.error or
                                 f"cannot read the step {ln.norm!r}: it does not start with an action", ln.norm))
            elif not info.withdrawn:
                cur.actions.extend(acts)
            cur.lines.append(ln)
            cur.listed = cur.listed or info.number is not None or info.marked
            cur.explains = cur.explains or info.explains
            brk = False
            last_numbered = info.number is not None or (last_numbered and info.indented and not new)
            if info.number is not None:
                last_number = info.number
        if withdrawn is not None:
            raise ParseError(f"a step withdrawn or negated after the plan: {withdrawn.norm!r}")
        if numbered_prose is not None and numbered_prose[2]:
            # The list's last number reads as no action: a step or a closing remark ("3. Done!").
            cur.gaps.append(self._prose_gap(len(cur.actions), numbered_prose, 0))
        return runs

    def _read_in_run(self, ln: Line, bare: bool) -> LineRead:
        """`read_line`, except that a line neither numbered nor bulleted that rejects an attempt
        before it names any action (`withdrawals` ATTEMPT_FAILS: "wait, step 3 is invalid: cannot
        pick up b there. plan fails.") is prose, not a negated or unreadable step: it withdraws what
        precedes it, which `action_runs` holds against the steps around it (a withdrawal inside or
        after a plan)."""
        try:
            return self.read_line(ln, bare)
        except ParseError:
            number, rest = strip_number(ln.norm)
            m = ATTEMPT_FAILS.search(ln.norm)
            if m and number is None and rest == ln.norm and not re.match(r"[-*•+>]", ln.norm) \
                    and self._lead_safe(ln.norm[:m.start()].strip(" ,;:-") or ".", bare) is None:
                return LineRead("prose")
            raise

    def _prose_gap(self, at: int | None, numbered: tuple, least: int) -> tuple:
        """The gap a numbered line in words leaves: it stands for ``least`` steps or more, and for one
        at least when it starts with an action's word ("1. Pick-up object" in a PDDL answer): a step
        not read, never a preamble or a closing remark."""
        number, ln, _ = numbered
        if self.starts_with_verb(strip_number(ln.norm)[1]):
            least = 1
        return (at, least, f"cannot read step {number}: {ln.norm!r} reads as no action of this task", ln.norm)

    def action_word(self, s: str) -> str | None:
        """The action's word when ``s`` is nothing else ("feast", "put down:", "attack action"): the
        variant written, else None."""
        t = re.sub(r"(?:\s+action)?\s*[:.]?$", "", s.strip())
        return next((v for v, name in self.bare_names if t == v and self.arity_action[name]), None)

    def _word_and_objects(self, infos: list, bare: bool) -> list:
        """An action's word alone on its line ("1. **Feast**") with its objects on the line below
        ("   - object b from object c", "   Objects: b, c") is one step; a word no objects follow is a
        step not read when it is an item of a list (numbered or bulleted), else a label."""
        out = list(infos)
        for i, (ln, info) in enumerate(out):
            if info.kind != "word":
                continue
            j = next((k for k in range(i + 1, len(out)) if out[k][1].kind != "blank"), None)
            read = None
            if j is not None and out[j][1].kind in ("prose", "bad", "mixed"):
                below = strip_number(out[j][0].norm)[1]
                r = self._named_call(f"{info.word} {below}")
                if r is not None and not layout.split_depth0(f"{info.word} {below}"[r[1]:], SEPARATORS)[0].strip(" .!"):
                    read = r
            if read is None:
                if info.number is not None or info.marked:  # "4. **Succumb**": a step whose objects are left out
                    out[i] = (ln, LineRead("bad", number=info.number, marked=True, indented=info.indented,
                                           error=f"cannot read the step {ln.norm!r}: its objects are not given"))
                else:  # "**Attack**" heading what follows: a label
                    out[i] = (ln, LineRead("neutral"))
                continue
            (cand,), _ = read
            out[i] = (ln, LineRead("action", [pddl(*cand)], info.number, marked=info.marked, indented=info.indented,
                                   heading=True))
            out[j] = (out[j][0], LineRead("neutral"))
        return out

    def _resolve_pronouns(self, infos: list, bare: bool) -> list:
        """A line that reads as no action only for a pronoun ("2. Put it on the table.") right after a
        step line reads with the pronoun as the previous step's object (`resolve_pronoun`)."""
        out, last = [], None
        for ln, info in infos:
            if info.kind == "bad" and last is not None:
                resolved = self.resolve_pronoun(ln.norm, last)
                if resolved is not None:
                    again = self.read_line(Line(ln.start, ln.end, ln.raw, resolved, ln.fence), bare)
                    if again.kind == "action":
                        info = again
            if info.kind == "action":
                last = info.actions[-1]
            elif info.kind not in ("blank", "neutral"):
                last = None
            out.append((ln, info))
        return out


def _inline_steps(ln: Line) -> list[Line]:
    """A numbered line whose numbering goes on inside it ("1) feast b from c 2) succumb b 3) ...")
    as one line per number; any other line as it is."""
    number, _ = strip_number(ln.norm)
    if number is None or not WORDS.INLINE_NUMBER.search(ln.norm):
        return [ln]
    cuts, expect = [], number + 1
    for m in WORDS.INLINE_NUMBER.finditer(ln.norm):
        if int(m.group(1)) == expect:
            cuts.append(m.start())
            expect += 1
    if not cuts:
        return [ln]
    bounds = [0, *cuts, len(ln.norm)]
    return [Line(ln.start, ln.end, ln.norm[a:b].strip(), ln.norm[a:b].strip(), ln.fence) for a, b in zip(bounds, bounds[1:])]


def _under_title(significant: list, i: int) -> bool:
    """Whether line ``i`` stands below a step's title (a numbered, bold line naming one action) with
    only lines indented like it between: it explains that step."""
    for j in range(i - 1, -1, -1):
        info = significant[j]
        if info.kind == "action":
            return info.title is not None or info.heading
        if not info.indented:
            return False
    return False


def _title_split(s: str) -> tuple[str, str] | None:
    """("title", "body") of "title: body" (the first ':' outside brackets, within 80 characters)."""
    depth = 0
    for i, ch in enumerate(s[:81]):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth = max(0, depth - 1)
        elif ch == ":" and depth == 0 and (i + 1 == len(s) or s[i + 1] == " ") and i > 0:
            title = s[:i].strip()
            if "[" in title or "]" in title:
                return None
            return title, s[i + 1:].strip()
    return None


def task_reader(task: Task, style: str, templates: str) -> StepReader:
    """The flexible reader of a task, built once per task and kept in the task's own ``views``."""
    return kept(task, ("flexible-reader", style, templates), lambda: StepReader(task, style, templates))
