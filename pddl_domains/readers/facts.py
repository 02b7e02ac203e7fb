"""The state / fact reader: states and successor mappings, both policies.

Strict: `split_mapping_blocks` cuts a successor-mapping answer into "Action:" / "Resulting state:"
blocks (the facts themselves are read by the renderer's `parse_state`).

Flexible (docs/subtasks.md, "Flexible reader"): a state is the fact lines of the answer region (or of
its one marked block); "Resulting state:" labels the state as "Answer:" does. A bulleted line, or one
between fact lines, that names objects but reads as no fact is an error (it would drop a fact
silently); facts said to be false are checked against the facts said to be true, then dropped; a fact
and its negation, or two different states, are parse errors.
"""

from __future__ import annotations

import re

from widthbench.core.errors import ParseError
from widthbench.pddl_domains.readers import Ambiguous, Reading, layout, phrases
from widthbench.pddl_domains.readers.grammar import FORM, SEPARATORS, clean, pddl
from widthbench.pddl_domains.readers.reply import (MARK, Line, find_blocks, located, region, region_lines,
                                                   span_of, strip_number)
from widthbench.pddl_domains.readers.plans import read_single_action
from widthbench.pddl_domains.readers.steps import StepReader, task_reader
from widthbench.planners.strips import Task

__all__ = ["read_state", "read_successor_mapping", "split_mapping_blocks"]

#: This module's words of English: its section of phrases.txt.
WORDS = phrases.section("facts")

# ---------------------------------------------------------------------------------------------
# States and successor mappings


def _state_of_lines(rd: StepReader, lines: list[Line]) -> tuple[int, list[Line]] | None:
    """The state the fact lines of ``lines`` state; None when no line states a fact."""
    runs: list[tuple[list, list]] = []
    cur = None
    brk = False
    read = []  # (line, facts | None, marked, unread mention)
    for ln in lines:
        s = ln.norm
        if not s or MARK.match(s):
            continue
        before = s
        _, s = strip_number(s)
        if rd.style == "pddl" or not rd.nl:
            facts, mention = _pddl_facts(rd, s), None
        else:
            facts, mention = _nl_facts(rd, s)
        read.append((ln, s, facts, s != before, mention))
    for i, (ln, s, facts, marked, mention) in enumerate(read):
        if facts is None:
            # A bulleted line, or one between fact lines, that names objects but reads as no fact
            # would silently drop a fact ("- The blue block becomes clear."): an error.
            between = 0 < i < len(read) - 1 and read[i - 1][2] is not None and read[i + 1][2] is not None
            if mention and (marked or between) and not s.endswith(":"):
                raise ParseError(f"cannot read {mention!r} as a fact of this task")
            if s.endswith(":") or ln.raw.lstrip().startswith("#"):
                brk = cur is not None
            continue
        if cur is None or brk:
            cur = ([], [])
            runs.append(cur)
            brk = False
        cur[0].extend(facts)
        cur[1].append(ln)
    if not runs:
        return None
    states = []
    for facts, rlines in runs:
        states.append((_state_from(rd, facts), rlines))
    distinct = list(dict.fromkeys(s for s, _ in states))
    if len(distinct) > 1:
        seen = {}
        for state, rlines in states:
            seen.setdefault(state, Reading(state, span_of(rlines), "fact-lines"))
        raise Ambiguous("two different states in one reply", seen.values())
    return states[0]


def _nl_facts(rd: StepReader, s: str) -> tuple[list | None, str | None]:
    """(facts of the line or None, the first clause that names an object but reads as no fact)."""
    m = re.match(r"^([^:()\[\]]{1,60}):(?:\s+(.*)|\s*)$", s)
    if m and len(m.group(1).split()) <= 6 and rd.fact_clause(clean(m.group(1))) in (None, "mention"):
        if not m.group(2):
            return None, None
        s = m.group(2)
    facts, mentions = [], []
    s = WORDS.BOTH.sub(r"\1 is \3, \2 is \3", s)  # "both the red block and the blue block are on the table"
    s = re.sub(r"\(([^()]*)\)", lambda mm: mm.group(0) if rd.fact_clause(clean(mm.group(1))) not in (None, "mention")
               else " ", s)
    for part in layout.split_depth0(s, SEPARATORS):
        c = clean(layout.strip_lead_in(clean(part)) or clean(part))
        if not c or layout.WORDS.FILLER.match(c):
            continue
        r = rd.fact_clause(c)
        whole = layout.clean_clause(part, connectives=False)
        if r in (None, "mention") and whole != c:  # "next a b": the connective is a name of this vocabulary
            r = _or(rd.fact_clause(layout.clean_clause(layout.strip_lead_in(whole) or whole, connectives=False)), r)
        if r is None:
            continue
        if r == "mention":
            if not WORDS.PROSE_NEGATION.search(c):  # a negated clause states no true fact: nothing to read
                mentions.append(c)
            continue
        facts.append(r)
    if not facts:
        return None, (mentions[0] if mentions else None)
    if mentions:
        raise ParseError(f"cannot read {mentions[0]!r} as a fact of this task")
    return facts, None


def _or(read, otherwise):
    return read if read not in (None, "mention") else otherwise


def _pddl_facts(rd: StepReader, s: str) -> list | None:
    facts = []
    rest = s
    for m in WORDS.NOT_FORM.finditer(s):
        if m.group(1) in rd.arity_atom:
            facts.append((True, pddl(m.group(1), m.group(2).split())))
    rest = WORDS.NOT_FORM.sub(" ", s)
    for m in FORM.finditer(rest):
        name, args = m.group(1), tuple(m.group(2).split())
        if name in rd.arity_atom:
            if len(args) != rd.arity_atom[name] or any(a not in rd.objects for a in args):
                raise ParseError(f"cannot read {m.group(0)!r} as a fact of this task")
            facts.append((False, pddl(name, args)))
    if not facts:
        return None
    prose = FORM.sub(" ", rest)
    if WORDS.PROSE_NEGATION.search(prose):
        raise ParseError(f"a fact negated in words: {s!r}")
    return facts


def _state_from(rd: StepReader, facts: list) -> int:
    positive = {a for neg, a in facts if not neg}
    negative = {a for neg, a in facts if neg}
    both = positive & negative
    if both:
        raise ParseError(f"the answer says both {sorted(both)[0]} and its negation")
    s = 0
    task = rd.task
    static_preds = task.domain.static_predicates
    for a in positive:
        i = task.atom_index.get(a)
        if i is not None:
            s |= 1 << i
        elif a[1:].split()[0].rstrip(")") not in static_preds:
            raise ParseError(f"{a} can never hold in task {task.problem_name}")
    return s


def read_state(task: Task, text: str, style: str, templates: str = "widthbench") -> Reading:
    """A state bitmask, like `api.parse_successor`; facts said to be false are checked, then dropped."""
    rd = task_reader(task, style, templates)
    t, start, end, label = region(text, rd.states_problem)
    lines = region_lines(t, start, end)
    # "Resulting state:" (final, new, next, successor) labels the state as "Answer:" does; what
    # comes before it (the effects of the action, the old state) is not the answer.
    labelled = [i for i, ln in enumerate(lines) if WORDS.STATE_LABEL.match(strip_number(ln.norm)[1])]
    if labelled:
        i = labelled[-1]
        rest = WORDS.STATE_LABEL.sub("", strip_number(lines[i].norm)[1], count=1).strip()
        if rest or any(ln.norm for ln in lines[i + 1:]):
            head = lines[i]
            colon = max(head.raw.find(":"), 0)
            first = [Line(head.start + colon + 1, head.end, head.raw[colon + 1:], rest, False)] if rest else []
            lines, label = first + lines[i + 1:], True
    if layout.is_empty_answer("\n".join(ln.norm for ln in lines).strip()):
        return Reading(0, span_of(lines), "answer-label" if label else "whole-reply")
    found = []
    for rule, blines in find_blocks(lines):
        got = _state_of_lines(rd, blines)
        if got is not None:
            found.append((got, rule))
    if not found:
        got = _state_of_lines(rd, lines)
        if got is None:
            raise ParseError("no facts found in the answer")
        used = [ln for ln in lines if ln.norm]
        found.append((got, located(label, None, len(got[1]) == len(used))))
    if len({g[0] for g, _ in found}) > 1:
        seen = {}
        for (state, rlines), rule in found:
            seen.setdefault(state, Reading(state, span_of(rlines), rule if rule != "action-lines" else "fact-lines"))
        raise Ambiguous("two different states in one reply", seen.values())
    (state, rlines), rule = found[0]
    return Reading(state, span_of(rlines), rule if rule != "action-lines" else "fact-lines")


def read_successor_mapping(task: Task, text: str, style: str, actions, templates: str = "widthbench") -> Reading:
    """PDDL action text -> state for every "Action:" block, like `api.parse_successor_mapping`."""
    rd = task_reader(task, style, templates)
    t, start, end, label = region(text, rd.states_problem)
    lines = region_lines(t, start, end)
    first = next((i for i, ln in enumerate(lines)
                  if re.match(r"^(?:[-*•+>#]+\s*|\(?\d+[.)]\s*)*action(?:\s*\d+)?\s*[:.)\-]", ln.norm)), None)
    if first is None:
        raise ParseError("no 'Action:' block in the answer")
    section = t[lines[first].start:end]
    found: dict[str, int] = {}
    for action_text, state_text in split_mapping_blocks(section):
        try:
            a = read_single_action(task, action_text, style, templates).value
        except ParseError as exc:
            raise ParseError(f"action {action_text!r}: {exc}") from None
        if a in found:
            raise ParseError(f"action {a} is mapped twice")
        got = _state_of_lines(rd, region_lines(state_text, 0, len(state_text)))
        if got is None:
            if layout.is_empty_answer(layout.normalise(state_text).strip()):
                got = (0, [])
            else:
                raise ParseError(f"state after {a}: no facts found")
        found[a] = got[0]
    given = [str(x) for x in actions]
    ordered = {a: found[a] for a in given if a in found}
    ordered.update({a: s for a, s in found.items() if a not in ordered})
    return Reading(ordered, (lines[first].start, span_of(lines)[1]), "answer-label" if label else "action-blocks")


# ---------------------------------------------------------------------------------------------
# Strict: successor mappings as blocks "Action: ..." / "Resulting state:" / facts


def split_mapping_blocks(section: str) -> list[tuple[str, str]]:
    """[(action text, state text)] of a successor-mapping answer section, in order."""
    blocks: list[list] = []
    expect_action = False
    for raw in layout.normalise(section).split("\n"):
        line = raw.strip()
        bare = WORDS.LEAD.sub("", line, count=1).strip() if line else line
        m = WORDS.ACTION_LINE.match(bare)
        if m:
            blocks.append([m.group(1).strip(), []])
            expect_action = not m.group(1).strip()
            continue
        if not blocks:
            if line:
                raise ParseError(f"text before the first 'Action:' line: {line[:60]!r}")
            continue
        if expect_action and line:
            blocks[-1][0] = line
            expect_action = False
            continue
        s = WORDS.STATE_LINE.match(bare)
        if s:
            if s.group(1).strip():
                blocks[-1][1].append(s.group(1).strip())
            continue
        if line:
            blocks[-1][1].append(line)
    if not blocks:
        raise ParseError("no 'Action:' block in the answer")
    out = []
    for action, lines in blocks:
        if not action:
            raise ParseError("an 'Action:' line without an action")
        if not lines:
            raise ParseError(f"no resulting state after action {action!r}")
        out.append((action, "\n".join(lines)))
    return out