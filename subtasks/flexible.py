"""The flexible reader: finds the answer inside a real reply, without guessing.

The strict reader (`widthbench.subtasks.api`, `widthbench.subtasks.parse`) measures format
compliance: it reads an answer written as the prompt asked. This reader reads the same answers the
way a person would, and returns exactly what the strict reader returns for that kind (PDDL action
texts, a state bitmask, a dict, a bool, an int) together with where it found the answer
(``Reading.span``, offsets into the raw reply) and which rule located it (``Reading.rule``).
The rules (docs/subtasks.md, "Flexible reader"):

1. The reply is the text after the last ``</think>``; a reply that opens ``<think>`` and never closes
   it holds no answer; a reply that goes on to pose a new problem (``[STATEMENT]``) ends there. The
   answer region is what follows the last ``Answer:`` label (markdown allowed: ``**Answer:**``,
   ``### Final answer``, ``Final plan:``; states also ``Resulting state:``), otherwise the whole reply.
2. Inside the region, blocks marked ``[PLAN]`` ... ``[PLAN END]`` (any ``[X]`` / ``[X END]``, ``_END``,
   a closing marker alone closes what precedes it) or code fences hold the answer when one of them
   reads; otherwise the lines that read as actions (facts for states) do.
3. A line reads as actions when its first clause, after numbering (``1.``, ``1)``, ``Step 1:``),
   bullets, markdown, a connective ("then", "first") and a lead-in ("we need to", "the next action
   is to") starts with an action: a template of the task's template set, a paraphrase from
   ``pddl_domains/<domain>.paraphrases.toml``, a PDDL form in any case and spacing, or (PDDL prompts)
   the action's name followed by its objects with small words between ("FLY-AIRPLANE a0 from l1-0 to
   l0-0"). What follows the action on its line is explanation, unless it starts another action (a
   one-line sequence ``(a x) (b y)`` or "unstack a from b, then put a down"). Other lines are prose;
   in a PDDL answer with bracketed actions, sentences in words are prose too.
4. A bold or labelled step title ("**Unstack yellow from red**: Unstack the yellow block from the
   red block.") must name the same action as its text; an aside in brackets that reads as an action
   must name the action of its step.
5. Never a guess, always a ``ParseError`` with the reason: two different plans (runs of action lines
   that a heading, an introducing line ending in ":" or restarted numbering separates, or two marked
   blocks) -- the same plan restated is one reading; "pick up a or b"; a negated action ("do not
   unstack a"); a line next to steps or numbered that starts with an action verb but reads as no
   action ("put it down"), or that holds a step after prose ("2. To be safe, put down a."); a
   paraphrase whose left-out argument fits several ground actions; a title or aside naming another
   action; a fact and its negation; two different states, verdicts or numbers.

Paraphrases are data (``*.paraphrases.toml``), never code; the strict templates are always included.
"""

from __future__ import annotations

import functools
import re
import tomllib
from dataclasses import dataclass, field
from typing import Any

from widthbench.errors import ParseError
from widthbench.pddl_domains import nl_parse
from widthbench.pddl_domains import render as _render
from widthbench.pddl_domains.render import TEMPLATE_DIR, Renderer
from widthbench.planners.strips import Task
from widthbench.subtasks import parse as _strict

__all__ = ["Reading", "read_action_list", "read_single_action", "read_plan", "read_state",
           "read_successor_mapping", "read_verdict", "read_novelty", "read_yes_no", "read_integer"]


@dataclass(frozen=True, slots=True)
class Reading:
    """What the flexible reader read: ``value`` is what the strict parser returns for that kind."""

    value: Any
    span: tuple[int, int]  # character offsets of the answer span inside the raw reply text
    rule: str  # "answer-label", "plan-block", "code-fence", "action-lines", "whole-reply", ...


# ---------------------------------------------------------------------------------------------
# Text: region, lines, blocks

_LABEL = re.compile(r"(?im)^[ \t>*#_`\-]*(?:my\s+|the\s+|our\s+)?(?:(?:final\s+)?answer|final\s+(?:plan|solution))"
                    r"[ \t*_`]*(?:is)?[ \t*_`]*"
                    r"(?::|(?=[ \t*_`]*$))[*_`]*")
#: A line that opens a new problem (a completion model continuing a few-shot prompt): like the stop
#: sequences of lm-evaluation-harness, the answer ends before it.
_NEW_PROBLEM = re.compile(r"(?im)^[ \t]*\[\s*(?:statement|question|problem|query|instance)\s*\][ \t]*$")
_MARK = re.compile(r"^\[\s*([a-z][a-z _\-]*?)\s*\]$")
_MARK_END = re.compile(r"[ _\-]?end$")
_NUMBER = re.compile(r"^(?:(?:step|action|move)\s*(\d+)\s*[:.)\-]?|\(?(\d+)\s*(?:[.):]|-(?=\s|\())|[-*•+>#]+)(?:\s+|$|(?=\())")
_WRAPPER = re.compile(r"^\(\s*:?(?:plan|solution|actions)?\s*(?=\(|$)")
# "and"/"then" as words, never inside a hyphenated name (pickup-and-loose)
_SEPARATORS = re.compile(r",|;|:(?=\s|$)|\.(?=\s|$)|" + nl_parse.SEPARATOR_WORDS + r"|\s-\s")
_NEGATION = re.compile(r"^(?:(?:i|we|you)\s+)?(?:do\s+not|don't|dont|never|should\s+not|shouldn't|must\s+not|"
                       r"mustn't|cannot|can't|can\s+not|will\s+not|won't|need\s+not|avoid|no\s+need\s+to|not)"
                       r"\s+(?:to\s+)?(?:ever\s+)?")
_EITHER = re.compile(r"^either\s+")
_INTRO_WORDS = re.compile(r"\b(?:plan|solution|sequence|summary|answer|pddl|syntax|result|steps|actions|short)\b")
_STEP_CONNECTIVE = re.compile(r"^(?:then|next|finally|lastly|after\s+that|afterwards|and\s+then|and)\b")
_ALT_MARKER = re.compile(r"^(?:alternatively|or|instead|otherwise|another\s+(?:option|possibility|plan|way|solution)"
                         r"(?:\s+(?:is|would\s+be))?)\b")
_ALTERNATIVE = re.compile(r"^(?:or|nor|or\s+else)\b")
_LEAD_IN = re.compile(
    r"^(?:(?:so|now|next|then|first|firstly|second|secondly|finally|lastly|after\s+that|afterwards|"
    r"subsequently)\s*,?\s+)*"
    r"(?:(?:i|we|you)\s+(?:would|will|should|must|shall|need\s+to|have\s+to|want\s+to|then|now|can\s+now)\s+"
    r"(?:first\s+|then\s+|now\s+|next\s+|also\s+)?"
    r"|let's\s+|let\s+us\s+"
    r"|(?:the\s+|my\s+)?(?:best\s+|correct\s+|optimal\s+|only\s+|right\s+)?(?:next\s+|first\s+|final\s+)?"
    r"(?:action|move|step)\s+(?:is|would\s+be|should\s+be|will\s+be)\s*:?\s+(?:to\s+)?)"
)
_RESTATE = re.compile(r"^(?:i\.?\s?e\.?|e\.?\s?g\.?|that\s+is|namely|in\s+other\s+words|=)\s*,?\s*")
_STATE_LABEL = re.compile(r"^(?:the\s+|my\s+)?(?:resulting|final|new|next|successor)\s+state"
                          r"(?:\s+(?:is|would\s+be|will\s+be|becomes))?(?:\s+after[^:]{0,80})?\s*:")
_ADVERBS = re.compile(r"\b(?:now|still|also|currently|then)\s+")
_NEG_FACT = re.compile(r"\b(is|are)\s+(?:not|no\s+longer)\s+")
_FORM = re.compile(r"\(\s*([a-z_][\w\-]*)((?:\s+[^\s()]+)*)\s*\)")
_FUNCTIONAL = re.compile(r"([a-z_][\w\-]*)\(\s*([^()]*?)\s*\)")  # unstack(a, b)
_NOT_FORM = re.compile(r"\(\s*not\s*\(\s*([a-z_][\w\-]*)((?:\s+[^\s()]+)*)\s*\)\s*\)")
_TOKEN = re.compile(r"\s*([^\s(),;:]+)")
#: Small words allowed between a PDDL action name and its objects ("LOAD-AIRPLANE p0 on a0 at l1-0").
PDDL_FILLERS = frozenset({"on", "onto", "from", "to", "at", "in", "into", "off", "of", "the", "a", "top",
                          "block", "with", "using", "via", "by", "out"})
_PROSE_NEGATION = re.compile(r"\b(?:not|no\s+longer|false|isn't|aren't)\b")


@dataclass(frozen=True, slots=True)
class _Line:
    start: int
    end: int
    raw: str
    norm: str
    fence: bool


def _region(text: str | None) -> tuple[str, int, int, bool]:
    """(reply text, start, end, label?) of the answer region (rule 1)."""
    t = text or ""
    low = t.lower()
    start = 0
    k = low.rfind("</think>")
    if k >= 0:
        start = k + len("</think>")
    elif "<think>" in low:
        raise ParseError("the reply ends inside its thinking (<think> without </think>): no answer after it")
    if not t[start:].strip():
        raise ParseError("empty answer" + (" after the thinking" if k >= 0 else ""))
    end = len(t)
    for m in _NEW_PROBLEM.finditer(t, start):
        if t[start:m.start()].strip():
            end = m.start()  # the reply goes on to pose a new problem: the answer ends here
            break
    last = None
    for m in _LABEL.finditer(t[start:end]):
        last = m
    if last is not None:
        if not t[start + last.end():end].strip():
            raise ParseError("nothing after the last 'Answer:' label")
        return t, start + last.end(), end, True
    return t, start, end, False


def _lines(text: str, start: int, end: int) -> list[_Line]:
    out, pos = [], start
    for raw in text[start:end].split("\n"):
        out.append(_Line(pos, pos + len(raw), raw, nl_parse.normalise(raw).strip(),
                         raw.strip().startswith(("```", "~~~"))))
        pos += len(raw) + 1
    return out


def _blocks(lines: list[_Line]) -> list[tuple[str, list[_Line]]]:
    """Marked blocks and code fences of the region, in order (rule 2)."""
    blocks: list[tuple[str, list[_Line]]] = []
    open_kind, open_at, last_close = None, -1, -1
    for i, ln in enumerate(lines):
        if ln.fence:
            if open_kind == "fence":
                blocks.append(("code-fence", lines[open_at + 1:i]))
                open_kind, last_close = None, i
            elif open_kind is None:
                open_kind, open_at = "fence", i
            continue
        if open_kind == "fence":
            continue
        m = _MARK.match(ln.norm)
        if not m:
            continue
        if _MARK_END.search(m.group(1)):
            first = open_at + 1 if open_kind == "tag" else last_close + 1
            blocks.append(("plan-block", lines[first:i]))
            open_kind, last_close = None, i
        else:
            if open_kind == "tag":
                blocks.append(("plan-block", lines[open_at + 1:i]))
            open_kind, open_at = "tag", i
    if open_kind is not None:
        blocks.append(("code-fence" if open_kind == "fence" else "plan-block", lines[open_at + 1:]))
    return [(k, b) for k, b in blocks if any(x.norm for x in b)]


def _outside(lines: list[_Line], blocks) -> list[_Line]:
    """The lines of the region outside every block (markers and fences excluded)."""
    inside = {ln.start for _, b in blocks for ln in b}
    return [ln for ln in lines if ln.start not in inside and not ln.fence and not _MARK.match(ln.norm)]


def _strip_number(s: str) -> tuple[int | None, str]:
    number = None
    while True:
        m = _NUMBER.match(s)
        if not m or m.end() == 0:
            return number, s
        if number is None and (m.group(1) or m.group(2)):
            number = int(m.group(1) or m.group(2))
        s = s[m.end():].strip()


def _clean(part: str) -> str:
    return nl_parse.clean_clause(part)


def _pddl(name: str, args) -> str:
    return "(" + " ".join((name, *args)) + ")"


def _span(lines: list[_Line]) -> tuple[int, int]:
    used = [ln for ln in lines if ln.norm]
    if not used:
        return (lines[0].start, lines[0].start) if lines else (0, 0)
    return used[0].start, used[-1].end


# ---------------------------------------------------------------------------------------------
# Paraphrase data


@functools.lru_cache(maxsize=16)
def _paraphrase_tables(domain_key: str, templates: str) -> tuple[dict, dict]:
    """(actions, predicates) paraphrase tables for a template file's ``domain`` and one template set."""
    actions: dict[str, list[str]] = {}
    predicates: dict[str, list[str]] = {}
    for path in sorted(TEMPLATE_DIR.glob("*.paraphrases.toml")):
        with open(path, "rb") as f:
            data = tomllib.load(f)
        if data.get("domain") != domain_key:
            continue
        for section in ("common", templates):
            for table, out in (("actions", actions), ("predicates", predicates)):
                for key, value in data.get(section, {}).get(table, {}).items():
                    ts = [value] if isinstance(value, str) else list(value)
                    for t in ts:
                        if re.search(r"[,;.]|" + nl_parse.SEPARATOR_WORDS, t.lower()):
                            raise ValueError(f"{path}: {key}: {t!r} contains a clause separator")
                    out.setdefault(key.lower(), []).extend(" ".join(t.lower().split()) for t in ts)
    return actions, predicates


@functools.lru_cache(maxsize=32)
def _template_domain(path: str) -> str | None:
    if path.startswith("<generated:"):  # templates generated from a domain's names (render.py)
        return None
    with open(path, "rb") as f:
        return tomllib.load(f).get("domain")


# ---------------------------------------------------------------------------------------------
# The per-task reader


@dataclass(frozen=True, slots=True)
class _Matcher:
    kind: str  # "action" | "atom"
    name: str
    arity: int
    slots: tuple[int, ...]
    lead: re.Pattern
    find: re.Pattern


class _Unreadable(ParseError):
    """A line that starts with an action verb but reads as no action ("Put it down.")."""


@dataclass(slots=True)
class _LineRead:
    kind: str  # "blank" | "neutral" | "action" | "prose" | "intro" | "mixed" | "bad"
    actions: list = field(default_factory=list)
    number: int | None = None
    title: str | None = None  # a line that is only a (bold) step title naming this action
    marked: bool = False  # the line starts with a bullet or a number
    error: str = ""  # "bad": why the line does not read
    introduces: bool = False  # "So the plan is: ..." starts a new run; "bad": "Then ..." is a step
    indented: bool = False


class _Reader:
    """Everything the flexible reader knows about one task in one style and template set."""

    def __init__(self, task: Task, style: str, templates: str):
        self.task = task
        self.style = style
        self.r = Renderer(task, style, templates)
        dom = task.domain
        self.objects = frozenset(o for o, _ in task.objects)
        self.static = frozenset(task.static_atoms)
        self.arity_action = {s.name: len(s.params) for s in dom.schemas}
        self.arity_atom = dict(dom.predicates)
        self.by_name: dict[str, list] = {}
        for a in task.actions:
            self.by_name.setdefault(a.name, []).append(a)
        self.nl = style == "nl" and not self.r.generic
        # Object names as the renderer reads them, and with spaces for underscores ("package 0",
        # "location 1 0") when that names no other object.
        self.object_by_name = dict(self.r._objects_by_name)
        for name, obj in list(self.object_by_name.items()):
            spaced = name.replace("_", " ")
            if spaced != name and spaced not in self.object_by_name:
                self.object_by_name[spaced] = obj
        self.matchers: tuple[_Matcher, ...] = self._build_matchers(templates) if self.nl else ()
        variants = {}
        for name in self.arity_action:
            for v in (name, name.replace("-", " "), name.replace("-", "_"), name.replace("-", "")):
                variants.setdefault(v, name)
        self.bare_names = sorted(variants.items(), key=lambda kv: -len(kv[0]))
        # PDDL names spelled without their hyphens or underscores (pickup, put_down), when that
        # spelling belongs to one name only.
        self.spellings = {}
        for kind, names in (("action", self.arity_action), ("atom", self.arity_atom)):
            by: dict[str, set] = {}
            for n in names:
                by.setdefault(_squash(n), set()).add(n)
            self.spellings[kind] = {k: next(iter(v)) for k, v in by.items() if len(v) == 1}
        # Words that start a step. In PDDL notation a sentence in words is prose, not a step.
        self.verbs = frozenset(self._verbs() if self.nl else (v for v in variants if " " not in v))

    def _build_matchers(self, templates: str) -> tuple[_Matcher, ...]:
        ts = self.r.template_set
        names = sorted(self.object_by_name, key=lambda n: (-len(n), n))
        alt = "|".join(re.escape(n) for n in names) or "(?!)"
        extra_actions, extra_atoms = _paraphrase_tables(_template_domain(ts.path) or "", templates)
        out, seen = [], set()
        for kind, table, extra, arities in (("action", ts.actions, extra_actions, self.arity_action),
                                            ("atom", ts.predicates, extra_atoms, self.arity_atom)):
            for name, arity in arities.items():
                for t in list(table.get(name, ())) + extra.get(name, []):
                    if not t or (kind, name, t) in seen:
                        continue
                    seen.add((kind, name, t))
                    slots = tuple(sorted(int(x) for x in re.findall(r"\{(\d+)\}", t)))
                    if any(s >= arity for s in slots) or len(set(slots)) != len(slots):
                        continue
                    if kind == "atom" and len(slots) != arity:
                        continue
                    body = _render._compile(t, alt)
                    out.append(_Matcher(kind, name, arity, slots, re.compile(body + r"(?![\w'])"),
                                        re.compile(r"(?<![\w'])" + body + r"(?![\w'])")))
        return tuple(out)

    def _verbs(self):
        for name in self.arity_action:
            yield name
            yield name.split("-")[0]
        for m in self.matchers:
            if m.kind == "action":
                yield m.lead.pattern.split(" ")[0].replace("\\", "")

    # ---------------------------------------------------------------- candidates

    def _resolve(self, kind: str, name: str, arity: int, given: dict[int, str]) -> list[tuple]:
        if len(given) == arity:
            return [(name, tuple(given[i] for i in range(arity)))]
        if kind != "action":
            return []
        return [(a.name, a.args) for a in self.by_name.get(name, ())
                if all(a.args[i] == x for i, x in given.items())]

    def _known(self, kind: str, cand) -> bool:
        text = _pddl(*cand)
        if kind == "action":
            return text in self.task.action_index
        return text in self.task.atom_index or text in self.static

    def _choose(self, kind: str, cands: list) -> list:
        cands = list(dict.fromkeys(cands))
        if len(cands) <= 1:
            return cands
        known = [c for c in cands if self._known(kind, c)]
        if len(known) == 1:
            return known
        if not known:
            fitting = [c for c in cands if self.r._fits(c, kind)]
            if len(fitting) == 1:
                return fitting
        return cands

    # ---------------------------------------------------------------- leading action / fact

    def lead(self, clause: str, kind: str = "action", bare: bool = True) -> tuple[list, int] | None:
        """The action (fact) that ``clause`` starts with: (candidates, end) or None.

        Raises ParseError when the clause starts with a PDDL action form that names no action of
        the task (wrong arity, unknown object).
        """
        m = _FORM.match(clause) or _FUNCTIONAL.match(clause)
        if m:
            name, args = m.group(1), tuple(m.group(2).replace(",", " ").split())
            arities = self.arity_action if kind == "action" else self.arity_atom
            name = self.spellings[kind].get(_squash(name), name)  # (pickup a) for (pick-up a)
            if name in arities:
                if len(args) != arities[name]:
                    raise ParseError(f"{name} takes {arities[name]} argument(s), got {len(args)} in {m.group(0)!r}")
                bad = [a for a in args if a not in self.objects]
                if bad:
                    raise ParseError(f"unknown object {bad[0]!r} in {m.group(0)!r}")
                return [(name, args)], m.end()
        best_end, cands = -1, []
        for mt in self.matchers:
            if mt.kind != kind:
                continue
            mm = mt.lead.match(clause)
            if not mm or mm.end() < best_end:
                continue
            given = {i: self.object_by_name[mm.group(f"s{i}")] for i in mt.slots}
            found = self._resolve(kind, mt.name, mt.arity, given)
            if mm.end() > best_end:
                best_end, cands = mm.end(), []
            cands.extend(found if found else [("?", (mt.name, tuple(given.items())))])
        if best_end >= 0:
            real = [c for c in cands if c[0] != "?"]
            if not real:
                name = cands[0][1][0]
                raise ParseError(f"{clause[:best_end]!r} names no {name} action of this task")
            chosen = self._choose(kind, real)
            if len(chosen) > 1:
                shown = " or ".join(_pddl(*c) for c in chosen)
                raise ParseError(f"{clause[:best_end]!r} is ambiguous: it reads as {shown}")
            return chosen, best_end
        if self.style == "pddl" and kind == "action" and bare:
            return self._bare(clause)
        return None

    def _bare(self, clause: str) -> tuple[list, int] | None:
        """A PDDL action name followed by its objects, small words between; None if the clause does
        not start with an action name; ParseError if it starts with one written as in PDDL
        ("load-airplane") but its objects do not follow."""
        for variant, name in self.bare_names:
            if not clause.startswith(variant):
                continue
            after = clause[len(variant):len(variant) + 1]
            if after and (after.isalnum() or after in "-_"):
                continue
            arity, pos, args, fillers = self.arity_action[name], len(variant), [], 0
            while len(args) < arity:
                m = _TOKEN.match(clause, pos)
                if not m:
                    break
                tok = m.group(1).rstrip(".")
                if tok in self.objects:
                    args.append(tok)
                    fillers = 0
                elif tok in PDDL_FILLERS and fillers < 3:
                    fillers += 1
                else:
                    break
                pos = m.end()
            if len(args) == arity:
                return [(name, tuple(args))], pos
            if variant != name and "-" in name:
                return None  # "fly airplane a0 from airport l1-0": words, not PDDL
            raise ParseError(f"cannot read {clause!r}: {name} takes {arity} object(s) of this task")
        return None

    def starts_with_verb(self, clause: str) -> bool:
        first = re.split(r"[\s(]", clause.strip(), maxsplit=1)[0] if clause.strip() else ""
        return first in self.verbs

    def full_action(self, text: str) -> str | None:
        """The action ``text`` is exactly (nothing but the action), else None."""
        c = _clean(text)
        if not c:
            return None
        r = self.lead(_strip_lead_in(c))
        if r and _strip_lead_in(c)[r[1]:].strip(" .!") == "":
            return _pddl(*r[0][0])
        return None

    # ---------------------------------------------------------------- steps of one line

    def steps(self, s: str, bare: bool = True) -> list[str]:
        """The actions of one line's text (numbering already removed); [] when it is not a step line.

        ``bare=False`` (a PDDL answer that writes its actions in brackets): words are prose."""
        if self.style == "pddl":
            s = s.split(";", 1)[0].strip()  # a PDDL comment
        out: list[str] = []
        content = False
        for part in nl_parse.split_depth0(s, _SEPARATORS):
            c = _clean(part)
            if not c:
                continue
            first = not content
            content = True
            neg = _NEGATION.match(c)
            if neg and self._lead_safe(c[neg.end():]):
                raise ParseError(f"a negated action: {c!r}")
            either = _EITHER.match(c)
            if either and self._lead_safe(c[either.end():]):
                raise ParseError(f"alternative actions: {c!r}")
            if out and _ALTERNATIVE.match(c):
                raise ParseError(f"alternative actions: {out[-1]}, {c!r}")
            body = _strip_lead_in(c)
            r = self.lead(body, bare=bare)
            words_are_prose = self.style == "pddl" and not bare
            if r is None:
                if first:
                    if self.starts_with_verb(c) and not words_are_prose:
                        raise _Unreadable(f"cannot read the step {c!r}: it reads as no action of this task")
                    return []
                if self.starts_with_verb(c) and not _FORM.match(c) and not words_are_prose:
                    raise ParseError(f"cannot read the step {c!r}: it reads as no action of this task")
                self._check_asides(c, out)
                continue
            (cand,), end = r
            out.append(_pddl(*cand))
            rest = body[end:].strip()
            while rest:
                if _ALTERNATIVE.match(rest):
                    raise ParseError(f"alternative actions: {c!r}")
                r2 = self.lead(rest, bare=bare) if rest.startswith("(") or self.style == "pddl" else None
                if r2 is None:
                    break
                (cand2,), end2 = r2
                out.append(_pddl(*cand2))
                rest = rest[end2:].strip()
            self._check_asides(rest, out)
        return out

    def _lead_safe(self, text: str, bare: bool = True):
        try:
            return self.lead(_strip_lead_in(_clean(text)), bare=bare)
        except ParseError:
            return None

    def _check_asides(self, text: str, read: list[str]) -> None:
        if not self.nl or not read:
            return
        for m in re.finditer(r"\(([^()]*)\)", text):
            other = self.full_action(_RESTATE.sub("", m.group(1).strip()))
            if other is not None and other != read[-1]:
                raise ParseError(f"the aside ({m.group(1)}) names {other}, but the step reads {read[-1]}")

    def read_line(self, ln: _Line, bare: bool = True) -> _LineRead:
        s = ln.norm
        if not s:
            return _LineRead("blank")
        if _MARK.match(s) or ln.fence:
            return _LineRead("neutral")
        if s.startswith("|"):  # a markdown table row: | 1 | unstack the red block ... | why |
            cells = [c.strip() for c in s.strip("|").split("|")]
            if all(re.fullmatch(r":?-*:?", c) for c in cells):
                return _LineRead("neutral")
            s = ". ".join(c for c in cells if c)
        s = re.sub(r'[\[\]{}"]', " ", s).strip()  # JSON or list punctuation: ["(a x)", "(b y)"]
        introduces = False
        before = s
        number, s = _strip_number(s)
        marked = s != before
        s = _WRAPPER.sub("", s).strip()
        while s.endswith(")") and s.count(")") > s.count("("):
            s = s[:-1].rstrip()
        if not s:
            return _LineRead("neutral", number=number)
        # A numbered line that is all bold ("1. **Unstack yellow from red**") titles the text below it.
        is_title = number is not None and bool(
            re.fullmatch(r"\s*(?:\d+[.):]|step\s*\d+\s*[:.)\-]?)\s*(\*\*|__)[^*_]+\1\s*:?\s*", ln.raw, re.I))
        if _ALT_MARKER.match(s) and (self._holds_step(s, bare) or self._lead_safe(_ALT_MARKER.sub("", s).strip(" ,:"))):
            raise ParseError(f"an alternative answer: {s!r}")
        m = _title_split(s)
        if m:
            title, body = m
            t_action = self.full_action(title)
            if t_action is not None:
                try:
                    b_actions = self.steps(body, bare) if body else []
                except _Unreadable:
                    b_actions = []  # the title is the step; a text in other words after it explains it
                if b_actions and b_actions[0] != t_action:
                    raise ParseError(f"the step's title {title!r} names {t_action}, but its text reads {b_actions[0]}")
                return _LineRead("action", b_actions or [t_action], number,
                                 title=t_action if not body else None)
            if not self.starts_with_verb(title):
                # A short label ("Plan:", "Step one:") or a description of the step in other words
                # followed by the step itself ("Put down block A on the table: (put-down a)").
                if not body and len(title.split()) <= 6:
                    return _LineRead("intro", number=number)
                if body and (len(title.split()) <= 6 or self._lead_safe(body, bare)):
                    s = body
                    introduces = bool(_INTRO_WORDS.search(title))
        try:
            acts = self.steps(s, bare)
        except _Unreadable as exc:
            if s.endswith(":"):
                return _LineRead("intro", number=number)
            return _LineRead("bad", number=number, marked=marked, error=str(exc),
                             introduces=bool(_STEP_CONNECTIVE.match(s)))  # "Then put it down."
        if acts:
            return _LineRead("action", acts, number, title=acts[0] if is_title and len(acts) == 1 else None,
                             marked=marked, introduces=introduces,
                             indented=ln.raw[:1].isspace() and not ln.raw.lstrip().startswith(("```", "~~~")))
        if s.endswith(":") or ln.raw.lstrip().startswith("#"):
            return _LineRead("intro", number=number)
        return _LineRead("mixed" if self._holds_step(s, bare) else "prose", number=number)

    def _holds_step(self, s: str, bare: bool) -> bool:
        """A prose line that still holds a step: a later clause starts with an action, or a
        bracketed action form stands inside it ("To start, unstack a from b.")."""
        if any(name in self.arity_action for name, _ in _FORM.findall(s)):
            return True
        parts = [c for c in (_clean(p) for p in nl_parse.split_depth0(s, _SEPARATORS)) if c]
        for c in parts[1:]:
            try:
                if self.lead(_strip_lead_in(c), bare=bare):
                    return True
            except ParseError:
                return True
        return False

    def has_forms(self, lines: list[_Line]) -> bool:
        """True when some line holds a bracketed PDDL action form of the task."""
        return any(name in self.arity_action for ln in lines for name, _ in _FORM.findall(ln.norm))

    def action_runs(self, lines: list[_Line], bare: bool = True) -> list[tuple[list[str], list[_Line]]]:
        """Runs of step lines; a heading, an introducing line or restarted numbering starts a new run."""
        runs: list[tuple[list[str], list[_Line]]] = []
        cur = None
        last_number = None
        brk = False
        pending_title: str | None = None
        mixed: _Line | None = None  # a prose line holding a step, after the last step line
        numbered_prose = None
        last_numbered = False
        infos = [(ln, self.read_line(ln, bare)) for ln in lines]
        significant = [info for _, info in infos if info.kind not in ("blank", "neutral")]
        for i, info in enumerate(significant):
            # A line that starts like a step but reads as none is an error next to step lines or
            # when numbered; elsewhere (a preamble: "Put simply, ...") it is prose.
            if info.kind == "bad":
                near = [significant[j].kind for j in (i - 1, i + 1) if 0 <= j < len(significant)]
                if info.marked or "action" in near or info.introduces:
                    raise ParseError(info.error)
        for ln, info in infos:
            if info.kind == "intro":
                brk = cur is not None
                pending_title = mixed = None
                continue
            if info.kind == "mixed":
                if info.number is not None:
                    raise ParseError(f"cannot read the step {ln.norm!r}: it does not start with an action")
                mixed = ln if cur is not None else None
                continue
            if info.kind == "prose" and info.number is not None and last_number is not None \
                    and info.number == last_number + 1 and cur is not None:
                numbered_prose = (info.number, ln)  # step N of a numbered plan that reads as no action
                continue
            if info.kind != "action":
                continue
            if numbered_prose is not None and info.number == numbered_prose[0] + 1:
                raise ParseError(f"cannot read step {numbered_prose[0]}: {numbered_prose[1].norm!r} "
                                 "reads as no action of this task")
            numbered_prose = None
            acts = info.actions
            if pending_title is not None and info.number is None and not info.marked:
                if acts[0] != pending_title:
                    raise ParseError(f"the step's title names {pending_title}, but its text reads {acts[0]}")
                acts = acts[1:]
            pending_title = info.title
            new = cur is None or brk or info.introduces
            if cur is not None and info.number is not None and last_number is not None:
                if info.number <= last_number:
                    new = True
                elif info.number == last_number + 1:
                    new = False
            if cur is not None and last_numbered and info.number is None and not new:
                if not info.indented and acts[:1] == cur[0][:1]:
                    new = True  # a numbered list, then unnumbered steps from its first step: a restatement
                elif info.indented and acts == cur[0][-1:]:
                    acts = []  # an indented line restating its step
            if mixed is not None and not new:
                raise ParseError(f"cannot read the step {mixed.norm!r}: it does not start with an action")
            mixed = None
            if new:
                cur = ([], [])
                runs.append(cur)
            cur[0].extend(acts)
            cur[1].append(ln)
            brk = False
            last_numbered = info.number is not None or (last_numbered and info.indented and not new)
            if info.number is not None:
                last_number = info.number
        return runs

    # ---------------------------------------------------------------- facts

    def fact_clause(self, c: str):
        """(negated, atom text) if the clause is one fact, "mention" if it names an object or fact
        but reads as none, else None (prose)."""
        for body, negated in _fact_forms(c):
            for text in (body, _ADVERBS.sub("", body)):
                r = self._lead_fact(text)
                if r is not None:
                    return negated, r
        if self._names_object(c):
            return "mention"
        return None

    def _lead_fact(self, text: str) -> str | None:
        try:
            r = self.lead(text, "atom")
        except ParseError:
            return None
        if r is None or text[r[1]:].strip(" .!"):
            return None
        return _pddl(*r[0][0])

    def _names_object(self, c: str) -> bool:
        if self.nl:
            return any(re.search(r"(?<![\w'])" + re.escape(n) + r"(?![\w'])", c) for n in self.object_by_name)
        return any(f in self.arity_atom for f, _ in _FORM.findall(c))


def _squash(name: str) -> str:
    return re.sub(r"[-_]", "", name)


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


def _fact_forms(c: str):
    yield c, False
    m = re.match(r"^it\s+is\s+not\s+the\s+case\s+that\s+(.*)$", c)
    if m:
        yield m.group(1), True
    if _NEG_FACT.search(c):
        yield _NEG_FACT.sub(r"\1 ", c, count=1), True


def _strip_lead_in(c: str) -> str:
    prev = None
    while prev != c:
        prev = c
        m = _LEAD_IN.match(c)
        if m and m.end() > 0:
            c = c[m.end():].strip()
        rest = nl_parse.strip_lead_in(c)
        if rest is not None:
            c = re.sub(r"^to\s+", "", rest.strip())
    return c


def _reader(task: Task, style: str, templates: str) -> _Reader:
    """The flexible reader of a task, built once per task and kept in the task's own ``views``."""
    key = ("flexible-reader", style, templates)
    rd = task.views.get(key)
    if rd is None:
        rd = task.views[key] = _Reader(task, style, templates)
    return rd


# ---------------------------------------------------------------------------------------------
# Actions and plans


def _located(label: bool, rule: str | None, whole: bool) -> str:
    if rule:
        return rule
    if label:
        return "answer-label"
    return "whole-reply" if whole else "action-lines"


def _read_sequence(task: Task, text: str, style: str, templates: str) -> tuple[list[str], tuple[int, int], str]:
    rd = _reader(task, style, templates)
    t, start, end, label = _region(text)
    lines = _lines(t, start, end)
    region_norm = "\n".join(ln.norm for ln in lines)
    if nl_parse.is_empty_answer(region_norm.strip()):
        return [], _span(lines), "answer-label" if label else "whole-reply"
    readings = []  # (actions, lines, rule): every block and the text outside them must agree
    bare = not rd.has_forms(lines)
    blocks = _blocks(lines)
    for rule, blines in blocks:
        for acts, rlines in rd.action_runs(blines, bare):
            readings.append((acts, rlines, rule))
    for acts, rlines in rd.action_runs(_outside(lines, blocks), bare):
        readings.append((acts, rlines, None))
    if not readings:
        raise ParseError("no actions found in the answer")
    distinct = list(dict.fromkeys(tuple(r[0]) for r in readings))
    if len(distinct) > 1:
        a, b = distinct[0], distinct[1]
        raise ParseError(f"two different plans in one reply: {' '.join(a)} / {' '.join(b)}")
    acts, rlines, rule = readings[0]
    used = [ln for ln in lines if ln.norm and not _MARK.match(ln.norm)]
    whole = len(readings) == 1 and len(rlines) == len(used)
    return list(acts), _span(rlines), _located(label, rule, whole)


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
    rd = _reader(task, style, templates)
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


def _mentioned_action(rd: _Reader, text: str) -> Reading:
    """No line starts with an action: the one action the region mentions, if exactly one."""
    t, start, end, label = _region(text)
    found: dict[str, tuple[int, int]] = {}
    for ln in _lines(t, start, end):
        for part in nl_parse.split_depth0(ln.norm, _SEPARATORS):
            c = _clean(part)
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
                found.setdefault(_pddl(*r[0][0]), (ln.start, ln.end))
    if len(found) != 1:
        raise ParseError("no actions found in the answer" if not found else
                         f"the answer mentions {len(found)} actions: {', '.join(found)}")
    (action, span), = found.items()
    return Reading(action, span, "mention")


# ---------------------------------------------------------------------------------------------
# States and successor mappings


def _state_of_lines(rd: _Reader, lines: list[_Line]) -> tuple[int, list[_Line]] | None:
    """The state the fact lines of ``lines`` state; None when no line states a fact."""
    runs: list[tuple[list, list]] = []
    cur = None
    brk = False
    read = []  # (line, facts | None, marked, unread mention)
    for ln in lines:
        s = ln.norm
        if not s or _MARK.match(s):
            continue
        before = s
        _, s = _strip_number(s)
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
        raise ParseError("two different states in one reply")
    return states[0]


def _nl_facts(rd: _Reader, s: str) -> tuple[list | None, str | None]:
    """(facts of the line or None, the first clause that names an object but reads as no fact)."""
    m = re.match(r"^([^:()\[\]]{1,60}):(?:\s+(.*)|\s*)$", s)
    if m and len(m.group(1).split()) <= 6 and rd.fact_clause(_clean(m.group(1))) in (None, "mention"):
        if not m.group(2):
            return None, None
        s = m.group(2)
    facts, mentions = [], []
    s = re.sub(r"\(([^()]*)\)", lambda mm: mm.group(0) if rd.fact_clause(_clean(mm.group(1))) not in (None, "mention")
               else " ", s)
    for part in nl_parse.split_depth0(s, _SEPARATORS):
        c = _clean(nl_parse.strip_lead_in(_clean(part)) or _clean(part))
        if not c or nl_parse.FILLER.match(c):
            continue
        r = rd.fact_clause(c)
        if r is None:
            continue
        if r == "mention":
            if not _PROSE_NEGATION.search(c):  # a negated clause states no true fact: nothing to read
                mentions.append(c)
            continue
        facts.append(r)
    if not facts:
        return None, (mentions[0] if mentions else None)
    if mentions:
        raise ParseError(f"cannot read {mentions[0]!r} as a fact of this task")
    return facts, None


def _pddl_facts(rd: _Reader, s: str) -> list | None:
    facts = []
    rest = s
    for m in _NOT_FORM.finditer(s):
        if m.group(1) in rd.arity_atom:
            facts.append((True, _pddl(m.group(1), m.group(2).split())))
    rest = _NOT_FORM.sub(" ", s)
    for m in _FORM.finditer(rest):
        name, args = m.group(1), tuple(m.group(2).split())
        if name in rd.arity_atom:
            if len(args) != rd.arity_atom[name] or any(a not in rd.objects for a in args):
                raise ParseError(f"cannot read {m.group(0)!r} as a fact of this task")
            facts.append((False, _pddl(name, args)))
    if not facts:
        return None
    prose = _FORM.sub(" ", rest)
    if _PROSE_NEGATION.search(prose):
        raise ParseError(f"a fact negated in words: {s!r}")
    return facts


def _state_from(rd: _Reader, facts: list) -> int:
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
    rd = _reader(task, style, templates)
    t, start, end, label = _region(text)
    lines = _lines(t, start, end)
    # "Resulting state:" (final, new, next, successor) labels the state as "Answer:" does; what
    # comes before it (the effects of the action, the old state) is not the answer.
    labelled = [i for i, ln in enumerate(lines) if _STATE_LABEL.match(_strip_number(ln.norm)[1])]
    if labelled:
        i = labelled[-1]
        rest = _STATE_LABEL.sub("", _strip_number(lines[i].norm)[1], count=1).strip()
        if rest or any(ln.norm for ln in lines[i + 1:]):
            head = lines[i]
            colon = max(head.raw.find(":"), 0)
            first = [_Line(head.start + colon + 1, head.end, head.raw[colon + 1:], rest, False)] if rest else []
            lines, label = first + lines[i + 1:], True
    if nl_parse.is_empty_answer("\n".join(ln.norm for ln in lines).strip()):
        return Reading(0, _span(lines), "answer-label" if label else "whole-reply")
    found = []
    for rule, blines in _blocks(lines):
        got = _state_of_lines(rd, blines)
        if got is not None:
            found.append((got, rule))
    if not found:
        got = _state_of_lines(rd, lines)
        if got is None:
            raise ParseError("no facts found in the answer")
        used = [ln for ln in lines if ln.norm]
        found.append((got, _located(label, None, len(got[1]) == len(used))))
    if len({g[0] for g, _ in found}) > 1:
        raise ParseError("two different states in one reply")
    (state, rlines), rule = found[0]
    return Reading(state, _span(rlines), rule if rule != "action-lines" else "fact-lines")


def read_successor_mapping(task: Task, text: str, style: str, actions, templates: str = "widthbench") -> Reading:
    """PDDL action text -> state for every "Action:" block, like `api.parse_successor_mapping`."""
    rd = _reader(task, style, templates)
    t, start, end, label = _region(text)
    lines = _lines(t, start, end)
    first = next((i for i, ln in enumerate(lines)
                  if re.match(r"^(?:[-*•+>#]+\s*|\(?\d+[.)]\s*)*action(?:\s*\d+)?\s*[:.)\-]", ln.norm)), None)
    if first is None:
        raise ParseError("no 'Action:' block in the answer")
    section = t[lines[first].start:end]
    found: dict[str, int] = {}
    for action_text, state_text in _strict.split_mapping_blocks(section):
        try:
            a = read_single_action(task, action_text, style, templates).value
        except ParseError as exc:
            raise ParseError(f"action {action_text!r}: {exc}") from None
        if a in found:
            raise ParseError(f"action {a} is mapped twice")
        got = _state_of_lines(rd, _lines(state_text, 0, len(state_text)))
        if got is None:
            if nl_parse.is_empty_answer(nl_parse.normalise(state_text).strip()):
                got = (0, [])
            else:
                raise ParseError(f"state after {a}: no facts found")
        found[a] = got[0]
    given = [str(x) for x in actions]
    ordered = {a: found[a] for a in given if a in found}
    ordered.update({a: s for a, s in found.items() if a not in ordered})
    return Reading(ordered, (lines[first].start, _span(lines)[1]), "answer-label" if label else "action-blocks")


# ---------------------------------------------------------------------------------------------
# Verdicts and numbers

_VERDICT_PHRASES = (
    # (pattern, value) over one normalised sentence; {T}/{F} are the true/false words
    (r"^(?:so\s+|thus\s+|therefore\s+)?(yes|no)\b", None),
    (r"\b(yes|no)$", None),
    (r"\b(?:the\s+)?(?:above\s+|given\s+|proposed\s+|provided\s+|this\s+|whole\s+)?plan\s+(?:is|would\s+be|will\s+be)\s+"
     r"(not\s+valid|not\s+correct|invalid|incorrect|valid|correct)\b", None),
)
_PLAN_WORDS = {"valid": True, "correct": True, "invalid": False, "incorrect": False, "not valid": False,
               "not correct": False, "yes": True, "no": False}


def _flex_verdict(text: str, strict_parse, sentence_rules) -> Reading:
    t, start, end, label = _region(text)
    region = t[start:end]
    try:
        value = strict_parse(t)  # the strict rule on the reply (it finds the same region itself)
        return Reading(value, (start + len(region) - len(region.lstrip()), start + len(region.rstrip())),
                       "answer-label" if label else "whole-reply")
    except ParseError as first:
        error = first
    found: list[tuple[bool, int, int]] = []
    for m in re.finditer(r"[^.!?\n]+", region):
        sentence = nl_parse.normalise(m.group(0)).strip()
        sentence = _strip_number(sentence)[1]
        for pattern, words in sentence_rules:
            for mm in re.finditer(pattern, sentence):
                word = " ".join(mm.group(1).split())
                if word in words:
                    found.append((words[word], start + m.start(), start + m.end()))
    values = {v for v, _, _ in found}
    if len(values) > 1:
        raise ParseError("two different verdicts in the answer")
    if not values:
        raise error
    v, s, e = found[0]
    return Reading(v, (s, e), "verdict-sentence")


def read_verdict(text: str) -> Reading:
    """Plan verification (True = the plan reaches the goal), like `parse.parse_verdict`."""
    return _flex_verdict(text, _strict.parse_verdict, [(p, _PLAN_WORDS) for p, _ in _VERDICT_PHRASES])


def read_yes_no(text: str) -> Reading:
    """True for yes, False for no, like `parse.parse_yes_no`."""
    rules = [(_VERDICT_PHRASES[0][0], {"yes": True, "no": False}), (_VERDICT_PHRASES[1][0], {"yes": True, "no": False}),
             (r"\bgoal\s+(?:is|has\s+been)\s+(not\s+satisfied|not\s+reached|not\s+met|not\s+achieved|satisfied|"
              r"reached|met|achieved)\b",
              {"satisfied": True, "reached": True, "met": True, "achieved": True, "not satisfied": False,
               "not reached": False, "not met": False, "not achieved": False})]
    return _flex_verdict(text, _strict.parse_yes_no, rules)


def read_novelty(text: str) -> Reading:
    """True = novel (keep), False = prune, like `parse.parse_novelty`."""
    rules = [(_VERDICT_PHRASES[0][0], {"yes": True, "no": False}), (_VERDICT_PHRASES[1][0], {"yes": True, "no": False}),
             (r"\b(?:state\s+)?(?:is|should\s+be|would\s+be)\s+(not\s+novel|novel|kept|pruned|a\s+duplicate)\b",
              {"novel": True, "kept": True, "not novel": False, "pruned": False, "a duplicate": False}),
             (r"^(keep|prune)\b", {"keep": True, "prune": False})]
    return _flex_verdict(text, _strict.parse_novelty, rules)


def read_integer(text: str) -> Reading:
    """One whole number, like `parse.parse_integer`; else the one number set off as the result
    (bold, ``\\boxed{}``, "is N" / "= N" closing a line)."""
    t, start, end, label = _region(text)
    region = t[start:end]
    try:
        value = _strict.parse_integer(t)
        return Reading(value, (start + len(region) - len(region.lstrip()), start + len(region.rstrip())),
                       "answer-label" if label else "whole-reply")
    except ParseError as exc:
        error = exc
    found: list[tuple[int, int, int]] = []
    for pattern in (r"\*\*\s*(\d+)\s*\*\*", r"\\boxed\{\s*(\d+)\s*\}",
                    r"(?im)(?:\bis|=|:)\s*\**\s*(\d+)\s*\**\s*\.?\s*$"):
        for m in re.finditer(pattern, region):
            found.append((int(m.group(1)), start + m.start(1), start + m.end(1)))
    values = {v for v, _, _ in found}
    if len(values) != 1:
        if len(values) > 1:
            raise ParseError(f"several numbers set off as the answer: {', '.join(map(str, sorted(values)))}")
        raise error
    v, s, e = found[0]
    return Reading(v, (s, e), "number-emphasis")
