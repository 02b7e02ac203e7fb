"""Plan-verification ground truth: labelled valid and invalid plans, seeded and reproducible.

Three kinds (the verdict classes of PlanBench's task 3 plus the seed 000 kind):

- ``"valid"``: an optimal plan (executable, reaches the goal).
- ``"invalid-goal"``: an executable random walk whose final state does not satisfy the goal (the
  kind seed 000 used). Its length is drawn from [max(1, L-2), L+2] around the optimal length L so
  that length alone does not give the verdict away; each step is drawn uniformly from the applicable
  actions whose successor differs from the state (no self-loop moves).
- ``"invalid-precondition"``: a plan with an inapplicable step (PlanBench's other kind), made by
  one mutation of the optimal plan: ``"replace"`` a step by an action inapplicable at that point,
  ``"delete"`` a step, or ``"swap"`` two adjacent steps; a mutation is kept only if execution then
  stops at an unmet precondition. Steps after the first failing one are kept (a verifier must stop
  at the first failure, as VAL and PlanBench do).

Each item stores the first failing step (1-based), the failing action, the unmet preconditions or
unmet goal atoms, and the engine's one-line reason (``strips.PlanResult.reason``).
``classify_plan`` labels any plan the same way (for scoring a model's own plans or PlanBench's).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from widthbench.planners.strips import (Action, Task, applicable_actions, execute_plan, is_applicable,
                                        is_goal, successor)

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


def classify_plan(task: Task, plan, how: str = "given") -> VerificationPlan:
    """Execute ``plan`` (action texts or Actions) from the initial state and label the outcome."""
    texts = tuple(str(a) if isinstance(a, Action) else a for a in plan)
    r = execute_plan(task, texts)
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


def verification_plans(task: Task, seed: int, optimal_plan=None, *, n_valid: int = 1, n_goal: int = 1,
                       n_precondition: int = 1) -> list[VerificationPlan]:
    """Labelled plans for ``task``: ``n_valid`` valid, ``n_goal`` invalid-goal and ``n_precondition``
    invalid-precondition ones, in that order. Same task and seed, same plans.

    ``optimal_plan`` (action texts) is computed with ``planners.optimal.optimal_plan`` if omitted.
    Raises ``NoSuchPlan`` when a kind cannot be produced (e.g. every state is a goal state).
    """
    if optimal_plan is None:
        from widthbench.planners.optimal import optimal_plan as solve

        optimal_plan = solve(task).plan
    opt = tuple(str(a) if isinstance(a, Action) else a for a in optimal_plan)
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


def random_walk_plan(task: Task, rng: random.Random, optimal_length: int) -> VerificationPlan:
    """An executable random walk of length in [max(1, L-2), L+2] that does not end in a goal state."""
    lo, hi = max(1, optimal_length - 2), optimal_length + 2
    for _ in range(MAX_TRIES):
        k = rng.randint(lo, hi)
        s = task.init
        steps: list[Action] = []
        for _ in range(k):
            moves = [a for a in applicable_actions(task, s) if successor(s, a) != s]
            if not moves:
                break
            a = rng.choice(moves)
            steps.append(a)
            s = successor(s, a)
        if steps and not is_goal(task, s):
            item = classify_plan(task, steps, "random-walk")
            assert item.kind == "invalid-goal"
            return item
    raise NoSuchPlan(f"{task.problem_name}: no executable random walk avoiding the goal found "
                     f"in {MAX_TRIES} tries")


def precondition_violation_plan(task: Task, rng: random.Random, plan: tuple[str, ...]) -> VerificationPlan:
    """One mutation of ``plan`` (replace / delete / swap) that fails on an unmet precondition."""
    states = execute_plan(task, plan).states
    for _ in range(MAX_TRIES):
        how = rng.choice(("replace", "delete", "swap")) if len(plan) >= 2 else "replace"
        if how == "replace":
            i = rng.randrange(len(plan) + 1) if not plan else rng.randrange(len(plan))
            s = states[i] if i < len(states) else states[-1]
            bad = [a for a in task.actions if not is_applicable(s, a)]
            if not bad:
                continue
            new = plan[:i] + (str(rng.choice(bad)),) + plan[i + 1:]
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
