"""Fast Downward through unified-planning: optimal plans and plan validation by a second,
independent implementation.

Optimal planning uses up-fast-downward's ``fast-downward-opt`` engine (``astar(lmcut())``) with
the ``MinimizeSequentialPlanLength`` quality metric, so a solved result reads SOLVED_OPTIMALLY;
anything else is an error, never an empty plan.

Isolation: Fast Downward's driver writes its translator output (``output.sas``) into the current
working directory, so two concurrent calls in one directory overwrite each other's task. Each call
here runs in its own temporary directory: unified-planning already puts the domain, problem and
plan files in a fresh ``TemporaryDirectory``; our engine subclass points ``--sas-file`` into that
same directory, so nothing is written to the process's working directory and concurrent calls
(threads or processes) never collide.

The UP problem is built by ``unified_planning.io.PDDLReader`` from the (lower-cased) domain text and
a problem text written from our ``Task`` and a state (fluent atoms of the state + static atoms),
so FD sees exactly the lifted task the user gave, with an arbitrary initial state.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from functools import lru_cache

from widthbench.planners.planning_errors import PlanningError, PlanningTimeout, Unsolvable
from widthbench.planners.problem_writer import task_problem_text
from widthbench.planners.strips import Task

MEMORY_LIMIT = "4G"  # Fast Downward's --overall-memory-limit per call


class FDError(RuntimeError):
    """Fast Downward failed in a way that is not a property of the task (crash, bad output)."""


def problem_pddl(task: Task, state: int | None = None) -> str:
    """The task as PDDL problem text, with ``state`` (default: the initial state) as its init
    (`planners.problem_writer.task_problem_text`)."""
    try:
        return task_problem_text(task, state)
    except ValueError as exc:
        raise FDError(str(exc)) from None


def up_problem(task: Task, state: int | None = None):
    """A unified-planning ``Problem`` for ``task`` from ``state``, with the plan-length metric."""
    import unified_planning.model.metrics as metrics
    from unified_planning.io import PDDLReader

    _quiet()
    from unified_planning.environment import get_environment

    # PDDL lets an action and a predicate share a name (ACPBench floor-tile's "down"); UP refuses
    # that unless this flag of its environment is off.
    get_environment().error_used_name = False
    import warnings

    with warnings.catch_warnings():  # ... and still warns "Name up already defined!" for each
        warnings.filterwarnings("ignore", message="Name .* already defined", category=UserWarning)
        problem = PDDLReader().parse_problem_string(task.domain.text, problem_pddl(task, state))
    problem.add_quality_metric(metrics.MinimizeSequentialPlanLength())
    return problem


def fd_optimal_plan(task: Task, state: int | None = None, timeout: float = 300.0) -> tuple[str, ...]:
    """An optimal plan (PDDL action texts) by Fast Downward ``astar(lmcut())``.

    (FD's ``bound=`` option is deliberately not offered: it prunes on g only, not on f, so proving
    "no plan within the bound" exhausts every state within that depth -- 120 s+ where the full
    optimal search takes 0.5 s on a PlanBench Logistics task. Note also that up-fast-downward's
    optimal engine appends an artificial goal action, of cost 1 under the plan-length metric, that it
    strips from the returned plan: FD's own plan cost is the plan length + 1.)

    Raises ``Unsolvable`` / ``PlanningTimeout`` (``planners.planning_errors``) for a proven-unsolvable
    task or a timeout, ``PlanningError`` when FD runs out of memory, ``FDError`` otherwise.
    """
    from unified_planning.engines import PlanGenerationResultStatus as Status

    problem = up_problem(task, state)
    engine = _engine_class()("astar(lmcut())")
    try:
        result = engine.solve(problem, timeout=timeout)
    finally:
        engine.destroy()
    status = result.status
    name = task.problem_name
    if status == Status.SOLVED_OPTIMALLY:
        if result.plan is None:
            raise FDError(f"Fast Downward reported SOLVED_OPTIMALLY for {name} without a plan")
        return tuple(_action_text(a) for a in result.plan.actions)
    if status == Status.TIMEOUT:
        raise PlanningTimeout(f"Fast Downward timed out after {timeout:g} s on {name}")
    if status == Status.UNSOLVABLE_PROVEN:
        raise Unsolvable(f"{name}: no plan exists (proved by Fast Downward)")
    if status == Status.MEMOUT:
        raise PlanningError(f"Fast Downward ran out of memory ({MEMORY_LIMIT}) on {name}")
    log = " | ".join(m.message.strip()[-300:] for m in result.log_messages or () if m.message.strip())
    raise FDError(f"Fast Downward returned {status.name} on {name}: {log[-600:]}")


def _action_text(ai) -> str:
    return "(" + " ".join([ai.action.name] + [str(p) for p in ai.actual_parameters]) + ")"


def _quiet() -> None:
    from unified_planning.shortcuts import get_environment

    get_environment().credits_stream = None


@lru_cache(maxsize=1)
def _engine_class():
    """``fast-downward-opt`` with all of FD's files in the per-call temporary directory."""
    from up_fast_downward.fast_downward import FastDownwardOptimalPDDLPlanner

    class IsolatedFastDownwardOpt(FastDownwardOptimalPDDLPlanner):
        def __init__(self, search: str = "astar(lmcut())"):
            super().__init__(log_level="info")
            self._fd_search_config = search  # an A* with an admissible heuristic only

        def _get_cmd(self, domain_filename: str, problem_filename: str, plan_filename: str):
            cmd = super()._get_cmd(domain_filename, problem_filename, plan_filename)
            i = cmd.index("--plan-file") + 2
            sas = os.path.join(os.path.dirname(plan_filename), "output.sas")
            return cmd[:i] + ["--sas-file", sas, "--overall-memory-limit", MEMORY_LIMIT] + cmd[i:]

    return IsolatedFastDownwardOpt


# --------------------------------------------------------------------------------------------
# Validation by unified-planning's sequential_plan_validator (a cross-check of our engine)


@dataclass(frozen=True, slots=True)
class UPVerdict:
    """unified-planning's verdict on a plan, in our vocabulary (atoms as ``"(on a b)"`` texts)."""

    kind: str  # "valid" | "invalid-precondition" | "invalid-goal" | "invalid-action" | "unparsable"
    failed_step: int | None  # 1-based, for invalid-precondition / invalid-action
    unmet: frozenset[str] | None  # unmet preconditions (None when UP does not list them)
    last_state: frozenset[str]  # true fluent atoms of the last state UP reached
    message: str

    @property
    def valid(self) -> bool:
        return self.kind == "valid"


def up_validate(task: Task, plan, problem=None) -> UPVerdict:
    """Validate a plan (PDDL action texts) with unified-planning's ``sequential_plan_validator``.

    ``kind`` "invalid-action" is UP's "creates an Invalid Action": the step's static preconditions
    are false (e.g. an ill-typed object under Logistics' type predicates), so UP's grounder drops the
    action and names no precondition. ``problem`` (from ``up_problem(task)``) may be passed to
    validate many plans of one task without re-parsing (parsing costs ~0.1-0.3 s, validating ~15 ms).
    """
    from unified_planning.engines.results import ValidationResultStatus
    from unified_planning.shortcuts import PlanValidator

    _quiet()
    if problem is None:
        problem = up_problem(task)
    try:
        up_plan = _parse_plan(problem, plan)
    except Exception as exc:  # UP raises several types for unknown names
        return UPVerdict("unparsable", None, None, frozenset(), f"plan does not parse: {exc}")
    with PlanValidator(name="sequential_plan_validator") as validator:
        res = validator.validate(problem, up_plan)
    message = "; ".join(m.message for m in res.log_messages or ())
    last = _true_atoms(problem, res.trace[-1]) if res.trace else frozenset()
    if res.status == ValidationResultStatus.VALID:
        return UPVerdict("valid", None, None, last, "")
    reason = str(res.reason)
    if "UNSATISFIED_GOALS" in reason:
        return UPVerdict("invalid-goal", None, None, last, message)
    m = re.search(r"Preconditions \[(.*)\] of (\d+)-th action instance", message)
    if m:
        return UPVerdict("invalid-precondition", int(m.group(2)), up_atoms(m.group(1)), last, message)
    m = re.search(r"^(\d+)-th action instance .* creates an Invalid Action", message)
    if m:
        return UPVerdict("invalid-action", int(m.group(1)), None, last, message)
    raise FDError(f"unexpected validator result {reason}: {message}")


_UP_ATOM = re.compile(r"([\w-]+)(?:\(([^()]*)\))?")


def up_atoms(text: str) -> frozenset[str]:
    """``"[clear(b), handempty]"``-style UP text -> ``{"(clear b)", "(handempty)"}``."""
    out = set()
    for m in _UP_ATOM.finditer(text):
        if m.group(1) in ("and", "not"):
            continue
        args = [a.strip() for a in (m.group(2) or "").split(",") if a.strip()]
        out.add("(" + " ".join([m.group(1)] + args) + ")")
    return frozenset(out)


def _true_atoms(problem, state) -> frozenset[str]:
    out = set()
    for fluent_exp in problem.initial_values:
        if state.get_value(fluent_exp).bool_constant_value():
            out |= up_atoms(str(fluent_exp))
    return frozenset(out)


def _parse_plan(problem, plan):
    from unified_planning.plans import ActionInstance, SequentialPlan

    steps = []
    for text in plan:
        toks = text.strip().strip("()").split()
        action = problem.action(toks[0])
        params = [problem.object(o) for o in toks[1:]]
        steps.append(ActionInstance(action, params))
    return SequentialPlan(steps)
