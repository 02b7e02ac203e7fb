"""Small exact computations the items and the simulators share: novelty against a list of states,
random walks, no-op actions, the inapplicable actions a model plausibly confuses (the one generator
of pick-up/unstack confusions), and labelled verification plans.

Ground truth proper (h*, optimal next actions) is `widthbench.planners.ground_truth.GroundTruth`; IW runs
are `widthbench.planners.iw`.

Verification plans (`verification_plans`, `classify_plan`) come in three kinds, the verdict classes
of PlanBench's task 3 plus the the paper kind:

- ``"valid"``: an optimal plan (executable, reaches the goal).
- ``"invalid-goal"``: an executable random walk whose final state does not satisfy the goal (the
  kind the paper used). Its length is drawn from [max(1, L-2), L+2] around the optimal length L so
  that length alone does not give the verdict away; each step is drawn uniformly from the applicable
  actions whose successor differs from the state (no self-loop moves).
- ``"invalid-precondition"``: a plan with an inapplicable step (PlanBench's other kind), made by
  one mutation of the optimal plan: ``"replace"`` a step by an action inapplicable at that point,
  ``"delete"`` a step, or ``"swap"`` two adjacent steps; a mutation is kept only if execution then
  stops at an unmet precondition. Steps after the first failing one are kept (a verifier must stop
  at the first failure, as VAL and PlanBench do).

Each stores the first failing step (1-based), the failing action, the unmet preconditions or unmet
goal atoms, and the engine's one-line reason (``strips.PlanResult.reason``). ``classify_plan``
labels any plan the same way (for a model's own plans or PlanBench's). The plan-verification
sub-task (`subtasks.definitions.plan_verification`) builds its items from `random_walk` and
`inapplicable_action` directly.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from widthbench.planners import strips


def novelty_of(state: int, previous, max_size: int | None = None) -> int | None:
    """The size of the smallest set of atoms true in ``state`` that were never all true together in
    one of ``previous`` (int bitmasks); None if no such set has at most ``max_size`` atoms (default:
    any size; None then means ``state`` is a subset of a previous state, e.g. a repeat).

    With ``max_size=k`` this is IW(k)'s test: a state generated after ``previous`` is kept by IW(k)
    iff it is not one of them and its novelty is at most k (pruned states add no tuple of size <= k,
    so testing against every generated state equals testing against IW's table).

    A set T of the state's atoms was never true in a previous state p iff T meets ``state & ~p``, so
    the novelty is the size of the smallest hitting set of those differences: a depth-bounded search
    that branches on the atoms of the smallest unmet difference and stops a branch when more
    pairwise disjoint differences remain than atoms may be chosen (exact; enumerating the subsets of
    a 300-atom state is hopeless).
    """
    if not state:
        return None
    diffs = {state & ~p for p in previous}
    if 0 in diffs:
        return None  # the state is a subset of a previous one: every set of its atoms was seen
    diffs = _minimal(diffs)
    top = state.bit_count() if max_size is None else min(max_size, state.bit_count())
    for size in range(1, top + 1):
        if _hits(diffs, size):
            return size
    return None


def _minimal(sets) -> list[int]:
    """The sets (bitmasks) with no proper subset among them, smallest first: a set that meets a
    subset meets every superset of it."""
    out: list[int] = []
    for x in sorted(sets, key=int.bit_count):
        if not any(y & x == y for y in out):
            out.append(x)
    return out


def _hits(sets: list[int], size: int) -> bool:
    """Is there a set of at most ``size`` atoms meeting every set of ``sets``?"""
    if not sets:
        return True
    if size == 0:
        return False
    # Pairwise disjoint sets need an atom each: more of them than ``size`` is a quick no.
    union, disjoint = 0, 0
    for x in sets:  # smallest first (`_minimal`, kept by the filtering below)
        if not x & union:
            union |= x
            disjoint += 1
            if disjoint > size:
                return False
    smallest = sets[0]  # one of its atoms must be chosen
    if size == 1:
        joint = smallest
        for x in sets:
            joint &= x
            if not joint:
                return False
        return True
    x = smallest
    while x:
        low = x & -x
        if _hits([y for y in sets if not y & low], size - 1):
            return True
        x ^= low
    return False


def noop_actions(task: strips.Task, state: int) -> list[str]:
    """Applicable actions whose successor is ``state`` itself (a truck driving to where it is)."""
    return [str(a) for a in strips.applicable_actions(task, state) if strips.successor(state, a) == state]


def random_walk(task: strips.Task, rng: random.Random, length: int, avoid_goal: bool = True,
                skip_noops: bool = True) -> tuple[int, tuple[str, ...]]:
    """(final state, actions) of a random walk of at most ``length`` steps from the initial state.

    Each step takes a uniformly random applicable action, never one leading into a goal state
    (``avoid_goal``) or leaving the state unchanged (``skip_noops``); the walk stops early when no
    action qualifies.
    """
    s = task.init
    steps: list[str] = []
    for _ in range(length):
        options = []
        for a in strips.applicable_actions(task, s):
            t = strips.successor(s, a)
            if (skip_noops and t == s) or (avoid_goal and strips.is_goal(task, t)):
                continue
            options.append((a, t))
        if not options:
            break
        a, s = rng.choice(options)
        steps.append(str(a))
    return s, tuple(steps)


def confusions(task: strips.Task, state: int, actions=None) -> list[str]:
    """Inapplicable actions that mirror one of ``actions`` (default: every applicable action):
    pick-up x for unstack x y, unstack x y for pick-up x, put-down x for stack x y, stack x y for
    put-down x (Blocksworld's pick-up/unstack confusion, the paper's main failure). Empty for domains
    without these actions."""
    mirrored = strips.applicable_actions(task, state) if actions is None else actions
    out: list[str] = []
    for text in map(str, mirrored):
        name, args = strips.parse_atom_text(text)
        if name == "unstack":
            out.append(f"(pick-up {args[0]})")
        elif name == "pick-up":
            out += [f"(unstack {args[0]} {o})" for o in task.object_names if o != args[0]]
        elif name == "stack":
            out.append(f"(put-down {args[0]})")
        elif name == "put-down":
            out += [f"(stack {args[0]} {o})" for o in task.object_names if o != args[0]]
    return [c for c in dict.fromkeys(out)
            if c in task.action_index and not strips.is_applicable(state, task.action_index[c])]


def inapplicable_action(task: strips.Task, state: int, rng: random.Random, like=None,
                        confuse: bool = True) -> str | None:
    """A confusion of one of ``like`` (default: any applicable action; see `confusions`) if there
    is one and ``confuse``, else any grounded action not applicable in ``state``."""
    conf = confusions(task, state, like) if confuse else None
    if conf:
        return rng.choice(conf)
    rest = [str(a) for a in task.actions if not strips.is_applicable(state, a)]
    return rng.choice(rest) if rest else None


# ---------------------------------------------------------------------------------------------
# Labelled verification plans (see the module docstring)

KINDS = ("valid", "invalid-goal", "invalid-precondition")
MAX_TRIES = 200


class NoSuchPlan(ValueError):
    """No plan of the requested kind exists for this task (e.g. every walk ends in a goal state)."""


@dataclass(frozen=True, slots=True)
class VerificationPlan:
    kind: str  # one of KINDS
    plan: tuple[str, ...]  # PDDL action texts
    failed_step: int | None  # 1-based index of the first inapplicable step (invalid-precondition)
    failed_action: str | None
    unmet: tuple[str, ...]  # unmet preconditions (invalid-precondition) or unmet goal atoms (invalid-goal)
    reason: str  # one line, from strips.PlanResult.reason()
    how: str = ""  # how it was made: "optimal", "random-walk", "replace@i", "delete@i", "swap@i", "given"

    @property
    def valid(self) -> bool:
        return self.kind == "valid"


def classify_plan(task: strips.Task, plan, how: str = "given") -> VerificationPlan:
    """Execute ``plan`` (action texts or Actions) from the initial state and label the outcome."""
    texts = tuple(map(str, plan))
    r = strips.execute_plan(task, texts)
    if r.valid:
        kind = "valid"
        unmet: tuple[str, ...] = ()
    elif r.failed_step is not None:
        kind = "invalid-precondition"
        unmet = r.unmet_preconditions
    else:
        kind = "invalid-goal"
        unmet = r.unmet_goals
    return VerificationPlan(kind, texts, r.failed_step, r.failed_action, unmet, r.reason(), how)


def verification_plans(task: strips.Task, seed: int, optimal_plan=None, *, n_valid: int = 1,
                       n_goal: int = 1, n_precondition: int = 1) -> list[VerificationPlan]:
    """Labelled plans for ``task``: ``n_valid`` valid, ``n_goal`` invalid-goal and ``n_precondition``
    invalid-precondition ones, in that order. Same task and seed, same plans.

    ``optimal_plan`` (action texts) is computed with ``planners.optimal.optimal_plan`` if omitted.
    Raises ``NoSuchPlan`` when a kind cannot be produced (e.g. every state is a goal state).
    """
    if optimal_plan is None:
        from widthbench.planners.optimal import optimal_plan as solve

        optimal_plan = solve(task).plan
    opt = tuple(map(str, optimal_plan))
    rng = random.Random(seed)
    out = []
    for _ in range(n_valid):
        item = classify_plan(task, opt, "optimal")
        if not item.valid:
            raise ValueError(f"the given optimal plan is not valid: {item.reason}")
        out.append(item)
    for _ in range(n_goal):
        out.append(random_walk_plan(task, rng, len(opt)))
    for _ in range(n_precondition):
        out.append(precondition_violation_plan(task, rng, opt))
    return out


def random_walk_plan(task: strips.Task, rng: random.Random, optimal_length: int) -> VerificationPlan:
    """An executable random walk (no self-loop moves) of length in [max(1, L-2), L+2] that does not
    end in a goal state."""
    lo, hi = max(1, optimal_length - 2), optimal_length + 2
    for _ in range(MAX_TRIES):
        end, steps = random_walk(task, rng, rng.randint(lo, hi), avoid_goal=False, skip_noops=True)
        if steps and not strips.is_goal(task, end):
            item = classify_plan(task, steps, "random-walk")
            assert item.kind == "invalid-goal"
            return item
    raise NoSuchPlan(f"{task.problem_name}: no executable random walk avoiding the goal found "
                     f"in {MAX_TRIES} tries")


def precondition_violation_plan(task: strips.Task, rng: random.Random,
                                plan: tuple[str, ...]) -> VerificationPlan:
    """One mutation of ``plan`` (replace / delete / swap) that fails on an unmet precondition; a
    replacement is any action inapplicable at that point (`inapplicable_action`, no confusion)."""
    states = strips.execute_plan(task, plan).states
    for _ in range(MAX_TRIES):
        how = rng.choice(("replace", "delete", "swap")) if len(plan) >= 2 else "replace"
        if how == "replace":
            i = rng.randrange(len(plan) + 1) if not plan else rng.randrange(len(plan))
            s = states[i] if i < len(states) else states[-1]
            bad = inapplicable_action(task, s, rng, confuse=False)
            if bad is None:
                continue
            new = plan[:i] + (bad,) + plan[i + 1:]
        elif how == "delete":
            i = rng.randrange(len(plan))
            new = plan[:i] + plan[i + 1:]
        else:
            i = rng.randrange(len(plan) - 1)
            new = plan[:i] + (plan[i + 1], plan[i]) + plan[i + 2:]
        item = classify_plan(task, new, f"{how}@{i + 1}")
        if item.kind == "invalid-precondition":
            return item
    raise NoSuchPlan(f"{task.problem_name}: no precondition-violating mutation found in {MAX_TRIES} tries")


def wrong_state(task: strips.Task, state: int, rng) -> int:
    """A state differing from ``state`` by one fluent fact, dropped or added (a simulated model's
    wrong successor)."""
    have = [i for i in range(task.n_atoms) if state >> i & 1]
    lack = [i for i in range(task.n_atoms) if not state >> i & 1]
    if have and (not lack or rng.random() < 0.5):
        return state & ~(1 << rng.choice(have))
    return state | (1 << rng.choice(lack))
