"""`widthbench prompts export DIR`: the built-in prompt templates, to edit and pass as --prompt-dir."""

from __future__ import annotations

import argparse

HELP = "write the built-in prompt templates into a folder, to edit and pass as --prompt-dir"
DESCRIPTION = """`widthbench prompts export DIR` copies every built-in prompt file (the sub-task
templates *.toml, the domain contexts context.*.txt and extensions, the search templates search/*) into
DIR. Edit any of them and pass --prompt-dir DIR to score, solve or export: a file there replaces the
built-in file of the same name, a file you delete stays built-in. The run records a digest of the
templates in force. See docs/subtasks.md, "Prompts"."""
ACTIONS = ("export",)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("action", choices=ACTIONS, help="export: write the built-in templates")
    parser.add_argument("dir", metavar="DIR", help="the folder to write (created; existing prompt files are not overwritten)")


def run(args: argparse.Namespace) -> int:
    from widthbench.core.runfiles import check_output_dir
    from widthbench.subtasks.prompts import export_prompts, prompt_digest

    check_output_dir(args.dir, "DIR")
    written = export_prompts(args.dir)
    print(f"wrote {len(written)} prompt files into {args.dir} (digest {prompt_digest(args.dir)[:12]}); "
          f"edit them and pass --prompt-dir {args.dir}")
    return 0
