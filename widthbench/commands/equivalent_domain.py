"""`widthbench equivalent-domain DOMAIN MODEL_DOMAIN PROBLEM...`: whether MODEL_DOMAIN induces the same
transition systems as DOMAIN on the problems."""

from __future__ import annotations

HELP = ("whether MODEL_DOMAIN induces the same transition systems as DOMAIN on the PROBLEMs: EQUIVALENT "
        "(exit 0), NOT EQUIVALENT with an instance and a differing transition (exit 1), UNKNOWN (exit 3)")
DESCRIPTION = HELP + """. Equivalent: on every problem, the state graph reachable from its initial state
under MODEL_DOMAIN is isomorphic to the one under DOMAIN, with the actions matched by one bijection
(names kept first, else searched, and reported) and goal states matched to goal states; the problems are
written for DOMAIN and stated in MODEL_DOMAIN through a bijection of the predicates
(docs/formalization.md). DOMAIN and the PROBLEMs are the reference: a fault in them or a path that
cannot be read is bad input (one line, exit 2). MODEL_DOMAIN is the text being judged: a fault in it is
a verdict, NOT EQUIVALENT with its class (exit 1); PDDL beyond the engine's fragment is UNKNOWN (exit
3), as is what --max-states and --max-checks leave undecided."""


def add_arguments(p) -> None:
    from widthbench.planners.domain_equivalence import DEFAULT_MAX_CHECKS, DEFAULT_MAX_STATES

    p.add_argument("domain", help="the true domain: a name (blocksworld, logistics) or a path to a domain file")
    p.add_argument("model_domain", metavar="MODEL_DOMAIN", help="the domain file to judge against it")
    p.add_argument("problems", metavar="PROBLEM", nargs="+", help="problem files of the true domain to judge on")
    p.add_argument("--max-states", type=int, default=DEFAULT_MAX_STATES, metavar="N",
                   help=f"paired states walked per problem, at most (default {DEFAULT_MAX_STATES:,})")
    p.add_argument("--max-checks", type=int, default=DEFAULT_MAX_CHECKS, metavar="N",
                   help=f"partial action matchings tried, at most (default {DEFAULT_MAX_CHECKS:,})")
    p.add_argument("--json", action="store_true", help="print the verdict as one JSON object instead")


def run(args) -> int:
    from pathlib import Path

    from widthbench.commands.equivalent import printed_verdict
    from widthbench.core.errors import UserError
    from widthbench.planners.domain_equivalence import domain_equivalence
    from widthbench.planners.strips import load_domain, load_task

    for flag, value in (("--max-states", args.max_states), ("--max-checks", args.max_checks)):
        if value < 1:
            raise UserError(f"{flag} must be at least 1, got {value}")
    domain = load_domain(args.domain)
    tasks = [load_task(domain, p) for p in args.problems]
    path = Path(args.model_domain)
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise UserError(f"cannot read domain {path}: {exc.strerror or exc}") from None
    verdict = domain_equivalence(domain, text, tasks, max_states=args.max_states, max_checks=args.max_checks)
    return printed_verdict(verdict, args.json)
