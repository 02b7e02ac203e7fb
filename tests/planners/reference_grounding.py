"""The reachability grounding of `planners.strips` as it was before issue #33's rewrite, kept for tests.

A fixpoint that recomputes every schema's bindings from scratch each round until no new atom is
added (slow: it is the reference, not the engine). ``test_grounding_digests.py`` compares the engine's
`_reachable_bindings` with it on random initial states of the reference domains.
"""

from __future__ import annotations

from widthbench.planners.strips import Domain, Literal, Schema


def reference_bindings(dom: Domain, objs: dict, init_atoms: set) -> tuple[set, dict]:
    """(reachable atoms, schema name -> set of argument tuples), as the old grounding found them."""
    reach, bindings = _relaxed_reachable(dom, objs, init_atoms)
    found = {s.name: {tuple(b[p] for p in s.params) for b in bindings[s.name]} for s in dom.schemas}
    return reach, found


def _relaxed_reachable(dom: Domain, objs: dict, init_atoms: set) -> tuple[set, dict]:
    """Delete-free fixpoint from the initial atoms: (reachable atoms, schema -> bindings)."""
    reach = set(init_atoms)
    domains = {s.name: _param_domains(dom, s, objs) for s in dom.schemas}
    while True:
        by_pred: dict[str, list[tuple]] = {}
        for p, args in reach:
            by_pred.setdefault(p, []).append(args)
        for v in by_pred.values():
            v.sort()
        new = set()
        bindings = {}
        for s in dom.schemas:
            bs = _bindings(dom, s, domains[s.name], reach, by_pred)
            bindings[s.name] = bs
            for b in bs:
                for lit in s.add:
                    a = (lit.predicate, tuple(b.get(x, x) for x in lit.args))
                    if a not in reach:
                        new.add(a)
        if not new:
            return reach, bindings
        reach |= new


def _param_domains(dom: Domain, s: Schema, objs: dict) -> dict:
    return {v: [o for o, ot in sorted(objs.items()) if dom.is_subtype(ot, t)] for v, t in zip(s.params, s.param_types)}


def _bindings(dom: Domain, s: Schema, domain_of: dict, reach: set, by_pred: dict) -> list[dict]:
    """All parameter bindings whose positive preconditions hold in ``reach`` (relaxed), whose static
    negative preconditions and (in)equalities hold, and whose objects have the parameter types."""
    static = dom.static_predicates
    positives = [l for l in s.pre if l.positive and l.predicate != "="]
    checks = [l for l in s.pre if l.predicate == "=" or (not l.positive and l.predicate in static)]
    out: list[dict] = []

    def holds(l: Literal, b: dict) -> bool:
        vals = tuple(b.get(x, x) for x in l.args)
        value = vals[0] == vals[1] if l.predicate == "=" else (l.predicate, vals) in reach
        return value == l.positive

    def bound(l: Literal, b: dict) -> bool:
        return all((x in b) or not x.startswith("?") for x in l.args)

    def var_ok(b: dict) -> bool:
        for l in checks:
            if bound(l, b) and not holds(l, b):
                return False
        for alt in s.pre_or:  # static, so ``reach`` holds exactly the initial facts of them
            if all(bound(l, b) for l in alt) and not any(holds(l, b) for l in alt):
                return False
        return True

    allowed = {v: set(d) for v, d in domain_of.items()}
    index: dict = {}  # (predicate, bound positions) -> bound values -> matching argument tuples

    # Join order fixed once: repeatedly take the literal with most already-bound arguments.
    order: list[Literal] = []
    bound_vars: set[str] = set()
    todo = list(positives)
    while todo:
        nxt = max(todo, key=lambda l: (sum(1 for x in l.args if x in bound_vars or not x.startswith("?")),
                                       l.predicate in static))
        todo.remove(nxt)
        order.append(nxt)
        bound_vars.update(x for x in nxt.args if x.startswith("?"))

    def extend(b: dict, remaining: list[Literal]) -> None:
        if not remaining:
            free = [v for v in s.params if v not in b]
            if free:
                v = free[0]
                for o in domain_of[v]:
                    b2 = dict(b)
                    b2[v] = o
                    if var_ok(b2):
                        extend(b2, remaining)
                return
            out.append(b)
            return
        # most-bound literal first
        best, rest = remaining[0], remaining[1:]
        vals = tuple(b.get(x, None) if x.startswith("?") else x for x in best.args)
        if None not in vals:  # fully bound: a membership test
            if (best.predicate, vals) in reach:
                extend(b, rest)
            return
        bound = tuple(i for i, v in enumerate(vals) if v is not None)
        key = (best.predicate, bound)
        table = index.get(key)
        if table is None:
            table = {}
            for args in by_pred.get(best.predicate, ()):
                table.setdefault(tuple(args[i] for i in bound), []).append(args)
            index[key] = table
        for args in table.get(tuple(vals[i] for i in bound), ()):
            b2 = dict(b)
            ok = True
            for x, val in zip(best.args, args):
                if x.startswith("?"):
                    cur = b2.get(x)
                    if cur is None:
                        if val not in allowed[x]:
                            ok = False
                            break
                        b2[x] = val
                    elif cur != val:  # a variable repeated within the literal
                        ok = False
                        break
            if ok and var_ok(b2):
                extend(b2, rest)

    extend({}, order)
    # de-duplicate (a binding can be found through several orders only once, but keep it safe)
    seen = set()
    uniq = []
    for b in out:
        key = tuple(b[p] for p in s.params)
        if key not in seen:
            seen.add(key)
            uniq.append(b)
    return uniq


