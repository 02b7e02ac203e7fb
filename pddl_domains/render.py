"""PDDL <-> natural language: rendering states, goals, actions and plans, and reading them back.

``Renderer(task, style="nl"|"pddl", templates="widthbench"|"planbench")`` renders with
``state``, ``goal``, ``atom``, ``atoms``, ``action``, ``actions``, ``plan`` and reads answers back with
``parse_atoms``, ``parse_state``, ``parse_action``, ``parse_actions``, ``parse_plan``. The parsers
return PDDL text (``"(on a b)"``, ``"(unstack a b)"``) or a state bitmask, and raise
``widthbench.core.errors.ParseError`` naming the fragment they could not read: they never guess.

Natural-language templates are data: ``pddl_domains/<domain>.nl.toml`` (set "widthbench") and
``<domain>.planbench.toml`` (set "planbench"). The set for a task is the file of that set whose
templates cover every predicate and action of the task's domain (by name and arity), so PlanBench's,
IPC's and our own copies of a domain all find their file. A user's own file wins
(``--templates FILE``, ``Domain.templates_file``). A domain no file covers gets *generated* templates
built from its predicate and action names (``generated_template_set``: ``(at-robby r x)`` -> "robby r is
at x", ``(free g)`` -> "g is free", ``(move r a b)`` -> "move r a b") with the PDDL object names.

Types are facts: every object whose PDDL type is not ``object`` gets a type fact, shown with the static
facts ("apt1 is an airport", in PDDL ``(airport apt1)``). A template file may phrase or hide them in
a ``[types]`` table (hidden when the object's name already says it). Type facts in answers are read
and ignored like static facts (``parse_atoms(types=True)`` returns them as ``(- object type)``).

Object names are a function of the task: objects sorted by a natural key (``b2`` before ``b10``,
``z`` before ``aa``), then named by the file's scheme (colours by position for Blocksworld; role and
number for Logistics). The layout rules for parsing are in ``readers.layout``; docs/rendering.md has both.
"""

from __future__ import annotations

import functools
import re
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

from widthbench.core.errors import ParseError, UserError
from widthbench.core.runfiles import input_file
from widthbench.planners.strips import Action, Domain, Task, either_members, parse_atom_text, state_atoms

from . import planbench_configs
from .readers import layout
from .readers.layout import ARTICLES, Form

STYLES = ("nl", "pddl")
TEMPLATE_SETS = {"widthbench": "nl", "planbench": "planbench"}  # set name -> file suffix
TEMPLATE_DIR = Path(__file__).resolve().parent

_SLOT = re.compile(r"\{(\d+)\}")
_FORBIDDEN = re.compile(r"[,;.]|" + layout.WORDS.SEPARATOR_WORDS)
_OPT_ARTICLE = "(?:(?:the|a|an) )?"


# ------------------------------------------------------------------------------------------
# Template files


@dataclass(frozen=True, slots=True)
class TemplateSet:
    path: str
    set_name: str
    format: dict
    objects: dict
    predicates: dict  # name -> tuple of templates (first renders; "" = not shown)
    actions: dict
    types: dict = None  # PDDL type -> tuple of templates for its type fact ("" = not shown)

    def covers(self, domain: Domain) -> bool:
        """True when every predicate and action schema of ``domain`` has usable templates."""
        for p, arity in domain.predicates.items():
            ts = self.predicates.get(p)
            if not ts or not _slots_ok(ts, arity):
                return False
            if ts[0] == "" and p not in domain.static_predicates:
                return False  # a fluent that is never shown could not be read back
        for s in domain.schemas:
            ts = self.actions.get(s.name)
            if not ts or ts[0] == "" or not _slots_ok(ts, len(s.params)):
                return False
        return True


def _slots_ok(templates: tuple[str, ...], arity: int) -> bool:
    for t in templates:
        if t == "":
            continue
        slots = [int(x) for x in _SLOT.findall(t)]
        if sorted(slots) != list(range(arity)):
            return False
    return True


@functools.lru_cache(maxsize=32)
def load_template_file(path: str) -> TemplateSet:
    """Read and check one template file (errors here are bugs in the data file: ValueError)."""
    with open(path, "rb") as f:
        data = tomllib.load(f)

    def entries(table: str) -> dict:
        out = {}
        for key, value in data.get(table, {}).items():
            ts = (value,) if isinstance(value, str) else tuple(value)
            if not ts or not all(isinstance(t, str) for t in ts):
                raise ValueError(f"{path}: [{table}] {key}: expected a string or a list of strings")
            for t in ts:
                _check_template(path, table, key, t)
            out[key.lower()] = tuple(" ".join(t.lower().split()) for t in ts)
        return out

    return TemplateSet(path, data.get("set", Path(path).stem), dict(data.get("format", {})),
                       dict(data.get("objects", {})), entries("predicates"), entries("actions"),
                       entries("types"))


def _check_template(path: str, table: str, key: str, t: str) -> None:
    if t == "":
        return
    if _FORBIDDEN.search(t.lower()):
        raise ValueError(f"{path}: [{table}] {key}: {t!r} contains a clause separator (, ; . and then)")
    for word in t.split():
        if "{" in word and not _SLOT.fullmatch(word):
            raise ValueError(f"{path}: [{table}] {key}: slot in {t!r} must be a whole word like {{0}}")
    slots = _SLOT.findall(t)
    if len(slots) != len(set(slots)):
        raise ValueError(f"{path}: [{table}] {key}: a slot appears twice in {t!r}")


def template_set_for(domain: Domain, templates: str = "widthbench") -> TemplateSet | None:
    """The template file for ``domain``: the user's own (``domain.templates_file``, or ``templates``
    given as a path to a .toml file), else the file of set ``templates`` that covers the domain;
    None means no file does (``templates_for`` then generates templates)."""
    user = domain.templates_file or (templates if templates.endswith(".toml") or
                                     planbench_configs.is_config(templates) else "")
    if user:
        return user_template_file(domain, user)
    if templates == PDDL_WORDS:
        return pddl_words_template_set(domain)
    if templates not in TEMPLATE_SETS:
        raise UserError(f"unknown template set {templates!r} (known: {', '.join(TEMPLATE_SETS)}, or a .toml file)")
    suffix = TEMPLATE_SETS[templates]
    for path in sorted(TEMPLATE_DIR.glob(f"*.{suffix}.toml")):
        ts = load_template_file(str(path))
        if ts.covers(domain):
            return ts
    return None


def user_template_file(domain: Domain, path: str) -> TemplateSet:
    """A user's template file; it must cover the domain (errors name what is missing)."""
    input_file(path, "templates file")
    try:
        if planbench_configs.is_config(path):
            ts = config_template_set(str(Path(path).resolve()))
            if ts is None:
                raise UserError(f"{path}: PlanBench config without 'actions' and 'predicates' templates "
                                "(its variant is asked in PDDL: use --style pddl)")
        else:
            ts = load_template_file(str(Path(path).resolve()))
    except (ValueError, tomllib.TOMLDecodeError) as exc:
        raise UserError(f"{path}: {exc}") from None
    if not ts.covers(domain):
        missing = [p for p in domain.predicates if p not in ts.predicates] + \
                  [a.name for a in domain.schemas if a.name not in ts.actions]
        what = f"no templates for {', '.join(missing[:5])}" if missing else "slots or hidden fluents do not fit"
        raise UserError(f"{path}: does not cover domain {domain.name!r} ({what})")
    return ts


@functools.lru_cache(maxsize=32)
def config_template_set(path: str) -> TemplateSet | None:
    """The template set of a PlanBench YAML config (`planbench_configs`; None when it has none): one
    template per predicate and action, its ``encoded_objects`` names (``encoded_objects_compact`` also
    read), PlanBench's state layout, and the paraphrases of the plain domain whose "planbench" set
    writes the same action sentences (none for an obfuscated vocabulary: paraphrases are English)."""
    tables = planbench_configs.config_tables(path)
    if tables is None:
        return None
    for table in ("predicates", "actions"):
        for key, t in tables[table].items():
            _check_template(path, table, key, t)
    # read-only second template: the action's PDDL name and its arguments ("feast b d"), the
    # bracket-less call a reply writes when it echoes the domain's own names
    acts = {k: tuple(dict.fromkeys((t, " ".join([k] + [f"{{{i}}}" for i in range(t.count("{"))]))))
            for k, t in tables["actions"].items()}
    paraphrases = None
    for toml in sorted(TEMPLATE_DIR.glob("*.planbench.toml")):
        ts = load_template_file(str(toml))
        if acts and all(ts.actions.get(k, ("",))[0] == v[0] for k, v in acts.items()):  # same sentences
            paraphrases = toml.name.split(".")[0]
            break
    objects = ({"scheme": "encoded", "encoded": tables["encoded"], "compact": tables["compact"]}
               if tables["encoded"] else {"scheme": "pddl"})
    fmt = {"state_separator": ", ", "state_last_separator": " and ", "list_separator": "\n", "empty": "none",
           "negation": "it is not the case that {}", "paraphrases": paraphrases}
    return TemplateSet(path, "planbench-config", fmt, objects,
                       {k: (t,) for k, t in tables["predicates"].items()}, acts, {})


PDDL_WORDS = "pddl-words"


def pddl_words_template_set(domain: Domain) -> TemplateSet:
    """Set "pddl-words": a fact or action written as its PDDL name then its arguments, without
    parentheses ("b6e9q4r60gagvdcn object_1 object_2"), objects by their PDDL names: how PlanBench
    words the prompts of a domain obfuscated with random strings."""
    preds = {p: (" ".join([p] + [f"{{{i}}}" for i in range(n)]),) for p, n in domain.predicates.items()}
    acts = {s.name: (" ".join([s.name] + [f"{{{i}}}" for i in range(len(s.params))]),) for s in domain.schemas}
    fmt = {"state_separator": ", ", "state_last_separator": " and ", "list_separator": "\n", "empty": "none",
           "negation": "it is not the case that {}"}
    return TemplateSet(f"<{PDDL_WORDS}:{domain.name}>", PDDL_WORDS, fmt, {"scheme": "pddl"}, preds, acts, {})


def templates_for(domain: Domain, templates: str = "widthbench") -> TemplateSet:
    """The template file for ``domain`` (``template_set_for``), else templates generated from it."""
    return template_set_for(domain, templates) or generated_template_set(domain)


# ------------------------------------------------------------------------------------------
# Generated templates (a domain no file covers)

GENERATED = "generated"
_PREPOSITIONS = frozenset("at in on into onto from to with under above below inside near by of over "
                          "behind beside".split())


def _words(name: str) -> list[str]:
    words = [w for w in re.split(r"[-_]+", name) if w]
    if not words or _FORBIDDEN.search(" ".join(words)) or any(w in ARTICLES for w in words):
        return [name]  # keep the name whole rather than write a clause separator or an article
    return words


def _article(noun: str) -> str:
    return "an" if noun[:1] in "aeiou" else "a"


def generic_predicate_template(name: str, arity: int) -> str:
    """``at-robby/2`` -> "robby {0} is at {1}"; ``free/1`` -> "{0} is free"; ``carry/2`` -> "{0} carry {1}"."""
    w = _words(name)
    slots = [f"{{{i}}}" for i in range(arity)]
    if arity == 0:
        return " ".join(w)
    if arity == 1:
        return f"{{0}} is {' '.join(w)}"
    if w[0] in _PREPOSITIONS:
        rest = " ".join(w[1:])
        head = f"{rest} {{0}}" if rest else "{0}"
        return f"{head} is {w[0]} " + " ".join(slots[1:])
    if w[-1] in _PREPOSITIONS:
        return f"{{0}} is {' '.join(w)} " + " ".join(slots[1:])
    return f"{{0}} {' '.join(w)} " + " ".join(slots[1:])


def generic_action_template(name: str, arity: int) -> str:
    """``move/3`` -> "move {0} {1} {2}"; ``pick-up/1`` -> "pick up {0}"."""
    return " ".join(_words(name) + [f"{{{i}}}" for i in range(arity)])


def generic_type_template(type_name: str) -> str:
    """``airport`` -> "{0} is an airport"."""
    w = _words(type_name)
    return f"{{0}} is {_article(w[0])} {' '.join(w)}"


def _skeleton(template: str) -> tuple[str, ...]:
    return tuple("{}" if _SLOT.fullmatch(x) else x for x in template.split() if x not in ARTICLES)


@functools.lru_cache(maxsize=64)
def _generated(name: str, predicates: tuple, actions: tuple, types: tuple) -> TemplateSet:
    preds = {p: generic_predicate_template(p, n) for p, n in predicates}
    acts = {a: generic_action_template(a, n) for a, n in actions}
    typs = {t: generic_type_template(t) for t in types}
    # Two names giving one sentence shape could not be told apart when parsing: spell those out.
    for table, fallback in ((preds, lambda k, n: f"{k} holds for " + " ".join(f"{{{i}}}" for i in range(n))),
                            (acts, lambda k, n: " ".join([k] + [f"{{{i}}}" for i in range(n)]))):
        arity = dict(predicates) if table is preds else dict(actions)
        seen: dict[tuple, list[str]] = {}
        others = {_skeleton(t) for t in typs.values()} if table is preds else set()
        for k, t in table.items():
            seen.setdefault(_skeleton(t), []).append(k)
        for sk, keys in seen.items():
            if len(keys) > 1 or sk in others:
                for k in keys:
                    table[k] = fallback(k, arity[k])
    fmt = {"state_separator": "\n", "state_last_separator": "\n", "list_separator": "\n", "empty": "none",
           "negation": "it is not the case that {}"}
    return TemplateSet(f"<generated:{name}>", GENERATED, fmt, {"scheme": "pddl"},
                       {k: (v,) for k, v in preds.items()}, {k: (v,) for k, v in acts.items()},
                       {k: (v,) for k, v in typs.items()})


def generated_template_set(domain: Domain) -> TemplateSet:
    """NL templates built from the names of ``domain``'s predicates, actions and types."""
    return _generated(domain.name, tuple(sorted(domain.predicates.items())),
                      tuple(sorted((s.name, len(s.params)) for s in domain.schemas)),
                      tuple(sorted(domain.types)))


# ------------------------------------------------------------------------------------------
# Object names


def natural_key(name: str) -> tuple:
    """Sort key: digit runs compare as numbers, letter runs by length then text (z < aa)."""
    return tuple((0, int(p), "") if p.isdigit() else (1, len(p), p) for p in re.findall(r"\d+|\D+", name))


def object_names(task: Task, ts: TemplateSet | None) -> tuple[dict[str, str], dict[str, str]]:
    """(PDDL name -> NL name, NL name or alias -> PDDL name) for the objects of ``task``."""
    objs = sorted((o for o, _ in task.objects), key=natural_key)
    spec = ts.objects if ts else {}
    scheme = spec.get("scheme", "pddl")
    aliases: dict[str, str] = {}
    if scheme == "colours":
        colours = [c.lower() for c in spec["colours"]]
        names = {}
        for i, o in enumerate(objs):
            if i < len(colours):
                names[o] = spec["name"].format(colour=colours[i])
                if spec.get("short_names"):
                    aliases[colours[i]] = o
            else:
                names[o] = spec["numbered"].format(n=i + 1)
    elif scheme == "roles":
        names = _role_names(task, objs, spec)
    elif scheme == "encoded":  # a PlanBench config's encoded_objects (planbench_configs.encoded_name)
        names = {o: planbench_configs.encoded_name(o, spec["encoded"]) or o for o in objs}
        for o in objs:
            short = planbench_configs.encoded_name(o, spec.get("compact") or {})
            if short and short != names[o]:
                aliases[short] = o
        # an encoding that spells the PDDL name ("object b" for b) makes the bare name a name of the
        # object too ("attack b"); a colour ("red block" for b) does not
        taken = set(names.values()) | set(aliases)
        aliases.update({o: o for o in objs if o not in taken and o.lower() in names[o].split() and names[o] != o})
    elif scheme == "pddl":
        names = {o: o for o in objs}
    else:
        raise ValueError(f"{ts.path}: unknown object naming scheme {scheme!r}")
    names = {o: " ".join(n.lower().split()) for o, n in names.items()}
    if len(set(names.values())) != len(names) or set(names.values()) & set(aliases):
        names, aliases = {o: o for o in objs}, {}  # never render two objects alike
    reverse = dict(aliases)
    reverse.update({n: o for o, n in names.items()})
    return names, reverse


def _role_names(task: Task, objs: list[str], spec: dict) -> dict[str, str]:
    unary = {}
    for a in task.static_atoms:
        pred, args = parse_atom_text(a)
        if len(args) == 1:
            unary.setdefault(args[0], set()).add(pred)
    types = dict(task.objects)
    by_role: dict[str, list[str]] = {}
    names = {}
    for o in objs:
        noun = next((n for pred, n in spec["roles"].items() if pred in unary.get(o, ()) or types.get(o) == pred), None)
        if noun is None:
            names[o] = o
        else:
            by_role.setdefault(noun, []).append(o)
    group_pred = spec.get("group_by")
    groups: dict[str, str] = {}
    if group_pred:
        for a in task.static_atoms:
            pred, args = parse_atom_text(a)
            if pred == group_pred and len(args) == 2:
                groups[args[0]] = args[1] if args[0] not in groups else ""  # "" = in several groups
    for noun, members in by_role.items():
        digits = [_digits(o) for o in members]
        if all(digits) and len(set(digits)) == len(digits):
            names.update({o: spec["name"].format(noun=noun, digits=d) for o, d in zip(members, digits)})
            continue
        # IPC names locations apt1, pos1 (both in cit1): number them within their group instead.
        owners = [_digits(groups.get(o, "")) for o in members]
        if group_pred and all(owners):
            seen: dict[str, int] = {}
            for o, g in zip(members, owners):
                k = seen[g] = seen.get(g, -1) + 1
                names[o] = spec["name"].format(noun=noun, digits=f"{g}_{k}")
            continue
        names.update({o: spec["numbered"].format(noun=noun, n=i) for i, o in enumerate(members)})
    return names


def _digits(name: str) -> str:
    return "_".join(re.findall(r"\d+", name))


# ------------------------------------------------------------------------------------------
# Compiled templates


@dataclass(frozen=True, slots=True)
class _Template:
    kind: str  # "atom" | "action"
    name: str  # predicate or action name
    text: str
    strict: re.Pattern
    loose: re.Pattern
    arity: int


def template_regex_text(text: str, slot_regex: str) -> str:
    """The regular expression, as text, of one NL template whose slots match ``slot_regex`` (the
    template's articles are optional)."""
    parts, article = [], False
    for w in text.split():
        if w in ARTICLES:
            article = True
            continue
        m = _SLOT.fullmatch(w)
        if m:
            parts.append(f"{_OPT_ARTICLE}(?P<s{m.group(1)}>{slot_regex})")
        else:
            parts.append((_OPT_ARTICLE if article else "") + re.escape(w))
        article = False
    return " ".join(parts)


@functools.lru_cache(maxsize=64)
def _compile_templates(tables: tuple, names: tuple) -> tuple[_Template, ...]:
    """The regular expressions of one set of templates for one set of object names (cached:
    compiling them costs milliseconds, and every Renderer of a task needs the same). ``tables`` holds
    (kind, name, arity, templates) rows: kind "atom", "action" or "type" (a type fact, arity 1)."""
    # Longest names first, so that "block 13" is tried before "block 1" (full matches decide anyway).
    alt = "|".join(re.escape(n) for n in sorted(names, key=lambda n: (-len(n), n))) or "(?!)"
    out = []
    for kind, name, arity, templates in tables:
        for t in templates:
            if t:
                out.append(_Template(kind, name, t, re.compile(template_regex_text(t, alt)),
                                     re.compile(template_regex_text(t, ".+?")), arity))
    return tuple(out)


def _ordinal_args(m: re.Match, arity: int) -> list[str]:
    return [m.group(f"s{i}") for i in range(arity)]


# ------------------------------------------------------------------------------------------
# The renderer


class Renderer:
    """Render and parse states, goals, actions and plans of one task in one style."""

    def __init__(self, task: Task, style: str = "nl", templates: str = "widthbench"):
        if style not in STYLES:
            raise UserError(f"unknown style {style!r} (known: {', '.join(STYLES)})")
        self.task = task
        self.style = style
        self.templates = templates
        self.template_set = templates_for(task.domain, templates)
        self.names, self._objects_by_name = object_names(task, self.template_set)
        fmt = self.template_set.format
        self._sep = fmt.get("state_separator", "\n")
        self._last_sep = fmt.get("state_last_separator", self._sep)
        self._list_sep = fmt.get("list_separator", "\n")
        self._empty = fmt.get("empty", "none")
        self._negation = fmt.get("negation", "it is not the case that {}")
        self._static = frozenset(task.static_atoms)
        self._static_tuples = frozenset(parse_atom_text(a) for a in task.static_atoms)
        self._compiled: tuple[_Template, ...] | None = None
        dom = task.domain
        self._type_names = frozenset(t for t in dom.types if t not in dom.predicates)
        #: (object, type) of every object with a PDDL type other than ``object``, by type then name.
        self.type_facts = tuple(sorted(((o, m) for o, t in task.objects if t != "object"
                                        for m in either_members(t)), key=lambda x: (x[1], natural_key(x[0]))))

    @property
    def generated(self) -> bool:
        """True when no template file covers the domain: NL templates generated from the names."""
        return self.template_set.set_name == GENERATED

    @property
    def generic(self) -> bool:
        """Always False: every domain now has NL templates (generated ones for a domain no file
        covers, see ``generated``); the functional notation ``on(a, b)`` this flag announced is gone,
        so readers that special-cased it read generated templates like any template file."""
        return False

    # ---------------------------------------------------------------- type facts

    def type_fact(self, obj: str, type_name: str) -> str:
        """"apt1 is an airport" / ``(airport apt1)``; "" when the template file hides it."""
        if self.style == "pddl":
            return _pddl(type_name, (obj,)) if type_name in self._type_names else ""
        ts = self.template_set.types or {}
        templates = ts.get(type_name) or (generic_type_template(type_name),)
        return _fill_text(templates[0], [self.names[obj]]) if templates[0] else ""

    def type_fact_texts(self) -> list[str]:
        return [x for x in (self.type_fact(o, t) for o, t in self.type_facts) if x]

    def static_facts(self) -> str:
        """The facts that never change: type facts, then the static atoms ("none" if there are none)."""
        items = self.type_fact_texts() + [x for x in (self.atom(a) for a in sorted(self.task.static_atoms)) if x]
        return self._join(items)

    # ---------------------------------------------------------------- rendering

    def atom(self, atom) -> str:
        """One atom (PDDL text, ``(not ...)`` allowed); "" for a static fact the set does not show."""
        text = atom if isinstance(atom, str) else "(" + " ".join((atom[0], *atom[1])) + ")"
        negated, pred, args = _split_not(text)
        if self.style == "pddl":
            core = "(" + " ".join((pred, *args)) + ")"
            return f"(not {core})" if negated else core
        core = self._fill(self.template_set.predicates, pred, args, "predicate")
        if negated:
            return self._negation.replace("{}", core) if core else ""
        return core

    def atoms(self, atoms) -> str:
        """A list of atoms, in the given order, joined like a state."""
        return self._join([x for x in (self.atom(a) for a in atoms) if x])

    def state(self, s: int, include_static: bool = True) -> str:
        """A state (bitmask), with the task's static facts unless ``include_static`` is False.

        Atoms are sorted by predicate, then arguments (PDDL names), as PlanBench lists them.
        """
        atoms = state_atoms(self.task, s)
        if not include_static:
            return self.atoms(sorted(atoms, key=parse_atom_text))
        atoms = sorted(atoms + list(self.task.static_atoms), key=parse_atom_text)
        return self._join(self.type_fact_texts() + [x for x in (self.atom(a) for a in atoms) if x])

    def goal(self) -> str:
        task = self.task
        if task.goal >> task.n_atoms:
            raise UserError(f"task {task.problem_name}: the goal needs a static atom that is false initially")
        atoms = state_atoms(task, task.goal) + [f"(not {a})" for a in state_atoms(task, task.goal_neg)]
        return self.atoms(atoms)

    def action(self, a) -> str:
        """One action: an ``Action`` or PDDL text such as ``"(unstack a b)"``."""
        if isinstance(a, Action):
            name, args = a.name, a.args
        else:
            name, args = parse_atom_text(a)
        if self.style == "pddl":
            return _pddl(name, args)
        return self._fill(self.template_set.actions, name, args, "action")

    def actions(self, actions) -> str:
        """A list of actions, one per line."""
        out = [self.action(a) for a in actions]
        return self._list_sep.join(out) if out else self._empty

    def plan(self, actions) -> str:
        """A plan, one action per line ("none" for the empty plan)."""
        return self.actions(actions)

    def _fill(self, table: dict, name: str, args, what: str) -> str:
        ts = table.get(name)
        if ts is None:
            raise UserError(f"unknown {what} {name!r} for domain {self.task.domain_name}")
        for arg in args:
            if arg not in self.names:
                raise UserError(f"unknown object {arg!r} in ({name} {' '.join(args)})")
        return _fill_text(ts[0], [self.names[a] for a in args])

    def _join(self, items: list[str]) -> str:
        if not items:
            return self._empty
        if self.style == "pddl":
            return " ".join(items)
        if len(items) == 1:
            return items[0]
        return self._sep.join(items[:-1]) + self._last_sep + items[-1]

    # ---------------------------------------------------------------- parsing

    def parse_atoms(self, text: str, types: bool = False) -> list[str]:
        """Atoms in ``text`` as PDDL texts, in order, without repeats; fluent and static allowed.

        Negated facts come back as ``"(not (on a b))"``. "none" alone means no atoms. Type facts
        ("apt1 is an airport") are dropped, or with ``types`` returned as ``"(- apt1 airport)"``.
        """
        if _blank(text):
            raise ParseError("empty answer: no atoms found")
        if layout.is_empty_answer(layout.normalise(text)):
            return []
        out = []
        found = False
        for negated, name, args in self._read(text, "atom"):
            found = True
            if name == "-" and not types:
                continue
            a = _pddl(name, args)
            a = f"(not {a})" if negated else a
            if a not in out:
                out.append(a)
        if not found:
            raise ParseError("no atoms found in the answer")
        return out

    def parse_state(self, text: str) -> int:
        """A state bitmask; static facts (true or not) are ignored, unknown fluent atoms are errors."""
        s = 0
        index = self.task.atom_index
        static_preds = self.task.domain.static_predicates
        for a in self.parse_atoms(text):
            if a.startswith("(not "):
                raise ParseError(f"a state lists true facts only; cannot use the negated fact {self._show(a)!r}")
            i = index.get(a)
            if i is not None:
                s |= 1 << i
            elif parse_atom_text(a)[0] not in static_preds:
                raise ParseError(f"{self._show(a)!r} ({a}) can never hold in task {self.task.problem_name}")
        return s

    def parse_actions(self, text: str) -> list[str]:
        """Actions in ``text`` as PDDL texts, in the order written (repeats kept). "none" means []."""
        if _blank(text):
            raise ParseError("empty answer: no actions found")
        if layout.is_empty_answer(layout.normalise(text)):
            return []
        out = []
        for negated, name, args in self._read(text, "action"):
            if negated:
                raise ParseError(f"cannot read a negated action ({name} {' '.join(args)})")
            out.append(_pddl(name, args))
        if not out:
            raise ParseError("no actions found in the answer")
        return out

    def parse_plan(self, text: str) -> list[str]:
        """A plan: like ``parse_actions`` (order and repeats kept); "none" is the empty plan."""
        return self.parse_actions(text)

    def parse_action(self, text: str) -> str:
        """Exactly one action, as PDDL text."""
        acts = self.parse_actions(text)
        if len(acts) != 1:
            found = ", ".join(acts) if acts else "none"
            raise ParseError(f"expected one action, found {len(acts)}: {found}")
        return acts[0]

    def _show(self, atom: str) -> str:
        return self.atom(atom) or atom

    def _read(self, text: str, kind: str) -> list[tuple[bool, str, tuple[str, ...]]]:
        norm = layout.normalise(text)
        if self.style == "pddl":
            forms = layout.scan_pddl(norm, lambda c: self._bare(c, kind))
            return [self._check_form(f, kind) for f in forms]
        return [self._read_clause_or_whole(c, kind) for c in layout.clauses(norm)]

    def _read_clause_or_whole(self, c, kind: str):
        """A clause; when it reads as nothing, the clause with the leading word ``clauses`` dropped as
        a connective ("next", "then") put back: a vocabulary may use it as a name ("next a b")."""
        try:
            return self._read_clause(c.text, c.line, kind)
        except ParseError:
            if not c.whole or c.whole == c.text:
                raise
            first_error = sys.exc_info()[1]
        try:
            return self._read_clause(c.whole, c.line, kind)
        except ParseError:
            raise first_error from None

    # PDDL forms

    def _bare(self, clause: str, kind: str) -> Form | None:
        toks = clause.split()
        if not toks:
            return None
        name, args = toks[0], tuple(toks[1:])
        arity = self._arity(name, kind)
        if arity is None or arity != len(args) or not all(a in self.names for a in args):
            return None
        return Form(name, args, False, clause)

    def _arity(self, name: str, kind: str) -> int | None:
        if kind == "atom":
            if name in self._type_names:
                return 1
            return self.task.domain.predicates.get(name)
        s = self.task.domain.schema(name)
        return None if s is None else len(s.params)

    def _check_form(self, f: Form, kind: str) -> tuple[bool, str, tuple[str, ...]]:
        arity = self._arity(f.name, kind)
        if arity is None:
            other = self._arity(f.name, "action" if kind == "atom" else "atom")
            hint = f" ({f.name} is {'an action' if kind == 'atom' else 'a predicate'})" if other is not None else ""
            raise ParseError(f"unknown {'predicate' if kind == 'atom' else 'action'} {f.name!r} in {f.fragment!r}{hint}")
        if arity != len(f.args):
            raise ParseError(f"{f.name} takes {arity} argument(s), got {len(f.args)} in {f.fragment!r}")
        for a in f.args:
            if a not in self.names:
                raise ParseError(f"unknown object {a!r} in {f.fragment!r}")
        if f.negated and kind == "action":
            raise ParseError(f"cannot read a negated action in {f.fragment!r}")
        if kind == "atom" and f.name in self._type_names:
            return f.negated, "-", (f.args[0], f.name)
        return f.negated, f.name, f.args

    # natural language

    def _templates(self) -> tuple[_Template, ...]:
        if self._compiled is None:
            dom, ts = self.task.domain, self.template_set
            rows = [("atom", p, n, ts.predicates[p]) for p, n in dom.predicates.items()]
            rows += [("action", a.name, len(a.params), ts.actions[a.name]) for a in dom.schemas]
            types = ts.types or {}
            rows += [("type", t, 1, types.get(t) or (generic_type_template(t),))
                     for t in sorted(self._type_names)]
            self._compiled = _compile_templates(tuple(rows), tuple(sorted(self._objects_by_name)))
        return self._compiled

    def _read_clause(self, clause: str, line: int, kind: str) -> tuple[bool, str, tuple[str, ...]]:
        negated = False
        neg_prefix = " ".join(self._negation.lower().split()).split("{}")[0]
        if kind == "atom" and neg_prefix and clause.startswith(neg_prefix):
            negated, body = True, clause[len(neg_prefix):].strip()
        else:
            body = clause
        cands = self._match(body, kind)
        if not cands:
            rest = layout.strip_lead_in(body)
            if rest is not None:
                cands = self._match(rest, kind)
        if not cands:
            raise self._no_match(clause, line, kind)
        if len(cands) > 1:
            fitting = [c for c in cands if self._fits(c, kind)]
            if len(fitting) != 1:
                shown = " or ".join(_pddl(n, a) for n, a in cands)
                why = "" if fitting else ", and its objects fit none of them"
                raise ParseError(f"line {line}: {clause!r} is ambiguous: it reads as {shown}{why}")
            cands = fitting
        name, args = cands[0]
        return negated, name, args

    def _match(self, clause: str, kind: str) -> list[tuple[str, tuple[str, ...]]]:
        found = []
        for t in self._templates():
            if t.kind != kind and not (kind == "atom" and t.kind == "type"):
                continue
            m = t.strict.fullmatch(clause)
            if m:
                args = tuple(self._objects_by_name[x] for x in _ordinal_args(m, t.arity))
                cand = ("-", (args[0], t.name)) if t.kind == "type" else (t.name, args)
                if cand not in found:
                    found.append(cand)
        return found

    def _fits(self, cand: tuple[str, tuple[str, ...]], kind: str) -> bool:
        """Used only to choose between readings of one sentence (PlanBench's "load X into Y at Z")."""
        name, args = cand
        if name == "-":
            return self.task.domain.is_subtype(dict(self.task.objects).get(args[0], "object"), args[1])
        if kind == "atom":
            text = _pddl(name, args)
            return text in self.task.atom_index or text in self._static
        schema = self.task.domain.schema(name)
        types = dict(self.task.objects)
        for var, ptype, arg in zip(schema.params, schema.param_types, args):
            if not self.task.domain.is_subtype(types.get(arg, "object"), ptype):
                return False
            for lit in schema.pre:
                if (lit.positive and lit.args == (var,) and lit.predicate in self.task.domain.static_predicates
                        and (lit.predicate, (arg,)) not in self._static_tuples):
                    return False
        return True

    def _no_match(self, clause: str, line: int, kind: str) -> ParseError:
        what = "fact" if kind == "atom" else "action"
        for body in (clause, layout.strip_lead_in(clause)):
            if body is None:
                continue
            for t in self._templates():
                if t.kind != kind:
                    continue
                m = t.loose.fullmatch(body)
                if not m:
                    continue
                unknown = [x for x in _ordinal_args(m, t.arity) if x not in self._objects_by_name]
                if unknown:
                    known = sorted(self.names.values(), key=natural_key)
                    listed = ", ".join(known[:12]) + (", ..." if len(known) > 12 else "")
                    return ParseError(f"line {line}: unknown object {unknown[0]!r} in {clause!r} "
                                      f"(objects: {listed})")
        if kind == "atom":
            example = next((self.atom(a) for a in state_atoms(self.task, self.task.init) if self.atom(a)), "")
        else:
            example = self.action(self.task.actions[0]) if self.task.actions else ""
        return ParseError(f"line {line}: cannot read {clause!r}: it matches no {what} sentence of the "
                          f"{self.templates!r} templates for {self.task.domain_name} (e.g. {example!r})")


def _split_not(text: str) -> tuple[bool, str, tuple[str, ...]]:
    t = text.strip().lower()
    m = re.fullmatch(r"\(\s*not\s*(\(.*\))\s*\)", t)
    if m:
        pred, args = parse_atom_text(m.group(1))
        return True, pred, args
    pred, args = parse_atom_text(t)
    return False, pred, args


def _fill_text(template: str, values) -> str:
    return _SLOT.sub(lambda m: values[int(m.group(1))], template)


def _pddl(name: str, args) -> str:
    return "(" + " ".join((name, *args)) + ")"


def _functional(name: str, args) -> str:
    return f"{name}({', '.join(args)})" if args else name


def _blank(text: str) -> bool:
    return not layout.normalise(text or "").strip()
