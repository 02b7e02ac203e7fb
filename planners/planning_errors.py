"""Why an optimal planner gave no plan: the errors every planner here raises (``planners.fd``,
``planners.fd_search``, ``planners.optimal``, ``planners.ground_truth``), in a module of their own so that
the planners import them from below and never from each other.

``Unsolvable`` and ``PlanningTimeout`` are ``PlanningError``s, subclasses of ``UserError`` (the
user's instance or time budget); ``PlannerFailure`` is a bug or a broken installation.
"""

from __future__ import annotations

from widthbench.core.errors import UserError


class PlanningError(UserError):
    """No optimal plan could be produced for the user's task within the user's limits."""


class Unsolvable(PlanningError):
    """The task has no plan (proved by exhausting the search space)."""


class PlanningTimeout(PlanningError):
    """The planner did not finish within the time limit."""


class PlannerFailure(RuntimeError):
    """The planner itself failed (crash, unexpected status, a plan that does not validate)."""
