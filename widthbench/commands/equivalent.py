"""`widthbench equivalent DOMAIN PROBLEM_A PROBLEM_B`: whether B states the same problem as A."""

from __future__ import annotations

HELP = ("whether PROBLEM_B states the same problem as PROBLEM_A: EQUIVALENT (exit 0), NOT EQUIVALENT and "
        "why (exit 1), UNKNOWN (exit 3)")
DESCRIPTION = HELP + """. Equivalent: some bijection of the objects that respects types maps A's initial
state onto B's and A's reachable goal states onto B's (docs/formalization.md). PROBLEM_A is the
reference: a fault in it, in DOMAIN or a path that cannot be read is bad input (one line, exit 2).
PROBLEM_B is the text being judged: a fault in it (a parse error, an unknown predicate, object or type,
a wrong arity, another domain) is a verdict, NOT EQUIVALENT with its class (exit 1); PDDL beyond the
engine's fragment in it is UNKNOWN (unsupported, exit 3). Past --max-states reachable states, what can
be decided soundly is; the rest is UNKNOWN (exit 3), never a guess."""

EXIT_EQUIVALENT, EXIT_NOT, EXIT_UNKNOWN = 0, 1, 3


def add_arguments(p) -> None:
    from widthbench.planners.equivalence import DEFAULT_MAX_STATES

    p.add_argument("domain", help="domain name (blocksworld, logistics) or path to a domain file")
    p.add_argument("problem_a", metavar="PROBLEM_A", help="the reference problem file")
    p.add_argument("problem_b", metavar="PROBLEM_B", help="the problem file to judge against it")
    p.add_argument("--max-states", type=int, default=DEFAULT_MAX_STATES, metavar="N",
                   help=f"reachable states enumerated per problem, at most (default {DEFAULT_MAX_STATES:,})")
    p.add_argument("--json", action="store_true", help="print the verdict as one JSON object instead")


def run(args) -> int:
    from pathlib import Path

    from widthbench.core.errors import UserError
    from widthbench.planners.equivalence import Equivalence, problem_equivalence, read_candidate
    from widthbench.planners.strips import load_domain, load_task

    if args.max_states < 1:
        raise UserError(f"--max-states must be at least 1, got {args.max_states}")
    domain = load_domain(args.domain)
    truth = load_task(domain, args.problem_a)
    path = Path(args.problem_b)
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise UserError(f"cannot read problem {path}: {exc.strerror}") from None
    candidate = read_candidate(domain, text, source=str(path))
    if isinstance(candidate, Equivalence):  # the candidate's fault, a verdict of its class
        verdict = candidate
    else:
        verdict = problem_equivalence(truth, candidate, max_states=args.max_states)
    return printed_verdict(verdict, args.json)


def printed_verdict(verdict, as_json: bool) -> int:
    """Print a verdict (`line()`, or one JSON object) and return its exit status (`equivalent` and
    `equivalent-domain`)."""
    import json

    print(json.dumps(verdict.to_json()) if as_json else verdict.line())
    if verdict.equivalent is None:
        return EXIT_UNKNOWN
    return EXIT_EQUIVALENT if verdict.equivalent else EXIT_NOT
