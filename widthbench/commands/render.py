"""`widthbench render PROBLEM`: print a problem's initial state and goal as PDDL or natural language."""

from __future__ import annotations

HELP = "print a problem's initial state and goal in PDDL or natural language"
DESCRIPTION = """Print the initial state (static facts included) and the goal of PROBLEM, rendered as
PDDL atoms or as natural-language sentences from the domain's template file (see docs/rendering.md)."""


def add_arguments(parser) -> None:
    parser.add_argument("problem", metavar="PROBLEM", help="PDDL problem file")
    parser.add_argument("--domain", metavar="D",
                        help="domain name (blocksworld, logistics) or domain file; default: domain.pddl next to PROBLEM")
    parser.add_argument("--style", choices=("nl", "pddl"), default="nl", help="output style (default: nl)")
    parser.add_argument("--templates", default="widthbench", metavar="SET|FILE",
                        help="natural-language template set (widthbench, planbench) or a template file "
                        "(.toml, see docs/domains.md); default widthbench; domains no file covers get "
                        "templates generated from their names")
    from widthbench.subtasks import obfuscation

    obfuscation.add_arguments(parser)


def run(args) -> int:
    from pathlib import Path

    from widthbench.core.errors import UserError
    from widthbench.pddl_domains.render import Renderer
    from widthbench.planners.strips import load_task
    from widthbench.core.runfiles import input_file

    problem = input_file(args.problem, "problem file")
    domain = args.domain
    if domain is None:
        candidate = problem.resolve().parent / "domain.pddl"
        if not candidate.is_file():
            raise UserError(f"no --domain given and no domain.pddl next to {problem}")
        domain = str(candidate)
    task = load_task(domain, problem)
    from widthbench.subtasks import obfuscation

    ob = obfuscation.from_args(args)
    if ob:
        import sys

        from widthbench.pddl_domains import obfuscate

        if args.templates != "widthbench":
            raise UserError("--obfuscate renders with templates generated from the new names: leave out --templates")
        task = obfuscate.attach_task(task, *ob)
        r = obfuscate.ObfuscatedRenderer(task, style=args.style)
        print(f"(names obfuscated: {ob[0]}, seed {ob[1]}; the renaming: "
              f"{obfuscate.renaming(task.domain, *ob).mapping()})", file=sys.stderr)
    else:
        r = Renderer(task, style=args.style, templates=args.templates)
    print("Initial state:")
    print(r.state(task.init))
    print()
    print("Goal:")
    print(r.goal())
    return 0
