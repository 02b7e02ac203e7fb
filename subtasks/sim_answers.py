"""Simulated answers to the sub-task prompts, computed by the engine (the sub-task records'
``simulate`` entries; docs/subtasks.md, "Simulated models").

Each answer function takes a question read back from the prompt by the simulated models' one prompt
reader (`widthbench.simulated.prompt.ReadPrompt`: the rebuilt task with the prompt's state as its
initial state, its renderer and ground truth, the prompt's fields), the mode (``oracle``, ``noisy``
or ``random``), whether to corrupt the answer, and the request's random generator, and returns
(answer text, a note for the reasoning):

- ``oracle``: the correct answer, written in the format the prompt asks for;
- ``noisy``: the oracle's answer made wrong in a realistic way (a dropped or an extra action,
  pick-up/unstack confused, a wrong fact in a state, a flipped verdict, a novelty or width off by
  one). Every corruption makes the answer wrong for every metric of its item, so the expected
  accuracy of a single-request item is exactly 1 - P;
- ``random``: a well-formed random answer (a random action or subset of actions, the successor of a
  random applicable action, a coin-flip verdict, a number from 1 to 3).
"""

from __future__ import annotations

import dataclasses

from widthbench.core.errors import UserError
from widthbench.planners import strips
from widthbench.subtasks import api
from widthbench.subtasks.exact import inapplicable_action, novelty_of, wrong_state
from widthbench.planners.iw import iterated_width
from widthbench.planners.state_model import StripsModel


# ---------------------------------------------------------------------------------------------
# Answers per sub-task kind: (text, note for the reasoning)


def _action_generation(q, mode, corrupt, rng):
    task, r = q.task, q.renderer
    s = q.state()
    acts = [str(a) for a in strips.applicable_actions(task, s)]
    if mode == "random":
        pool = [str(a) for a in task.actions]
        acts = rng.sample(pool, min(len(pool), rng.randint(1, 6)))
        return r.actions(acts), "I list a few actions at random."
    if corrupt:
        acts = _corrupt_action_set(task, s, acts, rng)
    return r.actions(acts), f"I count {len(acts)} applicable actions."


def _corrupt_action_set(task, s, acts, rng):
    acts = list(acts)
    extra = inapplicable_action(task, s, rng)
    if acts and (extra is None or rng.random() < 0.5):
        acts.pop(rng.randrange(len(acts)))
    elif extra is not None:
        acts.insert(rng.randrange(len(acts) + 1), extra)
    return acts


def _next_action(q, mode, corrupt, rng):
    task, r = q.task, q.renderer
    s = q.state()
    if mode == "random":
        return r.action(rng.choice(task.actions)), "I pick an action at random."
    best = [str(a) for a in q.truth.optimal_next_actions(s)]
    if not best:
        return "none", "The goal already holds or cannot be reached."
    if corrupt:
        wrong = inapplicable_action(task, s, rng)
        if wrong is not None:
            return r.action(wrong), "I take the block I want."
    return r.action(rng.choice(best)), f"{len(best)} action(s) start a shortest plan."


def _wrong_state(task, s: int, t: int, rng) -> int:
    return wrong_state(task, t, rng)


def _successor_of(task, s: int, action: str) -> int:
    a = strips.parse_action(task, action)
    # An action that cannot be taken leaves the state as it is.
    return strips.successor(s, a) if strips.is_applicable(s, a) else s


def _successor(q, mode, corrupt, rng):
    task, r = q.task, q.renderer
    s = q.state()
    if mode == "random":
        acts = strips.applicable_actions(task, s)
        t = strips.successor(s, rng.choice(acts)) if acts else s
        return r.state(t, include_static=False), "I apply some action."
    t = _successor_of(task, s, r.parse_action(q.fields["action"]))
    if corrupt:
        t = _wrong_state(task, s, t, rng)
    return r.state(t, include_static=False), "I apply the action's effects."


def _successor_mapping(q, mode, corrupt, rng):
    task, r = q.task, q.renderer
    s = q.state()
    actions = r.parse_actions(q.fields["actions"])
    results = []
    applicable = strips.applicable_actions(task, s)
    for a in actions:
        if mode == "random":
            results.append(strips.successor(s, rng.choice(applicable)) if applicable else s)
        else:
            results.append(_successor_of(task, s, a))
    if corrupt and results:
        i = rng.randrange(len(results))
        results[i] = _wrong_state(task, s, results[i], rng)
    # Resulting states list the facts that change only: statics (and type facts) never count, and
    # repeating them per action would overflow max_tokens on domains with many (grid, rover).
    blocks = [f"Action: {r.action(a)}\nResulting state:\n{r.state(t, include_static=False)}"
              for a, t in zip(actions, results)]
    return "\n\n".join(blocks), f"I map {len(actions)} actions."


def _yes_no(value: bool) -> str:
    return "yes" if value else "no"


def _verification(q, mode, corrupt, rng):
    task, r = q.task, q.renderer
    if mode == "random":
        return _yes_no(rng.random() < 0.5), "I guess."
    plan = r.parse_plan(q.fields["plan"])
    try:
        valid = strips.execute_plan(task, plan, q.state()).valid
    except UserError:  # an action outside the task: the plan cannot be executed
        valid = False
    return _yes_no(valid != corrupt), "I execute the plan step by step."


def _goal_check(q, mode, corrupt, rng):
    if mode == "random":
        return _yes_no(rng.random() < 0.5), "I guess."
    return _yes_no(strips.is_goal(q.task, q.state()) != corrupt), "I compare the state with the goal."


def _novelty(q, mode, corrupt, rng):
    if mode == "random":
        return _yes_no(rng.random() < 0.5), "I guess."
    width = api.novelty_width_of(q.fields["criterion"])
    new = q.state("new_state")
    prev = q.previous()
    if width is None:
        novel = not any(p & new == new for p in prev)
    else:
        novel = new not in prev and novelty_of(new, prev, width) is not None
    return _yes_no(novel != corrupt), f"I compare the new state with {len(prev)} earlier states."


def _novelty_estimate(q, mode, corrupt, rng):
    if mode == "random":
        return str(rng.randint(1, 3)), "I guess."
    new = q.state("new_state")
    n = novelty_of(new, q.previous())
    value = n if n is not None else bin(new).count("1") + 1
    return str(_off_by_one(value, rng) if corrupt else value), "I look for the smallest new set of facts."


def _width_estimate(q, mode, corrupt, rng):
    if mode == "random":
        return str(rng.randint(1, 3)), "I guess."
    task = q.task
    res = iterated_width(StripsModel(task), max_k=max(1, task.n_atoms))
    value = res.width if res.width is not None else 0
    return str(_off_by_one(value, rng) if corrupt else value), "I run IW(1), IW(2), ... in my head."


def _off_by_one(value: int, rng) -> int:
    return value + 1 if value <= 1 or rng.random() < 0.5 else value - 1


# ---------------------------------------------------------------------------------------------
# Formalization: PDDL written from a description (docs/formalization.md). The oracle renames the
# objects and reorders every list, so that only an equivalence judge scores it right; noisy makes
# one error whose class is known when it is made (`PROBLEM_INJECTIONS`, `GOAL_INJECTIONS`) and says
# which, in the candidate's names, in its note: "Injected: <kind> <atom>".

#: injection kind -> the class `planners.equivalence` must find
PROBLEM_INJECTIONS = {"drop-init": "init-differs", "add-init": "init-differs", "drop-goal": "goal-admits-other",
                      "wrong-arity": "wrong-arity"}
GOAL_INJECTIONS = {"drop-goal": "goal-admits-other", "wrong-arity": "wrong-arity", "unknown-object": "unknown-object"}


def _literal(atom: str) -> tuple[bool, str, tuple]:
    """(negated, predicate, arguments) of an atom or a ``(not ...)`` literal."""
    negated = atom.startswith("(not ")
    pred, args = strips.parse_atom_text(atom[5:-1].strip() if negated else atom)
    return negated, pred, tuple(args)


def _written(negated: bool, pred: str, args) -> str:
    atom = strips.atom_str(pred, tuple(args))
    return f"(not {atom})" if negated else atom


def _atom_renamed(atom: str, names: dict) -> str:
    negated, pred, args = _literal(atom)
    return _written(negated, pred, (names.get(x, x) for x in args))


def _problem_parts(task: strips.Task, state: int | None = None):
    """(objects as (name, type), init atoms with the statics, goal literals) of a task."""
    constants = {c for c, _ in task.domain.constants}
    objects = [(n, t) for n, t in task.objects if n not in constants]
    init = strips.state_atoms(task, task.init if state is None else state) + list(task.static_atoms)
    goal = strips.state_atoms(task, task.goal) + [f"(not {a})" for a in strips.state_atoms(task, task.goal_neg)]
    return objects, init, goal


def _goal_form(goal) -> str:
    return "(:goal (and " + " ".join(goal) + "))"


def _droppable_goal_atom(task: strips.Task, goal: list, rng) -> str | None:
    """A positive goal atom whose absence admits another reachable state: the rest of the goal is
    reached with it false (breadth-first search, small bound); None if none is found."""
    from widthbench.planners.bfs import SearchLimit, shortest_plan

    positive = [a for a in goal if not a.startswith("(not ")]
    for atom in rng.sample(positive, len(positive)):
        bit = 1 << task.atom_index[atom]
        probe = dataclasses.replace(task, goal=task.goal & ~bit, goal_neg=task.goal_neg | bit)
        try:
            if shortest_plan(probe, max_states=20_000).plan is not None:
                return atom
        except SearchLimit:
            continue
    return None


def _wrong_arity(atom: str) -> str:
    negated, pred, args = _literal(atom)
    return _written(negated, pred, args[:-1])


def _inject(task, kinds, init, goal, rng):
    """One error of a kind among ``kinds`` that the task allows: (init, goal, kind, atom)."""
    fluent_absent = [a for a in task.atoms if a not in set(init)]
    for kind in rng.sample(list(kinds), len(kinds)):
        if kind == "drop-init" and init:
            atom = rng.choice(init)
            return [a for a in init if a != atom], goal, kind, atom
        if kind == "add-init" and fluent_absent:
            atom = rng.choice(fluent_absent)
            return init + [atom], goal, kind, atom
        if kind == "drop-goal" and goal:
            atom = _droppable_goal_atom(task, goal, rng)
            if atom is not None:
                return init, [a for a in goal if a != atom], kind, atom
        with_args = [k for k, a in enumerate(goal) if _literal(a)[2]]
        if kind == "wrong-arity" and with_args:
            k = rng.choice(with_args)
            bad = _wrong_arity(goal[k])
            return init, goal[:k] + [bad] + goal[k + 1:], kind, bad
        if kind == "unknown-object" and with_args:
            k = rng.choice(with_args)
            negated, pred, args = _literal(goal[k])
            bad = _written(negated, pred, ("nosuchobject",) + args[1:])
            return init, goal[:k] + [bad] + goal[k + 1:], kind, bad
    raise ValueError("no error of the kinds asked can be put into this problem")


def _random_goal(task, rng) -> list:
    from widthbench.subtasks.exact import random_walk

    state, _ = random_walk(task, rng, rng.randint(1, 6), skip_noops=False)
    atoms = strips.state_atoms(task, state)
    return rng.sample(atoms, min(len(atoms), max(1, len(strips.state_atoms(task, task.goal)))))


def _written_parts(task, mode, corrupt, kinds, rng):
    """The task's objects, initial state and goal as the simulated model writes them, and the
    (kind, atom) of the error injected: a random goal (mode "random"), one error of ``kinds``
    (``corrupt``), or as they are."""
    objects, init, goal = _problem_parts(task)
    if mode == "random":
        return objects, init, _random_goal(task, rng), None
    if corrupt:
        init, goal, kind, atom = _inject(task, kinds, init, goal, rng)
        return objects, init, goal, (kind, atom)
    return objects, init, goal, None


def _formalize_problem(q, mode, corrupt, rng):
    from widthbench.planners.problem_writer import problem_text

    task = q.task
    objects, init, goal, injected = _written_parts(task, mode, corrupt, PROBLEM_INJECTIONS, rng)
    fresh = [f"x{k}" for k in range(1, len(objects) + 1)]
    rng.shuffle(fresh)
    names = {o: fresh[k] for k, (o, _) in enumerate(objects)}
    typed = "typing" in task.domain.requirements
    shown = [f"{names[o]} - {t}" if typed else names[o] for o, t in rng.sample(objects, len(objects))]
    init = [_atom_renamed(a, names) for a in rng.sample(init, len(init))]
    goal = [_atom_renamed(a, names) for a in rng.sample(goal, len(goal))]
    note = (f"Injected: {injected[0]} {_atom_renamed(injected[1], names)}" if injected
            else "I write the objects, every fact of the initial state and the goal.")
    return problem_text("formalized", task.domain.name, shown, init, goal), note


def _formalize_goal(q, mode, corrupt, rng):
    _, _, goal, injected = _written_parts(q.base, mode, corrupt, GOAL_INJECTIONS, rng)
    note = f"Injected: {injected[0]} {injected[1]}" if injected else "I write the goal with the problem's names."
    return _goal_form(rng.sample(goal, len(goal))), note


#: injection kind -> the classes `planners.domain_equivalence` may find (a transition, or a goal status, differs)
DOMAIN_INJECTIONS = {"drop-effect": ("transitions-differ", "goal-differs")}


def _renamed_domain(dom: strips.Domain, rng, drop: str | None = None) -> tuple[str, str]:
    """The domain with its predicates, actions and parameters renamed and every list reordered
    (parameters included), as PDDL text; ``drop`` ("effect": one effect of one action left out,
    "deletes": every delete effect left out). Returns (text, what was dropped, in the new names)."""
    from widthbench.pddl_domains.context import domain_pddl

    preds = [p for p in dom.predicates if p != "="]
    fresh = [f"fact{k}" for k in range(1, len(preds) + 1)]
    rng.shuffle(fresh)
    pmap = {**dict(zip(preds, fresh)), "=": "="}
    schemas, dropped = [], ""
    lose = rng.randrange(len(dom.schemas)) if drop == "effect" else None
    for k, sch in enumerate(dom.schemas):
        order = rng.sample(range(len(sch.params)), len(sch.params))
        vmap = {sch.params[j]: f"?v{n}" for n, j in enumerate(order)}

        def lit(x: strips.Literal) -> strips.Literal:
            return strips.Literal(x.positive, pmap[x.predicate], tuple(vmap.get(a, a) for a in x.args))

        pre, add, dele = ([lit(x) for x in rng.sample(part, len(part))] for part in (sch.pre, sch.add, sch.dele))
        if k == lose and add + dele:
            j = rng.randrange(len(add) + len(dele))
            gone = (add + dele)[j]
            dropped = f"({' '.join((gone.predicate, *gone.args))})" + (" (a delete effect)" if j >= len(add) else "")
            add, dele = [x for x in add if x is not gone], [x for x in dele if x is not gone]
        if drop == "deletes":
            dele = []
        schemas.append(dataclasses.replace(
            sch, name=f"act{k + 1}", params=tuple(vmap[sch.params[j]] for j in order),
            param_types=tuple(sch.param_types[j] for j in order), pre=tuple(pre), add=tuple(add),
            dele=tuple(dele), pre_or=tuple(tuple(lit(x) for x in alt) for alt in sch.pre_or)))
        if k == lose:
            dropped = f"act{k + 1} {dropped}"
    rng.shuffle(schemas)
    signatures = {pmap[p]: sig for p, sig in dom.signatures.items() if p in pmap}
    renamed = dataclasses.replace(
        dom, predicates={pmap[p]: dom.predicates[p] for p in rng.sample(preds, len(preds))},
        schemas=tuple(schemas), static_predicates=frozenset(pmap[p] for p in dom.static_predicates if p in pmap),
        signatures=signatures)
    return domain_pddl(renamed), dropped


def _formalize_domain(q, mode, corrupt, rng):
    dom = q.domain
    if mode == "random":
        text, _ = _renamed_domain(dom, rng, drop="deletes")
        return text, "I write the actions without what they make false."
    text, dropped = _renamed_domain(dom, rng, drop="effect" if corrupt else None)
    if corrupt:
        return text, f"Injected: drop-effect {dropped}"
    return text, "I write the types, the facts and every action's rules."


ANSWERS = {
    "action_generation": _action_generation,
    "next_action": _next_action,
    "successor": _successor,
    "successor_mapping": _successor_mapping,
    "verification": _verification,
    "goal_check": _goal_check,
    "novelty": _novelty,
    "novelty_estimate": _novelty_estimate,
    "width_estimate": _width_estimate,
    "formalize_problem": _formalize_problem,
    "formalize_goal": _formalize_goal,
    "formalize_domain": _formalize_domain,
}
