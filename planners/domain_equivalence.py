"""Whether a model's domain induces the same transition systems as the true domain (issue 44:
the judgement of ``formalize-domain``).

Definition. Over a set of instances (problems of the true domain), the model's domain is equivalent
to the true one when, for every instance, the state graph reachable from its initial state under the
model's domain is isomorphic to the one under the true domain, with the edges' actions matched by one
bijection of the action schemas (and, per schema, of its parameters) for all instances, and goal
states matched to goal states. The instance is stated in the model's domain through a bijection of
the predicates (identity on shared names; the rest by arity, searched, or given): the model's
initial state and goal are the instance's with the predicates renamed, its objects of the same types
(untyped when the model's domain declares no types).

How. Both systems are deterministic (a ground action has one successor), so with the initial states
paired and a matching of the actions, isomorphism is a simultaneous breadth-first walk: each pair of
states must have the same applicable actions under the matching, equal goal status, and successors
that pair consistently (a state paired with two different states refutes it). The matching is found
by backtracking over the schemas (names and parameter orders kept first), each partial matching
checked by the same walk restricted to the schemas matched so far (a full isomorphism restricts to
one of each part, so a refuted part refutes every extension). Not equivalent means every matching
under every predicate bijection was refuted; the explanation names an instance and a differing
transition under the matching that keeps names (the first transition on the way to the refutation
whose successors differ atom for atom, else the refuting one). Past ``max_states`` paired states or
``max_checks`` partial matchings, what is not refuted is ``unknown``.
"""

from __future__ import annotations

import itertools
from collections import Counter, deque
from dataclasses import dataclass

from widthbench.planners.bfs import SearchLimit, reachable_states
from widthbench.planners.equivalence import verdict_line
from widthbench.planners.strips import (Domain, PddlError, Task, applicable_actions, atom_str, ground,
                                        is_goal, parse_atom_text, parse_domain_text, parse_problem_text,
                                        state_atoms)

DOMAIN_REASONS = ("equivalent", "parse-error", "unsupported", "predicates-differ", "actions-differ",
                  "instance-error", "transitions-differ", "goal-differs", "unknown")
DEFAULT_MAX_STATES = 100_000
DEFAULT_MAX_CHECKS = 20000


@dataclass(frozen=True, slots=True)
class Transition:
    """A transition on which the two domains differ. ``state``: the state under the true domain (its
    atoms, statics included), reached from the instance's initial state by ``path``; ``action``: the
    true domain's ground action, ``model_action`` its match; ``truth_successor`` / ``model_successor``:
    the successors (None: not applicable), the model's in the true predicate names."""

    instance: str
    state: tuple[str, ...]
    path: tuple[str, ...]
    action: str
    model_action: str
    truth_successor: tuple[str, ...] | None
    model_successor: tuple[str, ...] | None

    def describe(self) -> str:
        def shown(x):
            return "not applicable" if x is None else "{" + " ".join(x) + "}"
        via = " ".join(self.path) if self.path else "nothing: the initial state"
        return (f"instance {self.instance}, in the state reached by {via}: {self.action} "
                f"(the model's {self.model_action}) leads to {shown(self.truth_successor)} under the true "
                f"domain, to {shown(self.model_successor)} under the model's")


@dataclass(frozen=True, slots=True)
class DomainEquivalence:
    """The verdict on a model's domain. ``predicates``: (true, model) predicate pairs used;
    ``actions``: (true schema, model schema, order) triples, where the model's parameter j takes the
    true schema's parameter ``order[j]``; ``transition``: where they differ (not equivalent);
    ``states``: the paired states walked under the matching reported."""

    equivalent: bool | None
    reason: str
    message: str
    predicates: tuple[tuple[str, str], ...] = ()
    actions: tuple[tuple[str, str, tuple[int, ...]], ...] = ()
    transition: Transition | None = None
    states: int = 0

    def line(self) -> str:
        """The verdict in one line, as `widthbench equivalent-domain` prints it."""
        return verdict_line(self.equivalent, self.reason, self.message)

    def to_json(self) -> dict:
        t = self.transition
        return {"equivalent": self.equivalent, "reason": self.reason, "message": self.message,
                "predicates": dict(self.predicates),
                "actions": [{"truth": a, "model": b, "order": list(o)} for a, b, o in self.actions],
                "transition": None if t is None else {
                    "instance": t.instance, "state": list(t.state), "path": list(t.path), "action": t.action,
                    "model_action": t.model_action,
                    "truth_successor": None if t.truth_successor is None else list(t.truth_successor),
                    "model_successor": None if t.model_successor is None else list(t.model_successor)},
                "states": self.states}


def domain_equivalence(truth: Domain, model: Domain | str, instances, *, predicate_map: dict | None = None,
                       max_states: int = DEFAULT_MAX_STATES, max_checks: int = DEFAULT_MAX_CHECKS
                       ) -> DomainEquivalence:
    """Judge ``model`` (a domain, or its PDDL text) against ``truth`` on ``instances`` (tasks of the
    true domain, or (name, problem text) pairs). ``predicate_map`` (true -> model name) fixes the
    predicate bijection instead of searching it."""
    if isinstance(model, str):
        try:
            model = parse_domain_text(model, source="<model domain>")
        except PddlError as exc:
            return DomainEquivalence(None if exc.kind == "unsupported" else False, exc.kind, str(exc))
    tasks = [x if isinstance(x, Task) else parse_problem_text(truth, x[1], source=x[0]) for x in instances]
    if not tasks:
        raise ValueError("domain_equivalence needs at least one instance")
    by_arity_t = Counter(len(s.params) for s in truth.schemas)
    by_arity_m = Counter(len(s.params) for s in model.schemas)
    if by_arity_t != by_arity_m:
        return DomainEquivalence(False, "actions-differ", "no bijection of the action schemas keeps their "
                                 f"parameter counts: the true domain's {_arity_list(truth)}, the model's "
                                 f"{_arity_list(model)}")
    maps = iter([predicate_map]) if predicate_map is not None else _predicate_maps(truth, model)
    checks = [max_checks]
    sizes = [_size(t, max_states) for t in tasks]
    sig_t, sig_m = _usage(truth), _usage(model)
    unknown, tried, closest = False, 0, None  # closest: (score, -order, pmap, instance fault)
    for pmap in maps:
        tried += 1
        score = sum(sig_t.get(p) == sig_m.get(q) for p, q in pmap.items())
        try:
            pairs = [_Pair.make(t, model, pmap) for t in tasks]
        except PddlError as exc:
            if closest is None or score > closest[0]:
                closest = (score, -tried, pmap, exc)
            continue
        if closest is None or score > closest[0] or closest[3] is not None and score == closest[0]:
            closest = (score, -tried, pmap, None)
        if checks[0] <= 0:
            unknown = True
            break
        checks[0] -= 1
        if not _same_sizes(pairs, sizes):
            continue
        try:
            found, bounded = _search(pairs, truth, model, checks, max_states)
        except _OutOfChecks:
            unknown = True
            break
        if found is not None and not bounded:
            n = sum(len(_walk(p, found, max_states).paired) for p in pairs)
            return DomainEquivalence(True, "equivalent", f"the reachable state graphs of the {len(pairs)} "
                                     f"instance(s) ({n} states) are isomorphic under the action bijection "
                                     + _show_actions(found), _pairs(pmap), _actions(found), states=n)
        unknown = unknown or found is not None  # found, but a walk ran past max_states: not confirmed
    if not tried:
        return DomainEquivalence(False, "predicates-differ", "no bijection of the predicates keeps their arity "
                                 f"and shared names: the true domain's {_pred_list(truth.predicates)}, the "
                                 f"model's {_pred_list(model.predicates)}")
    if unknown:
        return DomainEquivalence(None, "unknown", f"undecided within {max_states} paired states per walk and "
                                 f"{max_checks} checks; no matching was refuted everywhere",
                                 _pairs(closest[2]) if closest else ())
    _, _, pmap, fault = closest
    if fault is not None:
        return DomainEquivalence(False, "instance-error", f"an instance cannot be stated in the model's "
                                 f"domain: {fault}", _pairs(pmap))
    return _explain([_Pair.make(t, model, pmap) for t in tasks], truth, model, pmap, max_states)


# --------------------------------------------------------------------------------------------
# Predicate bijections and the instances in the model's words


def _predicate_maps(truth: Domain, model: Domain):
    """The arity-keeping bijections of the predicates that keep every shared name (a model that says
    ``on`` means on), lazily, the likeliest first: a predicate goes first to the model's predicates
    used alike in the actions (the same counts in preconditions, adds and deletes per schema size).
    The order only saves time: every such bijection comes in the end."""
    if Counter(truth.predicates.values()) != Counter(model.predicates.values()):
        return
    sig_t, sig_m = _usage(truth), _usage(model)
    shared = {p for p, n in truth.predicates.items() if model.predicates.get(p) == n}
    preds = sorted(p for p in truth.predicates if p not in shared)
    options = {p: sorted((q for q, n in model.predicates.items() if n == truth.predicates[p] and q not in shared),
                         key=lambda q: (sig_m[q] != sig_t[p], q)) for p in preds}
    chosen: dict = {p: p for p in shared}

    def extend(k: int):
        if k == len(preds):
            yield dict(chosen)
            return
        used = set(chosen.values())
        for q in options[preds[k]]:
            if q not in used:
                chosen[preds[k]] = q
                yield from extend(k + 1)
                del chosen[preds[k]]

    yield from extend(0)


def _usage(dom: Domain) -> dict:
    """Per predicate, how the action schemas use it: the sorted (parameters, preconditions, negative
    preconditions, adds, deletes) counts of the schemas that mention it."""
    out: dict = {p: [] for p in dom.predicates}
    for s in dom.schemas:
        counts: dict = {}
        for part, lits in enumerate((tuple(l for l in s.pre if l.positive), tuple(l for l in s.pre if not l.positive),
                                     s.add, s.dele)):
            for l in lits:
                if l.predicate in counts:
                    counts[l.predicate][part] += 1
                elif l.predicate in out:
                    counts[l.predicate] = [0, 0, 0, 0]
                    counts[l.predicate][part] = 1
        for p, c in counts.items():
            out[p].append((len(s.params), *c))
    return {p: sorted(v) for p, v in out.items()}


@dataclass(frozen=True, slots=True)
class _Pair:
    name: str
    truth: Task
    model: Task
    pmap: dict

    @staticmethod
    def make(task: Task, model: Domain, pmap: dict) -> "_Pair":
        constants = {c for c, _ in model.constants}
        objects = [(o, t if model.types else "object") for o, t in task.objects if o not in constants]

        def rename(text: str):
            p, args = parse_atom_text(text)
            if p not in pmap:
                raise PddlError("unknown-predicate", f"instance {task.problem_name}: no predicate of the model's "
                                f"domain stands for {p!r}")
            return pmap[p], args

        init = [rename(a) for a in state_atoms(task, task.init) + list(task.static_atoms)]
        goal = [rename(a) for a in state_atoms(task, task.goal)] if not task.goal >> task.n_atoms else []
        goal_neg = [rename(a) for a in state_atoms(task, task.goal_neg)]
        m = ground(model, objects, init, goal, name=task.problem_name, goal_neg=goal_neg,
                   source=f"instance {task.problem_name}")
        return _Pair(task.problem_name, task, m, pmap)


# --------------------------------------------------------------------------------------------
# The simultaneous walk


@dataclass(frozen=True, slots=True)
class _Conflict:
    state: int  # truth state where the refutation shows
    action: object  # truth Action, or None (a model action with no match)
    model_action: object  # model Action, or None (not applicable under the model)
    truth_successor: int | None
    model_successor: int | None
    goal: bool = False  # the goal status differs


@dataclass(frozen=True, slots=True)
class _Walk:
    paired: dict  # truth state -> model state
    parent: dict  # truth state -> (truth state, truth action, model action) or None
    conflict: _Conflict | None
    bounded: bool


def _model_key(action, match: dict) -> str:
    name, order = match[action.name]
    return "(" + " ".join([name, *(action.args[i] for i in order)]) + ")"


def _walk(pair: _Pair, match: dict, max_states: int) -> _Walk:
    """Walk both systems from the paired initial states through the actions of the schemas in
    ``match`` (true schema -> (model schema, order))."""
    t, m = pair.truth, pair.model
    images = {name for name, _ in match.values()}
    paired = {t.init: m.init}
    back = {m.init: t.init}
    parent: dict = {t.init: None}
    queue = deque([t.init])
    image: dict = {}  # true action id -> its model action under the matching (None: the model has none)
    while queue:
        s = queue.popleft()
        sm = paired[s]
        if is_goal(t, s) != is_goal(m, sm):
            return _Walk(paired, parent, _Conflict(s, None, None, None, None, goal=True), False)
        mine = {a.id: a for a in applicable_actions(m, sm) if a.name in images}
        for a in applicable_actions(t, s):
            if a.name not in match:
                continue
            if a.id in image:
                am = image[a.id]
            else:
                am = image[a.id] = m.action_index.get(_model_key(a, match))
            ts = (s & ~a.dele) | a.add
            if am is None or am.id not in mine:
                return _Walk(paired, parent, _Conflict(s, a, am, ts, None), False)
            del mine[am.id]
            tm = (sm & ~am.dele) | am.add
            if ts in paired or tm in back:
                if paired.get(ts) != tm or back.get(tm) != ts:
                    return _Walk(paired, parent, _Conflict(s, a, am, ts, tm), False)
                continue
            paired[ts], back[tm], parent[ts] = tm, ts, (s, a, am)
            if len(paired) > max_states:
                return _Walk(paired, parent, None, True)
            queue.append(ts)
        if mine:  # a model action the true domain has no applicable match for
            am = min(mine.values(), key=lambda x: x.id)
            return _Walk(paired, parent, _Conflict(s, None, am, None, (sm & ~am.dele) | am.add), False)
    return _Walk(paired, parent, None, False)


def _same_sizes(pairs, sizes: list) -> bool:
    """Whether each instance has as many reachable states under the model's domain as under the true
    one (``sizes``; None: past the bound, not compared): isomorphic graphs do, so a predicate
    bijection that fails it is refuted before any matching is tried."""
    for p, n in zip(pairs, sizes):
        if n is None:
            continue
        try:
            if len(reachable_states(p.model, max_states=n)) != n:
                return False
        except SearchLimit:  # more states than under the true domain
            return False
    return True


def _size(task: Task, max_states: int) -> int | None:
    try:
        return len(reachable_states(task, max_states=max_states))
    except SearchLimit:
        return None


class _OutOfChecks(Exception):
    pass


def _candidates(truth: Domain, model: Domain, pmap: dict) -> dict:
    """Per true schema, its possible matches (model schema, order), the likeliest first: the same
    name, then the most literals that read alike under the predicate bijection and the order (the
    order saves time only: every match is a candidate)."""
    out = {}
    for s in truth.schemas:
        n = len(s.params)
        cands = [(m, order) for m in model.schemas if len(m.params) == n
                 for order in itertools.permutations(range(n))]
        cands.sort(key=lambda c: (c[0].name != s.name, -_alike(s, c[0], c[1], pmap), c[0].name, c[1]))
        out[s.name] = [(m.name, order) for m, order in cands]
    return out


def _alike(s, m, order: tuple, pmap: dict) -> int:
    """How many of the model schema's literals are the true schema's, renamed."""
    rename = {m.params[j]: s.params[i] for j, i in enumerate(order)}

    def lits(schema, names, preds):
        parts = (tuple(l for l in schema.pre if l.positive), tuple(l for l in schema.pre if not l.positive),
                 schema.add, schema.dele)
        return {(k, preds.get(l.predicate, l.predicate), tuple(names.get(x, x) for x in l.args))
                for k, part in enumerate(parts) for l in part}

    back = {v: k for k, v in pmap.items()}
    return len(lits(s, {}, {}) & lits(m, rename, back))


def _search(pairs, truth: Domain, model: Domain, checks: list, max_states: int):
    """A matching under which every instance's walk finds no refutation (None if there is none), and
    whether a walk ran past ``max_states`` on the way."""
    cands = _candidates(truth, model, pairs[0].pmap)
    order = sorted(cands, key=lambda name: (len(cands[name]), name))
    match: dict = {}
    bounded = [False]

    def extend(k: int):
        if k == len(order):
            return dict(match)
        used = {name for name, _ in match.values()}
        for cand in cands[order[k]]:
            if cand[0] in used:
                continue
            if checks[0] <= 0:
                raise _OutOfChecks
            checks[0] -= 1
            match[order[k]] = cand
            walks = [_walk(p, match, max_states) for p in pairs]
            if not any(w.conflict for w in walks):
                bounded[0] = bounded[0] or any(w.bounded for w in walks)
                got = extend(k + 1)
                if got is not None:
                    return got
            del match[order[k]]
        return None

    found = extend(0)
    return found, bounded[0]


# --------------------------------------------------------------------------------------------
# Explanations


def _explain(pairs, truth: Domain, model: Domain, pmap: dict, max_states: int) -> DomainEquivalence:
    """The refutation under the matching that keeps names and orders where it can (each true schema's
    first candidate not used already)."""
    cands = _candidates(truth, model, pmap)
    match, used = {}, set()
    for s in sorted(cands, key=lambda name: (cands[name][0][0] != name, name)):  # same names kept first
        cand = next((c for c in cands[s] if c[0] not in used), None)
        match[s] = cand
        used.add(cand[0])
    for p in pairs:
        w = _walk(p, match, max_states)
        if w.conflict is not None:
            tr = _transition(p, w)
            reason = "goal-differs" if w.conflict.goal else "transitions-differ"
            what = ("the goal holds under one domain and not the other in the state of "
                    + tr.describe().split(":")[0] if w.conflict.goal else tr.describe())
            return DomainEquivalence(False, reason, f"no action bijection makes the state graphs isomorphic; "
                                     f"under {_show_actions(match)}: {what}", _pairs(pmap), _actions(match), tr,
                                     sum(len(_walk(q, match, max_states).paired) for q in pairs))
    return DomainEquivalence(False, "transitions-differ", "no action bijection makes the state graphs "
                             "isomorphic (each refuted on some instance)", _pairs(pmap))


def _transition(p: _Pair, w: _Walk) -> Transition:
    """The first transition on the way to the refutation whose successors differ atom for atom, else
    the refuting one."""
    steps = []
    s = w.conflict.state
    while w.parent[s] is not None:
        prev, a, am = w.parent[s]
        steps.append((prev, a, am, s))
        s = prev
    steps.reverse()
    for k, (prev, a, am, nxt) in enumerate(steps):
        if _truth_atoms(p, nxt) != _model_atoms(p, w.paired[nxt]):
            return _make_transition(p, [x[1] for x in steps[:k]], prev, a, am, nxt, w.paired[nxt])
    c = w.conflict
    return _make_transition(p, [x[1] for x in steps], c.state, c.action, c.model_action, c.truth_successor,
                            c.model_successor)


def _make_transition(p: _Pair, path, s, a, am, ts, tm) -> Transition:
    text = str(a) if a is not None else "(no match)"
    return Transition(p.name, tuple(sorted(_truth_atoms(p, s))), tuple(str(x) for x in path), text,
                      str(am) if am is not None else "(none)",
                      None if ts is None or a is None else tuple(sorted(_truth_atoms(p, ts))),
                      None if tm is None or am is None else tuple(sorted(_model_atoms(p, tm))))


def _truth_atoms(p: _Pair, s: int) -> set:
    return set(state_atoms(p.truth, s)) | set(p.truth.static_atoms)


def _model_atoms(p: _Pair, s: int) -> set:
    """A model state in the true predicate names (a model predicate without one keeps its own)."""
    back = {v: k for k, v in p.pmap.items()}
    out = set()
    for text in state_atoms(p.model, s) + list(p.model.static_atoms):
        pred, args = parse_atom_text(text)
        out.add(atom_str(back.get(pred, pred), args))
    return out


def _actions(match: dict) -> tuple:
    return tuple(sorted((s, name, tuple(order)) for s, (name, order) in match.items()))


def _show_actions(match: dict) -> str:
    parts = []
    for s, name, order in _actions(match):
        perm = "" if list(order) == sorted(order) else f" (arguments {', '.join(str(i + 1) for i in order)})"
        parts.append(f"{s}->{name}{perm}")
    return ", ".join(parts)


def _pairs(pmap: dict) -> tuple:
    return tuple(sorted(pmap.items()))


def _arity_list(dom: Domain) -> str:
    return ", ".join(f"{s.name}/{len(s.params)}" for s in dom.schemas)


def _pred_list(preds: dict) -> str:
    return ", ".join(f"{p}/{n}" for p, n in sorted(preds.items()))
