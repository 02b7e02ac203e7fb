#!/usr/bin/env python
"""The executor's back-ends on the same widths job, in one run: local processes against Ray.

    python scripts/bench_executor.py [--count 12] [--blocks 7] [--max-k 3] [--cpus 2] [--small 200]

1. ``--count`` generated Blocksworld instances (``--blocks``), IW(1..K) on each (about 1 s a job on
   these machines), through ``widthbench.planners.widths.compute_rows``: once on the local executor
   with ``--cpus`` processes, once on a local Ray instance with ``--cpus`` CPUs (its start-up timed
   apart). Prints both walls and each back-end's cost per task: (wall x CPUs - the time spent inside
   the jobs, measured in the workers) / jobs, the time a worker was not running a job; on a shared
   machine the jobs' own times move with the load, this cost does not. Checks that both gave the
   same rows.
2. ``--small`` jobs of a few milliseconds (4-block instances, IW(1)) on both: the fixed cost of a task.

Ray's overhead should stay under 15% of a job of a second or more (docs/scale.md).
"""

from __future__ import annotations

import argparse
import os
import sys
import time


def widths_jobs(count: int, blocks: str, max_k: int, seed: int) -> list:
    from widthbench.generators import generate
    from widthbench.planners.widths import strips_job

    common = dict(max_k=max_k, goal_test="after-prune", single_goals=False, complete=False)
    limits = dict(reachable_limit=100_000, tree_limit=50_000)
    return [(strips_job, ((i.id, i.domain, i.problem_pddl), common, limits))
            for i in generate("blocksworld", count, seed, optimal=False, blocks=blocks)]


def timed_job(job) -> tuple[float, list]:
    """A widths job with the time it took inside the worker."""
    from widthbench.planners.widths import width_job

    t = time.perf_counter()
    rows, _ = width_job(job)
    return time.perf_counter() - t, rows


def timed(jobs, executor) -> tuple[float, float, list]:
    """(wall, time spent inside the jobs, rows). Wall x CPUs - inside = the executor's own cost: on
    a shared machine the jobs' own times vary with the load; what the executor adds does not."""
    t = time.perf_counter()
    done = executor.map(timed_job, jobs, quiet=True)
    wall = time.perf_counter() - t
    return wall, sum(d for d, _ in done), [r for _, rows in done for r in rows]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--count", type=int, default=12, help="widths jobs of about a second (default 12)")
    ap.add_argument("--blocks", default="7", help="blocks per instance (default 7)")
    ap.add_argument("--max-k", type=int, default=3)
    ap.add_argument("--cpus", type=int, default=2, help="local processes and Ray CPUs (default 2)")
    ap.add_argument("--small", type=int, default=200, help="jobs of a few milliseconds (default 200)")
    ap.add_argument("--seed", type=int, default=3)
    args = ap.parse_args(argv)

    from widthbench.planners.executor import ExecutorSpec, open_executor

    jobs = widths_jobs(args.count, args.blocks, args.max_k, args.seed)
    small = widths_jobs(args.small, "4", 1, args.seed)
    print(f"{len(jobs)} widths jobs (Blocksworld, {args.blocks} blocks, IW(1..{args.max_k})), "
          f"{len(small)} small ones (4 blocks, IW(1)); {args.cpus} CPUs each way; {os.cpu_count()} cores here")

    results = {}
    with open_executor(ExecutorSpec(jobs=args.cpus)) as local:
        local.map(abs, range(args.cpus), quiet=True)  # the processes start before the clock
        results["local"] = timed(jobs, local), timed(small, local)

    if "RAY_AUTH_MODE" not in os.environ:  # a token of this run's own (not ~/.ray's, shared by the machine)
        import secrets
        import tempfile

        token = os.path.join(tempfile.mkdtemp(prefix="bench-executor-"), "auth_token")
        with open(token, "w") as f:
            f.write(secrets.token_hex(32))
        os.environ.update(RAY_AUTH_MODE="token", RAY_AUTH_TOKEN_PATH=token)
    t = time.perf_counter()
    with open_executor(ExecutorSpec(backend="ray", jobs=args.cpus)) as ray_ex:
        ray_ex.map(abs, range(args.cpus), quiet=True)  # Ray's start and its first workers
        t_start = time.perf_counter() - t
        results["ray"] = timed(jobs, ray_ex), timed(small, ray_ex)

    print(f"Ray start (ray.init and first workers): {t_start:.2f} s, once per run")
    for what, k, n in (("widths jobs", 0, len(jobs)), ("small jobs", 1, len(small))):
        line = []
        per_task = {}
        for name in ("local", "ray"):
            wall, inside, _ = results[name][k]
            per_task[name] = (wall * args.cpus - inside) / n
            line.append(f"{name} wall {wall:.2f} s, mean job {inside / n * 1000:.1f} ms, executor's cost per "
                        f"task {1000 * per_task[name]:.1f} ms ({100 * per_task[name] / (inside / n):.1f}% of a job)")
        wall_l, wall_r = results["local"][k][0], results["ray"][k][0]
        print(f"{what}: " + "; ".join(line) + f"; Ray / local wall = {wall_r / wall_l:.3f}")
    same = results["ray"][0][2] == results["local"][0][2] and results["ray"][1][2] == results["local"][1][2]
    print(f"same rows on both: {same}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
