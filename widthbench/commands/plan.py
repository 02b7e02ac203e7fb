"""`widthbench plan DOMAIN PROBLEM [--planner auto|fd|exact]`: an optimal plan and its length."""

from __future__ import annotations

HELP = "print an optimal plan (one PDDL action per line) and its length as a '; ' comment"
DESCRIPTION = HELP + """. --planner exact: A* with LM-cut in pure Python; fd: Fast Downward
astar(lmcut()) through unified-planning; auto (default): exact search for small instances, FD beyond. No
plan or a timeout is an error (exit 2), never an empty plan."""


def add_arguments(p) -> None:
    from widthbench.planners.optimal import DEFAULT_TIMEOUT, PLANNERS

    p.add_argument("domain", help="domain name (blocksworld, logistics) or path to a domain file")
    p.add_argument("problem", help="problem file")
    p.add_argument("--planner", choices=PLANNERS, default="auto",
                   help="auto (default): exact search for small instances, Fast Downward beyond")
    p.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, metavar="SECONDS",
                   help=f"time limit of the planner call (default {DEFAULT_TIMEOUT:g})")


def run(args) -> int:
    from widthbench.planners.optimal import optimal_plan
    from widthbench.planners.strips import load_task

    task = load_task(args.domain, args.problem)
    result = optimal_plan(task, planner=args.planner, timeout=args.timeout)
    for step in result.plan:
        print(step)
    print(f"; length {result.length} (optimal, planner {result.planner})")
    return 0
