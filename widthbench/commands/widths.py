"""`widthbench widths`: effective widths (IW) and prunable fractions of puzzles or planning instances."""

from __future__ import annotations

import argparse
import json
import re
import sys
import time

from widthbench.errors import UserError

HELP = "effective widths (IW) of Game-of-24 puzzles or planning instances, with prunable fractions"
DESCRIPTION = (
    "TARGET is game24 (the 1362 Tree-of-Thoughts puzzles; --rows 901-1000 for ToT's test split), a "
    "domain name (blocksworld, logistics) with generator options (--count, --seed, --blocks, ...), or "
    "a folder holding domain.pddl and problem files. Runs IW(0), IW(1), ... up to --max-width per instance "
    "(or per goal atom with --single-goals) and writes OUT/widths.jsonl, OUT/summary.json and "
    "OUT/widths.png. Semantics: docs/widths.md."
)

GENERATOR_OPTIONS = ("blocks", "cities", "locations", "trucks", "airplanes", "packages")

def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("target", metavar="TARGET", help="game24, blocksworld, logistics, or a folder of PDDL files")
    from widthbench.planners.iw import DEFAULT_MAX_WIDTH

    p.add_argument("--max-width", "--max-k", dest="max_width", type=int, default=DEFAULT_MAX_WIDTH, metavar="K",
                   help=f"largest k tried, IW(0) .. IW(K) (default {DEFAULT_MAX_WIDTH}, as `score`); "
                   "--max-k is the older spelling of the same option")
    p.add_argument("--single-goals", action="store_true",
                   help="one row per goal atom (the Lipovetzky & Geffner 2012 setting)")
    p.add_argument("--goal-test", choices=("after-prune", "before-prune"), default="after-prune",
                   help="a goal counts if it survives the novelty prune (default, as LAPKT) or before it")
    p.add_argument("--jobs", type=int, default=1, metavar="N", help="worker processes (default 1)")
    p.add_argument("--out", required=True, metavar="OUT", help="output folder (created if missing)")
    p.add_argument("--rows", metavar="SPEC", help="game24: ranks to use, e.g. 901-1000 or 1,5,7-9")
    p.add_argument("--complete", action="store_true",
                   help="also run IW(w) past the goal until its queue is empty (fills the complete_* fields)")
    p.add_argument("--reachable-limit", type=int, default=100_000, metavar="N",
                   help="count reachable states only up to N (else prunable_of_reachable is empty)")
    p.add_argument("--tree-limit", type=int, default=50_000, metavar="N",
                   help="give up counting the depth-bounded state tree after expanding N (state, depth) "
                        "pairs (then prunable_of_tree is empty); the Game of 24 tree is always counted")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--domain", metavar="FILE", default=None,
                   help="TARGET folder: use this domain file instead of the folder's domain.pddl")
    gen = p.add_argument_group("generated instances (TARGET = a domain name)")
    gen.add_argument("--count", type=int, metavar="N", help="number of instances")
    gen.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    for o in GENERATOR_OPTIONS:
        gen.add_argument(f"--{o}", metavar="N|LO-HI", help=f"generator option {o}")


def run(args) -> int:
    if args.max_width < 0:
        raise UserError(f"--max-width (--max-k) must be >= 0, got {args.max_width}")
    if args.jobs < 1:
        raise UserError(f"--jobs must be >= 1, got {args.jobs}")
    from widthbench.runfiles import check_output_dir, make_output_dir

    out = check_output_dir(args.out, "--out")
    jobs, n_units, title = _jobs(args)
    t0 = time.perf_counter()
    results = _run_jobs(jobs, args.jobs, n_units, quiet=args.quiet, desc=f"widths {args.target}")
    wall = time.perf_counter() - t0
    rows = [r for part in results for r in part]
    if args.target == "game24":
        rows.sort(key=lambda r: r["rank"])  # chunks interleave the ranks
    if not rows:
        raise UserError(f"{args.target}: nothing to analyse (no instances or no goal atoms)")

    from widthbench.planners.widths import mean_width_text, plot, summarize

    make_output_dir(out, "--out")
    with (out / "widths.jsonl").open("w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, sort_keys=False) + "\n")
    summary = summarize(rows, args.max_width)
    summary.update(target=args.target, single_goals=args.single_goals, rows=args.rows,
                   n_instances=len({r["instance"] for r in rows}), jobs=args.jobs, wall_time_s=round(wall, 3))
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    plot(rows, args.max_width, out / "widths.png", title)
    hist = " ".join(f"{k}:{v}" for k, v in summary["histogram"].items())
    pt = summary["prunable"]["prunable_of_tree"]["mean"]
    parts = [f"{summary['n']} rows from {summary['n_instances']} instances in {wall:.2f} s",
             f"widths {hist}", mean_width_text(summary)]
    if pt is not None:
        parts.append(f"prunable of the state tree {100 * pt:.1f}%")
    print("; ".join(parts) + f"; wrote {out}/widths.jsonl, summary.json, widths.png")
    return 0


# ---------------------------------------------------------------------------------------------
# Targets -> jobs


def _common(args) -> dict:
    return dict(max_k=args.max_width, goal_test=args.goal_test, single_goals=args.single_goals,
                complete=args.complete)


def _jobs(args):
    """(list of (function, argument)), number of instances, plot title."""
    from pathlib import Path

    common = _common(args)
    target = args.target
    given = [o for o in GENERATOR_OPTIONS if getattr(args, o) is not None]
    if target == "game24":
        if given or args.count is not None:
            raise UserError(f"--{given[0] if given else 'count'} does not apply to game24")
        from widthbench.generators.game24 import load_puzzles

        puzzles = load_puzzles(args.rows)
        # interleaved chunks, so that every chunk mixes easy and hard puzzles. The Game-of-24 state
        # space (a memo of successors) is shared by the puzzles of one process: in one process a few
        # chunks (the progress bar moves) share the run's space; with workers, each worker takes one
        # chunk and builds its own
        if args.jobs == 1:
            from widthbench.planners.game24 import StateSpace

            space = StateSpace()
            n_chunks = min(len(puzzles), 8)
        else:
            space, n_chunks = None, min(len(puzzles), args.jobs)
        chunks = [puzzles[i::n_chunks] for i in range(n_chunks)]
        jobs = [(_game24_job, (c, common, space)) for c in chunks]
        title = "Game of 24" + (f", ranks {args.rows}" if args.rows else ", all 1362 puzzles")
        return jobs, len(puzzles), title + f" ({args.goal_test})"
    if args.rows:
        raise UserError("--rows applies to game24 only")
    limits = dict(reachable_limit=args.reachable_limit, tree_limit=args.tree_limit)
    path = Path(target)
    if path.is_dir():
        if given or args.count is not None:
            raise UserError(f"--{given[0] if given else 'count'} applies to generated instances, not to a folder")
        instances = _read_folder(path, args.domain)
        title = f"{path.name} ({len(instances)} instances)"
    else:
        from widthbench.generators import DOMAINS, generate

        if args.domain is not None:
            raise UserError("--domain FILE applies to a TARGET folder of problems")
        if target not in DOMAINS:
            raise UserError(f"unknown TARGET {target!r}: give game24, a domain name ({', '.join(DOMAINS)}) "
                            "or a folder with domain.pddl and problem files")
        if args.count is None:
            raise UserError(f"--count is required to generate {target} instances")
        options = {o: getattr(args, o) for o in given}
        instances = generate(target, args.count, args.seed, optimal=False, **options)
        opts = " ".join(f"--{k} {v}" for k, v in options.items())
        title = f"{target} --count {args.count} --seed {args.seed} {opts}".strip()
    if args.single_goals:
        title += ", single goal atoms"
    jobs = [(_strips_job, ((i.id, i.domain, i.problem_pddl), common, limits)) for i in instances]
    return jobs, len(instances), title + f" ({args.goal_test})"


_DOMAIN_TEXT = re.compile(r"\(\s*define\s*\(\s*domain\b", re.IGNORECASE)


def _read_folder(path, domain=None):
    from widthbench.generators import read_instance_set

    # Folders may hold several domain files (e.g. the IPC copies keep a second domain variant);
    # anything that defines a domain is not a problem.
    instances = [i for i in read_instance_set(path, validate=False, domain=domain)
                 if not _DOMAIN_TEXT.search(i.problem_pddl)]
    if not instances:
        raise UserError(f"{path}: no problem files")
    return instances


# ---------------------------------------------------------------------------------------------
# Workers


def _game24_job(arg):
    from widthbench.planners.widths import game24_rows

    puzzles, common, space = arg  # space None: game24_rows makes one for these puzzles
    return game24_rows(puzzles, space=space, **common), len(puzzles)


def _strips_job(arg):
    from widthbench.generators import Instance
    from widthbench.planners.widths import strips_rows

    (iid, domain, text), common, limits = arg
    task = Instance(id=iid, domain=domain, problem_pddl=text).task()
    return strips_rows(iid, task, **common, **limits), 1


def _run_jobs(jobs, n_workers: int, total: int, quiet: bool, desc: str) -> list[list[dict]]:
    from tqdm import tqdm

    results: list = [None] * len(jobs)
    show = not quiet and sys.stderr.isatty()
    with tqdm(total=total, desc=desc, unit="inst", file=sys.stderr, disable=not show) as bar:
        if n_workers == 1 or len(jobs) == 1:
            for i, (fn, arg) in enumerate(jobs):
                results[i], n = fn(arg)
                bar.update(n)
            return results
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor, as_completed

        ctx = multiprocessing.get_context("fork")
        with ProcessPoolExecutor(max_workers=min(n_workers, len(jobs)), mp_context=ctx) as pool:
            futures = {pool.submit(fn, arg): i for i, (fn, arg) in enumerate(jobs)}
            import matplotlib.pyplot  # noqa: F401  (for the figure, while the workers run)

            for fut in as_completed(futures):
                results[futures[fut]], n = fut.result()
                bar.update(n)
    return results
