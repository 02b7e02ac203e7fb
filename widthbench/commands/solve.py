"""`widthbench solve`: run an LLM tree search (or the naive baseline) on many instances."""

from __future__ import annotations

import argparse
import dataclasses
import sys

from widthbench.core.errors import UserError

HELP = ("solve instances with an LLM search (naive, tot-bfs, tot-dfs, mcts, cat) or in a closed loop "
        "(feedback, agent), with a token ledger")
DESCRIPTION = """Run one search configuration on generated Blocksworld/Logistics instances, an instance
folder, Game of 24 rows or a --tasks JSONL file. Required: where the problems come from, exactly one of
--domain NAME (blocksworld or logistics, generated; game24), --instances DIR (domain.pddl beside the
problems, or --domain FILE) or --tasks FILE. Writes RUN/items.jsonl (one line per instance, as it
finishes), RUN/summary.json (kind 'solve') and RUN/tokens.json; a rerun with the same --out resumes
(finished instances are skipped, repeated model calls come from the cache). Every plan counted as solved
is validated by the engine. See docs/searches.md."""


class MethodModules(argparse.Action):
    """--method-module FILE (repeatable): the registry of the built-in methods and these modules'
    (`searches.registry.MethodRegistry.from_modules`), kept for --method to check its names."""

    def __call__(self, parser, namespace, value, option_string=None):
        from widthbench.searches.registry import MethodRegistry

        paths = (*getattr(namespace, self.dest, ()), value)
        setattr(namespace, self.dest, paths)
        namespace.method_registry = MethodRegistry.from_modules(paths)


class MethodList(argparse.Action):
    """--method M[,M…]: names of the built-in methods, or of --method-module's given before it."""

    def __call__(self, parser, namespace, values, option_string=None):
        from widthbench.searches.grid import parse_list
        from widthbench.searches.registry import MethodRegistry

        methods = getattr(namespace, "method_registry", None) or MethodRegistry.default()
        try:
            setattr(namespace, self.dest, parse_list(",".join(values), "method", methods.names))
        except UserError as exc:
            raise argparse.ArgumentError(self, str(exc).removeprefix("--method ")) from None


def add_arguments(p: argparse.ArgumentParser) -> None:
    from widthbench.llm.cli_args import add_model_arguments
    from widthbench.searches.config import MAPPINGS, NOVELTY, SOURCES, STYLES, VERIFY
    from widthbench.searches.grid import list_type
    from widthbench.searches.registry import MethodRegistry

    methods = MethodRegistry.default()

    d = p.add_argument_group("search")
    # --method, --mapping, --novelty and --verify take comma-separated lists: their product (with
    # --thinking both) is a grid, one run per configuration in RUN/<varying values> (searches.grid)
    d.add_argument("--method-module", action=MethodModules, default=(), metavar="FILE",
                   help="a Python module defining METHODS = (SearchMethod(...),): more methods for --method, "
                   "given before it (repeatable; docs/searches.md, 'Adding a method')")
    def names(text: str) -> tuple[str, ...]:  # checked by MethodList, which knows --method-module's
        return tuple(dict.fromkeys(v.strip() for v in text.split(",") if v.strip()))

    names.allowed = methods.names
    d.add_argument("--method", default=("tot-dfs",), action=MethodList, type=names,
                   metavar="M[,M…]", help="search method(s): " + "; ".join(f"{m.name} ({m.help})" for m in methods)
                   + " (default tot-dfs; a list runs each; docs/searches.md)")
    p.set_defaults(method_registry=None)
    d.add_argument("--mapping", default=("direct",), type=list_type("mapping", MAPPINGS), metavar="M[,M…]",
                   help="direct: one prompt gives the next state; esa: action generation, then successor "
                   "mapping (a list runs each)")
    d.add_argument("--novelty", default=("off",), type=list_type("novelty", NOVELTY), metavar="N[,N…]",
                   help=f"{', '.join(NOVELTY)}: off, llm (the paper's yes/no question) or oracle (exact "
                   "novelty at the instance width); a list runs each")
    d.add_argument("--verify", default=("engine",), type=list_type("verify", VERIFY), metavar="V[,V…]",
                   help=f"goal check by the {' or the '.join(VERIFY)} (a list runs each)")
    d.add_argument("--actions", default="llm", choices=SOURCES,
                   help="who proposes actions or next states (engine: best-first applicable actions)")
    d.add_argument("--successors", default="llm", choices=SOURCES, help="who maps actions to successors (esa)")
    d.add_argument("--max-depth", type=int, default=8, help="depth limit (default 8, the paper)")
    d.add_argument("--branch-factor", type=int, default=2, help="proposals per expansion (default 2, the paper)")
    d.add_argument("--max-states", type=int, default=1000, help="budget of generated states per instance")
    d.add_argument("--style", default="nl", choices=STYLES, help="prompt style (STRIPS domains)")
    d.add_argument("--thinking", default="off", choices=("on", "off", "both"),
                   help="model thinking mode; 'both' runs the search twice, into RUN/thinking-off and "
                   "RUN/thinking-on (report them side by side with `widthbench report`)")
    d.add_argument("--reader", default="flexible", choices=("flexible", "strict"),
                   help="how the model's answers are read (default flexible: the answer inside a real "
                   "reply, never guessing; strict: the exact answer format; docs/subtasks.md)")
    d.add_argument("--no-prompt-extension", action="store_true",
                   help="leave out the paper's pick-up/unstack example from next-action, direct and naive prompts")
    d.add_argument("--novelty-width", type=int, default=None, metavar="K",
                   help="llm novelty: define novel as IW(K) does (default: the paper's undefined 'novel')")
    d.add_argument("--novelty-max-chars", type=int, default=48000,
                   help="llm novelty: summarise older states beyond this many characters (default 48000)")
    own = p.add_argument_group("closed loop (feedback, agent): each method's own settings")
    for setting in methods.own_settings().values():
        used = ", ".join(m.name for m in methods if m.setting(setting.name) is not None)
        own.add_argument(setting.flag, dest=f"method_{setting.name}", default=None, choices=setting.choices,
                         metavar=None if setting.choices else (setting.metavar or setting.name.upper()),
                         type=setting.type, help=f"{used}: {setting.help} (default {setting.default})")
    m = p.add_argument_group("mcts (ToolTree) and cat (Caterpillar of Thoughts)")
    m.add_argument("--rollouts", type=int, default=60, help="mcts rollout budget (default 60)")
    m.add_argument("--lambda", dest="lam", type=float, default=1.4, help="mcts exploration weight λ (default 1.4)")
    m.add_argument("--tau-pre", type=float, default=0.3, help="mcts pre-pruning threshold (default 0.3)")
    m.add_argument("--tau-post", type=float, default=0.4, help="mcts post-pruning threshold (default 0.4)")
    m.add_argument("--patience", type=int, default=10, help="mcts early stop after N rollouts without improvement")
    m.add_argument("--iterations", type=int, default=40, help="cat iteration budget (default 40)")
    m.add_argument("--cat-temperature", type=float, default=1.0,
                   help="cat softmax temperature T of the rewinds (default 1; before issue 32 this was "
                   "solve --temperature, which now sets the sampling temperature)")
    s = p.add_argument_group("instances (required: exactly one of --domain NAME, --instances DIR, --tasks FILE)")
    s.add_argument("--domain", default=None, metavar="NAME|FILE",
                   help="generate blocksworld/logistics instances or game24 puzzles; with --instances DIR, "
                   "a domain file for the folder's problems (any typed STRIPS domain, docs/domains.md)")
    s.add_argument("--instances", metavar="DIR", help="an instance folder (widthbench generate or any PDDL set)")
    s.add_argument("--tasks", metavar="FILE|DIR",
                   help="question/answer set: JSONL, JSON, or MATH's own files (problem, level, type, "
                   "solution with \\boxed{}; a folder of them); final answers judged by mathematical "
                   "equivalence (math-verify; docs/searches.md)")
    s.add_argument("--level", default=None, metavar="N|LO-HI",
                   help="--tasks: keep MATH problems of these levels (e.g. 5, 4-5)")
    s.add_argument("--rows", default=None, help="game24: puzzle ranks (default 901-1000)")
    s.add_argument("--count", type=int, default=None, help="number of instances (default: 20 generated, all others)")
    s.add_argument("--seed", type=int, default=0, help="seed: instances, sampling, MCTS ties, CaT rewinds")
    s.add_argument("--samples", type=int, default=1, metavar="N",
                   help="search each instance N times, each sample with its own seed (its requests never "
                   "share a cached reply); every sample is recorded with its index and the summary adds "
                   "pass@k, pass^k and maj@k over the samples (docs/compare.md; default 1)")
    s.add_argument("--max-plan-length", type=int, default=None, metavar="L", help="optimal plan length at most L")
    s.add_argument("--min-plan-length", type=int, default=None, metavar="L", help="optimal plan length at least L")
    s.add_argument("--blocks", default=None, metavar="N|LO-HI", help="blocksworld generator: blocks (default 4-5)")
    s.add_argument("--packages", default=None, metavar="N|LO-HI", help="logistics generator: packages")
    o = p.add_argument_group("output")
    o.add_argument("--out", required=True, metavar="RUN", help="run folder (created; reused to resume)")
    o.add_argument("--parallel", type=int, default=64,
                   help="instances searched at once by each worker (default 64; their model calls overlap)")
    o.add_argument("--quiet", action="store_true", help="no progress bar")
    add_model_arguments(p, concurrency=16)
    # ---- sampling as settings (issue 32): --temperature ... --max-tokens, per mode ----
    from widthbench.llm.cli_args import add_sampling_arguments

    add_sampling_arguments(p)
    # ---- end sampling ----
    # ---- prompts as settings (issue 32): --prompt-dir, --novelty-prompt ----
    from widthbench.commands.score import add_prompt_arguments

    add_prompt_arguments(p)
    # ---- end prompts ----
    from widthbench.planners.executor import add_executor_arguments

    add_executor_arguments(p, what="batches of instances")
    from widthbench.subtasks import obfuscation

    obfuscation.add_arguments(p)


def run(args) -> int:
    from widthbench.llm.cli_args import incomplete_exit, open_model_from_args
    from widthbench.searches.config import SearchConfig
    from widthbench.searches.grid import LIST_OPTIONS, depth_warning, describe, grid_configs, run_folders, write_grid
    from widthbench.searches.solve_run import load_problems, solve
    from widthbench.generators.domains import DomainRegistry

    domain_file = None
    if args.instances and args.domain:  # --domain FILE --instances DIR: the folder's domain file
        domain_file, args.domain = args.domain, None
    elif args.domain not in (None, *DomainRegistry.default().names, "game24"):
        raise UserError(f"--domain {args.domain!r}: give {', '.join(DomainRegistry.default().names)} or game24, or a domain "
                        "file together with --instances DIR")
    sources = [x for x in (args.tasks and "--tasks", args.instances and "--instances",
                           args.domain and "--domain") if x]
    if len(sources) != 1:
        raise UserError("give exactly one of --domain, --instances DIR or --tasks FILE")
    if args.count is not None and args.count < 1:
        raise UserError(f"--count must be at least 1, got {args.count}")
    from widthbench.llm.cli_args import check_cache_dir
    from widthbench.core.runfiles import check_output_dir

    check_output_dir(args.out, "--out")
    check_cache_dir(args)
    from widthbench.llm.types import mode_name, thinking_modes

    modes = thinking_modes(args.thinking)
    from widthbench.searches.registry import MethodRegistry

    methods = args.method_registry or MethodRegistry.default()  # with --method-module's methods
    lists = {name: tuple(getattr(args, name)) for name in LIST_OPTIONS}  # read by searches.grid.list_type
    _check_settings_apply(args, methods, lists["method"])
    base = SearchConfig(
        method=lists["method"][0], mapping=lists["mapping"][0], novelty=lists["novelty"][0],
        verify=lists["verify"][0], actions=args.actions, successors=args.successors, style=args.style,
        seed=args.seed, max_depth=args.max_depth,
        branch_factor=args.branch_factor, max_states=args.max_states, rollouts=args.rollouts,
        lam=args.lam, tau_pre=args.tau_pre, tau_post=args.tau_post, patience=args.patience,
        iterations=args.iterations, cat_temperature=args.cat_temperature,
        novelty_max_chars=args.novelty_max_chars, novelty_width=args.novelty_width,
        extension=not args.no_prompt_extension)
    # --max-tokens may differ per thinking mode (llm.cli_args: thinking=N,normal=M)
    configs = [_with_settings(dataclasses.replace(c, max_tokens=(args.max_tokens or {}).get(mode_name(c.thinking))),
                              args, methods) for c in grid_configs(base, lists, modes, methods)]
    gen = {}
    if args.blocks is not None:
        gen["blocks"] = args.blocks
    if args.packages is not None:
        gen["packages"] = args.packages
    if gen and args.domain not in DomainRegistry.default():
        raise UserError("--blocks/--packages apply to generated blocksworld/logistics instances only")
    source = {"domain": args.domain, "instances": args.instances, "tasks": args.tasks, "rows": args.rows,
              "count": args.count, "seed": args.seed, "max_plan_length": args.max_plan_length,
              "min_plan_length": args.min_plan_length, **gen}
    if args.level is not None:  # recorded only when given, so older runs still resume
        if not args.tasks:
            raise UserError("--level filters MATH problems of --tasks FILE")
        source["level"] = args.level
    source["reader"] = args.reader
    # ---- sampling as settings (issue 32): recorded only when given, so older runs resume ----
    from widthbench.llm.cli_args import sampling_from_args

    if sampling_from_args(args):
        source["sampling"] = sampling_from_args(args)
    # ---- end sampling ----
    # ---- prompts as settings (issue 32) ----
    from widthbench.commands.score import prompt_options
    from widthbench.subtasks import prompts as sub_prompts

    prompts = prompt_options(args)
    sub_prompts.check_simulated_can_read(args.model, prompts["prompt_dir"], prompts["novelty_prompt"],
                                         args.novelty == "llm")
    if any(prompts.values()):  # recorded only when set, so older runs resume; the digest: edits count
        source.update({k: v for k, v in prompts.items() if v})
        source["prompt_digest"] = sub_prompts.prompt_digest(prompts["prompt_dir"], prompts["novelty_prompt"])
    # ---- end prompts ----
    problems = load_problems(args.domain, count=args.count, seed=args.seed,
                             max_plan_length=args.max_plan_length, min_plan_length=args.min_plan_length,
                             instances=args.instances, domain_file=domain_file, rows=args.rows,
                             tasks=args.tasks, style=args.style,
                             extension=configs[0].extension, novelty_width=args.novelty_width,
                             generator_options=gen, reader=args.reader, level=args.level, **prompts)
    problems = _obfuscated(problems, args, source, configs[0].extension, domain_file)
    outs = run_folders(args.out, configs)
    warning = depth_warning(problems, max(c.max_depth for c in configs))
    if warning and any(methods.uses_hooks(c.method) for c in configs):
        print(warning, file=sys.stderr)
    if len(configs) > 1:
        write_grid(args.out, configs, outs)
        if not args.quiet:
            print(f"solve: {describe(configs)} on {len(problems)} instances, into {args.out}/", file=sys.stderr)
    from widthbench.simulated import simulator_for

    import functools

    from widthbench.llm.cli_args import model_options
    from widthbench.planners.executor import open_executor, spec_from_args
    from widthbench.commands.score import described_from_args

    spec = spec_from_args(args)
    domains = sub_prompts.run_domains(args.domain, args.instances, domain_file, None, None, **prompts)
    model = open_model_from_args(args, simulator=simulator_for(args.model, prompts["prompt_dir"], domains))
    factory = functools.partial(open_worker_model, args.model, model_options(args), prompts["prompt_dir"], domains)
    summaries = []
    try:
        with open_executor(spec) as executor:
            for config, out in zip(configs, outs):
                summaries.append(solve(config, problems, model, out, parallel=args.parallel, source=source,
                                       progress=False if args.quiet else None, executor=executor,
                                       model_factory=factory, described=described_from_args(args, spec),
                                       samples=args.samples, methods=methods))
    finally:
        model.close()
    failed = 0
    for summary, out in zip(summaries, outs):
        tag = " (simulated)" if summary["simulated"] else ""
        print(f"{summary['label']}: solved {summary['solved']}/{summary['n']}{tag}, mean tokens "
              f"{summary['mean_tokens']}, mean states {summary['mean_states']}, wall {summary['run_wall_time']} s "
              f"-> {out}")
        failed += len(failed_instances(out, summary))
    return incomplete_exit(failed, "instances met requests that failed after retries")


def _with_settings(config, args, methods):
    """``config`` with its method's own settings: as given, else the method's defaults (all of them
    in the run identity); a setting given for a method that has none is refused."""
    method = methods.get(config.method)
    values = {s.name: (getattr(args, f"method_{s.name}", None) if getattr(args, f"method_{s.name}", None) is not None
                       else s.default) for s in method.settings if not s.config_field}
    return config.with_settings(values).check(methods)


def _check_settings_apply(args, methods, chosen) -> None:
    for setting in methods.own_settings().values():
        if getattr(args, f"method_{setting.name}", None) is not None and not any(
                methods.get(m).setting(setting.name) for m in chosen):
            raise UserError(f"{setting.flag} applies to --method "
                            + " or ".join(m.name for m in methods if m.setting(setting.name)))


def open_worker_model(spec: str, options: dict, prompt_dir: str | None = None, domains=()):
    """The model of an executor's worker: the same spec and options (endpoints, cache) as here,
    and a simulator reading the run's prompt folder and domains."""
    from widthbench.llm.model import open_model
    from widthbench.simulated import simulator_for

    return open_model(spec, simulator=simulator_for(spec, prompt_dir, domains), **options)


def _failed(item: dict) -> bool:
    return bool((item.get("tokens_detail") or {}).get("errors"))


def _obfuscated(problems, args, source: dict, extension: bool, domain_file) -> list:
    """--obfuscate: the problems with renamed prompts and readers (the engine's tasks unchanged);
    ``source`` (the run's identity) gets ``obfuscate: {mode, seed}`` and the renaming beside it."""
    from widthbench.searches.strips_problem import StripsProblem
    from widthbench.subtasks import obfuscation

    ob = obfuscation.from_args(args)
    if not ob:
        return problems
    if not all(isinstance(p, StripsProblem) for p in problems):
        raise UserError("--obfuscate renames PDDL domains: it does not apply to game24 or --tasks")
    source.update(obfuscation.identity(ob, args.domain or "blocksworld", args.instances, domain_file))
    return [StripsProblem(p.instance, style=p.style, extension=extension, novelty_width=p.novelty_width,
                          reader=p.reader, obfuscation=ob) for p in problems]


def failed_instances(out, summary) -> list[str]:
    """Instances of this run whose search met a request that failed after its retries."""
    from widthbench.searches.solve_run import read_items

    wanted = set(summary.get("instances") or ()) or None
    return [it["id"] for it in read_items(out) if _failed(it) and (wanted is None or it["id"] in wanted)]
