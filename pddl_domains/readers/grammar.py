"""What one task's actions and facts look like in a reply (the grammar both step and fact readers use).

`TaskGrammar` knows a task in one style and template set: the NL templates of the template set and
the paraphrases of ``pddl_domains/<domain>.paraphrases.toml`` (data, never code; the strict templates
always included) compiled over the task's object names, PDDL forms in any case and spacing
(``(unstack a b)``, ``(pickup a)`` for ``pick-up``), call notation (``unstack(a, b)``,
``Unstack(red block, orange block)``), and (PDDL prompts) an action's name followed by its objects
with small words between ("FLY-AIRPLANE a0 from l1-0 to l0-0"). `TaskGrammar.lead` reads the action
or fact a clause starts with; a paraphrase whose left-out argument fits several ground actions is a
`ParseError`, never a choice. `strip_step_lead_in` drops "we need to", "the next action is to", ...
"""

from __future__ import annotations

import functools
import re
import tomllib
from dataclasses import dataclass

from widthbench.core.errors import ParseError
from widthbench.pddl_domains import render
from widthbench.pddl_domains.readers import layout, phrases
from widthbench.pddl_domains.render import TEMPLATE_DIR, Renderer
from widthbench.planners.strips import Task

#: This module's words of English: its section of phrases.txt.
WORDS = phrases.section("grammar")

SEPARATORS = re.compile(r",|;|:(?=\s|$)|\.(?=\s|$)|" + layout.WORDS.SEPARATOR_WORDS + r"|\s[-~–—]\s|\s(?:->|=>|→|⟶)\s")
FORM = re.compile(r"\(\s*([a-z_][\w\-]*)((?:\s+[^\s()]+)*)\s*\)")
#: Between the objects an action is performed on: "object_0 and object_1", "a, b and c", "b from c".
_ARG_SEP = r"(?:\s*,\s*(?:and\s+)?|\s+and\s+|\s+(?:from|to|onto|on|with|using|at|in|into)\s+)"
PDDL_FILLERS = frozenset({"on", "onto", "from", "to", "at", "in", "into", "off", "of", "the", "a", "top",
                          "block", "with", "using", "via", "by", "out"})
# ---------------------------------------------------------------------------------------------
# Paraphrase data

def clean(part: str) -> str:
    return layout.clean_clause(part)


def pddl(name: str, args) -> str:
    return "(" + " ".join((name, *args)) + ")"


@functools.lru_cache(maxsize=16)
def paraphrase_tables(domain_key: str, templates: str) -> tuple[dict, dict]:
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
                        if re.search(r"[,;.]|" + layout.WORDS.SEPARATOR_WORDS, t.lower()):
                            raise ValueError(f"{path}: {key}: {t!r} contains a clause separator")
                    out.setdefault(key.lower(), []).extend(" ".join(t.lower().split()) for t in ts)
    return actions, predicates


@functools.lru_cache(maxsize=32)
def template_domain(path: str) -> str | None:
    if path.startswith("<"):  # templates generated from a domain's names (render.py)
        return None
    if path.lower().endswith((".yaml", ".yml")):  # a PlanBench config (render.config_template_set)
        return render.config_template_set(path).format.get("paraphrases")
    with open(path, "rb") as f:
        return tomllib.load(f).get("domain")


# ---------------------------------------------------------------------------------------------
# The per-task reader


@dataclass(frozen=True, slots=True)
class Matcher:
    kind: str  # "action" | "atom"
    name: str
    arity: int
    slots: tuple[int, ...]
    lead: re.Pattern
    find: re.Pattern


@functools.lru_cache(maxsize=128)
def _compile_matchers(domain_key: str, templates: str, tables: tuple, alt: str) -> tuple[Matcher, ...]:
    """The matchers of a template set's sentences and paraphrases over one set of object names
    (``alt``: the names' alternation, longest first), cached as the renderer's
    ``render._compile_templates`` are: compiling them costs milliseconds per pattern, and every task
    with the same objects, style and template set needs the same. ``tables`` holds (kind, rows), a
    row (name, arity, templates) per action or predicate."""
    extra_actions, extra_atoms = paraphrase_tables(domain_key, templates)
    out, seen = [], set()
    for (kind, rows), extra in zip(tables, (extra_actions, extra_atoms)):
        for name, arity, table in rows:
            for t in list(table) + extra.get(name, []):
                if not t or (kind, name, t) in seen:
                    continue
                seen.add((kind, name, t))
                slots = tuple(sorted(int(x) for x in re.findall(r"\{(\d+)\}", t)))
                if any(s >= arity for s in slots) or len(set(slots)) != len(slots):
                    continue
                if kind == "atom" and len(slots) != arity:
                    continue
                body = render.template_regex_text(t, alt)
                out.append(Matcher(kind, name, arity, slots, re.compile(body + r"(?![\w'])"),
                                   re.compile(r"(?<![\w'])" + body + r"(?![\w'])")))
    return tuple(out)


class TaskGrammar:
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
        # "location 1 0") when that names no other object. Any other spelling of a name's words
        # (hyphens, underscores, letters joined to numbers: "red_block", "package0") reads too:
        # the names are matched by `name_pattern` and looked up by `name_key` (`named`).
        self.object_by_name = dict(self.r._objects_by_name)
        for name, obj in list(self.object_by_name.items()):
            spaced = name.replace("_", " ")
            if spaced != name and spaced not in self.object_by_name:
                self.object_by_name[spaced] = obj
        self._by_key, self._by_initials = _object_keys(self.object_by_name, self.objects,
                                                       self.r.names if self.nl else {})
        written = set(self.object_by_name) | (self.objects if style == "pddl" else set())  # PDDL names in PDDL answers
        names = sorted({name_pattern(n) for n in written}, key=lambda n: (-len(n), n))
        alt = self._object_alt = "|".join(names) or "(?!)"
        self._object_at = re.compile(r"\s*(" + alt + r")(?![\w'-])")
        self._object_in = re.compile(r"(?<![\w'-])(" + alt + r")(?![\w'-])")
        self.matchers: tuple[Matcher, ...] = self._build_matchers(templates) if self.nl else ()
        variants = {}
        for name in self.arity_action:
            for v in (name, name.replace("-", " "), name.replace("-", "_"), name.replace("-", "")):
                variants.setdefault(v, name)
        self.bare_names = sorted(variants.items(), key=lambda kv: -len(kv[0]))
        acts = "|".join(re.escape(v) for v, _ in self.bare_names) or "(?!)"
        arg = rf"(?:the\s+)?(?:objects?\s+)?({self._object_alt})"
        self._perform = re.compile(
            rf"^((?:{WORDS.LEAD_IN.pattern[1:]})?)(?:perform|execute|apply|do|carry\s+out|take)\s+(?:the\s+)?(?:action\s+)?"
            rf"({acts})(?:\s+action)?\s+(?:on|with|to|using|for|upon)\s+{arg}((?:{_ARG_SEP}{arg})*)(?![\w'-])")
        self._perform_rest = re.compile(rf"{_ARG_SEP}{arg}")
        # PDDL names spelled without their hyphens or underscores (pickup, put_down), when that
        # spelling belongs to one name only.
        self.spellings = {}
        for kind, names in (("action", self.arity_action), ("atom", self.arity_atom)):
            by: dict[str, set] = {}
            for n in names:
                by.setdefault(squash(n), set()).add(n)
            self.spellings[kind] = {k: next(iter(v)) for k, v in by.items() if len(v) == 1}
        # Words that start a step. In PDDL notation a sentence in words is prose, not a step.
        self.verbs = frozenset(self._verbs() if self.nl else (v for v in variants if " " not in v))
        # Nouns that stand for any object of a kind ("object", "another block", "a package", a type's
        # name): an action written with them in place of its objects is the action in general (a rule).
        kinds = {"object", "objects", "thing", "item"} | set(dom.types)
        shared: dict[str, int] = {}
        for name in self.object_by_name:
            for w in set(WORDS.NAME_TOKEN.findall(name)):
                shared[w] = shared.get(w, 0) + 1
        kinds |= {w for w, k in shared.items() if k > 1 and w.isalpha() and len(w) > 2}
        nouns = "|".join(re.escape(k) + "s?" for k in sorted(kinds, key=len, reverse=True))
        self._generic = re.compile(rf"(?<![\w-])(?:an?|another|any|some|each|every|other|the\s+other|one)\s+"
                                   rf"(?:{nouns})(?![\w-])|(?<![\w-])objects?(?![\w-])|\?[a-z]\w*")
        # The words of the task's own names ("drop" in a gripper domain): never read as withdrawals.
        self.vocabulary = frozenset(w for n in (*self.arity_action, *self.arity_atom, *self.objects)
                                    for w in re.split(r"[\s_-]+", n) if w)

    def _build_matchers(self, templates: str) -> tuple[Matcher, ...]:
        ts = self.r.template_set
        tables = tuple((kind, tuple((name, arity, tuple(table.get(name, ()))) for name, arity in arities.items()))
                       for kind, table, arities in (("action", ts.actions, self.arity_action),
                                                    ("atom", ts.predicates, self.arity_atom)))
        return _compile_matchers(template_domain(ts.path) or "", templates, tables, self._object_alt)

    def _verbs(self):
        for name in self.arity_action:
            yield name
            yield name.split("-")[0]
            yield squash(name)
            yield name.replace("-", "_")
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
        text = pddl(*cand)
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

    def states_problem(self, section: str) -> bool | None:
        """Whether a part of a reply that poses a problem states this task's problem: its initial
        conditions (and goal, when it reads) are the task's; None when they do not read."""
        low = section.lower()
        try:
            if "(:init" in low:
                k = low.index("(:init")
                stop = low.find("(:goal", k)
                init = {"(" + " ".join(x.split()) + ")" for x in re.findall(r"\(([^()]+)\)", low[k + 6:stop if stop > k else None])}
                state = sum(1 << self.task.atom_index[a] for a in init if a in self.task.atom_index)
                return state == self.task.init
            m = WORDS.STATED_INIT.search(low)
            if not m:
                return None
            if self.r.parse_state(m.group(1)) != self.task.init:
                return False
            g = WORDS.STATED_GOAL.search(low, m.end())
            if g:
                goal = {a for a in self.r.parse_atoms(g.group(1)) if a in self.task.atom_index}
                return sum(1 << self.task.atom_index[a] for a in goal) == self.task.goal
            return True
        except ParseError:
            return None

    def named(self, text: str) -> str | None:
        """The object a name matched in any spelling names ("red_block", "Package0"); None when its
        spelling names several."""
        obj = self.object_by_name.get(text)
        if obj is not None:
            return obj
        found = self._by_key.get(name_key(text), ())
        return next(iter(found)) if len(found) == 1 else None

    def call_argument(self, word: str) -> str | None:
        """The object an argument of a notation (call notation, the action word and its objects)
        names: its PDDL name or its name in words in any spelling ("red block", "the Red_Block",
        "package₀"), the one object whose name in words starts with it ("red" for "red block"), or
        the one object it abbreviates ("R", "RB" for the red block, "p0" for package_0: the first
        letters of its words, its numbers kept); None when it names none or several (a PDDL name
        that another object's initials also spell names two)."""
        w = " ".join(word.split())
        if self.style == "pddl" and w in self.objects:
            return w
        w = re.sub(r"^(?:the|a|an)\s+", "", w)
        if not w:
            return None
        key = name_key(w)
        found = set(self._by_key.get(key, ()))
        if w not in layout.ARTICLES and re.fullmatch(r"[a-z]{1,3}(?:[ _-]?\d+)*", w):
            found |= self._by_initials.get(initials_key(w), set())
        if not found:
            found = {obj for n, obj in self.object_by_name.items() if name_key(n).startswith(key + " ")}
        return next(iter(found)) if len(found) == 1 else None

    def arguments(self, text: str, pos: int, count: int) -> tuple[list[str], int] | None:
        """``count`` objects named from ``text[pos:]`` on, with separators (``, ; / | &``, "and")
        and small words ("from", "on top of", "objects:") between them, each by `call_argument`:
        (objects, end) or None."""
        args, fillers = [], 0
        while len(args) < count:
            pos = WORDS.ARG_GAP.match(text, pos).end()
            m = self._object_at.match(text, pos)
            if m:
                obj = self.named(m.group(1))
                if obj is not None:
                    args.append(obj)
                    pos, fillers = m.end(), 0
                    continue
            m = WORDS.ARG_WORD.match(text, pos)
            if not m:
                return None
            word = m.group(0).rstrip(".:!?") or m.group(0)
            if word in self.objects and self.style == "pddl":
                obj = word
            elif word in _ARG_FILLERS and fillers < 3:
                pos, fillers = m.end(), fillers + 1  # a small word, or a label ("objects:")
                continue
            else:
                obj = self.call_argument(word)
            if obj is None:
                return None
            args.append(obj)
            pos, fillers = m.start() + len(word), 0
        return args, pos

    def lead(self, clause: str, kind: str = "action", bare: bool = True) -> tuple[list, int] | None:
        """The action (fact) that ``clause`` starts with: (candidates, end) or None.

        Raises ParseError when the clause starts with a PDDL action form that names no action of
        the task (wrong arity, unknown object).
        """
        m = FORM.match(clause) or WORDS.FUNCTIONAL.match(clause)
        if m and m.re is FORM and WORDS.SENTENCE_MARK.search(m.group(2)):
            m = None  # "(stack red onto orange, which is clear.)": words in brackets, not a PDDL form
        if m:
            name, inner = m.group(1), m.group(2)
            # Call notation separates its arguments with commas, and may name them in words
            # ("unstack(red block, orange block)", "PickUp(Blue)").
            words = "," in inner or (m.re is WORDS.FUNCTIONAL and inner.strip() and " " not in inner.strip())
            args = tuple(x.strip() for x in inner.split(",")) if "," in inner else tuple(inner.split())
            arities = self.arity_action if kind == "action" else self.arity_atom
            name = self.spellings[kind].get(squash(name), name)  # (pickup a) for (pick-up a)
            if name in arities and m.re is WORDS.FUNCTIONAL and len(args) != arities[name] == 1:
                args, words = (inner.strip(),), True  # pick_up(the yellow block)
            if name in arities:
                if len(args) == arities[name]:
                    named = tuple(a if a in self.objects and not words else self.call_argument(a) for a in args)
                    if None not in named:
                        return [(name, named)], m.end()
                    args = tuple(n or a for n, a in zip(named, args))
                if len(args) != arities[name] or any(a not in self.objects for a in args):
                    # Any separators or small words between the arguments ("feast(b from c)",
                    # "stack(R; B)", "(stack a on b)"), each argument in any spelling.
                    got = self.arguments(inner, 0, arities[name])
                    if got is not None and not WORDS.ARG_GAP.sub("", inner[got[1]:]).strip():
                        return [(name, tuple(got[0]))], m.end()
                if len(args) != arities[name]:
                    raise ParseError(f"{name} takes {arities[name]} argument(s), got {len(args)} in {m.group(0)!r}")
                bad = [a for a in args if a not in self.objects]
                raise ParseError(f"unknown object {bad[0]!r} in {m.group(0)!r}" if bad else
                                 f"{m.group(0)!r} names an argument that names several objects")
        best_end, cands = -1, []
        for mt in self.matchers:
            if mt.kind != kind:
                continue
            mm = mt.lead.match(clause)
            if not mm or mm.end() < best_end:
                continue
            given = {i: self.named(mm.group(f"s{i}")) for i in mt.slots}
            if None in given.values():
                continue
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
                shown = " or ".join(pddl(*c) for c in chosen)
                raise ParseError(f"{clause[:best_end]!r} is ambiguous: it reads as {shown}")
            return chosen, best_end
        if self.style == "pddl" and kind == "action" and bare:
            return self._bare(clause)
        if self.nl and kind == "action":
            return self._named_call(clause)
        return None

    def performed(self, text: str) -> str:
        """``text`` with an action named as what is performed on its objects ("Perform `x7q` on
        `object_0` and `object_1`", "execute the attack action on object a") written as the call
        ("x7q object_0 object_1"); ``text`` itself when it does not start so."""
        m = self._perform.match(text)
        if not m:
            return text
        objects = [m.group(3)] + [x.group(1) for x in self._perform_rest.finditer(m.group(4))]
        return m.group(1) + " ".join([m.group(2)] + objects) + text[m.end():]

    def _named_call(self, clause: str) -> tuple[list, int] | None:
        """An action written as its PDDL name (any spelling: "put-down", "putdown", "put_down",
        "Put Down") followed by its objects (`arguments`: any separators and small words between,
        each object in any spelling): "putdown orange", "overcome object a using object b",
        "Feast: b, c", "unstack - R from B", "feast (b from c)". None when the text does not start
        so, or when the clause goes on to name other objects ("stack the blue block with the red
        block on top of the yellow block" is no call of stack on two of them)."""
        for variant, name in self.bare_names:
            arity = self.arity_action[name]
            if not arity or not clause.startswith(variant):
                continue
            after = clause[len(variant):len(variant) + 1]
            if after and (after.isalnum() or after in "_'"):
                continue
            pos = WORDS.AFTER_WORD.match(clause, len(variant)).end()
            got = self.arguments(clause, pos, arity)
            if got is None:
                continue
            args, end = got
            close = re.match(r"\s*\)", clause[end:])
            if close and "(" in clause[len(variant):pos]:
                end += close.end()
            stop = SEPARATORS.search(clause, end)
            rest = clause[end:stop.start() if stop else len(clause)]
            if {self.named(m.group(1)) for m in self._object_in.finditer(rest)} - {None} <= set(args):
                return [(name, tuple(args))], end
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
                m = WORDS.TOKEN.match(clause, pos)
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

    def in_general(self, clause: str) -> bool:
        """Whether ``clause`` states a rule of an action in general: nouns for any object of a kind in
        place of its objects, no object of the task named, and words of a rule (what it needs, when it
        can be done, what it does: "Stack object on another object: needs clear, holding", "you can
        only pick up a block if it is clear"): never a step. An action with such nouns and no rule
        ("4. Succumb object") is a step whose objects are not given."""
        return bool(WORDS.RULE_WORDS.search(clause)) and bool(self._generic.search(clause)) and not any(
            m.group(1) not in layout.ARTICLES for m in self._object_in.finditer(clause))

    def starts_with_verb(self, clause: str) -> bool:
        first = re.split(r"[\s(]", clause.strip(), maxsplit=1)[0] if clause.strip() else ""
        return first in self.verbs

    def full_action(self, text: str) -> str | None:
        """The action ``text`` is exactly (nothing but the action), else None."""
        c = clean(text)
        if not c:
            return None
        r = self.lead(strip_step_lead_in(c))
        if r and strip_step_lead_in(c)[r[1]:].strip(" .!") == "":
            return pddl(*r[0][0])
        return None

    # ---------------------------------------------------------------- facts

    def fact_clause(self, c: str):
        """(negated, atom text) if the clause is one fact, "mention" if it names an object or fact
        but reads as none, else None (prose)."""
        for body, negated in fact_forms(c):
            for text in (body, WORDS.ADVERBS.sub("", body)):
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
        return pddl(*r[0][0])

    def _names_object(self, c: str) -> bool:
        if self.nl:
            return any(re.search(r"(?<![\w'])" + re.escape(n) + r"(?![\w'])", c) for n in self.object_by_name)
        return any(f in self.arity_atom for f, _ in FORM.findall(c))


def squash(name: str) -> str:
    return re.sub(r"[-_ ]", "", name)


_ARG_FILLERS = PDDL_FILLERS | {"and", "object", "objects", "argument", "arguments", "args", "block", "blocks",
                               "of", "top", "other", "another"}


def name_key(name: str) -> str:
    """A name without its spelling: its words and numbers, lower case, one space apart ("Red_Block",
    "red-block" -> "red block"; "package0", "package_0" -> "package 0"; "l1-0" -> "l 1 0")."""
    return " ".join(WORDS.NAME_TOKEN.findall(name.lower()))


def initials_key(word: str) -> str:
    """An abbreviation's key: each letter a word, numbers kept ("RB" -> "r b", "p0" -> "p 0")."""
    return " ".join(t if t.isdigit() else " ".join(t) for t in WORDS.NAME_TOKEN.findall(word.lower()))


def name_pattern(name: str) -> str:
    """A regular expression for ``name`` in any spelling of its words: spaces, underscores or hyphens
    between them, letters joined to a number next to them ("location_1_0": "location 1 0",
    "location-1-0", "location1_0"; "red block": "red_block"); the name itself when it is one word."""
    toks = WORDS.NAME_TOKEN.findall(name)
    if len(toks) < 2 or "".join(toks) != re.sub(r"[\s_-]", "", name):
        return re.escape(name)
    out = re.escape(toks[0])
    for prev, t in zip(toks, toks[1:]):
        out += ("[ _-]?" if prev.isalpha() != t.isalpha() else "[ _-]") + re.escape(t)
    return out


def _object_keys(object_by_name: dict, objects, names_in_words: dict) -> tuple[dict, dict]:
    """(name key -> objects, initials key -> objects): every name and PDDL name by its key; every
    name in words of two or more words by its initials ("r b", "p 0") and its first initial ("r")."""
    by_key: dict[str, set] = {}
    for n, o in object_by_name.items():
        by_key.setdefault(name_key(n), set()).add(o)
    for o in objects:
        by_key.setdefault(name_key(o), set()).add(o)
    by_initials: dict[str, set] = {}
    for o, n in names_in_words.items():
        toks = WORDS.NAME_TOKEN.findall(n)
        if len(toks) < 2 or not toks[0].isalpha():
            continue
        for form in (" ".join(t if t.isdigit() else t[0] for t in toks), toks[0][0]):
            by_initials.setdefault(form, set()).add(o)
    return by_key, by_initials

def fact_forms(c: str):
    yield c, False
    m = re.match(r"^it\s+is\s+not\s+the\s+case\s+that\s+(.*)$", c)
    if m:
        yield m.group(1), True
    if WORDS.NEG_FACT.search(c):
        yield WORDS.NEG_FACT.sub(r"\1 ", c, count=1), True


def strip_step_lead_in(c: str) -> str:
    prev = None
    while prev != c:
        prev = c
        m = WORDS.LEAD_IN.match(c)
        if m and m.end() > 0:
            c = c[m.end():].strip()
        rest = layout.strip_lead_in(c)
        if rest is not None:
            c = re.sub(r"^to\s+", "", rest.strip())
    return c


