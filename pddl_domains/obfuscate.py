"""Obfuscated domains for any domain (``--obfuscate mystery|random|deceptive --obfuscate-seed N``).

A seeded, consistent renaming of a domain's predicates, actions, types and constants, of its
variables, of its name, and of every task's objects:

- ``mystery``: unrelated common words (``pddl_domains/obfuscation.words.txt``, package data);
- ``random``: random strings of letters and digits (``x7kq2m9w``);
- ``deceptive``: the vocabulary of other planning domains (``pddl_domains/obfuscation.deceptive.toml``;
  never of a domain that shares a predicate or action name with this one).

The renaming is presentation only. The engine keeps the original task: a task whose domain carries
``Domain.obfuscation = (mode, seed)`` (`attach`) grounds, plans and scores exactly as the plain task;
what changes is what prompts show and how answers are read. `view(task)` is the renamed task: the same
atoms and actions in the same order (bit i and action id j mean the same), renamed, over a renamed
domain parsed from its own PDDL text (so contexts, generated NL templates and the simulated models see
only the new names). `Renderer` for an attached task (`ObfuscatedRenderer`) renders through the view
and reads answers back into the original names, so every reader returns original PDDL texts.

Names are a function of (mode, seed) and the original name: domain-level names in a fixed order of
(kind, name) from one seeded shuffle of the pool; an object gets the word its (seed, name) hash picks,
probing on past words other names of its task took (so objects keep their word across instances, but
for rare collisions). Every new name is a valid PDDL name, distinct from every other new name and from
every original name of the domain and task, and never a PDDL keyword or a word the NL templates or the
answer readers give a meaning (`RESERVED`). Tests: tests/pddl_domains/test_obfuscate.py.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import random
import re
import tomllib
from pathlib import Path

from widthbench.core.errors import UserError
from widthbench.planners import strips
from widthbench.planners.strips import Action, Domain, Literal, Schema, Task, kept, parse_atom_text
from widthbench.pddl_domains.context import domain_pddl
from widthbench.pddl_domains.render import Renderer
from widthbench.planners.problem_writer import task_problem_text

MODES = ("mystery", "random", "deceptive")
DATA = Path(__file__).resolve().parent
VIEW_KEY = "obfuscated-view"

PDDL_KEYWORDS = frozenset(
    "define domain problem requirements types constants predicates action parameters precondition effect "
    "and or not either object objects init goal forall exists when imply increase decrease total-cost "
    "functions derived axiom vars context implies".split())
# Words the renderer's generated templates, the layout rules or the readers treat as more than a name.
READER_WORDS = frozenset(
    "a an the then is are be not no none yes step steps action actions answer plan plans goal goals state "
    "states true false if it this that of to from with none nothing empty final solution impossible "
    "unsolvable unreachable valid invalid holds hold".split())
RESERVED = PDDL_KEYWORDS | READER_WORDS
_NAME = re.compile(r"^[a-z][a-z0-9_-]*$")


def check_mode(mode: str) -> str:
    if mode not in MODES:
        raise UserError(f"unknown --obfuscate mode {mode!r} (known: {', '.join(MODES)})")
    return mode


@functools.lru_cache(maxsize=1)
def mystery_words() -> tuple[str, ...]:
    path = DATA / "obfuscation.words.txt"
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        raise UserError(f"word list not found: {path}") from None
    words = []
    for line in text.splitlines():
        if line.startswith("#"):
            continue
        words += [w for w in line.split() if _NAME.match(w) and w not in RESERVED]
    return tuple(dict.fromkeys(words))


@functools.lru_cache(maxsize=1)
def deceptive_vocabularies() -> dict:
    with open(DATA / "obfuscation.deceptive.toml", "rb") as f:
        return tomllib.load(f)


def _digest(*parts) -> int:
    return int.from_bytes(hashlib.sha256("\x1f".join(map(str, parts)).encode()).digest()[:8], "big")


def _random_string(rng: random.Random, n: int = 8) -> str:
    return rng.choice("abcdefghijklmnopqrstuvwxyz") + "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789")
                                                                for _ in range(n - 1))


# ---------------------------------------------------------------------------------------------
# The renaming of a domain


@dataclasses.dataclass(frozen=True, slots=True)
class Renaming:
    """One domain's new names: ``names[(kind, original)] = new`` for kinds domain, predicate, action,
    type, constant, variable; ``taken`` every original and new name (objects must avoid them)."""

    mode: str
    seed: int
    names: dict
    taken: frozenset

    def get(self, kind: str, name: str) -> str:
        return self.names.get((kind, name), name)

    def mapping(self) -> dict:
        """JSON-ready: {"mode", "seed", "domain", "predicates", "actions", "types", "constants"}."""
        out = {"mode": self.mode, "seed": self.seed}
        for kind, key in (("domain", None), ("predicate", "predicates"), ("action", "actions"),
                          ("type", "types"), ("constant", "constants")):
            pairs = {o: n for (k, o), n in sorted(self.names.items()) if k == kind}
            if key is None:
                out["domain"] = next(iter(pairs.values()), None)
            else:
                out[key] = pairs
        return out


def _domain_originals(domain: Domain) -> set[str]:
    names = {domain.name, *domain.predicates, *(s.name for s in domain.schemas), *domain.types,
             *(c for c, _ in domain.constants)}
    names |= {t for _, t in domain.constants}
    return names


def _deceptive_pool(domain: Domain, kind: str) -> list[str]:
    own = {*domain.predicates, *(s.name for s in domain.schemas)}
    pool = []
    for vocab in deceptive_vocabularies().values():
        if own & {*vocab.get("predicates", ()), *vocab.get("actions", ())}:
            continue  # this domain's own vocabulary (or one sharing a name with it)
        pool += vocab.get(kind, ())
    return list(dict.fromkeys(pool))


def _pool(domain: Domain, mode: str, kind: str) -> list[str] | None:
    """The names ``kind`` draws from (None: random strings)."""
    if mode == "random":
        return None
    if mode == "mystery":
        return list(mystery_words())
    return _deceptive_pool(domain, {"predicate": "predicates", "action": "actions", "type": "types",
                                    "constant": "objects", "domain": "objects", "variable": None}.get(kind) or "")


def renaming(domain: Domain, mode: str, seed: int) -> Renaming:
    """The seeded renaming of ``domain`` (cached in ``domain.views``)."""
    key = ("obfuscation", mode, seed)
    hit = domain.views.get(key)
    if hit is not None:
        return hit
    check_mode(mode)
    originals = _domain_originals(domain)
    used: set[str] = set()
    names: dict = {}
    rng = random.Random(_digest("obfuscate", mode, seed, "domain"))
    shuffled: dict[str, list[str]] = {}

    def fresh(kind: str, name: str) -> str:
        pool = _pool(domain, mode, kind)
        if pool is not None:
            if kind not in shuffled:
                order = list(pool)
                rng.shuffle(order)
                shuffled[kind] = order
            for w in shuffled[kind]:
                if w not in used and w not in originals and w not in RESERVED:
                    return w
            # the pool ran out: numbered words of it (deceptive pools are small)
            base = shuffled[kind] or list(mystery_words())
            n = 2
            while True:
                for w in base:
                    cand = f"{w}{n}"
                    if cand not in used and cand not in originals:
                        return cand
                n += 1
        while True:
            cand = _random_string(rng)
            if cand not in used and cand not in originals and cand not in RESERVED:
                return cand

    items = [("domain", domain.name)]
    items += [("type", t) for t in sorted(domain.types) if t != "object"]
    items += [("predicate", p) for p in sorted(domain.predicates)]
    items += [("action", s.name) for s in sorted(domain.schemas, key=lambda s: s.name)]
    items += [("constant", c) for c, _ in sorted(domain.constants)]
    for kind, name in items:
        if (kind, name) in names:
            continue
        new = fresh(kind, name)
        used.add(new)
        names[(kind, name)] = new
    variables = sorted({p for s in domain.schemas for p in s.params}
                       | {v for sig in domain.signatures.values() for v, _ in sig})
    for i, v in enumerate(variables, start=1):
        names[("variable", v)] = f"?x{i}"
    out = Renaming(mode, seed, names, frozenset(originals | used))
    domain.views[key] = out
    return out


def _lit(r: Renaming, lit: Literal) -> Literal:
    pred = lit.predicate if lit.predicate == "=" else r.get("predicate", lit.predicate)
    return Literal(lit.positive, pred, tuple(r.get("variable", a) if a.startswith("?") else r.get("constant", a)
                                             for a in lit.args))


def _type(r: Renaming, t: str) -> str:
    if t.startswith("(either"):
        return "(either " + " ".join(r.get("type", x) for x in strips.either_members(t)) + ")"
    return r.get("type", t)


def renamed_domain(domain: Domain, r: Renaming) -> Domain:
    """``domain`` under renaming ``r``, printed as PDDL and parsed back (its ``text`` is that PDDL)."""
    schemas = tuple(Schema(r.get("action", s.name), tuple(r.get("variable", p) for p in s.params),
                           tuple(_type(r, t) for t in s.param_types), tuple(_lit(r, x) for x in s.pre),
                           tuple(_lit(r, x) for x in s.add), tuple(_lit(r, x) for x in s.dele),
                           tuple(tuple(_lit(r, x) for x in alt) for alt in s.pre_or))
                    for s in domain.schemas)
    model = dataclasses.replace(
        domain, name=r.get("domain", domain.name),
        types={r.get("type", t): _type(r, p) for t, p in domain.types.items()},
        constants=tuple((r.get("constant", c), _type(r, t)) for c, t in domain.constants),
        predicates={r.get("predicate", p): a for p, a in domain.predicates.items()},
        schemas=schemas, static_predicates=frozenset(r.get("predicate", p) for p in domain.static_predicates),
        signatures={r.get("predicate", p): tuple((r.get("variable", v), _type(r, t)) for v, t in sig)
                    for p, sig in domain.signatures.items()},
        context_file="", templates_file="", obfuscation=(), source="<obfuscated>")
    text = domain_pddl(model)
    return strips.parse_domain_text(text, source=f"<{r.mode} obfuscation of {domain.name}>")


# ---------------------------------------------------------------------------------------------
# Objects and the renamed task


def object_names(r: Renaming, objects) -> dict[str, str]:
    """Original object name -> new name, for one task's objects (see the module doc)."""
    out: dict[str, str] = {}
    used = set(r.taken) | set(objects)
    pool = None if r.mode == "random" else (list(mystery_words()) if r.mode == "mystery" else None)
    stems = None
    if r.mode == "deceptive":
        stems = [s for vocab in deceptive_vocabularies().values() for s in vocab.get("objects", ())]
        stems = list(dict.fromkeys(stems))
    constants = {o for (k, o) in r.names if k == "constant"}
    for o in sorted(objects, key=_natural):
        if o in constants:
            out[o] = r.get("constant", o)
            continue
        h = _digest("object", r.mode, r.seed, o)
        if pool is not None:
            i = h % len(pool)
            while pool[i] in used:
                i = (i + 1) % len(pool)
                if i == h % len(pool):  # every word taken: numbered words
                    pool = [f"{w}{len(used)}" for w in pool]
            new = pool[i]
        elif stems is not None:
            stem = stems[h % len(stems)]
            n = 1
            while f"{stem}{n}" in used:
                n += 1
            new = f"{stem}{n}"
        else:
            rng = random.Random(h)
            new = _random_string(rng)
            while new in used:
                new = _random_string(rng)
        used.add(new)
        out[o] = new
    return out


def _natural(name: str):
    return [(0, int(t), "") if t.isdigit() else (1, 0, t) for t in re.findall(r"\d+|\D+", name)]


@dataclasses.dataclass(frozen=True, slots=True)
class View:
    """A task's renamed view and the two ways between original and new PDDL texts."""

    task: Task  # the renamed task (same atom bits and action ids as the original)
    renaming: Renaming
    objects: dict  # original -> new
    back_heads: dict  # new predicate / action name -> original
    back_objects: dict

    def to_view(self, text: str, kind: str = "atom") -> str:
        """A PDDL text in original names -> in new names (``kind``: "atom", "action" or "type")."""
        name, args = parse_atom_text(text)
        if name == "-" and len(args) == 2:  # a type fact (- obj type)
            return f"(- {self.objects.get(args[0], args[0])} {self.renaming.get('type', args[1])})"
        head = self.renaming.get("action" if kind == "action" else "predicate", name)
        return "(" + " ".join([head, *(self.objects.get(a, a) for a in args)]) + ")"

    def from_view(self, text: str) -> str:
        """A PDDL text in new names -> in original names."""
        name, args = parse_atom_text(text)
        if name == "-" and len(args) == 2:
            back_type = {v: k for (k2, k), v in self.renaming.names.items() if k2 == "type"}
            return f"(- {self.back_objects.get(args[0], args[0])} {back_type.get(args[1], args[1])})"
        return "(" + " ".join([self.back_heads.get(name, name), *(self.back_objects.get(a, a) for a in args)]) + ")"

    def value_back(self, value):
        """A reader's value (action or atom texts, lists of them, action -> state dicts, states,
        verdicts) in original names."""
        if isinstance(value, str):
            return self.from_view(value) if value.startswith("(") else value
        if isinstance(value, list):
            return [self.value_back(v) for v in value]
        if isinstance(value, tuple):
            return tuple(self.value_back(v) for v in value)
        if isinstance(value, dict):
            return {self.value_back(k): v for k, v in value.items()}
        return value


def attach(domain: Domain, mode: str, seed: int) -> Domain:
    """``domain`` presented under obfuscation (mode, seed): the engine is unchanged."""
    check_mode(mode)
    if domain.context_file or domain.templates_file:
        raise UserError("--obfuscate renames the domain: a hand-written --context or --templates file would "
                        "show the original names (leave them out; contexts and templates are generated)")
    return dataclasses.replace(domain, obfuscation=(mode, int(seed)))


def attach_task(task: Task, mode: str, seed: int) -> Task:
    return dataclasses.replace(task, domain=attach(task.domain, mode, seed))


def is_obfuscated(task: Task) -> bool:
    return bool(task.domain.obfuscation)


def view(task: Task) -> View:
    """The renamed view of an attached task (cached in ``task.views``)."""
    hit = task.views.get(VIEW_KEY)
    if hit is not None:
        return hit
    mode, seed = task.domain.obfuscation
    r = renaming(task.domain, mode, seed)
    vdom = kept(task.domain, ("obfuscated-domain", mode, seed), lambda: renamed_domain(task.domain, r))
    objs = object_names(r, [o for o, _ in task.objects])
    back_heads = {n: o for (kind, o), n in r.names.items() if kind in ("predicate", "action")}
    back_objects = {n: o for o, n in objs.items()}

    def ren(text: str, kind: str) -> str:
        name, args = parse_atom_text(text)
        return "(" + " ".join([r.get(kind, name), *(objs.get(a, a) for a in args)]) + ")"

    atoms = tuple(ren(a, "predicate") for a in task.atoms)
    actions = tuple(dataclasses.replace(a, name=r.get("action", a.name), args=tuple(objs.get(x, x) for x in a.args))
                    for a in task.actions)
    vtask = dataclasses.replace(
        task, domain=vdom, domain_name=vdom.name, problem_name=_problem_name(task, r),
        objects=tuple(sorted((objs[o], _type(r, t)) for o, t in task.objects)),
        atoms=atoms, actions=actions, static_atoms=tuple(ren(a, "predicate") for a in task.static_atoms),
        atom_index={a: i for i, a in enumerate(atoms)}, action_index={str(a): a for a in actions},
        _triggers=strips.build_triggers(actions, len(atoms)))
    out = View(vtask, r, objs, back_heads, back_objects)
    task.views[VIEW_KEY] = out
    return out


def _problem_name(task: Task, r: Renaming) -> str:
    return f"{r.get('domain', task.domain.name)}-{_digest('problem', r.seed, task.problem_name) % 10**6:06d}"


def plain(task: Task) -> Task:
    """``task`` without its obfuscation (what item construction measures, so that an obfuscated run
    builds the plain run's items: prompt-size estimates use the plain names); cached."""
    if not is_obfuscated(task):
        return task
    return kept(task, "plain", lambda: dataclasses.replace(task, domain=dataclasses.replace(task.domain, obfuscation=())))


def shown(task: Task) -> Task:
    """What prompts show of ``task``: its renamed view when it is obfuscated, else the task itself."""
    return view(task).task if is_obfuscated(task) else task


def problem_text(task: Task) -> str:
    """The renamed problem as a PDDL file (a user can hand it, with `domain_text`, to other tools)."""
    return task_problem_text(view(task).task)


def domain_text(task_or_domain) -> str:
    dom = task_or_domain.domain if isinstance(task_or_domain, Task) else task_or_domain
    mode, seed = dom.obfuscation

    return domain_pddl(renamed_domain(dom, renaming(dom, mode, seed))) + "\n"


def write_obfuscated_set(folder, tasks, ids, file_names) -> list[Path]:
    """The renamed domain, one renamed problem per task and ``mapping.json`` (the renaming, with each
    instance's object names) in ``folder``: files other tools can read (`generate --obfuscate`)."""
    import json

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    first = tasks[0]
    mode, seed = first.domain.obfuscation
    written = [folder / "domain.pddl"]
    written[0].write_text(domain_text(first), encoding="utf-8")
    objects = {}
    for task, inst_id, name in zip(tasks, ids, file_names):
        (folder / name).write_text(problem_text(task), encoding="utf-8")
        written.append(folder / name)
        objects[inst_id] = dict(sorted(view(task).objects.items(), key=lambda kv: _natural(kv[0])))
    mapping = {**renaming(first.domain, mode, seed).mapping(), "objects": objects}
    (folder / "mapping.json").write_text(json.dumps(mapping, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    written.append(folder / "mapping.json")
    return written


# ---------------------------------------------------------------------------------------------
# Rendering and reading through the view


class ObfuscatedRenderer:
    """A `render.Renderer` of the renamed view that takes and returns original names."""

    def __init__(self, task: Task, style: str = "nl", templates: str = "widthbench"):
        self.original = task
        self.v = view(task)
        self.inner = Renderer(self.v.task, style, templates)

    def __getattr__(self, name):  # names, task, style, template_set, generic, ... of the view
        return getattr(self.inner, name)

    def _action(self, a) -> str | Action:
        if isinstance(a, Action):
            if 0 <= a.id < len(self.v.task.actions) and self.original.actions[a.id] == a:
                return self.v.task.actions[a.id]
            return self.v.to_view(str(a), "action")
        return self.v.to_view(a, "action")

    def atom(self, atom) -> str:
        return self.inner.atom(self.v.to_view(atom) if isinstance(atom, str) else atom)

    def atoms(self, atoms) -> str:
        return self.inner.atoms([self.v.to_view(a) for a in atoms])

    def state(self, s: int, include_static: bool = True) -> str:
        return self.inner.state(s, include_static)

    def goal(self) -> str:
        return self.inner.goal()

    def static_facts(self) -> str:
        return self.inner.static_facts()

    def action(self, a) -> str:
        return self.inner.action(self._action(a))

    def actions(self, actions) -> str:
        return self.inner.actions([self._action(a) for a in actions])

    def plan(self, actions) -> str:
        return self.inner.plan([self._action(a) for a in actions])

    def parse_atoms(self, text: str, types: bool = False) -> list[str]:
        return [self.v.from_view(a) for a in self.inner.parse_atoms(text, types)]

    def parse_state(self, text: str) -> int:
        return self.inner.parse_state(text)

    def parse_action(self, text: str) -> str:
        return self.v.from_view(self.inner.parse_action(text))

    def parse_actions(self, text: str) -> list[str]:
        return [self.v.from_view(a) for a in self.inner.parse_actions(text)]

    def parse_plan(self, text: str) -> list[str]:
        return [self.v.from_view(a) for a in self.inner.parse_plan(text)]
