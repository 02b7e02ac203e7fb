"""`widthbench generate`: write a seeded set of instances of a built-in domain to a folder (the domains,
their generators and their options come from the domain registry, `widthbench.generators.domains`)."""

from __future__ import annotations

import argparse
import sys

from widthbench.core.errors import UserError

HELP = "generate a seeded set of instances of a built-in domain (domain, problems, manifest)"
DESCRIPTION = """Write DIR/domain.pddl, DIR/instance-NNNN.pddl and DIR/manifest.jsonl. Same arguments
and seed give byte-identical files. Numbers may be ranges such as 4-6 (drawn uniformly per instance).
Optimal plans are computed by default (--no-optimal skips them unless a plan-length filter needs them).
--width K and --plan-length LO-HI keep only instances of that effective width / optimal length, to build
sets that span difficulty on purpose."""

OBFUSCATED = "obfuscated"  # --obfuscate: the renamed domain, problems and mapping.json


def add_arguments(p: argparse.ArgumentParser) -> None:
    from widthbench.generators.domains import DomainRegistry

    domains = DomainRegistry.default()
    p.add_argument("domain", choices=domains.names, help="which generator")
    p.add_argument("--count", type=int, required=True, help="number of distinct instances")
    p.add_argument("--seed", type=int, required=True, help="random seed (the set is a function of it)")
    p.add_argument("--out", required=True, metavar="DIR", help="output folder (created if missing)")
    p.add_argument("--force", action="store_true",
                   help="write into a folder that already holds an instance set (its old set files are removed)")
    groups = {}
    for option, names in domains.options():  # an option two domains take is one flag
        group = groups.get(names) or groups.setdefault(names, p.add_argument_group(", ".join(names)))
        group.add_argument(option.flag, dest=option.name, metavar=option.metavar, help=option.help)
    opt = p.add_argument_group("optimal plans")
    opt.add_argument("--min-plan-length", type=int, metavar="N", help="keep instances with optimal length >= N")
    opt.add_argument("--max-plan-length", type=int, metavar="N", help="keep instances with optimal length <= N")
    opt.add_argument("--plan-length", metavar="N|LO-HI",
                     help="keep instances whose optimal plan length is N or in LO-HI (e.g. 8-12)")
    p.add_argument("--width", type=int, metavar="K",
                   help="keep instances of effective width K: the smallest k for which IW(k) reaches the "
                   "goal, as `widthbench widths` computes it")
    g = opt.add_mutually_exclusive_group()
    g.add_argument("--optimal", dest="optimal", action="store_true", default=True,
                   help="compute an optimal plan per instance (default)")
    g.add_argument("--no-optimal", dest="optimal", action="store_false", help="skip optimal plans (faster)")
    opt.add_argument("--planner", default="auto", choices=("auto", "bfs", "exact", "fd"),
                     help="auto: breadth-first search, then A*/LM-cut or Fast Downward for large tasks")
    opt.add_argument("--timeout", type=float, default=300.0, metavar="SEC", help="per optimal-plan call")
    p.add_argument("--unsolvable", action="store_true",
                   help="draw instances whose goal cannot be reached (each goal atom reachable, not all at once), "
                   "each certified by exhaustive search of the reachable states; the manifest records "
                   "\"solvable\": false and the certificate (method, states explored)")
    from widthbench.subtasks import obfuscation

    obfuscation.add_arguments(p)
    p.add_argument("--max-failed-draws", type=int, default=2000, metavar="N",
                   help="give up after N consecutive rejected draws (duplicates, trivial goals, filtered)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")


def run(args) -> int:
    from pathlib import Path

    from widthbench.generators import generate, write_instance_set

    from widthbench.generators.domains import DomainRegistry

    domains = DomainRegistry.default()
    own = domains.get(args.domain).option_names
    wrong = [o.flag for o, _ in domains.options() if o.name not in own and getattr(args, o.name) is not None]
    if wrong:
        raise UserError(f"{wrong[0]} does not apply to {args.domain}")
    options = {o: getattr(args, o) for o in own if getattr(args, o) is not None}
    if args.timeout <= 0:
        raise UserError(f"--timeout must be positive, got {args.timeout}")
    lo, hi = args.min_plan_length, args.max_plan_length
    if args.plan_length is not None:
        if lo is not None or hi is not None:
            raise UserError("--plan-length replaces --min-plan-length/--max-plan-length: give one or the other")
        from widthbench.generators.common import int_range

        r = int_range(args.plan_length, "--plan-length", minimum=1)
        lo, hi = r.lo, r.hi
    out = Path(args.out)
    _check_out(out, args.force)
    from widthbench.subtasks import obfuscation

    ob = obfuscation.from_args(args)

    from tqdm import tqdm

    show = not args.quiet and sys.stderr.isatty()
    with tqdm(total=args.count, desc=f"generate {args.domain}", unit="inst", file=sys.stderr,
              disable=not show) as bar:
        if args.unsolvable:
            instances = generate(args.domain, args.count, args.seed, unsolvable=True, min_plan_length=lo,
                                 max_plan_length=hi, width=args.width, max_failed_draws=args.max_failed_draws,
                                 progress=bar.update, **options)
        else:
            instances = generate(
                args.domain, args.count, args.seed, min_plan_length=lo, max_plan_length=hi, width=args.width,
                optimal=args.optimal, planner=args.planner,
                timeout=args.timeout, max_failed_draws=args.max_failed_draws, progress=bar.update, **options)
    if args.force:
        _remove_old_set(out)
    write_instance_set(out, args.domain, instances)
    if ob:
        from widthbench.generators.instance import problem_file_names
        from widthbench.pddl_domains import obfuscate

        tasks = [obfuscate.attach_task(i.task(), *ob) for i in instances]
        obfuscate.write_obfuscated_set(out / OBFUSCATED, tasks, [i.id for i in instances],
                                       problem_file_names(len(instances)))
    lengths = [i.optimal_length for i in instances if i.optimal_length is not None]
    summary = f"wrote {len(instances)} {args.domain} instances to {out}"
    if args.unsolvable:
        explored = [i.certificate["states_explored"] for i in instances]
        summary += f" (unsolvable, each certified by exhaustive search of {min(explored)}-{max(explored)} states)"
    if lengths:
        summary += f" (optimal plan lengths {min(lengths)}-{max(lengths)}, mean {sum(lengths) / len(lengths):.1f})"
    print(summary)
    if ob:
        print(f"wrote the {ob[0]} renaming (seed {ob[1]}) to {out / OBFUSCATED}: domain.pddl, the problems "
              "and mapping.json (score the plain set with --instances and the same --obfuscate flags)")
    return 0


def _check_out(out, force: bool) -> None:
    from widthbench.core.runfiles import check_output_dir

    check_output_dir(out, "--out")
    if out.is_dir() and any(out.iterdir()) and not force:
        raise UserError(f"--out {out} is not empty; choose a new folder or pass --force")


def _remove_old_set(out) -> None:
    # Only files an instance set consists of, so a stale larger set cannot leave extra problems behind.
    import re

    if not out.is_dir():
        return
    import shutil

    if (out / OBFUSCATED).is_dir():
        shutil.rmtree(out / OBFUSCATED)
    for p in out.iterdir():
        if p.is_file() and (p.name in ("domain.pddl", "manifest.jsonl") or re.fullmatch(r"instance-\d+\.pddl", p.name)):
            p.unlink()
