"""The one writer of PDDL problem text (the inverse of `planners.problem_reader`).

`problem_text` lays a problem out as PlanBench's files do: one atom per line, the goal as an
``and``. The generators write their instance files with it; `task_problem_text` writes a grounded
task back (from any state), which is how Fast Downward (`planners.fd`) is handed our task. Both
readers (ours and the `pddl` package) read the output back to the same task; tests/planners/
test_problem_writer.py pins that.
"""

from __future__ import annotations

from widthbench.planners.strips import Task, state_atoms


def problem_text(name: str, domain_name: str, objects, init, goal) -> str:
    """A problem file: ``objects`` are names (or ``"name - type"`` texts), ``init`` and ``goal``
    atom texts (goal literals may be ``"(not (p x))"``); ``goal`` None leaves the goal out (the
    problem a formalize-goal prompt gives)."""
    lines = [f"(define (problem {name})", f"  (:domain {domain_name})",
             "  (:objects " + " ".join(objects) + ")", "  (:init"]
    lines += [f"    {a}" for a in init]
    if goal is None:
        return "\n".join(lines + ["  )", ")"]) + "\n"
    lines += ["  )", "  (:goal", "    (and"]
    lines += [f"      {a}" for a in goal]
    lines += ["    )", "  )", ")"]
    return "\n".join(lines) + "\n"


def task_problem_text(task: Task, state: int | None = None, with_goal: bool = True) -> str:
    """The task as a problem file with ``state`` (default: the initial state) as its init: the
    state's fluent atoms plus the static atoms, the objects that are not domain constants (typed if
    the domain uses types), the positive and negative goal atoms.

    ``with_goal`` False leaves the goal out. Raises ValueError for a goal on a false static atom
    (grounding folded it away: no atom to write).
    """
    s = task.init if state is None else state
    if task.goal >> task.n_atoms:
        raise ValueError("task has an unsatisfiable static goal; it cannot be written back as PDDL")
    constants = {c for c, _ in task.domain.constants}
    typed = "typing" in task.domain.requirements
    objects = [f"{n} - {t}" if typed else n for n, t in task.objects if n not in constants]
    init = state_atoms(task, s) + list(task.static_atoms)
    goal = state_atoms(task, task.goal) + [f"(not {a})" for a in state_atoms(task, task.goal_neg)]
    return problem_text(task.problem_name or "p", task.domain.name, objects, init, goal if with_goal else None)


def with_goal(problem: str, goal: str) -> str:
    """A problem file written without its goal (``task_problem_text(..., with_goal=False)``) with the
    ``(:goal ...)`` form ``goal`` put in before its last parenthesis."""
    body = problem.rstrip()
    if not body.endswith(")"):
        raise ValueError("a problem file ends with ')'")
    return body[:-1].rstrip() + "\n  " + goal.strip() + "\n)\n"
