"""Whether two problems of one domain state the same problem (issue 44).

Definition. Problems A (the truth) and B (the candidate, e.g. a model's PDDL) of one domain are
*equivalent* when some bijection σ of their objects that respects types and fixes the domain's
constants maps A's initial state onto B's (static atoms and types included) and maps the set of
states reachable in A that satisfy A's goal onto the set of states reachable in B that satisfy B's.
A goal that differs only by facts every reachable goal state makes true is therefore equivalent; a
goal that admits other reachable states, or fewer, is not.

How it is decided, cheapest first:

1. Both problems are read by the engine (`strips.parse_problem_text`); a fault of the candidate's
   text comes back as a verdict of its class (`strips.PddlError.kind`), never as a traceback.
2. The initial states as atom graphs (an object node per object, labelled by its type, and by its
   name for a constant; a node per true atom, labelled by its predicate, with an edge to each
   argument labelled by its positions): no isomorphism (networkx's VF2) means not equivalent,
   class ``init-differs``, with the atoms that differ under the best bijection found (an embedding of
   one initial state in the other when one only lacks atoms, else a local search).
3. The same graphs with the goal literals marked: an isomorphism maps init to init and goal to goal,
   hence goal states to goal states: equivalent, whatever the size of the state space.
4. Otherwise the reachable states of both are enumerated (`bfs.reachable_states`, up to
   ``max_states``). Since σ maps init onto init, it maps A's reachable states onto B's; a set S of
   goal states is then fixed by the atoms true in all of its states (I) and in some (U): S = {s
   reachable : I ⊆ s ⊆ U} (the goal's literals are among I and outside U). So σ maps S_A onto S_B
   exactly when it maps I_A onto I_B and U_A onto U_B, one more graph isomorphism (init, I and U
   marked), over all bijections at once: the lazy enumeration of the init's automorphisms
   (interchangeable blocks) happens inside VF2. If there is none, the verdict is not equivalent and
   the explanation (which states one goal admits and the other does not) uses a bijection under
   which one goal-state set nests in the other (one more search, the marks compared by inclusion),
   else the best of the init isomorphisms, enumerated lazily up to ``max_bijections``.
5. Past ``max_states``, what can be decided soundly: for an init isomorphism σ (lazily, up to
   ``max_bijections``), each goal literal on which A's goal and σ⁻¹(B's) differ is proved implied by
   the other goal on a projection of the task (`planners.projection`); all proved: equivalent. A
   goal that is statically false (or needs an atom no relaxed plan reaches) admits no state; if the
   other goal is shown reachable by SIW, the verdict is ``unsolvable``. When the init has at most
   `FEW_BIJECTIONS` isomorphisms, a state that tells the goals apart reached by SIW under every one
   of them refutes. Anything else is ``unknown``: counted apart, never guessed.

Classes (`REASONS`): ``equivalent``; the candidate's faults ``parse-error``, ``wrong-domain``,
``unknown-type``, ``unknown-predicate``, ``wrong-arity``, ``unknown-object``; ``init-differs``;
``goal-admits-other`` (B's goal admits a reachable state σ(A's) does not; also when it admits fewer
too), ``goal-admits-fewer`` (B's goal states are a proper subset), ``unsolvable`` (B's goal admits no
reachable state, A's does); ``unsupported`` (the candidate uses PDDL beyond the engine's fragment)
and ``unknown`` are neither (``equivalent`` is None). docs/formalization.md.
"""

from __future__ import annotations

import itertools
from collections import Counter
from dataclasses import dataclass

from widthbench.planners.bfs import SearchLimit, reachable_states
from widthbench.planners.projection import implied
from widthbench.planners.strips import (Domain, PddlError, Task, atom_str, bits, execute_plan, is_goal,
                                        parse_atom_text, parse_problem_text, state_atoms)

REASONS = ("equivalent", "parse-error", "wrong-domain", "unknown-type", "unknown-predicate", "wrong-arity",
           "unknown-object", "unsupported", "init-differs", "goal-admits-other", "goal-admits-fewer",
           "unsolvable", "unknown")
UNDECIDED = ("unsupported", "unknown")
DEFAULT_MAX_STATES = 1_000_000
DEFAULT_MAX_BIJECTIONS = 100
FEW_BIJECTIONS = 20  # past the bound: the init isomorphisms projections try; a refutation needs all, this few
_SHOWN = 6  # atoms named in a message, at most


@dataclass(frozen=True, slots=True)
class Equivalence:
    """The verdict on a candidate problem against the truth.

    ``equivalent``: True, False, or None (``unsupported`` / ``unknown``: counted apart, never a guess).
    ``reason``: the class (`REASONS`). ``message``: one line saying why. ``bijection``: (truth object,
    candidate object) pairs of the bijection found (equivalent) or the best one (init or goal differs),
    non-constant objects only. ``missing`` / ``extra``: atoms of the truth's initial state (in the
    candidate's names) that the candidate's lacks / atoms it has beyond them (``init-differs``), or
    the goal literals that differ in the same way (goal classes). ``example_state``: the fluent atoms
    of a reachable state, in the candidate's names, that one goal admits and the other does not.
    ``method``: how it was decided (``read``, ``init``, ``syntax``, ``search``, ``projection``,
    ``siw``, ``bound``). ``states``: the reachable states of each problem, when enumerated."""

    equivalent: bool | None
    reason: str
    message: str
    bijection: tuple[tuple[str, str], ...] = ()
    missing: tuple[str, ...] = ()
    extra: tuple[str, ...] = ()
    example_state: tuple[str, ...] = ()
    method: str = ""
    states: int | None = None

    def to_json(self) -> dict:
        return {"equivalent": self.equivalent, "reason": self.reason, "message": self.message,
                "bijection": dict(self.bijection), "missing": list(self.missing), "extra": list(self.extra),
                "example_state": list(self.example_state), "method": self.method, "states": self.states}

    def line(self) -> str:
        """The verdict in one line, as `widthbench equivalent` prints it."""
        return verdict_line(self.equivalent, self.reason, self.message)


def verdict_line(equivalent: bool | None, reason: str, message: str) -> str:
    """A verdict in one line: EQUIVALENT, NOT EQUIVALENT or UNKNOWN with its class, then why (the
    line `widthbench equivalent` and `widthbench equivalent-domain` print)."""
    if equivalent:
        return f"EQUIVALENT: {message}"
    if equivalent is None:
        return f"UNKNOWN ({reason}): {message}"
    return f"NOT EQUIVALENT ({reason}): {message}"


def read_candidate(domain: Domain, text: str, source: str = "<candidate>") -> Task | Equivalence:
    """The candidate's problem text grounded, or the verdict of its fault (class of
    `strips.PddlError`)."""
    try:
        return parse_problem_text(domain, text, source=source)
    except PddlError as exc:
        equivalent = None if exc.kind == "unsupported" else False
        return Equivalence(equivalent, exc.kind, str(exc), method="read")


def problem_equivalence(truth: Task, candidate: Task | str, *, max_states: int = DEFAULT_MAX_STATES,
                        max_bijections: int = DEFAULT_MAX_BIJECTIONS) -> Equivalence:
    """Judge ``candidate`` (a task of the truth's domain, or its problem text) against ``truth``.
    A fault of the truth is the caller's (it is a `Task` already); a fault of the candidate's text
    is a verdict. ``max_states`` bounds the reachable states enumerated per problem;
    ``max_bijections`` the init isomorphisms tried for an explanation or a projection proof."""
    if max_states < 1 or max_bijections < 1:
        raise ValueError("max_states and max_bijections must be positive")
    if isinstance(candidate, str):
        got = read_candidate(truth.domain, candidate)
        if isinstance(got, Equivalence):
            return got
        candidate = got
    a, b = _Facts.of(truth), _Facts.of(candidate)
    counts_a, counts_b = a.type_counts(), b.type_counts()
    if counts_a != counts_b:
        return Equivalence(False, "init-differs", "the objects differ: " + _counts_diff(counts_a, counts_b),
                           method="init")
    init_a, init_b = a.graph(a.init_flags()), b.graph(b.init_flags())
    sigma = next(_isomorphisms(init_a, init_b), None)
    if sigma is None:
        return _init_differs(a, b)
    syntax = next(_isomorphisms(a.graph(a.goal_flags()), b.graph(b.goal_flags())), None)
    if syntax is not None:
        return Equivalence(True, "equivalent", "the initial states and the goals are the same up to the "
                           "bijection " + _show_bijection(a, syntax), a.pairs(syntax), method="syntax")
    space_a = _GoalSpace.explore(truth, max_states)
    if space_a is None:
        return _past_bound(a, b, init_a, init_b, max_states, max_bijections)
    space_b = _GoalSpace.explore(candidate, max_states)  # as many states as A's: σ maps one onto the other
    n = space_a.n_states
    if not space_a.goal_states and not space_b.goal_states:
        return Equivalence(True, "equivalent", f"neither goal admits any of the {n} reachable states, and the "
                           "initial states are the same up to the bijection " + _show_bijection(a, sigma),
                           a.pairs(sigma), method="search", states=n)
    if space_a.goal_states and not space_b.goal_states:
        return Equivalence(False, "unsolvable", f"the candidate's goal admits none of the {n} reachable states; "
                           f"the truth's admits {len(space_a.goal_states)}",
                           a.pairs(sigma), method="search", states=n)
    same = None
    if len(space_a.goal_states) == len(space_b.goal_states):
        same = next(_isomorphisms(a.graph(a.space_flags(space_a)), b.graph(b.space_flags(space_b))), None)
    if same is not None:
        return Equivalence(True, "equivalent", f"both goals admit the same {len(space_a.goal_states)} of the {n} "
                           "reachable states under the bijection " + _show_bijection(a, same),
                           a.pairs(same), method="search", states=n)
    return _goal_differs(a, b, space_a, space_b, _isomorphisms(init_a, init_b), max_bijections)


# --------------------------------------------------------------------------------------------
# The facts of a task as labelled graphs


@dataclass(frozen=True, slots=True)
class _Facts:
    task: Task
    atoms: tuple  # (predicate, args) per fluent atom index
    static: tuple  # (predicate, args) of the true static atoms
    constants: frozenset

    @staticmethod
    def of(task: Task) -> "_Facts":
        return _Facts(task, tuple(parse_atom_text(x) for x in task.atoms),
                      tuple(parse_atom_text(x) for x in task.static_atoms),
                      frozenset(c for c, _ in task.domain.constants))

    def type_counts(self) -> Counter:
        return Counter(t if o not in self.constants else f"{t} {o}" for o, t in self.task.objects)

    def init_flags(self) -> dict:
        flags = {self.atoms[i]: ("init",) for i in bits(self.task.init)}
        flags.update((x, ("static",)) for x in self.static)
        return flags

    def goal_flags(self) -> dict:
        """Init and the goal's literals, each atom labelled by the parts it is in."""
        t = self.task
        marks: dict = {}
        for x, f in self.init_flags().items():
            marks[x] = list(f)
        if t.goal >> t.n_atoms:  # a false static goal atom: no state satisfies it
            marks[("goal unsatisfiable", ())] = ["never"]
        else:
            for i in bits(t.goal):
                marks.setdefault(self.atoms[i], []).append("goal")
        for i in bits(t.goal_neg):
            marks.setdefault(self.atoms[i], []).append("goal-not")
        return {x: tuple(f) for x, f in marks.items()}

    def space_flags(self, space: "_GoalSpace") -> dict:
        """Init plus the atoms true in every goal state (I) and in some (U)."""
        marks = {x: list(f) for x, f in self.init_flags().items()}
        for i in bits(space.inter):
            marks.setdefault(self.atoms[i], []).append("all")
        for i in bits(space.union):
            marks.setdefault(self.atoms[i], []).append("some")
        return {x: tuple(f) for x, f in marks.items()}

    def graph(self, flags: dict):
        """The atom graph. Nodes are numbers (objects first, in name order, then the atoms in the order
        of ``flags``), so that VF2, whose internal sets follow the nodes' hashes, enumerates the
        isomorphisms in the same order in every process (strings hash differently per process);
        ``g.graph["keys"][n]`` is node n's ``("o", name)`` or ``("a", predicate, args)``."""
        import networkx as nx

        g = nx.DiGraph()
        keys = [("o", o) for o, _ in self.task.objects] + [("a", p, args) for p, args in flags]
        number = {k: n for n, k in enumerate(keys)}
        g.graph["keys"] = keys
        for o, t in self.task.objects:
            g.add_node(number[("o", o)], label=("o", t, o if o in self.constants else ""))
        for (pred, args), f in flags.items():
            node = number[("a", pred, args)]
            g.add_node(node, label=("a", pred, f))
            where: dict = {}
            for k, x in enumerate(args):
                where.setdefault(x, []).append(k)
            for x, ks in where.items():
                g.add_edge(node, number[("o", x)], pos=tuple(ks))
        return g

    def pairs(self, sigma: dict) -> tuple[tuple[str, str], ...]:
        return tuple(sorted((o, sigma[o]) for o, _ in self.task.objects if o not in self.constants))


def _isomorphisms(g1, g2):
    """The object bijections of the isomorphisms of two atom graphs, lazily (VF2); the bijection that
    keeps every name first when it is one (a candidate that kept the truth's names is explained in
    them), then VF2's in its order."""
    from networkx.algorithms.isomorphism import DiGraphMatcher

    def labels(g):
        return Counter(d["label"] for _, d in g.nodes(data=True))

    if g1.number_of_edges() != g2.number_of_edges() or labels(g1) != labels(g2):
        return
    keys1, keys2 = g1.graph["keys"], g2.graph["keys"]
    same_names = None
    if _same_names_map(g1, g2):
        same_names = {k[1]: k[1] for k in keys1 if k[0] == "o"}
        yield same_names
    matcher = DiGraphMatcher(g1, g2, node_match=lambda x, y: x["label"] == y["label"],
                             edge_match=lambda x, y: x["pos"] == y["pos"])
    for mapping in matcher.isomorphisms_iter():
        sigma = {keys1[x][1]: keys2[y][1] for x, y in mapping.items() if keys1[x][0] == "o"}
        if sigma != same_names:
            yield sigma


def _same_names_map(g1, g2) -> bool:
    """Whether keeping every name maps ``g1`` onto ``g2`` (labels and edges included)."""
    keys1, keys2 = g1.graph["keys"], g2.graph["keys"]
    if set(keys1) != set(keys2):
        return False
    number2 = {k: n for n, k in enumerate(keys2)}
    to2 = [number2[k] for k in keys1]
    if any(g1.nodes[n]["label"] != g2.nodes[to2[n]]["label"] for n in g1.nodes):
        return False
    return all(g2.has_edge(to2[u], to2[v]) and g2.edges[to2[u], to2[v]]["pos"] == d["pos"]
               for u, v, d in g1.edges(data=True))


def _show_bijection(a: _Facts, sigma: dict) -> str:
    moved = [f"{x}->{y}" for x, y in a.pairs(sigma) if x != y]
    if not moved:
        return "identity"
    return ", ".join(moved[:_SHOWN]) + (f", ... ({len(moved)} renamed)" if len(moved) > _SHOWN else "")


def _counts_diff(ca: Counter, cb: Counter) -> str:
    parts = []
    for t in sorted(set(ca) | set(cb)):
        if ca[t] != cb[t]:
            parts.append(f"{ca[t]} of type {t} in the truth, {cb[t]} in the candidate")
    return "; ".join(parts)


def _listed(atoms) -> str:
    atoms = list(atoms)
    return " ".join(atoms[:_SHOWN]) + (f" ... ({len(atoms)} in all)" if len(atoms) > _SHOWN else "")


# --------------------------------------------------------------------------------------------
# Initial states that differ: the best bijection a local search finds


def _init_differs(a: _Facts, b: _Facts) -> Equivalence:
    sigma = _embedding(a, b) or _best_init_bijection(a, b)
    mapped = _map_facts(a.init_flags(), sigma)
    have = set(b.init_flags())
    missing = sorted(atom_str(*x) for x in mapped - have)
    extra = sorted(atom_str(*x) for x in have - mapped)
    parts = []
    if missing:
        parts.append("the candidate's lacks " + _listed(missing))
    if extra:
        parts.append("has " + _listed(extra) + " beyond the truth's")
    return Equivalence(False, "init-differs", "the initial states differ under the best bijection found ("
                       + _show_bijection(a, sigma) + "): " + ", ".join(parts), a.pairs(sigma),
                       tuple(missing), tuple(extra), method="init")


def _map_facts(flags: dict, sigma: dict) -> set:
    return {(p, tuple(sigma[x] for x in args)) for p, args in flags}


EMBEDDING_BUDGET = 50_000  # node comparisons the embedding search may make


class _OutOfBudget(Exception):
    pass


def _embedding(a: _Facts, b: _Facts, budget: int = EMBEDDING_BUDGET) -> dict | None:
    """A bijection of the objects under which one initial state is the other less some atoms (a
    candidate that left facts out, or added some): a VF2 monomorphism of the smaller atom graph into
    the larger, so exactly the atoms left out differ. None when the atoms of one are not fewer, of
    the same predicates, than the other's, when there is none, or past ``budget`` node comparisons
    (the explanation then falls back on the local search)."""
    from networkx.algorithms.isomorphism import DiGraphMatcher

    fa, fb = a.init_flags(), b.init_flags()
    preds_a, preds_b = Counter(p for p, _ in fa), Counter(p for p, _ in fb)
    if len(fa) == len(fb) or not (preds_a - preds_b == Counter() or preds_b - preds_a == Counter()):
        return None
    big, small = (a, b) if len(fa) > len(fb) else (b, a)
    g_big, g_small = big.graph(big.init_flags()), small.graph(small.init_flags())
    calls = [0]

    def same(x, y) -> bool:
        calls[0] += 1
        if calls[0] > budget:
            raise _OutOfBudget
        return x["label"] == y["label"]

    matcher = DiGraphMatcher(g_big, g_small, node_match=same, edge_match=lambda x, y: x["pos"] == y["pos"])
    try:
        mapping = next(matcher.subgraph_monomorphisms_iter(), None)
    except _OutOfBudget:
        return None
    if mapping is None:
        return None
    kb, ks = g_big.graph["keys"], g_small.graph["keys"]
    pairs = {kb[x][1]: ks[y][1] for x, y in mapping.items() if kb[x][0] == "o"}
    return pairs if big is a else {v: k for k, v in pairs.items()}


def _best_init_bijection(a: _Facts, b: _Facts, passes: int = 20) -> dict:
    """A type-respecting bijection with few init atoms differing: same names first, the other
    objects in order of their init profiles, then swaps within a type while they lower the count
    (a local search: the verdict never depends on it, only the atoms a message names)."""
    init_a, init_b = a.init_flags(), set(b.init_flags())

    def profile(facts: _Facts, flags: dict) -> dict:
        out: dict = {o: [] for o, _ in facts.task.objects}
        for p, args in flags:
            for k, x in enumerate(args):
                out[x].append((p, k))
        return {o: sorted(v) for o, v in out.items()}

    prof_a, prof_b = profile(a, init_a), profile(b, init_b)
    types_a, types_b = dict(a.task.objects), dict(b.task.objects)
    sigma = {c: c for c in a.constants}
    for t in sorted(set(types_a.values())):
        xs = [o for o, ot in a.task.objects if ot == t and o not in a.constants]
        ys = [o for o, ot in b.task.objects if ot == t and o not in b.constants]
        common = sorted(set(xs) & set(ys))
        sigma.update((o, o) for o in common)
        rest_a = sorted(set(xs) - set(common), key=lambda o: (prof_a[o], o))
        rest_b = sorted(set(ys) - set(common), key=lambda o: (prof_b[o], o))
        sigma.update(zip(rest_a, rest_b))

    def cost(s: dict) -> int:
        return len(_map_facts(init_a, s) ^ init_b)

    best = cost(sigma)
    groups = [[o for o, ot in a.task.objects if ot == t and o not in a.constants]
              for t in sorted(set(types_a.values()))]
    for _ in range(passes):
        improved = False
        for group in groups:
            for x, y in itertools.combinations(group, 2):
                sigma[x], sigma[y] = sigma[y], sigma[x]
                c = cost(sigma)
                if c < best:
                    best, improved = c, True
                else:
                    sigma[x], sigma[y] = sigma[y], sigma[x]
        if not improved or best == 0:
            break
    return sigma


# --------------------------------------------------------------------------------------------
# Goal-state sets


@dataclass(frozen=True, slots=True)
class _GoalSpace:
    n_states: int
    goal_states: tuple[int, ...]  # in breadth-first order
    inter: int  # atoms true in every goal state (0 when there is none)
    union: int  # atoms true in some goal state

    @staticmethod
    def explore(task: Task, max_states: int) -> "_GoalSpace | None":
        try:
            states = reachable_states(task, max_states=max_states)
        except SearchLimit:
            return None
        g, gn = task.goal, task.goal_neg
        found = [s for s in states if s & g == g and not s & gn]
        inter, union = -1, 0
        for s in found:
            inter &= s
            union |= s
        return _GoalSpace(len(states), tuple(found), inter if found else 0, union)


def _bit_map(a: _Facts, b: _Facts, sigma: dict) -> dict:
    """A's atom index -> B's, under ``sigma`` (atoms without a counterpart are left out)."""
    out = {}
    for i, (p, args) in enumerate(a.atoms):
        j = b.task.atom_index.get(atom_str(p, tuple(sigma[x] for x in args)))
        if j is not None:
            out[i] = j
    return out


def _apply(mask: int, bit_map: dict) -> int:
    out = 0
    for i in bits(mask):
        out |= 1 << bit_map[i]
    return out


def _goal_differs(a: _Facts, b: _Facts, sa: _GoalSpace, sb: _GoalSpace, isos, max_bijections: int) -> Equivalence:
    """Not equivalent: the class and an example state under the bijection that explains best. A
    bijection under which one goal-state set is a proper subset of the other, if there is one (one
    isomorphism search over all atoms, the goal marks compared by inclusion); else the best init
    isomorphism among the first ``max_bijections`` (the one whose images of I and U differ from B's
    in fewest atoms)."""
    nested = _nested(a, b, sa, sb) if sa.goal_states and len(sa.goal_states) != len(sb.goal_states) else None
    best = None
    for sigma in ([nested] if nested is not None else itertools.islice(isos, max_bijections)):
        bm = _bit_map(a, b, sigma)
        mi, mu = _apply(sa.inter, bm), _apply(sa.union, bm)
        score = (mi ^ sb.inter).bit_count() + (mu ^ sb.union).bit_count()
        if best is None or score < best[0]:
            best = (score, sigma, bm, mi, mu)
    _, sigma, bm, mi, mu = best
    if sa.goal_states:
        other = [t for t in sb.goal_states if t & mi != mi or t & ~mu]
    else:  # no goal state: I and U say nothing
        other = list(sb.goal_states)
    if sa.goal_states:
        inv_i, inv_u = sb.inter, sb.union
        fewer = [_apply(s, bm) for s in sa.goal_states]
        fewer = [t for t in fewer if t & inv_i != inv_i or t & ~inv_u]
    else:
        fewer = []
    missing, extra = _goal_literal_diff(a, b, sigma)
    n = sa.n_states
    if other:
        example = other[0]
        reason = "goal-admits-other"
        what = (f"the candidate's goal admits {len(other)} reachable state(s) the truth's does not, e.g. "
                f"{{{' '.join(state_atoms(b.task, example))}}}")
        if fewer:
            what += f"; and misses {len(fewer)} the truth's admits"
    else:
        example = fewer[0]
        reason = "goal-admits-fewer"
        what = (f"the candidate's goal misses {len(fewer)} of the {len(sa.goal_states)} reachable state(s) "
                f"the truth's admits, e.g. {{{' '.join(state_atoms(b.task, example))}}}")
    lits = []
    if missing:
        lits.append("lacks " + _listed(missing))
    if extra:
        lits.append("has " + _listed(extra) + " beyond the truth's")
    where = f" (its goal {', '.join(lits)})" if lits else ""
    return Equivalence(False, reason, what + where + f"; bijection {_show_bijection(a, sigma)}",
                       a.pairs(sigma), tuple(missing), tuple(extra), tuple(state_atoms(b.task, example)),
                       method="search", states=n)


def _nested(a: _Facts, b: _Facts, sa: _GoalSpace, sb: _GoalSpace) -> dict | None:
    """A bijection that maps A's initial state onto B's and B's goal states into A's (B has fewer) or
    A's into B's (B has more): S_B ⊆ σ(S_A) exactly when σ(I_A) ⊆ I_B and U_B ⊆ σ(U_A). Every atom
    is a node here (the inclusions need the atoms outside I and U too)."""
    from networkx.algorithms.isomorphism import DiGraphMatcher

    def marks(f: _Facts, space: _GoalSpace) -> dict:
        out = {x: ("static", False, False) for x in f.static}
        for i, x in enumerate(f.atoms):
            out[x] = (bool(f.task.init >> i & 1), bool(space.inter >> i & 1), bool(space.union >> i & 1))
        return out

    fewer = len(sb.goal_states) < len(sa.goal_states)

    def match(x, y) -> bool:
        (kx, px, fx), (ky, py, fy) = x["label"], y["label"]
        if kx != ky or px != py or (kx == "o" and fx != fy):
            return False
        if kx == "o" or fx[0] != fy[0]:
            return kx == "o"
        small, large = (fy, fx) if fewer else (fx, fy)  # the smaller set's I holds more, its U less
        return (not large[1] or small[1]) and (not small[2] or large[2])

    g1, g2 = a.graph(marks(a, sa)), b.graph(marks(b, sb))
    if g1.number_of_nodes() != g2.number_of_nodes() or g1.number_of_edges() != g2.number_of_edges():
        return None
    keys1, keys2 = g1.graph["keys"], g2.graph["keys"]
    matcher = DiGraphMatcher(g1, g2, node_match=match, edge_match=lambda x, y: x["pos"] == y["pos"])
    for mapping in matcher.isomorphisms_iter():
        return {keys1[x][1]: keys2[y][1] for x, y in mapping.items() if keys1[x][0] == "o"}
    return None


def _goal_literals(f: _Facts) -> set:
    t = f.task
    if t.goal >> t.n_atoms:
        return {"(goal unsatisfiable)"}
    return ({atom_str(*f.atoms[i]) for i in bits(t.goal)}
            | {f"(not {atom_str(*f.atoms[i])})" for i in bits(t.goal_neg)})


def _goal_literal_diff(a: _Facts, b: _Facts, sigma: dict) -> tuple[list, list]:
    """The truth's goal literals (in the candidate's names) the candidate's lacks, and its extra ones."""
    t = a.task
    if t.goal >> t.n_atoms:
        mapped = {"(goal unsatisfiable)"}
    else:
        def name(i):
            p, args = a.atoms[i]
            return atom_str(p, tuple(sigma[x] for x in args))
        mapped = {name(i) for i in bits(t.goal)} | {f"(not {name(i)})" for i in bits(t.goal_neg)}
    have = _goal_literals(b)
    return sorted(mapped - have), sorted(have - mapped)


# --------------------------------------------------------------------------------------------
# Past the bound: projections, SIW, or unknown


def _past_bound(a: _Facts, b: _Facts, init_a, init_b, max_states: int, max_bijections: int) -> Equivalence:
    bound = f"more than {max_states} reachable states"
    never_a, never_b = _admits_none(a.task), _admits_none(b.task)
    # the init isomorphisms (lazily, up to max_bijections), those whose goals differ least first
    tried = []
    for sigma in itertools.islice(_isomorphisms(init_a, init_b), max_bijections + 1):
        missing, extra = _goal_literal_diff(a, b, sigma)
        tried.append((len(missing) + len(extra), len(tried), sigma, missing, extra))
        if never_a or never_b:
            break
    every = len(tried) <= FEW_BIJECTIONS and not (never_a or never_b)  # all of them, and few
    tried = sorted(tried[:max_bijections], key=lambda x: x[:2])
    first = tried[0][2]
    if never_a and never_b:
        return Equivalence(True, "equivalent", f"{bound}; neither goal can be reached (a false static goal atom, "
                           "or one no relaxed plan reaches), and the initial states are the same up to the "
                           "bijection " + _show_bijection(a, first), a.pairs(first), method="projection")
    if never_b and _reached(a.task, a.task.goal, a.task.goal_neg) is not None:
        return Equivalence(False, "unsolvable", f"{bound}; the candidate's goal cannot be reached (a false static "
                           "goal atom, or one no relaxed plan reaches), the truth's is reached by SIW",
                           a.pairs(first), method="siw")
    if never_a and _reached(b.task, b.task.goal, b.task.goal_neg) is not None:
        return Equivalence(False, "goal-admits-other", f"{bound}; the truth's goal cannot be reached (a false "
                           "static goal atom, or one no relaxed plan reaches), the candidate's is reached by SIW",
                           a.pairs(first), method="siw")
    if not (never_a or never_b):
        for _, _, sigma, _, _ in tried[:FEW_BIJECTIONS]:
            if _goals_proved_same(a, b, sigma):
                return Equivalence(True, "equivalent", f"{bound}; the goals differ only by literals the other "
                                   "goal implies in every reachable state (proved on projections), under the "
                                   "bijection " + _show_bijection(a, sigma), a.pairs(sigma), method="projection")
    _, _, sigma, missing, extra = tried[0]
    lits = []
    if missing:
        lits.append("the candidate's goal lacks " + _listed(missing))
    if extra:
        lits.append("has " + _listed(extra) + " beyond the truth's")
    if every:
        witnesses = [_witness(a, b, x[2]) for x in tried]
        if all(w is not None for w in witnesses):
            reason, state = witnesses[0]
            shown = "{" + " ".join(state_atoms(b.task, state)) + "}"
            what = ("admits a reachable state the truth's does not" if reason == "goal-admits-other"
                    else "misses a reachable state the truth's admits")
            return Equivalence(False, reason, f"{bound}; under each of the {len(tried)} bijection(s) that map the "
                               "initial states, SIW reaches a state one goal admits and the other does not; under "
                               f"the closest ({_show_bijection(a, sigma)}) the candidate's goal {what}, e.g. "
                               f"{shown} ({', '.join(lits)})", a.pairs(sigma), tuple(missing), tuple(extra),
                               tuple(state_atoms(b.task, state)), method="siw")
    return Equivalence(None, "unknown", f"{bound} (--max-states); the initial states are the same up to a "
                       f"bijection, but under the closest one {', '.join(lits)}, and neither a projection proves "
                       "the difference implied nor a search finds a state that tells the goals apart",
                       a.pairs(sigma), tuple(missing), tuple(extra), method="bound")


def _admits_none(task: Task) -> bool:
    """The goal needs a false static atom, or an atom that grounding found no action to reach and
    the initial state does not hold: no reachable state satisfies it."""
    if task.goal >> task.n_atoms:
        return True
    reachable = task.init
    for act in task.actions:
        reachable |= act.add
    return bool(task.goal & ~reachable)


def _reached(task: Task, goal_pos: int, goal_neg: int) -> int | None:
    """A reachable state of ``task`` with ``goal_pos`` true and ``goal_neg`` false, found by SIW
    (serialized IW up to width 2 over the positive atoms, the negative ones checked at the end), or
    None: not found (which proves nothing)."""
    import dataclasses

    from widthbench.planners.iw import siw
    from widthbench.planners.state_model import StripsModel

    if goal_pos & goal_neg:
        return None
    goal_task = dataclasses.replace(task, goal=goal_pos, goal_neg=goal_neg)
    found = siw(StripsModel(goal_task), max_k=2)
    if not found.solved:
        return None
    state = execute_plan(goal_task, found.plan).states[-1]
    return state if is_goal(goal_task, state) else None


def _witness(a: _Facts, b: _Facts, sigma: dict) -> tuple[str, int] | None:
    """A state that tells A's goal and σ⁻¹(B's) apart under ``sigma`` (B's names), with the class it
    shows: a reachable state with B's goal and one of A's literals false (``goal-admits-other``),
    or with A's goal and one of B's false (``goal-admits-fewer``); None if SIW finds neither."""
    back = _bit_map(b, a, {v: k for k, v in sigma.items()})
    tb, ta = b.task, a.task
    if any(i not in back for i in bits(tb.goal | tb.goal_neg)):
        return None
    gp_b, gn_b = _apply(tb.goal, back), _apply(tb.goal_neg, back)
    forward = _bit_map(a, b, sigma)
    for goal_p, goal_n, lits_p, lits_n, reason in (
            (gp_b, gn_b, ta.goal & ~gp_b, ta.goal_neg & ~gn_b, "goal-admits-other"),
            (ta.goal, ta.goal_neg, gp_b & ~ta.goal, gn_b & ~ta.goal_neg, "goal-admits-fewer")):
        for i in bits(lits_p):
            state = _reached(ta, goal_p, goal_n | 1 << i)
            if state is not None:
                return reason, _apply(state, forward)
        for i in bits(lits_n):
            state = _reached(ta, goal_p | 1 << i, goal_n)
            if state is not None:
                return reason, _apply(state, forward)
    return None


def _goals_proved_same(a: _Facts, b: _Facts, sigma: dict) -> bool:
    """Whether A's goal and σ⁻¹(B's) differ only by literals the other implies (projections of A)."""
    inverse = {v: k for k, v in sigma.items()}
    back = _bit_map(b, a, inverse)
    tb = b.task
    if any(i not in back for i in bits(tb.goal | tb.goal_neg)):
        return False
    gp_b, gn_b = _apply(tb.goal, back), _apply(tb.goal_neg, back)
    ta = a.task
    gp_a, gn_a = ta.goal, ta.goal_neg
    for goal_p, goal_n, lits_p, lits_n in ((gp_a, gn_a, gp_b & ~gp_a, gn_b & ~gn_a),
                                            (gp_b, gn_b, gp_a & ~gp_b, gn_a & ~gn_b)):
        for i in bits(lits_p):
            if not implied(ta, goal_p, goal_n, i, True):
                return False
        for i in bits(lits_n):
            if not implied(ta, goal_p, goal_n, i, False):
                return False
    return True
