"""Replanning after a change (`solve --perturb STEP`): a seeded exogenous action.

After the model's STEP-th action the world changes by itself: one action of the domain that the
model did not take, applicable in the state reached, that changes it, and after which the goal is
still reachable (h* finite: an instance stays solvable), drawn with a generator seeded by the run's
seed and the instance. The closed-loop methods (`feedback`, `agent`) tell the model the new state
and score success from it.
"""

from __future__ import annotations

import math
import random

from widthbench.core.errors import UserError
from widthbench.planners import strips
from widthbench.searches.registry import Setting


def exogenous_action(problem, state: int, taken, seed: int) -> strips.Action | None:
    """The change after the model's actions ``taken`` (PDDL texts) in ``state``; None when no
    action qualifies."""
    done = {str(a) for a in taken}
    candidates = [a for a in strips.applicable_actions(problem.task, state)
                  if str(a) not in done and strips.successor(state, a) != state
                  and problem.truth.h_star(strips.successor(state, a)) != math.inf]
    if not candidates:
        return None
    return random.Random(f"{seed}/{problem.id}/perturb").choice(candidates)


def told(problem, action: strips.Action) -> str:
    """What the model is told of the change, in the run's style."""
    return f"Meanwhile the world changed by itself: {problem.r.action(action)} happened."


#: The --perturb setting of the closed-loop methods (feedback, agent).
PERTURB = Setting("perturb", 0, "a seeded exogenous change after the model's STEP-th action (0: none); "
                  "the model is told the new state, success is scored after the change", type=int, metavar="STEP")


def engine_check(method: str, attribute: str):
    """A method's ``check``: every problem is a PDDL problem with an engine (it has ``attribute``),
    not a Game of 24 or a --tasks question."""
    def check(config, problems) -> None:
        if problems and not all(hasattr(p, attribute) for p in problems):
            raise UserError(f"--method {method} needs PDDL problems with an engine (not game24 or --tasks)")
    return check
