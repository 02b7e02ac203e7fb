"""`widthbench validate DOMAIN PROBLEM PLAN`: VALID (exit 0) or INVALID and why (exit 1)."""

from __future__ import annotations

from widthbench.core.errors import UserError

HELP = "check a plan: VALID (exit 0), INVALID with the first failing step or unmet goals (exit 1)"
DESCRIPTION = HELP + """. Plans are PDDL actions in any case, one or more per line ('(a x) (b y)'); ';'
starts a comment; a leading step number ('1.', '0:', 'step 1:') is dropped. A step that names no ground
action of the task (an object of the wrong type, (stack a a)) is an inapplicable step: INVALID, exit 1.
Malformed inputs (unknown action or object, wrong arity, not an action) give a one-line error and exit
2, wherever in the plan they stand: every step is read before the plan is executed. An empty plan file
(or /dev/null) is the empty plan, said so: VALID only when the initial state satisfies the goal."""


def add_arguments(p) -> None:
    p.add_argument("domain", help="domain name (blocksworld, logistics) or path to a domain file")
    p.add_argument("problem", help="problem file")
    p.add_argument("plan", help="plan file ('-' reads standard input)")


def run(args) -> int:
    import sys

    from widthbench.planners.strips import execute_plan, load_task, parse_action, read_plan
    from widthbench.core.runfiles import input_file

    task = load_task(args.domain, args.problem)
    if args.plan == "-":
        text, source = sys.stdin.read(), "<stdin>"
    else:
        path = input_file(args.plan, "plan file")
        try:
            text, source = path.read_text(encoding="utf-8", errors="replace"), str(path)
        except OSError as exc:
            raise UserError(f"cannot read plan {path}: {exc.strerror}") from None
    steps = read_plan(text, source)
    # Read every step first, so that an action or object the task does not have is bad input (exit 2)
    # wherever it stands, also after a step that is not applicable.
    actions = []
    for n, step in enumerate(steps, start=1):
        try:
            actions.append(parse_action(task, step))
        except UserError as exc:
            raise UserError(f"{source}: step {n}: {exc}") from None
    result = execute_plan(task, actions)
    # an empty file (or /dev/null) is the empty plan: valid only where the initial state is a goal state
    empty = "" if steps else f"the plan is empty ({source} has no steps); "
    if result.valid:
        print(f"VALID ({len(steps)} steps{': the plan is empty' if not steps else ''})")
        return 0
    print(f"INVALID: {empty}{result.reason()}")
    return 1
