"""The STRIPS engine: the one model of planning tasks that every part of widthbench uses.

A task is facts, actions (preconditions, add, delete) and a goal. Fluent atoms are interned as
integers and a state is an int bitmask: bit i set means ``task.atoms[i]`` holds. Static atoms
(predicates no action changes, e.g. ``in-city``) are folded away at grounding time: they are kept in
``task.static_atoms`` for prompts, never in states.

Semantics (fixed and tested):
- successor(s, a) = (s minus del(a)) plus add(a): an atom both deleted and added ends up true.
- applicable_actions returns actions sorted by action name, then arguments (``Action.id`` order).
- Only positive goal atoms plus optional negated goal atoms (``goal_neg``) are supported.

Supported PDDL: ``:strips``, ``:typing`` (with ``either`` types and PDDL's implicit root type
``object``, declared or not), ``:negative-preconditions`` and ``:equality`` (each used only where the
domain declares it). ``:adl`` and ``:action-costs`` may be declared (ACPBench's alfred does) as long as
the actions use only the constructs above and no costs; ``or`` in a precondition
(``:disjunctive-preconditions`` or ``:adl``) is supported when every disjunct is a static fact or an
(in)equality, decided at grounding time like the other static preconditions. Anything else is rejected with a ``UserError``
that names it.

Typing checks (a problem never grounds silently to nothing): every object type of a problem must be a
type of the domain, and the problem's ``(:domain NAME)`` must be the domain's name or a name of the same
family (``blocksworld`` / ``blocksworld-4ops`` / ``blocks``: copies of one domain are named
differently); otherwise ``UserError`` names both. Tests: tests/planners/test_strips.py.
"""

from __future__ import annotations

import functools
import operator
import re
from dataclasses import dataclass, field
from pathlib import Path

from widthbench.core.errors import UserError, listed
from widthbench.core.runfiles import input_file

# --------------------------------------------------------------------------------------------
# Faults of problem texts


class PddlError(UserError):
    """A domain or problem text the engine cannot read, with the kind of fault in ``kind``:
    ``parse-error`` (not PDDL: malformed, empty, an undeclared predicate or requirement in a domain),
    ``unsupported`` (PDDL beyond the engine's fragment), and for a problem ``wrong-domain`` (written
    for a domain of another name), ``unknown-type``, ``unknown-predicate``, ``wrong-arity``,
    ``unknown-object``. Still a `UserError` (one line, exit 2) for the commands; the equivalence
    judges (`planners.equivalence`, `planners.domain_equivalence`) read the kind as the class of a
    candidate's fault."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind


FAULTS = ("parse-error", "unsupported", "wrong-domain", "unknown-type", "unknown-predicate", "wrong-arity",
          "unknown-object")


# --------------------------------------------------------------------------------------------
# Lifted domain


@dataclass(frozen=True, slots=True)
class Literal:
    """A (possibly negated) atom over variables ``?x`` and constants; predicate ``=`` is equality."""

    positive: bool
    predicate: str
    args: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Schema:
    name: str
    params: tuple[str, ...]  # variable names with leading '?'
    param_types: tuple[str, ...]  # "object" when untyped
    pre: tuple[Literal, ...]
    add: tuple[Literal, ...]
    dele: tuple[Literal, ...]
    # Disjunctive preconditions, each a tuple of static literals of which one must hold: decided at
    # grounding time like the other static preconditions (ACPBench's alfred: "the knife is a knife
    # or a butter knife"). A disjunction over fluents is rejected.
    pre_or: tuple[tuple[Literal, ...], ...] = ()


@dataclass(frozen=True, slots=True)
class Domain:
    name: str
    requirements: frozenset[str]
    types: dict  # type -> parent type ("object" is the root)
    constants: tuple[tuple[str, str], ...]  # (name, type)
    predicates: dict  # name -> arity
    schemas: tuple[Schema, ...]
    static_predicates: frozenset[str]
    source: str = ""  # path or name it was loaded from
    text: str = field(default="", repr=False)  # lower-cased PDDL text
    # How prompts present the domain (not semantics): a hand-written context file and an NL template
    # file chosen by the user (--context FILE, --templates FILE); "" = the default choice.
    context_file: str = field(default="", compare=False)
    templates_file: str = field(default="", compare=False)
    # --obfuscate: (mode, seed) when prompts show this domain renamed (pddl_domains.obfuscate); the
    # engine never reads it (grounding, plans and truth are the plain domain's).
    obfuscation: tuple = field(default=(), compare=False)
    # The user's prompt templates (--prompt-dir DIR: a copy of llm/prompts/ to edit) and which
    # novelty prompt is asked (--novelty-prompt); "" = the built-in choice (subtasks/prompts.py).
    prompt_dir: str = field(default="", compare=False)
    novelty_prompt: str = field(default="", compare=False)
    # predicate -> ((variable, type), ...) as declared (for printing the domain back; grounding
    # checks types through the action parameters only)
    signatures: dict = field(default_factory=dict, compare=False, repr=False)
    # Views of the domain built on first use by the layers above (its prompt context): a cache the
    # domain itself holds. Not an init field: dataclasses.replace gives the copy its own.
    views: dict = field(default_factory=dict, init=False, compare=False, repr=False)

    def schema(self, name: str) -> Schema | None:
        for s in self.schemas:
            if s.name == name:
                return s
        return None

    def is_subtype(self, t: str, ancestor: str) -> bool:
        """Whether an object of type ``t`` may stand where ``ancestor`` is wanted. Either types are
        written ``(either a b)``: as ``ancestor`` any member will do; as the type of an object, the
        object belongs to every member, so one fitting member is enough."""
        if ancestor.startswith("(either"):
            return any(self.is_subtype(t, a) for a in either_members(ancestor))
        if t.startswith("(either"):
            return any(self.is_subtype(x, ancestor) for x in either_members(t))
        seen = set()
        while t not in seen:
            if t == ancestor or ancestor == "object":
                return True
            seen.add(t)
            t = self.types.get(t, "object")
        return False


def either_members(t: str) -> tuple[str, ...]:
    """``"(either a b)"`` -> ``("a", "b")``; a plain type -> ``(t,)``."""
    if t.startswith("(either"):
        return tuple(t[len("(either"):-1].split())
    return (t,)


SUPPORTED_REQUIREMENTS = frozenset({"strips", "typing", "negative-preconditions", "equality"})
# Declared by some domains that use only STRIPS constructs (ACPBench's alfred: ":action-costs :adl").
# Declaring them is harmless; what the actions use is checked construct by construct.
TOLERATED_REQUIREMENTS = frozenset({"adl", "action-costs", "disjunctive-preconditions"})
# Requirements that :adl implies and that we support.
_ADL_IMPLIES = frozenset({"strips", "typing", "negative-preconditions", "equality"})
# The pddl parser reserves `object` and refuses it as a parameter type unless some type's parent is
# `object`; PDDL allows it anywhere. We parse such files with a stand-in type name mapped back after.
_OBJECT_STANDIN = "widthbench--object"
DOMAINS_DIR = Path(__file__).resolve().parent.parent / "pddl_domains"


def domain_path(name_or_path: str | Path) -> Path:
    """A domain given by name (``blocksworld``, ``logistics``), by path, or as a folder holding
    ``domain.pddl``."""
    p = Path(name_or_path)
    if p.is_dir():
        if (p / "domain.pddl").is_file():
            return p / "domain.pddl"
        raise UserError(f"no domain.pddl in folder {p}")
    if p.suffix == "" and not p.exists():
        candidate = DOMAINS_DIR / f"{p.name}.pddl"
        if candidate.exists():
            return candidate
        known = sorted(f.stem for f in DOMAINS_DIR.glob("*.pddl"))
        raise UserError(f"unknown domain {str(name_or_path)!r} (known: {listed(known)}; or give a path)")
    return input_file(p, "domain file")


def _read(path: Path, what: str) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise UserError(f"cannot read {what} {path}: {exc.strerror}") from None


def _clean(text: str) -> str:
    # PDDL is case-insensitive; the pddl package is not (IPC files use upper case).
    return text.lower().strip()


def load_domain(name_or_path: str | Path, context_file: str | Path | None = None,
                templates_file: str | Path | None = None) -> Domain:
    """A domain by name or path; ``context_file``/``templates_file`` attach the user's hand-written
    prompt context and NL templates (files checked here, read where prompts are made)."""
    path = domain_path(name_or_path)
    dom = parse_domain_text(_read(path, "domain"), source=str(path))
    return with_presentation(dom, context_file, templates_file)


def with_presentation(dom: Domain, context_file=None, templates_file=None, prompt_dir=None,
                      novelty_prompt=None) -> Domain:
    import dataclasses

    changes = {}
    for key, value in (("context_file", context_file), ("templates_file", templates_file)):
        if value:
            p = input_file(value, f"{key.replace('_file', '')} file")
            changes[key] = str(p.resolve())
    if prompt_dir:
        if not Path(prompt_dir).is_dir():
            raise UserError(f"prompt folder not found: {prompt_dir}")
        changes["prompt_dir"] = str(Path(prompt_dir).resolve())
    if novelty_prompt:
        changes["novelty_prompt"] = novelty_prompt
    return dataclasses.replace(dom, **changes) if changes else dom


@functools.cache
def _pddl_grammar(start: str):
    """The `pddl` package's grammar compiled once per process for ``start`` ("domain" or "problem"):
    its parser classes compile it again on every construction (about 50 ms)."""
    from lark import Lark
    from pddl.parser import GRAMMAR_FILE, PARSERS_DIRECTORY

    return Lark(GRAMMAR_FILE.read_text(), parser="lalr", import_paths=[PARSERS_DIRECTORY], start=start)


def _pddl_parse(start: str, text: str):
    """``text`` read by the `pddl` package: its grammar's tree through a fresh transformer of the
    package (its transformers keep state from one parse to the next)."""
    from pddl.parser.domain import DomainTransformer
    from pddl.parser.problem import ProblemTransformer

    from lark.exceptions import VisitError

    transformer = DomainTransformer() if start == "domain" else ProblemTransformer()
    tree = _pddl_grammar(start).parse(text)
    try:
        return transformer.transform(tree)
    except VisitError as exc:  # the package's own error, as its parser raises it
        raise exc.orig_exc from None


@functools.lru_cache(maxsize=64)
def parse_domain_text(text: str, source: str = "<text>") -> Domain:
    text = _clean(text)
    if not text:
        raise PddlError("parse-error", f"{source}: empty domain file")
    try:
        d = _pddl_parse("domain", _object_standin(text))
    except Exception as exc:  # lark raises many types; all mean malformed input
        raise PddlError("parse-error", f"{source}: cannot parse domain: {_first_line(exc)}") from None
    declared = frozenset(str(r).lstrip(":") for r in d.requirements)
    bad = sorted(declared - SUPPORTED_REQUIREMENTS - TOLERATED_REQUIREMENTS)
    if bad:
        raise PddlError("unsupported", f"{source}: unsupported requirement :{bad[0]} (widthbench supports "
                       ":strips :typing :negative-preconditions :equality)")
    reqs = declared - TOLERATED_REQUIREMENTS
    if "adl" in declared:
        reqs |= _ADL_IMPLIES
    if getattr(d, "functions", None):
        raise PddlError("unsupported", f"{source}: numeric functions are not supported "
                       f"({', '.join(sorted(str(f) for f in d.functions)[:3])})")
    if d.derived_predicates if hasattr(d, "derived_predicates") else False:
        raise PddlError("unsupported", f"{source}: derived predicates are not supported")
    types = {_unstandin(str(k)): (_unstandin(str(v)) if v is not None else "object")
             for k, v in dict(d.types).items()}
    types.pop("object", None)
    constants = tuple(sorted((str(c.name), _type_of(c)) for c in d.constants))
    # sorted: the pddl library holds them in a set, whose order changes with each process's string hashing
    predicates = {str(p.name): len(p.terms) for p in sorted(d.predicates, key=lambda p: str(p.name))}
    signatures = {str(p.name): tuple((_term(t), _type_of(t)) for t in p.terms) for p in d.predicates}
    schemas = []
    for a in sorted(d.actions, key=lambda a: a.name):
        params = tuple("?" + str(v.name) for v in a.parameters)
        ptypes = tuple(_type_of(v) for v in a.parameters)
        where = f"{source}: action {a.name}"
        pre_all = _literals(a.precondition, where, "precondition", reqs, allow_neg=True, allow_or=True)
        pre = tuple(l for l in pre_all if isinstance(l, Literal))
        pre_or = tuple(l for l in pre_all if not isinstance(l, Literal))
        eff = _literals(a.effect, where, "effect", reqs, allow_neg=True)
        add = tuple(l for l in eff if l.positive)
        dele = tuple(Literal(True, l.predicate, l.args) for l in eff if not l.positive)
        for lit in pre + add + dele + tuple(x for alt in pre_or for x in alt):
            if lit.predicate != "=" and lit.predicate not in predicates:
                raise PddlError("parse-error", f"{where}: undeclared predicate {lit.predicate!r}")
            for arg in lit.args:
                if arg.startswith("?") and arg not in params:
                    raise PddlError("parse-error", f"{where}: variable {arg} is not a parameter")
        if any(l.predicate == "=" for l in add + dele):
            raise PddlError("parse-error", f"{where}: equality in an effect")
        schemas.append(Schema(str(a.name), params, ptypes, pre, add, dele, pre_or))
    changed = {l.predicate for s in schemas for l in s.add + s.dele}
    static = frozenset(p for p in predicates if p not in changed)
    for sc in schemas:
        for alt in sc.pre_or:
            fluent = [l for l in alt if l.predicate != "=" and l.predicate not in static]
            if fluent:
                raise PddlError("unsupported", f"{source}: action {sc.name}: a disjunctive precondition over "
                               f"the fluent {fluent[0].predicate!r} is not supported (only disjunctions of static facts)")
    return Domain(str(d.name), reqs, types, constants, predicates, tuple(schemas), static, source, text,
                  signatures=signatures)


def _first_line(exc: BaseException) -> str:
    msg = str(exc).strip().splitlines()
    return (msg[0] if msg else type(exc).__name__)[:200]


def _type_of(term) -> str:
    tags = sorted({_unstandin(str(t)) for t in getattr(term, "type_tags", ()) or ()})
    if "object" in tags or not tags:
        return "object"  # (either object x) is any object
    if len(tags) > 1:
        return "(either " + " ".join(tags) + ")"
    return tags[0]


def _unstandin(t: str) -> str:
    return "object" if t == _OBJECT_STANDIN else t


_OBJECT_TYPE = re.compile(r"(-\s*)object(?![\w-])")
_EITHER = re.compile(r"\(\s*either\b[^)]*\)")
_TYPES_SECTION = re.compile(r"\(\s*:types\b")


def _object_standin(text: str) -> str:
    """Domain text in which ``object`` used as a type outside ``(:types ...)`` is the stand-in type,
    declared in ``(:types ...)`` (or in a new one) so that the `pddl` parser accepts it."""
    original, text = text, _strip_comments(text)
    m = _TYPES_SECTION.search(text)
    if m:
        end = form_end(text, m.start())[0] or len(text)
        before, section, after = text[:m.start()], text[m.start():end], text[end:]
    else:
        before, section, after = text, "", ""
    if not re.search(r"-\s*(?:\(\s*either[^)]*)?\bobject\b", before + after):
        return original
    before, after = _standin_types(before), _standin_types(after)
    if section:
        return before + section[:-1] + f" {_OBJECT_STANDIN})" + after
    # no (:types ...): add one after the requirements (or the domain name)
    anchor = re.search(r"\(\s*:requirements[^)]*\)", before) or re.search(r"\(\s*domain\s+[^)]*\)", before)
    if anchor is None:
        return original
    return before[:anchor.end()] + f" (:types {_OBJECT_STANDIN})" + before[anchor.end():]


def _standin_types(text: str) -> str:
    text = _OBJECT_TYPE.sub(lambda m: m.group(1) + _OBJECT_STANDIN, text)
    return _EITHER.sub(lambda m: re.sub(r"(?<![\w-])object(?![\w-])", _OBJECT_STANDIN, m.group(0)), text)


def _strip_comments(text: str) -> str:
    return re.sub(r";[^\n]*", " ", text)


def form_end(text: str, start: int) -> tuple[int | None, int]:
    """(the index just past the parenthesis that closes the one opened at ``start``, or None when it
    is never closed; how many parentheses are left open there), ``;`` comments skipped."""
    depth, i, n = 0, start, len(text)
    while i < n:
        c = text[i]
        if c == ";":
            nl = text.find("\n", i)
            i = n if nl < 0 else nl
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return i + 1, 0
        i += 1
    return None, depth


def _term(t) -> str:
    from pddl.logic.terms import Variable

    return ("?" + str(t.name)) if isinstance(t, Variable) else str(t.name)


def _literals(formula, where: str, part: str, reqs: frozenset[str], allow_neg: bool,
              allow_or: bool = False) -> list:
    """Literals of a conjunction; with ``allow_or`` a top-level ``(or l1 l2 ...)`` of literals comes
    back as a tuple of Literals (checked to be static by the caller)."""
    from pddl.logic.base import And, Not, Or
    from pddl.logic.predicates import EqualTo, Predicate

    if formula is None:
        return []
    if isinstance(formula, And):
        out = []
        for op in formula.operands:
            out.extend(_literals(op, where, part, reqs, allow_neg, allow_or))
        return out
    if isinstance(formula, Or) and allow_or:
        alt = []
        for op in formula.operands:
            inner = _literals(op, where, part, reqs, allow_neg)
            if len(inner) != 1:
                raise PddlError("unsupported", f"{where}: only atoms and negated atoms are supported inside 'or'")
            alt.append(inner[0])
        return [tuple(alt)]
    if isinstance(formula, Predicate):
        return [Literal(True, str(formula.name), tuple(_term(t) for t in formula.terms))]
    if isinstance(formula, EqualTo):
        if "equality" not in reqs:
            raise PddlError("parse-error", f"{where}: '=' used but :equality is not declared")
        return [Literal(True, "=", (_term(formula.left), _term(formula.right)))]
    if isinstance(formula, Not) and allow_neg:
        inner = _literals(formula.argument, where, part, reqs, allow_neg=False)
        if len(inner) != 1:
            raise PddlError("unsupported", f"{where}: only negated atoms are supported in the {part}")
        lit = inner[0]
        if part == "precondition" and lit.predicate != "=" and "negative-preconditions" not in reqs:
            raise PddlError("parse-error",
                            f"{where}: negative precondition used but :negative-preconditions is not declared")
        return [Literal(False, lit.predicate, lit.args)]
    raise PddlError("unsupported", f"{where}: unsupported {part} construct {type(formula).__name__} "
                   "(only conjunctions of atoms and negated atoms are supported)")


# --------------------------------------------------------------------------------------------
# Ground task


@dataclass(frozen=True, slots=True)
class Action:
    id: int  # index in task.actions, or -1 for an action outside the grounded set
    name: str
    args: tuple[str, ...]
    pre: int
    neg_pre: int
    add: int
    dele: int
    impossible: tuple[str, ...] = ()  # preconditions that hold in no reachable state

    def __str__(self) -> str:
        return "(" + " ".join((self.name,) + self.args) + ")"


@dataclass(frozen=True, slots=True)
class Task:
    domain: Domain
    domain_name: str
    problem_name: str
    objects: tuple[tuple[str, str], ...]  # (name, type), sorted by name
    atoms: tuple[str, ...]
    actions: tuple[Action, ...]
    init: int
    goal: int
    goal_neg: int
    static_atoms: tuple[str, ...]
    atom_index: dict = field(repr=False, compare=False, hash=False)
    action_index: dict = field(repr=False, compare=False, hash=False)
    _triggers: tuple = field(repr=False, compare=False, hash=False)
    # Views of the task built on first use by the layers above (renderers, answer readers): a cache
    # the task itself holds, so it lives exactly as long as the task. Keys name their owner. Not an
    # init field: a task made by dataclasses.replace (another goal, say) starts with its own.
    views: dict = field(default_factory=dict, init=False, repr=False, compare=False, hash=False)

    @property
    def n_atoms(self) -> int:
        return len(self.atoms)

    @property
    def object_names(self) -> tuple[str, ...]:
        return tuple(o for o, _ in self.objects)


@dataclass(frozen=True, slots=True)
class PlanResult:
    """Outcome of executing a plan from the initial state."""

    valid: bool
    states: tuple[int, ...]  # s0 .. s_k for the executed prefix
    failed_step: int | None = None  # 1-based index of the first inapplicable step
    failed_action: str | None = None
    unmet_preconditions: tuple[str, ...] = ()
    unmet_goals: tuple[str, ...] = ()

    def reason(self) -> str:
        if self.valid:
            return "the plan is valid"
        if self.failed_step is not None:
            return (f"step {self.failed_step} {self.failed_action} is not applicable: unmet precondition(s) "
                    + " ".join(self.unmet_preconditions))
        return "the final state does not satisfy the goal: unmet goal atom(s) " + " ".join(self.unmet_goals)


def atom_str(pred: str, args) -> str:
    return "(" + " ".join((pred, *args)) + ")"


_TOKEN = re.compile(r"[^\s()]+")


def parse_atom_text(text: str) -> tuple[str, tuple[str, ...]]:
    """``"(on a b)"`` -> ``("on", ("a", "b"))``; case-insensitive, brackets optional."""
    t = text.strip().lower()
    if t.startswith("(") and t.endswith(")"):
        t = t[1:-1]
    if "(" in t or ")" in t:
        raise UserError(f"malformed atom {text.strip()!r}")
    toks = _TOKEN.findall(t)
    if not toks:
        raise UserError(f"empty atom {text.strip()!r}")
    return toks[0], tuple(toks[1:])


def load_task(domain: str | Path | Domain, problem: str | Path, reader: str = "fast") -> Task:
    """Parse and ground a problem file (any formatting; case-insensitive)."""
    dom = domain if isinstance(domain, Domain) else load_domain(domain)
    path = input_file(problem, "problem file")
    return parse_problem_text(dom, _read(path, "problem"), source=str(path), reader=reader)


def parse_problem_text(dom: Domain, text: str, source: str = "<text>", reader: str = "fast") -> Task:
    """Problem text -> grounded Task. ``reader="fast"`` uses our plain-STRIPS reader and falls back to
    the `pddl` package for anything it does not handle; ``reader="pddl"`` always uses the package."""
    text = _clean(text)
    if not text:
        raise PddlError("parse-error", f"{source}: empty problem file")
    if reader == "fast":
        from widthbench.planners.problem_reader import read_problem

        fast = read_problem(text)
        if fast is not None:
            name, problem_domain, objects, init, goal, goal_neg = fast
            check_domain_name(dom, problem_domain, source)
            return ground(dom, objects, init, goal, name=name, goal_neg=goal_neg, source=source)
    try:
        p = _pddl_parse("problem", text)
    except Exception as exc:
        raise PddlError("parse-error", f"{source}: cannot parse problem: {_first_line(exc)}") from None
    if p.domain_name:
        check_domain_name(dom, str(p.domain_name), source)
    objects = [(str(o.name), _type_of(o)) for o in p.objects]
    init = []
    for a in p.init:
        lits = _literals(a, f"{source}: init", "init", dom.requirements, allow_neg=False)
        init.extend((l.predicate, l.args) for l in lits)
    goal_lits = _literals(p.goal, f"{source}: goal", "goal", dom.requirements | {"negative-preconditions"}, True)
    goal = [(l.predicate, l.args) for l in goal_lits if l.positive]
    goal_neg = [(l.predicate, l.args) for l in goal_lits if not l.positive]
    return ground(dom, objects, init, goal, name=p.name, goal_neg=goal_neg, source=source)


def _family(name: str) -> str:
    return re.split(r"[-_\s]", name.lower(), maxsplit=1)[0]


def check_domain_name(dom: Domain, problem_domain: str, source: str) -> None:
    """A problem written for another domain is an error. Names of one family are accepted: the
    first word of one name starts the first word of the other (``blocksworld-4ops`` and ``blocks``
    problems with the ``blocksworld`` domain; ``logistics-strips`` with ``logistics``)."""
    a, b = _family(dom.name), _family(problem_domain)
    if a.startswith(b) or b.startswith(a):
        return
    raise PddlError("wrong-domain", f"{source}: the problem is for domain {problem_domain!r}, but the domain "
                       f"given is {dom.name!r} ({dom.source})")


def check_object_types(dom: Domain, objects: dict, source: str) -> None:
    """Every object type must be a type of the domain: a typed problem read with an untyped (or
    another) domain would otherwise ground to no actions without a word."""
    known = set(dom.types) | {"object"}
    unknown = sorted({t for ot in objects.values() for t in either_members(ot)} - known)
    if unknown:
        declared = listed(sorted(dom.types), 80) if dom.types else "none: the domain is untyped"
        raise PddlError("unknown-type", f"{source}: object type(s) {listed(unknown, 60)} of the problem are not "
                        f"types of domain {dom.name!r} ({dom.source}; its types: {declared})")


def ground(dom: Domain, objects, init, goal, name: str = "problem", goal_neg=(), source: str = "<task>") -> Task:
    """Ground a task from Python data: objects [(name, type)] or [name], atoms as (pred, args) or text.

    Grounding keeps the actions reachable under a relaxed (delete-free) fixpoint from the initial
    state; static preconditions are evaluated here and removed from the actions.
    """
    objs: dict[str, str] = {}
    for o in list(dom.constants) + list(objects):
        n, t = (o, "object") if isinstance(o, str) else o
        objs[n] = t
    check_object_types(dom, objs, source)
    init_atoms = {_as_atom(a) for a in init}
    goal_atoms = [_as_atom(a) for a in goal]
    goal_neg_atoms = [_as_atom(a) for a in goal_neg]
    for pred, args in list(init_atoms) + goal_atoms + goal_neg_atoms:
        if pred == "=":
            raise PddlError("unsupported", f"{source}: '=' cannot appear in init or goal")
        if pred not in dom.predicates:
            raise PddlError("unknown-predicate",
                               f"{source}: unknown predicate {pred!r} in {atom_str(pred, args)}")
        if len(args) != dom.predicates[pred]:
            raise PddlError("wrong-arity", f"{source}: {atom_str(pred, args)} has {len(args)} argument(s), "
                               f"{pred} takes {dom.predicates[pred]}")
        for a in args:
            if a not in objs:
                raise PddlError("unknown-object",
                                   f"{source}: unknown object {a!r} in {atom_str(pred, args)}")
    static = dom.static_predicates
    reach, found = _reachable_bindings(dom, objs, init_atoms)

    fluent = {a for a in reach if a[0] not in static} | {a for a in goal_atoms + goal_neg_atoms if a[0] not in static}
    atoms = sorted(fluent)
    index = {a: i for i, a in enumerate(atoms)}
    bit = {a: 1 << i for i, a in enumerate(atoms)}
    static_true = sorted(a for a in init_atoms if a[0] in static)
    actions, pre_bits = [], []
    for plan in sorted(_domain_plans(dom), key=lambda p: p.schema.name):
        nm, consts, n = plan.schema.name, list(plan.consts), len(actions)
        for args in sorted(found[nm]):
            # masks: the fluent preconditions (reached, so in the index), the fluent negative
            # preconditions and deletes that are atoms of the task, the adds (all reached)
            ext = list(args) + consts if consts else args
            pre = neg = add = dele = 0
            pre_idx = sorted({index[(p, g(ext))] for p, g in plan.pre})
            for i in pre_idx:
                pre |= 1 << i
            pre_bits.append(pre_idx)
            for p, g in plan.neg:
                neg |= bit.get((p, g(ext)), 0)
            for p, g in plan.adds:
                add |= bit.get((p, g(ext)), 0)
            for p, g in plan.dele:
                dele |= bit.get((p, g(ext)), 0)
            actions.append(Action(n, nm, args, pre, neg, add, dele))
            n += 1
    init_mask = sum(1 << index[a] for a in init_atoms if a in index)
    goal_mask = 0
    for a in goal_atoms:
        if a[0] in static:
            if a not in init_atoms:
                goal_mask = -1  # unsatisfiable static goal: no state satisfies it
            continue
        goal_mask |= 1 << index[a]
    goal_neg_mask = 0
    for a in goal_neg_atoms:
        if a[0] in static:
            if a in init_atoms:
                goal_mask = -1
            continue
        goal_neg_mask |= 1 << index[a]
    if goal_mask == -1:
        # Represent "never" with an atom that no state has: the mask of all atoms plus one bit.
        goal_mask = 1 << len(atoms)
    atom_strs = tuple(atom_str(p, a) for p, a in atoms)
    task = Task(
        domain=dom, domain_name=dom.name, problem_name=name,
        objects=tuple(sorted(objs.items())), atoms=atom_strs, actions=tuple(actions),
        init=init_mask, goal=goal_mask, goal_neg=goal_neg_mask,
        static_atoms=tuple(atom_str(p, a) for p, a in static_true),
        atom_index={s: i for i, s in enumerate(atom_strs)},
        action_index={str(a): a for a in actions},
        _triggers=build_triggers(actions, len(atoms), pre_bits),
    )
    return task


def _as_atom(a) -> tuple[str, tuple[str, ...]]:
    if isinstance(a, str):
        return parse_atom_text(a)
    pred, args = a
    return pred.lower(), tuple(x.lower() for x in args)


# Reachability grounding: per-domain join plans, an atom queue, each binding found once its last
# fluent precondition atom is reached


def _getter(positions: tuple[int, ...]):
    """A function ext -> tuple(ext[i] for i in positions) (operator.itemgetter, always a tuple)."""
    if not positions:
        return lambda ext: ()
    if len(positions) == 1:
        i = positions[0]
        return lambda ext: (ext[i],)
    return operator.itemgetter(*positions)


@dataclass(frozen=True, slots=True)
class _Step:
    """One join step: match a literal against the atoms reached, given the slots bound so far."""

    predicate: str
    positions: tuple[int, ...]  # argument positions whose value is known (a bound slot or a constant)
    key: object  # ext -> the values at ``positions`` (the index key)
    full: bool  # every argument known: a membership test
    atom_args: object  # ext -> the literal's argument tuple (when ``full``)
    binds: tuple[tuple[int, int], ...]  # (argument position, slot) for the variables it binds
    same: tuple[tuple[int, int], ...]  # argument positions that must hold equal values (a variable repeated)


@dataclass(frozen=True, slots=True)
class _SchemaPlan:
    schema: Schema
    n_params: int
    consts: tuple[str, ...]  # constants of the literals: slots n_params.. of the extended binding
    param_types: tuple[str, ...]
    triggers: tuple[tuple[str, int, tuple, tuple], ...]  # (predicate, literal no., first binds, steps)
    base: tuple  # steps of the full join (schemas without fluent positive preconditions)
    free: tuple[int, ...]  # slots bound by no join step (enumerated from the objects they admit)
    checks: tuple  # (equality?, positive, predicate, getter) checked on a full binding
    ors: tuple  # disjunctions: tuples of (equality?, positive, predicate, getter)
    adds: tuple  # (predicate, getter)
    pre: tuple  # fluent positive preconditions (predicate, getter)
    neg: tuple  # fluent negative preconditions (predicate, getter)
    dele: tuple  # (predicate, getter)
    unary: tuple = ()  # (slot, static predicate): one-variable static preconditions, checked as types


def _plan_schema(dom: Domain, s: Schema) -> _SchemaPlan:
    static = dom.static_predicates
    slot = {v: i for i, v in enumerate(s.params)}
    consts: list[str] = []

    def ref(x: str) -> int:
        if x.startswith("?"):
            return slot[x]
        if x not in consts:
            consts.append(x)
        return len(s.params) + consts.index(x)

    def get(l: Literal):
        return _getter(tuple(ref(x) for x in l.args))

    positives = [l for l in s.pre if l.positive and l.predicate != "="]
    # a static precondition on one variable, (truck ?t), acts as a type: it narrows the objects the
    # parameter admits (per problem) instead of being a join step
    unary = tuple((slot[l.args[0]], l.predicate) for l in positives
                  if l.predicate in static and len(l.args) == 1 and l.args[0].startswith("?"))
    joined = [l for l in positives
              if not (l.predicate in static and len(l.args) == 1 and l.args[0].startswith("?"))]

    def steps(order: list[Literal], known: set[int]) -> tuple:
        out = []
        known = set(known)
        n = len(s.params)
        for l in order:
            refs = [ref(x) for x in l.args]
            positions, binds, same, first = [], [], [], {}
            for pos, r in enumerate(refs):
                if r in known or r >= n:  # a bound slot or a constant
                    positions.append(pos)
                elif r in first:
                    same.append((first[r], pos))
                else:
                    first[r] = pos
                    binds.append((pos, r))
            full = len(positions) == len(refs)
            out.append(_Step(l.predicate, tuple(positions), _getter(tuple(refs[p] for p in positions)), full,
                             _getter(tuple(refs)), tuple(binds), tuple(same)))
            known.update(r for _, r in binds)
        return tuple(out)

    def join_order(todo: list[Literal], bound: set[str]) -> list[Literal]:
        # the most-bound literal first (static ones first among equals), as the join order of old
        order, bound, todo = [], set(bound), list(todo)
        while todo:
            nxt = max(todo, key=lambda l: (sum(1 for x in l.args if x in bound or not x.startswith("?")),
                                           l.predicate in static))
            todo.remove(nxt)
            order.append(nxt)
            bound.update(x for x in nxt.args if x.startswith("?"))
        return order

    triggers = []
    for i, l in enumerate(joined):
        if l.predicate in static:
            continue
        rest = joined[:i] + joined[i + 1:]
        first = steps([l], set())
        # the trigger literal's own step binds from the new atom; the rest join against the index
        known = {r for _, r in first[0].binds}
        bound = {x for x in l.args if x.startswith("?")}
        triggers.append((l.predicate, i, first[0], steps(join_order(rest, bound), known)))
    base = () if any(l.predicate not in static for l in positives) else steps(join_order(joined, set()), set())
    in_pos = {slot[x] for l in joined for x in l.args if x.startswith("?")}
    free = tuple(i for i in range(len(s.params)) if i not in in_pos)

    def check(l: Literal):
        return (l.predicate == "=", l.positive, l.predicate, get(l))

    checks = tuple(check(l) for l in s.pre if l.predicate == "=" or (not l.positive and l.predicate in static))
    ors = tuple(tuple(check(l) for l in alt) for alt in s.pre_or)
    adds = tuple((l.predicate, get(l)) for l in s.add)
    pre = tuple((l.predicate, get(l)) for l in positives if l.predicate not in static)
    neg = tuple((l.predicate, get(l)) for l in s.pre if not l.positive and l.predicate != "=" and l.predicate not in static)
    dele = tuple((l.predicate, get(l)) for l in s.dele)
    return _SchemaPlan(s, len(s.params), tuple(consts), s.param_types, tuple(triggers), base, free, checks,
                       ors, adds, pre, neg, dele, unary)


def kept(holder, key, make):
    """``holder.views[key]`` (a `Domain` or `Task` view cache), made by ``make()`` on first use."""
    hit = holder.views.get(key)
    if hit is None:
        hit = holder.views[key] = make()
    return hit


class _PlanHolder:
    """The join plans of a domain, held in its views cache. A pickled domain (sent to a worker
    process) carries an empty holder: the plans hold functions and are made again on first use."""

    __slots__ = ("plans",)

    def __init__(self):
        self.plans = None

    def __reduce__(self):
        return (_PlanHolder, ())


def _domain_plans(dom: Domain) -> tuple[_SchemaPlan, ...]:
    """The domain's join plans, made once per domain."""
    holder = kept(dom, "strips.ground", _PlanHolder)
    if holder.plans is None:
        holder.plans = tuple(_plan_schema(dom, s) for s in dom.schemas)
    return holder.plans


def _reachable_bindings(dom: Domain, objs: dict, init_atoms: set) -> tuple[set, dict]:
    """Delete-free fixpoint from the initial atoms: (reachable atoms, schema name -> set of argument
    tuples). Static atoms are all initial; every other atom, once reached, triggers the joins of the
    schemas with a positive precondition on its predicate, over the atoms reached before it (a
    binding is found when the last of its fluent preconditions is reached); schemas with no fluent
    positive precondition are joined once over the initial atoms."""
    plans = _domain_plans(dom)
    static = dom.static_predicates
    sorted_objs = sorted(objs.items())
    type_cache: dict[str, tuple[list, set]] = {}

    def typed(t: str):
        got = type_cache.get(t)
        if got is None:
            members = [o for o, ot in sorted_objs if dom.is_subtype(ot, t)]
            got = type_cache[t] = (members, set(members))
        return got

    reach = set(init_atoms)
    index: dict = {}  # (predicate, positions) -> key -> [argument tuples]
    patterns: dict[str, set] = {}
    for plan in plans:
        for _p, _i, _first, st in plan.triggers:
            for step in st:
                if not step.full:
                    patterns.setdefault(step.predicate, set()).add(step.positions)
        for step in plan.base:
            if not step.full:
                patterns.setdefault(step.predicate, set()).add(step.positions)
    for pred, pats in patterns.items():
        for pos in pats:
            index[(pred, pos)] = {}
    found: dict[str, set] = {plan.schema.name: set() for plan in plans}
    queue: list = []

    def add_to_index(atom) -> None:
        pred, args = atom
        for pos in patterns.get(pred, ()):
            key = tuple(args[i] for i in pos)
            table = index[(pred, pos)]
            lst = table.get(key)
            if lst is None:
                table[key] = [args]
            else:
                lst.append(args)

    def finish(plan: _SchemaPlan, ext: list) -> None:
        if plan.free:
            _enumerate_free(plan, ext, 0)
            return
        _emit(plan, ext)

    def _enumerate_free(plan: _SchemaPlan, ext: list, k: int) -> None:
        if k == len(plan.free):
            _emit(plan, ext)
            return
        slot_ = plan.free[k]
        for o in free_lists[id(plan)][slot_]:
            ext[slot_] = o
            _enumerate_free(plan, ext, k + 1)
        ext[slot_] = None

    def holds(c, ext) -> bool:
        is_eq, positive, pred, g = c
        vals = g(ext)
        value = vals[0] == vals[1] if is_eq else (pred, vals) in reach
        return value == positive

    def _emit(plan: _SchemaPlan, ext: list) -> None:
        for c in plan.checks:
            if not holds(c, ext):
                return
        for alt in plan.ors:
            if not any(holds(c, ext) for c in alt):
                return
        key = tuple(ext[:plan.n_params])
        bucket = found[plan.schema.name]
        if key in bucket:
            return
        bucket.add(key)
        for pred, g in plan.adds:
            a = (pred, g(ext))
            if a not in reach:
                reach.add(a)
                queue.append(a)

    def join(plan: _SchemaPlan, st: tuple, k: int, ext: list, allowed: list) -> None:
        if k == len(st):
            finish(plan, ext)
            return
        step = st[k]
        if step.full:
            if (step.predicate, step.atom_args(ext)) in reach_done:
                join(plan, st, k + 1, ext, allowed)
            return
        cands = index[(step.predicate, step.positions)].get(step.key(ext))
        if not cands:
            return
        binds, same = step.binds, step.same
        for args in cands:
            if same and any(args[i] != args[j] for i, j in same):
                continue
            ok = True
            for pos, slot_ in binds:
                v = args[pos]
                if v not in allowed[slot_]:
                    ok = False
                    break
                ext[slot_] = v
            if ok:
                join(plan, st, k + 1, ext, allowed)
        for _pos, slot_ in binds:
            ext[slot_] = None

    def new_ext(plan: _SchemaPlan) -> list:
        return [None] * plan.n_params + list(plan.consts)

    # the objects each parameter slot admits (binds only ever name parameter slots)
    unary_of: dict[str, set] = {}
    for pred, args in init_atoms:
        if len(args) == 1 and pred in static:
            unary_of.setdefault(pred, set()).add(args[0])
    allowed_of = []
    for plan in plans:
        allowed = [typed(t)[1] for t in plan.param_types]
        for slot_, pred in plan.unary:
            allowed[slot_] = allowed[slot_] & unary_of.get(pred, set())
        allowed_of.append(allowed)
    # the free slots' objects, in name order (the order does not matter: bindings are a set)
    free_lists = {id(plan): {slot_: sorted(allowed[slot_]) for slot_ in plan.free}
                  for plan, allowed in zip(plans, allowed_of)}
    by_pred_trig: dict[str, list] = {}
    for plan, allowed in zip(plans, allowed_of):
        for t in plan.triggers:
            by_pred_trig.setdefault(t[0], []).append((plan, t, allowed))
    # the static atoms are all there from the start; the fluent initial atoms enter through the queue
    reach_done: set = set()
    for a in init_atoms:
        if a[0] in static:
            reach_done.add(a)
            add_to_index(a)
        else:
            queue.append(a)
    for plan, allowed in zip(plans, allowed_of):
        if not plan.triggers:
            join(plan, plan.base, 0, new_ext(plan), allowed)
    head = 0
    while head < len(queue):
        atom = queue[head]
        head += 1
        reach_done.add(atom)
        add_to_index(atom)
        pred, args = atom
        for plan, (_p, _i, first, st), allowed in by_pred_trig.get(pred, ()):
            if first.same and any(args[i] != args[j] for i, j in first.same):
                continue
            ext = new_ext(plan)
            ok = True
            for pos, slot_ in first.binds:
                v = args[pos]
                if v not in allowed[slot_]:
                    ok = False
                    break
                ext[slot_] = v
            if not ok:
                continue
            if first.positions and tuple(args[i] for i in first.positions) != first.key(ext):
                continue  # the literal's constants are not this atom's arguments
            join(plan, st, 0, ext, allowed)
    return reach, found


def _masks(s: Schema, b: dict, index: dict, init_atoms: set, static: frozenset):
    pre = neg = add = dele = 0
    impossible = []
    for l in s.pre:
        vals = tuple(b.get(x, x) for x in l.args)
        if l.predicate == "=":
            if (vals[0] == vals[1]) != l.positive:
                impossible.append(("(= " if l.positive else "(not (= ") + " ".join(vals) + (")" if l.positive else "))"))
            continue
        a = (l.predicate, vals)
        if l.predicate in static:
            if (a in init_atoms) != l.positive:
                impossible.append(atom_str(*a) if l.positive else f"(not {atom_str(*a)})")
            continue
        if a in index:
            if l.positive:
                pre |= 1 << index[a]
            else:
                neg |= 1 << index[a]
        elif l.positive:
            impossible.append(atom_str(*a))
    for alt in s.pre_or:
        def ok(l):
            vals = tuple(b.get(x, x) for x in l.args)
            value = vals[0] == vals[1] if l.predicate == "=" else (l.predicate, vals) in init_atoms
            return value == l.positive
        if not any(ok(l) for l in alt):
            shown = [("" if l.positive else "not ") + atom_str(l.predicate, tuple(b.get(x, x) for x in l.args))
                     for l in alt]
            impossible.append("(or " + " ".join(x if x.startswith("(") else f"({x})" for x in shown) + ")")
    for l in s.add:
        a = (l.predicate, tuple(b.get(x, x) for x in l.args))
        if a in index:
            add |= 1 << index[a]
    for l in s.dele:
        a = (l.predicate, tuple(b.get(x, x) for x in l.args))
        if a in index:
            dele |= 1 << index[a]
    return pre, neg, add, dele, tuple(impossible)


def build_triggers(actions, n_atoms: int, pre_bits=None) -> tuple:
    """Index each action under one of its precondition atoms (the one shared by fewest actions, the
    lowest among equals), so that applicable_actions only tests actions whose trigger atom is true in
    the state. ``pre_bits``: each action's precondition atoms, ascending, if the caller has them."""
    if pre_bits is None:
        pre_bits = [bits(a.pre) for a in actions]
    count = [0] * (n_atoms + 1)
    for lst in pre_bits:
        for i in lst:
            count[i] += 1
    groups: list[list] = [[] for _ in range(n_atoms)]
    always = []
    by_count = count.__getitem__
    for a, lst in zip(actions, pre_bits):
        if not lst:
            always.append((a.pre, a.neg_pre, a))
            continue
        # min keeps the first of equal counts: the lowest atom, as the atoms are ascending
        groups[min(lst, key=by_count) if len(lst) > 1 else lst[0]].append((a.pre, a.neg_pre, a))
    return tuple(tuple(g) for g in groups), tuple(always)


def bits(x: int) -> list[int]:
    """The indices of the set bits of ``x`` (a state's atoms, an action's preconditions), ascending."""
    out = []
    while x:
        low = x & -x
        out.append(low.bit_length() - 1)
        x ^= low
    return out


def bit_values(x: int) -> list[int]:
    """The set bits of ``x`` as one-bit ints (``1 << i`` for each index of `bits`), ascending."""
    out = []
    while x:
        low = x & -x
        out.append(low)
        x ^= low
    return out


# --------------------------------------------------------------------------------------------
# Search-facing API


def applicable_actions(task: Task, state: int) -> list[Action]:
    """Applicable actions of ``state``, sorted by action name then arguments."""
    out = triggered(state, *task._triggers)
    out.sort(key=_action_id)
    return out


def triggered(state: int, groups, always) -> list:
    """What the trigger index (`build_triggers`: ``(pre, neg, what)`` entries grouped by an atom of
    their precondition, and those with none) holds for ``state``: each entry's ``what`` whose
    precondition ``state`` meets and whose negative precondition it avoids, in index order (unsorted)."""
    out = []
    s = state
    while s:
        low = s & -s
        for pre, neg, what in groups[low.bit_length() - 1]:
            if state & pre == pre and not state & neg:
                out.append(what)
        s ^= low
    for pre, neg, what in always:
        if state & pre == pre and not state & neg:
            out.append(what)
    return out


def _action_id(a: Action) -> int:
    return a.id


def is_applicable(state: int, action: Action) -> bool:
    return not action.impossible and state & action.pre == action.pre and not state & action.neg_pre


def successor(state: int, action: Action) -> int:
    return (state & ~action.dele) | action.add


def is_goal(task: Task, state: int) -> bool:
    return state & task.goal == task.goal and not state & task.goal_neg


def state_atoms(task: Task, state: int) -> list[str]:
    """The fluent atoms of a state as PDDL text, in atom-index (sorted) order."""
    return [task.atoms[i] for i in bits(state)]


def goal_atoms(task: Task) -> list[str]:
    if task.goal >> task.n_atoms:
        return ["(unsatisfiable static goal)"]
    return state_atoms(task, task.goal)


def state_from_atoms(task: Task, atoms) -> int:
    """Build a state from atom texts or (pred, args); static atoms are accepted and ignored."""
    s = 0
    static = set(task.static_atoms)
    for a in atoms:
        text = atom_str(*_as_atom(a))
        i = task.atom_index.get(text)
        if i is None:
            if text in static:
                continue
            raise UserError(f"atom {text} is not an atom of task {task.problem_name}")
        s |= 1 << i
    return s


def format_state(task: Task, state: int) -> str:
    return " ".join(state_atoms(task, state))


def parse_action(task: Task, text: str) -> Action:
    """``"(unstack a b)"`` (any case, brackets optional) -> Action.

    Well-formed actions outside the grounded set (e.g. ``(stack a a)``) come back with ``id = -1``
    and their never-satisfiable preconditions in ``impossible``, so a validator can say why.
    """
    name, args = parse_atom_text(text)
    key = atom_str(name, args)
    a = task.action_index.get(key)
    if a is not None:
        return a
    s = task.domain.schema(name)
    if s is None:
        raise UserError(f"unknown action {name!r} in {text.strip()!r}")
    if len(args) != len(s.params):
        raise UserError(f"action {name} takes {len(s.params)} argument(s), got {len(args)} in {text.strip()!r}")
    objs = dict(task.objects)
    ill_typed = []
    for x, t in zip(args, s.param_types):
        if x not in objs:
            raise UserError(f"unknown object {x!r} in {text.strip()!r}")
        if not task.domain.is_subtype(objs[x], t):
            ill_typed.append(f"({x} - {t})")  # a typed parameter is a precondition no state meets
    b = dict(zip(s.params, args))
    static = task.domain.static_predicates
    init_static = {parse_atom_text(x) for x in task.static_atoms}
    pre, neg, add, dele, imp = _masks(s, b, _tuple_index(task), init_static, static)
    return Action(-1, name, args, pre, neg, add, dele, tuple(ill_typed) + tuple(imp))


def _tuple_index(task: Task) -> dict:
    return {parse_atom_text(a): i for i, a in enumerate(task.atoms)}


def unmet_preconditions(task: Task, state: int, action: Action) -> list[str]:
    missing = list(action.impossible)
    missing += state_atoms(task, action.pre & ~state)
    missing += [f"(not {a})" for a in state_atoms(task, action.neg_pre & state)]
    return missing


def execute_plan(task: Task, plan, state: int | None = None) -> PlanResult:
    """Execute actions (Action objects or PDDL texts) from ``state`` (default: the initial state)."""
    s = task.init if state is None else state
    states = [s]
    for i, step in enumerate(plan, start=1):
        a = step if isinstance(step, Action) else parse_action(task, step)
        if not is_applicable(s, a):
            return PlanResult(False, tuple(states), i, str(a), tuple(unmet_preconditions(task, s, a)))
        s = successor(s, a)
        states.append(s)
    if is_goal(task, s):
        return PlanResult(True, tuple(states))
    unmet = goal_atoms(task) if task.goal >> task.n_atoms else state_atoms(task, task.goal & ~s)
    unmet += [f"(not {a})" for a in state_atoms(task, task.goal_neg & s)]
    return PlanResult(False, tuple(states), unmet_goals=tuple(unmet))


_PLAN_NUMBER = re.compile(r"^(?:step\s*)?\d+(?:\.\d+)?\s*[:.)]\s*", re.I)
_PLAN_STEP = re.compile(r"\(([^()]*)\)")


def read_plan(text: str, source: str = "<plan>") -> list[str]:
    """Plan file text -> action texts (lower case, single spaces), in order.

    As users have plan files: one or more PDDL actions per line (``(a x) (b y)``), any case and
    spacing; ``;`` starts a comment (so ``(pick-up a) ; 1`` is step 1); blank lines are ignored; a
    leading step number (``1.``, ``1)``, ``0:``, ``step 1:``, IPC's ``0.000:``) and a trailing duration
    ``[1]`` are dropped. Anything else on a line is a usage error naming the line.
    """
    steps = []
    for n, raw in enumerate(text.splitlines(), start=1):
        line = raw.split(";", 1)[0].strip()
        if not line:
            continue
        line = _PLAN_NUMBER.sub("", line, count=1)
        line = re.sub(r"\s*\[[\d.]+\]\s*$", "", line)
        forms = _PLAN_STEP.findall(line)
        if not forms or _PLAN_STEP.sub(" ", line).strip(" \t,") or not all(f.split() for f in forms):
            raise UserError(f"{source}:{n}: not a PDDL action: {raw.split(';', 1)[0].strip()!r}")
        steps.extend("(" + " ".join(f.lower().split()) + ")" for f in forms)
    return steps
