"""The `widthbench` console command.

Library first, CLI thin: each subcommand lives in `widthbench/commands/<name>.py` and defines
`HELP` (one line), `add_arguments(parser)` and `run(args) -> int`. Command modules import heavy
libraries inside `run`, so `widthbench --help` stays fast.

User mistakes raise `UserError`; they are caught here once and printed as one line on stderr (at
most `errors.MAX_LINE` characters: `errors.one_line`) with exit code 2. Workers that went away
under a run (`planners.executor.ClusterLost`) are one line too, exit 3: the rerun resumes. Anything
else is a bug and raises.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from widthbench.argtypes import type_input_paths
from widthbench.core.errors import MAX_LINE, UserError, one_line
from widthbench.planners.executor import LOST_EXIT, ClusterLost

# Subcommand name -> module under widthbench.commands (module names use underscores).
COMMANDS = [
    "demo",
    "generate",
    "render",
    "validate",
    "equivalent",
    "equivalent-domain",
    "plan",
    "widths",
    "chat",
    "sim-server",
    "score",
    "report",
    "compare",
    "solve",
    "rescore",
    "traces",
    "export",
    "prompts",
]


def _module(name: str):
    return importlib.import_module("widthbench.commands." + name.replace("-", "_"))


class Parser(argparse.ArgumentParser):
    """argparse with one-line errors: a bad option value is ``widthbench solve: error: argument
    --method: invalid choice: 'bogus' (choose from ...)`` and exit 2, without the usage block (the
    usage is `widthbench solve --help`), cut to `MAX_LINE` characters like every error line.
    Subcommand parsers are of this class too."""

    def error(self, message: str):
        head, tail = f"{self.prog}: error: ", f" (see {self.prog} --help)"
        self.exit(2, head + one_line(message, MAX_LINE - len(head) - len(tail)) + tail + "\n")


def build_parser(available: list[str] | None = None) -> argparse.ArgumentParser:
    parser = Parser(
        prog="widthbench",
        description="LLM planning sub-tasks, widths and tree searches against exact classical-planning ground truth.",
    )
    from widthbench import __version__

    parser.add_argument("--version", action="version", version=f"widthbench {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in available if available is not None else COMMANDS:
        mod = _module(name)
        p = sub.add_parser(name, help=mod.HELP, description=getattr(mod, "DESCRIPTION", mod.HELP))
        mod.add_arguments(p)
        type_input_paths(name, p)
        p.set_defaults(_run=mod.run)
    return parser




def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # a one-line argparse error (2) is returned; --help, --version exit
        if exc.code in (0, None):
            raise
        return int(exc.code)
    if not getattr(args, "_run", None):
        parser.print_help()
        return 2
    try:
        code = args._run(args)
    except UserError as exc:
        print(one_line(f"widthbench {args.command}: error: {exc}"), file=sys.stderr)
        return 2
    except ClusterLost as exc:
        print(one_line(f"widthbench {args.command}: {exc} (exit {LOST_EXIT}: incomplete run)"), file=sys.stderr)
        return LOST_EXIT
    except KeyboardInterrupt:
        print(f"widthbench {args.command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    return int(code or 0)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
