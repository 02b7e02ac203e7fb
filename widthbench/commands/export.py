"""`widthbench export lm-eval|inspect`: the sub-tasks as an lm-evaluation-harness or inspect_ai task
folder (docs/lm-eval.md, docs/inspect.md)."""

from __future__ import annotations

import argparse

HELP = "export sub-task items as an lm-evaluation-harness or inspect_ai task folder, scored by widthbench's readers"
DESCRIPTION = """Build the items exactly as `widthbench score` does (same options, seeds and ground
truth) and write an lm-eval task folder: the items as a local JSON-lines dataset with a dataset card,
one task per sub-task x style x thinking mode (widthbench_<domain>_<sub_task>_<style>_<think|nothink>),
a group per domain and widthbench_paper (the paper's Table 1), and a utils.py whose process_results
scores each reply with widthbench's strict and flexible readers. `widthbench score --items DIR` scores
the same frozen items. docs/lm-eval.md. inspect: the same frozen items and widthbench_tasks.py, one
inspect_ai task per sub-task x style x thinking mode under the same names, scored by the same readers
(inspect eval DIR); docs/inspect.md."""
FORMATS = ("lm-eval", "inspect")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from widthbench.commands.score import add_item_arguments

    parser.add_argument("format", choices=FORMATS, help="what to export (lm-eval: lm-evaluation-harness tasks; inspect: inspect_ai tasks)")
    add_item_arguments(parser, asking=False)  # score's item options: one declaration of each
    parser.add_argument("--out", required=True, metavar="DIR",
                        help="the task folder (created; a folder holding other items is refused)")
    parser.set_defaults(request_seeds=False, constrained=False, reader="flexible")


def run(args: argparse.Namespace) -> int:
    from widthbench.commands.score import config_from_args
    from widthbench.llm.cli_args import sampling_from_args
    from widthbench.core.runfiles import check_output_dir, removed_if_left_empty

    config = config_from_args(args)
    check_output_dir(args.out, "--out")
    if args.format == "inspect":
        return _inspect(config, args.out)
    from widthbench.subtasks.harness.lmeval import export_lmeval

    with removed_if_left_empty(args.out):
        done = export_lmeval(config, args.out, sampling=sampling_from_args(args))
    items = ", ".join(f"{s} {n}" for s, n in done.items.items())
    print(f"wrote {done.folder}: {len(done.tasks)} lm-eval tasks, groups {', '.join(done.groups)}; "
          f"items: {items} ({done.rows} rows)")
    print(f"run: lm_eval --model local-chat-completions --include_path {done.folder} --tasks "
          f"{done.groups[-1]} --apply_chat_template --model_args model=NAME,base_url=URL/chat/completions,"
          "tokenized_requests=False")
    return 0


def _inspect(config, out) -> int:
    from widthbench.core.runfiles import removed_if_left_empty
    from widthbench.subtasks.harness.inspect_export import export_inspect

    with removed_if_left_empty(out):
        done = export_inspect(config, out)
    items = ", ".join(f"{s} {n}" for s, n in done.items.items())
    print(f"wrote {done.folder}: {len(done.tasks)} inspect tasks in widthbench_tasks.py; items: {items} "
          f"({done.rows} rows)")
    print(f"run: inspect eval {done.folder} --model openai-api/vllm/NAME  (VLLM_BASE_URL=URL VLLM_API_KEY=EMPTY)")
    return 0
