"""`widthbench widths`: effective widths (IW) and prunable fractions of puzzles or planning instances."""

from __future__ import annotations

import argparse
import json
import re
import sys
import time

from pathlib import Path

from widthbench.core.errors import UserError
from widthbench.core.runstore import RunStore
from widthbench.subtasks.identity import digest, instances_digest

HELP = "effective widths (IW) of Game-of-24 puzzles or planning instances, with prunable fractions"
DESCRIPTION = """TARGET is game24 (the 1362 Tree-of-Thoughts puzzles; --rows 901-1000 for ToT's test
split), a built-in domain name (blocksworld, logistics: generators/domains/) with generator options
(--count, --seed, --blocks, ...), or a folder holding domain.pddl and problem files. Runs IW(0), IW(1),
... up to --max-width per instance (or per goal atom with --single-goals) and writes OUT/widths.jsonl,
OUT/summary.json and OUT/widths.csv (the same rows, one line each), OUT/summary.json and OUT/widths.png
(and widths.pdf). Semantics: docs/widths.md. Instances are spread over --jobs processes or a Ray cluster
(--executor ray): the outputs are the same (docs/scale.md)."""


def _generator_options() -> tuple[str, ...]:
    from widthbench.generators.domains import DomainRegistry

    return tuple(o.name for o, _ in DomainRegistry.default().options())


def add_arguments(p: argparse.ArgumentParser) -> None:
    from widthbench.generators.domains import DomainRegistry

    p.add_argument("target", metavar="TARGET",
                   help=f"game24, {', '.join(DomainRegistry.default().names)}, or a folder of PDDL files")
    from widthbench.planners.iw import DEFAULT_MAX_WIDTH

    p.add_argument("--max-width", "--max-k", dest="max_width", type=int, default=DEFAULT_MAX_WIDTH, metavar="K",
                   help=f"largest k tried, IW(0) .. IW(K) (default {DEFAULT_MAX_WIDTH}, as `score`); "
                   "--max-k is the older spelling of the same option")
    p.add_argument("--single-goals", action="store_true",
                   help="one row per goal atom (the Lipovetzky & Geffner 2012 setting)")
    p.add_argument("--goal-test", choices=("after-prune", "before-prune"), default="after-prune",
                   help="a goal counts if it survives the novelty prune (default, as LAPKT) or before it")
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
    for option, names in DomainRegistry.default().options():
        gen.add_argument(option.flag, dest=option.name, metavar=option.metavar,
                         help=f"{', '.join(names)}: {option.help}")
    from widthbench.planners.executor import add_executor_arguments

    add_executor_arguments(p)


def run(args) -> int:
    if args.max_width < 0:
        raise UserError(f"--max-width (--max-k) must be >= 0, got {args.max_width}")
    from widthbench.planners.executor import open_executor, spec_from_args
    from widthbench.planners.widths import compute_rows
    from widthbench.core.runfiles import check_output_dir

    spec = spec_from_args(args)
    check_output_dir(args.out, "--out")
    jobs, title = _jobs(args, spec.workers)
    # Each finished job's rows go to the run store's OUT/widths.jobs.jsonl at once: a run that stops
    # (a lost cluster: exit 3, an interrupt) is resumed by the same command, which computes only the
    # missing jobs; a rerun with other settings is refused (widthbench.core.runstore).
    store = RunStore.open(args.out, kind="widths", identity=widths_identity(args),
                          described={"executor": spec.describe(), "jobs": spec.jobs or 1, "started": time.time()})
    out = store.path
    keys = [_job_key(fn, arg) for fn, arg in jobs]
    done = {rec["key"]: rec["rows"] for rec in store.records()}
    todo = [n for n, k in enumerate(keys) if k not in done]
    if len(todo) < len(jobs) and not args.quiet:
        print(f"widths: {len(jobs) - len(todo)} of {len(jobs)} jobs done by an earlier run ({store.records_path})",
              file=sys.stderr)
    t0 = time.perf_counter()
    with open_executor(spec) as executor:
        def keep(i: int, rows: list[dict]) -> None:
            done[keys[todo[i]]] = rows
            store.append([{"key": keys[todo[i]], "rows": rows}])

        compute_rows([jobs[n] for n in todo], executor, desc=f"widths {args.target}", quiet=args.quiet,
                     on_result=keep)
    wall = time.perf_counter() - t0
    rows = [r for k in keys for r in done[k]]
    if args.target == "game24":
        rows.sort(key=lambda r: r["rank"])  # chunks interleave the ranks
    if not rows:
        raise UserError(f"{args.target}: nothing to analyse (no instances or no goal atoms)")

    from widthbench.planners.widths import mean_width_text, plot, summarize

    store.write_jsonl("widths.jsonl", rows)
    write_csv(rows, out / "widths.csv")
    summary = summarize(rows, args.max_width)
    # jobs, executor and wall_time_s describe how the run was made; every other field is the same
    # whatever the executor (tests/test_executor_ray.py, tests/planners/test_executor.py)
    summary.update(target=args.target, single_goals=args.single_goals, rows=args.rows,
                   n_instances=len({r["instance"] for r in rows}), jobs=spec.jobs or 1,
                   executor=spec.describe(), wall_time_s=round(wall, 3))
    store.finish(summary)
    plot(rows, args.max_width, out / "widths.png", title)
    hist = " ".join(f"{k}:{v}" for k, v in summary["histogram"].items())
    pt = summary["prunable"]["prunable_of_tree"]["mean"]
    parts = [f"{summary['n']} rows from {summary['n_instances']} instances in {wall:.2f} s",
             f"widths {hist}", mean_width_text(summary)]
    if pt is not None:
        parts.append(f"prunable of the state tree {100 * pt:.1f}%")
    print("; ".join(parts) + f"; wrote {out}/widths.jsonl, widths.csv, summary.json, widths.png (and .pdf)")
    return 0


# How a widths run is made, not what it computes: recorded beside the identity.
_DESCRIBED = ("command", "out", "quiet", "jobs", "executor", "ray_address", "handler")


def widths_identity(args) -> dict:
    """Every option that decides the rows, and a digest of a TARGET folder's PDDL files."""
    ident = {k: v for k, v in sorted(vars(args).items()) if k not in _DESCRIBED and not callable(v)}
    if Path(args.target).is_dir():
        ident["target_files"] = instances_digest(args.target)
    if args.domain:
        ident["domain_file"] = digest(Path(args.domain).read_bytes()) if Path(args.domain).is_file() else args.domain
    return ident


def _job_key(fn, arg) -> str:
    """What identifies a job's rows across runs: its function and its input (a Game-of-24 chunk by
    its puzzles, so a rerun with another number of workers recomputes its differently cut chunks)."""
    import hashlib

    if fn.__name__ == "game24_job":
        puzzles, common, _space = arg
        what = [[p.id for p in puzzles], common]
    else:
        what = list(arg)
    text = json.dumps([fn.__name__, what], sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:20]


def write_csv(rows: list[dict], path) -> None:
    """widths.csv: one line per row, the fields of widths.jsonl (``runs`` as JSON text)."""
    import csv

    fields = list(dict.fromkeys(k for r in rows for k in r))
    with open(path, "w", encoding="utf-8", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields, lineterminator="\n")
        w.writeheader()
        for r in rows:
            w.writerow({k: json.dumps(v) if isinstance(v, (list, dict)) else ("" if v is None else v)
                        for k, v in r.items()})


# ---------------------------------------------------------------------------------------------
# Targets -> jobs


def _common(args) -> dict:
    return dict(max_k=args.max_width, goal_test=args.goal_test, single_goals=args.single_goals,
                complete=args.complete)


def _jobs(args, workers: int = 1):
    """(list of (function, argument)), plot title. ``workers``: how many run at once (1: this
    process alone)."""
    from pathlib import Path

    from widthbench.planners.widths import game24_job, strips_job

    common = _common(args)
    target = args.target
    given = [o for o in _generator_options() if getattr(args, o) is not None]
    if target == "game24":
        if given or args.count is not None:
            raise UserError(f"--{given[0] if given else 'count'} does not apply to game24")
        from widthbench.generators.game24 import load_puzzles

        puzzles = load_puzzles(args.rows)
        # interleaved chunks, so that every chunk mixes easy and hard puzzles. The Game-of-24 state
        # space (a memo of successors) is shared by the puzzles of one process: in one process a few
        # chunks (the progress bar moves) share the run's space; with workers, each worker takes one
        # chunk and builds its own
        if workers == 1:
            from widthbench.planners.game24_model import StateSpace

            space = StateSpace()
            n_chunks = min(len(puzzles), 8)
        else:
            space, n_chunks = None, min(len(puzzles), workers)
        chunks = [puzzles[i::n_chunks] for i in range(n_chunks)]
        jobs = [(game24_job, (c, common, space)) for c in chunks]
        title = "Game of 24" + (f", ranks {args.rows}" if args.rows else ", all 1362 puzzles")
        return jobs, title + f" ({args.goal_test})"
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
        from widthbench.generators import generate
        from widthbench.generators.domains import DomainRegistry

        names = DomainRegistry.default().names
        if args.domain is not None:
            raise UserError("--domain FILE applies to a TARGET folder of problems")
        if target not in names:
            raise UserError(f"unknown TARGET {target!r}: give game24, a domain name ({', '.join(names)}) "
                            "or a folder with domain.pddl and problem files")
        if args.count is None:
            raise UserError(f"--count is required to generate {target} instances")
        options = {o: getattr(args, o) for o in given}
        instances = generate(target, args.count, args.seed, optimal=False, **options)
        opts = " ".join(f"--{k} {v}" for k, v in options.items())
        title = f"{target} --count {args.count} --seed {args.seed} {opts}".strip()
    if args.single_goals:
        title += ", single goal atoms"
    jobs = [(strips_job, ((i.id, i.domain, i.problem_pddl), common, limits)) for i in instances]
    return jobs, title + f" ({args.goal_test})"


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
