"""Reading plans, action lists and one action from a reply (flexible policy).

Over `reply` (the region, blocks, lines) and `steps` (step lines and runs): every marked block and
the text outside the blocks that read as a plan must read the same plan (rule 2), except that the
text before the last block that reads is reasoning, not the answer, and text that comments on one
marked plan (explains its steps in order, corrects nothing: `_comments_on`) or stands under a
commentary heading (`_without_commentary`) is not a second plan; a copy of the plan read partly is
the plan of a copy read completely that it reads like (`_copies_read_alike`); the text after the
answer's end marker is not the answer (`reply.answer_end`, `_after_the_end`); steps struck through or
removed by number are withdrawn (`_step_withdrawals`); several different plans raise `readers.Ambiguous`
(judged when every reading gets the same verdict, `readers.judged_alike`); an empty answer ("none")
is the empty plan, and one action is the one distinct action read (or, when no line starts with an
action, the one action the region mentions). Rules: docs/subtasks.md, "Flexible reader".
"""

from __future__ import annotations

import re

from widthbench.core.errors import ParseError
from widthbench.pddl_domains.readers import Ambiguous, Reading, layout, phrases
from widthbench.pddl_domains.readers.grammar import SEPARATORS, clean, pddl
from widthbench.pddl_domains.readers.lexicon import Lexicon, task_vocabulary
from widthbench.pddl_domains.readers.reply import (MARK, Line, answer_end, find_blocks, located, outside_blocks, region,
                                                   region_lines, span_of, strip_number)
from widthbench.pddl_domains.readers.steps import Alternatives, Run, StepReader, task_reader
from widthbench.pddl_domains.readers.withdrawals import ANOTHER_PLAN, ATTEMPT_FAILS, removal_by_number, withdrawal
from widthbench.planners.strips import Task, kept

__all__ = ["read_plan", "read_action_list", "read_single_action"]

#: This module's words of English: its section of phrases.txt.
WORDS = phrases.section("plans")


def _read_sequence(task: Task, text: str, style: str, templates: str) -> tuple[list[str], tuple[int, int], str]:
    rd = task_reader(task, style, templates)
    t, start, end, label = region(text, rd.states_problem)
    cut, after = answer_end(t, start, end)
    lines = region_lines(t, start, cut)
    region_norm = "\n".join(ln.norm for ln in lines)
    if layout.is_empty_answer(region_norm.strip()):
        return [], span_of(lines), "answer-label" if label else "whole-reply"
    bare = not rd.has_forms(lines)
    if after < end:
        _after_the_end(rd, region_lines(t, after, end), bare)
    lines, withdrawn = _step_withdrawals(rd, lines)
    lines = _without_commentary(rd, lines, bare)
    readings = []  # (run, rule): every block and the text outside them must agree
    blocks = find_blocks(lines)
    last = None  # where the last block that reads as a plan starts
    for rule, blines in blocks:
        for run in rd.action_runs(blines, bare):
            readings.append((run, rule))
            last = blines[0].start
    outside = outside_blocks(lines, blocks)
    drafted = []  # the text before the last block that reads: reasoning or a draft, not the answer
    if last is not None:  # the text before the answer block (reasoning, a draft) is not the answer
        drafted = [ln for ln in outside if ln.start < last]
        outside = [ln for ln in outside if ln.start > last]
    try:
        runs, unread = rd.action_runs(outside, bare), None
    except ParseError as exc:
        runs, unread = [], exc
    marked = {tuple(run.actions) for run, _ in readings}
    if len(marked) == 1 and (unread or any(tuple(run.actions) not in marked or run.gaps for run in runs)) \
            and _comments_on(rd, outside, next(iter(marked)), bare):
        runs, unread = [], None  # the marked plan is the answer; the text around it comments on it
    if unread is not None:
        raise unread
    readings.extend((run, None) for run in runs)
    if not readings:
        raise ParseError("no actions found in the answer")
    readings = [(run.actions, run.lines, rule) for run, rule in _copies_read_alike(rd, readings, lines)]
    readings = _without_narration(readings)
    if not withdrawn:
        readings = _without_rejected(rd, readings, lines)
    distinct = list(dict.fromkeys(tuple(r[0]) for r in readings))
    if withdrawn:
        if len(distinct) > 1:
            raise ParseError(f"steps withdrawn by number from a reply with two different plans: "
                             f"{' '.join(distinct[0])} / {' '.join(distinct[1])}")
        readings = [(_without_steps(rd, readings[0][1], withdrawn, bare), readings[0][1], readings[0][2])]
    if len(distinct) > 1:
        a, b = distinct[0], distinct[1]
        seen = {}
        for acts, rlines, rule in readings:
            seen.setdefault(tuple(acts), Reading(list(acts), span_of(rlines), located(label, rule, False)))
        raise Ambiguous(f"two different plans in one reply: {' '.join(a)} / {' '.join(b)}", seen.values())
    acts, rlines, rule = readings[0]
    later = [ln.norm for ln in lines if ln.start > rlines[-1].end]
    if label and _reopens(rd, later) and _other_attempt_before(rd, t, start, acts, bare):
        raise ParseError("after the plan it marks as the answer, the reply doubts it or goes back to another attempt")
    if drafted and _doubts_which(_sentences(later)) and _holds_another(rd, drafted, acts, bare):
        raise ParseError("after the plan read, the reply doubts which of its attempts is meant")
    used = [ln for ln in lines if ln.norm and not MARK.match(ln.norm)]
    whole = len(readings) == 1 and len(rlines) == len(used)
    return list(acts), span_of(rlines), located(label, rule, whole)


def _without_rejected(rd, readings: list, lines: list) -> list:
    """The readings without the attempts the answer itself rejects (rule 11): when the text between
    one reading and the next rejects what came before ("But wait, this plan won't work: step 3 needs
    an empty hand.", "Oops, that's wrong.") and nothing in it leaves it standing (`_rejected`), every
    reading up to there is withdrawn, provided the next one is a plan written afresh (`_afresh`) and
    the text after the last reading neither rejects it nor reopens the choice (`_reopens`). Otherwise
    the readings stay as they are (several plans: refused unless they get the same verdict). Reading
    the plan that replaces a rejected attempt is reading what the answer says; reading the rejected
    one would credit what the answer withdrew."""
    if len({tuple(r[0]) for r in readings}) < 2:
        return readings
    ordered = sorted(readings, key=lambda r: r[1][0].start)
    cut = None
    for i in range(len(ordered) - 1):
        gap = [ln for ln in lines if ordered[i][1][-1].end < ln.start < ordered[i + 1][1][0].start]
        if _rejected(rd, [ln.norm for ln in gap]) and _afresh(rd, gap, ordered[i + 1]):
            cut = i + 1
    if cut is None:
        return readings
    last = max(ln.end for r in ordered[cut:] for ln in r[1])
    if _reopens(rd, [ln.norm for ln in lines if ln.start > last]):
        return readings
    return ordered[cut:]


def _other_attempt_before(rd, t: str, start: int, plan: list, bare: bool) -> bool:
    """Whether the answer (after any thinking) holds another plan before ``start``, where its last
    answer label ("Final plan:") opens the region: a run of steps that is not ``plan`` (or text that
    cannot be read, which may hold one)."""
    think = t.lower().rfind("</think>")
    return _holds_another(rd, region_lines(t, think + len("</think>") if think >= 0 else 0, start), plan, bare)


def _sentences(texts: list[str]) -> list[str]:
    """The sentences of ``texts`` (lines split after ".", "!" or "?"), bullets and emphasis stripped."""
    return [x.strip(" *_#>-") for t in texts for x in re.split(r"(?<=[.!?])\s+", t) if x.strip(" *_#>-")]


def _rejected(rd, texts: list[str]) -> bool:
    """Whether the text between two attempts rejects the first: some sentence, not a question, says
    it fails or is wrong, owns an error, drops or withdraws it (`_fails`), answers no to a question
    whether it holds (`_answered_no`), or — where every
    word of the text is known (`_unknown`) — judges something bad in words of failure with no
    subject (`WORDS.FAILURE`: "unsound", "a dead end", "not allowed"), not in a verdict it denies
    (`WORDS.DENIED_VERDICT`: "I can't say it's wrong"); and no other sentence leaves
    it standing: sets another attempt beside it, doubts which is meant, goes back to it
    (`WORDS.ELSEWHERE`), or says it works (`WORDS.WORKS`) — unless that sentence introduces the next
    attempt (it ends in a colon)."""
    sentences = _sentences(texts)
    said = [x for x in sentences if not x.endswith("?")]
    known = not _unknown(rd, texts)
    # a verdict denied ("I can't say it's wrong") rejects nothing; the rest of its sentence still may
    judged = {x: WORDS.DENIED_VERDICT.sub(" ", x) for x in said}
    denied = _answered_no(sentences)
    rejecting = [x for x in said if _fails(judged[x]) or x in denied or (known and WORDS.FAILURE.search(judged[x]))]
    rest = [x for x in said if x not in rejecting]
    return bool(rejecting) and not any(WORDS.ELSEWHERE.search(x) or (WORDS.WORKS.search(x) and not x.endswith(":"))
                                       for x in rest)


def _answered_no(sentences: list[str]) -> list[str]:
    """The answers among ``sentences`` that say no to a question, just before, whether an attempt or a
    step of it holds ("Does it work? It does not.", "Was the plan sound? No."): each judges it to fail."""
    return [b for a, b in zip(sentences, sentences[1:])
            if WORDS.ASKS_IF_IT_HOLDS.search(a) and WORDS.DENIED_ANSWER.match(b)]


def _fails(sentence: str) -> bool:
    """Whether ``sentence`` names an attempt and says it fails, is wrong or is withdrawn
    (`withdrawals` ATTEMPT_FAILS, `WORDS.ATTEMPT_WITHDRAWN`), whatever other words it holds."""
    return bool(ATTEMPT_FAILS.search(sentence) or WORDS.ATTEMPT_WITHDRAWN.search(sentence))


def _reopens(rd, texts: list[str]) -> bool:
    """Whether the text after the last of several attempts may take it back or reopen the choice: a
    word in it is not known (`_unknown`: what it says cannot be told), it doubts which is meant or
    goes back to an earlier one (`WORDS.ELSEWHERE`, asked or said), it asks whether the attempt or a
    step of it holds and no "yes" answers (`WORDS.DOUBTING_QUESTION`: "Can we really X here?"), it
    rejects an attempt or says anything failed or is wrong, not in a question (a failure word alone:
    "Still wrong.", "illegal here as well"), or it corrects a step or offers another plan
    (`_corrects`)."""
    sentences = _sentences(texts)
    return bool(_unknown(rd, texts)) or _doubts_which(sentences) \
        or any(_fails(x) or WORDS.FAILURE.search(x) for x in sentences if not x.endswith("?")) \
        or bool(_corrects(rd, "\n".join(texts)))


def _doubts_which(sentences: list[str]) -> bool:
    """Whether ``sentences`` (`_sentences`) doubt which attempt is meant or go back to an earlier one
    (`WORDS.ELSEWHERE`: "undecided between the two plans", "confidence: low for both"), or ask whether
    one holds with no "yes" after (`WORDS.DOUBTING_QUESTION`)."""
    return any(WORDS.ELSEWHERE.search(x) for x in sentences) or any(
        x.endswith("?") and WORDS.DOUBTING_QUESTION.search(x)
        and not (i + 1 < len(sentences) and WORDS.AFFIRMED.match(sentences[i + 1])) for i, x in enumerate(sentences))


def _holds_another(rd, lines: list, plan: list, bare: bool) -> bool:
    """Whether ``lines`` (text before the plan read: before its answer label, or a draft before the
    last block) hold another attempt: a run of steps that is not ``plan``, or text that cannot be
    read, which may hold one."""
    try:
        runs = rd.action_runs(lines, bare)
    except ParseError:
        return True
    return any(run.actions and run.actions != list(plan) for run in runs)


def _unknown(rd, texts: list[str]) -> tuple[str, ...]:
    """The words of ``texts`` that are neither the readers' known words (with those of the answers
    the reader is tested and measured on) nor the task's own (`lexicon`; the gate the trace verifier
    judges behind: docs/traces.md, principle 6)."""
    lex = kept(rd.task, ("plan-lexicon", rd.style, rd.r.templates), lambda: Lexicon(task_vocabulary(rd), answers=True))
    return lex.unknown("\n".join(texts))


def _afresh(rd, gap: list, reading: tuple) -> bool:
    """Whether ``reading`` is a plan written afresh after ``gap``: a marked block, a list numbered from
    1, or steps introduced by a line that ends in a colon and does not go on from a step
    (`WORDS.GOES_ON`: "from step 3:", "the rest:")."""
    said = [ln.norm.strip(" *_#>") for ln in gap if ln.norm.strip(" *_#>")]
    label = said[-1] if said and said[-1].endswith(":") else None
    if label is not None and WORDS.GOES_ON.search(label):
        return False
    first = reading[1][0]
    return reading[2] is not None or label is not None or strip_number(first.norm)[0] == 1 \
        or bool(re.match(r"(?i)\W*step\s*1\b", first.norm))


def _after_the_end(rd, lines: list, bare: bool) -> None:
    """The text after the answer's end marker is not the answer (`reply.answer_end`), but the answer
    is refused when that text takes a step back, offers another plan or an alternative, negates an
    action, or goes on with a step that reads as no action ("Then put it on it."): a ParseError,
    never a plan chosen."""
    text = "\n".join(ln.norm for ln in lines)
    hit = _corrects(rd, text)
    if hit:
        raise ParseError(f"after the answer's end marker, the reply corrects it or offers another plan ({hit!r})")
    for ln in lines:
        try:
            info = rd.read_line(ln, bare)
        except Alternatives:
            raise  # an alternative offered, an action negated
        except ParseError:
            continue  # a line that does not read: not the answer
        if info.kind == "bad" and info.introduces and not info.marked:
            raise ParseError(info.error)


def _copies_read_alike(rd, readings: list, lines: list) -> list:
    """The readings without the copies read partly that read like a copy read completely.

    A plan written twice (detailed steps and a summary; a marked block and an explained list) is
    one answer when its copies read alike: a copy with step lines that read as no action (`Run.gaps`)
    is the plan of a copy that reads completely when every step it does read is that plan's, in its
    order, each gap standing for the steps between, and it reads at least as many steps as it leaves
    unread. A copy read partly that is no copy read
    completely leaves the answer unreadable (its first unread step is the reason); copies that read
    completely and differ stay two readings (two plans). Sentences that tell the plan and say more
    than its steps (`Run.narration`) are such a copy, with a gap between any two steps. An answer
    whose other lines (or the narration itself) correct a plan or offer another has no copies to
    merge: each copy is read as it stands."""
    whole = [tuple(run.actions) for run, _ in readings if not run.gaps and not run.narration]
    steps = {ln.start for run, _ in readings for ln in run.lines}
    partly = [run for run, _ in readings if run.gaps or run.narration]
    corrected = bool(partly) and bool(_corrects(rd, "\n".join(ln.norm for ln in lines if ln.start not in steps)))
    out = []
    for run, rule in readings:
        mergeable = not corrected
        if run.narration:  # sentences that say more than their steps may leave steps untold
            run = Run(run.actions, run.lines, run.gaps + [(i, 0, "", "") for i in range(len(run.actions) + 1)])
            mergeable = mergeable and not _corrects(rd, "\n".join(ln.norm for ln in run.lines))
        if run.gaps and mergeable and len(run.actions) >= sum(1 for gap in run.gaps if gap[1]) \
                and any(_aligns(run, plan) for plan in whole):
            continue
        if not run.complete:
            raise run.error()
        out.append((run, rule))
    return out


def _aligns(run, plan: tuple) -> bool:
    """Whether ``plan`` is ``run``'s actions with each gap filled by at least its least number of steps."""
    pattern: list = []
    for i in range(len(run.actions) + 1):
        pattern.extend(("gap", gap[1]) for gap in run.gaps if gap[0] == i)
        if i < len(run.actions):
            pattern.append(("act", run.actions[i]))
    memo: dict = {}

    def match(p: int, q: int) -> bool:
        if (p, q) not in memo:
            if p == len(pattern):
                memo[p, q] = q == len(plan)
            elif pattern[p][0] == "act":
                memo[p, q] = q < len(plan) and plan[q] == pattern[p][1] and match(p + 1, q + 1)
            else:
                memo[p, q] = any(match(p + 1, k) for k in range(q + pattern[p][1], len(plan) + 1))
        return memo[p, q]

    return match(0, 0)


def _step_withdrawals(rd, lines: list) -> tuple[list, set[int]]:
    """(the lines with those that only remove steps by number blanked, the numbers removed):
    "Remove step 3.", "Step 3 is unnecessary, skip it." (`withdrawals.removal_by_number`)."""
    out, numbers = [], set()
    for ln in lines:
        found = removal_by_number(re.sub(r"^[-*•+>]+\s*", "", ln.norm), rd.vocabulary) if ln.norm else None
        if found:
            numbers |= found
            ln = Line(ln.start, ln.end, ln.raw, "", ln.fence)
        out.append(ln)
    return out, numbers


def _without_steps(rd, rlines: list, numbers: set[int], bare: bool) -> list[str]:
    """The plan of ``rlines`` without the steps numbered ``numbers`` (by the lines' numbering, else
    by position); a number the plan has no step for is a ParseError."""
    steps = []  # (number, actions of that step)
    for ln in rlines:
        info = rd.read_line(ln, bare)
        if info.kind == "action" and not info.withdrawn:
            steps.extend([(info.number, info.actions)] if info.number is not None else [(None, [a]) for a in info.actions])
    if any(n is None for n, _ in steps):
        steps = [(k, acts) for k, (_, acts) in enumerate(steps, 1)]
    missing = numbers - {n for n, _ in steps}
    if missing:
        raise ParseError(f"the reply withdraws step {min(missing)}, which its plan does not have")
    return [a for n, acts in steps if n not in numbers for a in acts]


def _corrects(rd, text: str):
    """The words by which ``text`` corrects the plan: a withdrawal of a step, or another plan offered."""
    w = withdrawal(text, names=rd.vocabulary)
    if w is not None:
        return w.words
    for line in text.split("\n"):  # a verdict with no subject on its line is said of what precedes it
        w = withdrawal(re.sub(r"^[-*•+>\s]+", "", line), said_of_step=True, names=rd.vocabulary)
        if w is not None:
            return w.words
    m = ANOTHER_PLAN.search(text)
    return m.group(0) if m else None


def _without_commentary(rd, lines: list, bare: bool) -> list:
    """The lines without a commentary section that follows the plan's steps: from a commentary
    heading to the end, or to a line that introduces a plan again ("Plan:"). The steps above are the
    answer and the commentary restates or explains them (never a second plan, even where it cannot
    be read step for step). Commentary that corrects or withdraws anything is not set aside: it makes
    the answer unreadable (a `ParseError`), never a silent change of the plan. Commentary that judges
    something bad ("The plan above is **not a valid solution**", words of failure as between two
    attempts) is no restatement either: the answer is read as it stands, attempts and all (rule 11)."""
    for i, ln in enumerate(lines):
        if not WORDS.COMMENTARY.match(ln.norm.strip()) or _corrects(rd, ln.norm):
            continue
        above = [info for info in (rd.read_line(prev, bare) for prev in lines[:i] if prev.norm) if info.kind == "action"]
        if not above:
            return lines
        end = next((j for j in range(i + 1, len(lines))
                    if not lines[j].raw[:1].isspace() and WORDS.PLAN_LABEL.match(lines[j].norm.strip())), len(lines))
        numbers = [info.number for info in above if info.number is not None]
        if numbers and any(strip_number(x.norm)[0] == numbers[-1] + 1 and _reads_as_step(rd, x, bare)
                           for x in lines[i + 1:end]):
            return lines  # the numbered steps go on below the heading: it is no commentary on them
        rest = "\n".join(x.norm for x in lines[i + 1:end])
        hit = _corrects(rd, rest)
        if hit:
            raise ParseError(f"the commentary after the plan corrects or withdraws something ({hit!r})")
        if any(WORDS.FAILURE.search(x) for x in _sentences([rest]) if not x.endswith("?")):
            return lines  # it judges something bad ("the plan above is not valid"): read as it stands
        told, _ = _told(rd, lines[i + 1:end], bare)
        if told is None or not _in_order(told, [a for info in above for a in info.actions]):
            return lines  # it offers another step or an alternative: no commentary, read as it stands
        return lines[:i] + _without_commentary(rd, lines[end:], bare) if end < len(lines) else lines[:i]
    return lines


def _reads_as_step(rd, line, bare: bool) -> bool:
    try:
        return rd.read_line(line, bare).kind == "action"
    except ParseError:
        return False


def _comments_on(rd, lines: list, plan: tuple, bare: bool) -> bool:
    """Whether the text around one marked plan ([PLAN] ... [PLAN END], a code fence) is commentary on
    it: it corrects, withdraws or offers nothing else (`_corrects`: no withdrawal of a step, no
    alternative, no further step opened by "then"), the steps its lines read as are steps of the plan
    in its order, and it explains
    rather than lists (some line says more than its action, or reads as no action at all: a list of
    bare actions that differs from the plan is a second plan)."""
    text = "\n".join(ln.norm for ln in lines)
    if _corrects(rd, text):
        return False
    told, explains = _told(rd, lines, bare)
    return told is not None and explains and _in_order(told, plan)


def _told(rd, lines: list, bare: bool) -> tuple[list | None, bool]:
    """(the actions the lines of commentary read as, whether they explain rather than list: a line
    says more than its action or reads as no action); (None, _) when a line offers an alternative
    or a further step ("Then put it on it.", a step opened by "then" that reads as no action)."""
    told, explains = [], False
    for ln in lines:
        if not ln.norm:
            continue
        try:
            info = rd.read_line(ln, bare)
        except Alternatives:
            return None, False
        except ParseError:
            explains = True  # a line that cannot be read step for step
            continue
        if info.kind == "action":
            told.extend(info.actions)
            explains = explains or rd.full_action(strip_number(ln.norm)[1]) is None
        elif info.kind == "bad" and info.introduces and not info.marked:
            return None, False
        elif info.kind in ("bad", "mixed"):
            explains = True
    return told, explains


def _in_order(told: list, plan) -> bool:
    """Whether ``told`` is an ordered subsequence of ``plan`` (repeats counted)."""
    it = iter(plan)
    return all(a in it for a in told)


def _without_narration(readings: list) -> list:
    """The readings without narration around one marked plan: when the marked blocks ([PLAN] ...,
    code fences) read as one plan, a run outside them whose lines are neither numbered nor bulleted
    and whose steps are steps of that plan, in its order ("We then unstack the yellow block from the
    red block, as it is now clear"), restates it. A list, or a step the plan lacks, is a second plan."""
    marked = {tuple(acts) for acts, _, rule in readings if rule is not None}
    if len(marked) != 1:
        return readings
    (plan,) = marked

    def narration(acts, lines) -> bool:
        if any(strip_number(ln.norm)[1] != ln.norm for ln in lines):
            return False
        it = iter(plan)
        return all(a in it for a in acts)  # an ordered subsequence of the plan

    return [r for r in readings if r[2] is not None or not narration(r[0], r[1])]


def read_plan(task: Task, text: str, style: str, templates: str = "widthbench") -> Reading:
    """A plan: PDDL action texts in order, repeats kept ("none" is the empty plan)."""
    acts, span, rule = _read_sequence(task, text, style, templates)
    return Reading(acts, span, rule)


def read_action_list(task: Task, text: str, style: str, templates: str = "widthbench") -> Reading:
    """An action list: PDDL texts in order, repeats removed, like `api.parse_action_list`."""
    acts, span, rule = _read_sequence(task, text, style, templates)
    return Reading(list(dict.fromkeys(acts)), span, rule)


def read_single_action(task: Task, text: str, style: str, templates: str = "widthbench") -> Reading:
    """Exactly one action (the same action restated is one), like `api.parse_single_action`."""
    rd = task_reader(task, style, templates)
    try:
        acts, span, rule = _read_sequence(task, text, style, templates)
    except ParseError as exc:
        if str(exc) != "no actions found in the answer":
            raise
        return _mentioned_action(rd, text)
    distinct = list(dict.fromkeys(acts))
    if len(distinct) != 1:
        raise ParseError(f"expected one action, found {len(distinct)}: {', '.join(distinct) or 'none'}")
    return Reading(distinct[0], span, rule)


def _mentioned_action(rd: StepReader, text: str) -> Reading:
    """No line starts with an action: the one action the region mentions, if exactly one."""
    t, start, end, label = region(text, rd.states_problem)
    found: dict[str, tuple[int, int]] = {}
    for ln in region_lines(t, start, end):
        for part in layout.split_depth0(ln.norm, SEPARATORS):
            c = clean(part)
            for i in range(len(c)):
                if i and (c[i - 1].isalnum() or c[i - 1] in "_-"):
                    continue
                try:
                    r = rd.lead(c[i:])
                except ParseError:
                    r = None
                if r is None:
                    continue
                before = c[:i].strip()
                if re.search(r"\b(?:not|never|don't|dont|cannot|can't|avoid|or|either)$", before):
                    raise ParseError(f"a negated or alternative action: {c!r}")
                found.setdefault(pddl(*r[0][0]), (ln.start, ln.end))
    if len(found) != 1:
        raise ParseError("no actions found in the answer" if not found else
                         f"the answer mentions {len(found)} actions: {', '.join(found)}")
    (action, span), = found.items()
    return Reading(action, span, "mention")
