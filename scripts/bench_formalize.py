"""Benchmark: what judging a formalize-domain answer costs (issue 44), against the engine's plain
exhaustive search of the same instances, measured in the same run.

A benchmark, not a test: every figure is the best of --repeat runs of this process's CPU time. Per
domain (Blocksworld, Logistics), the instance set of one formalize-domain item (the first three
generated instances, seed --seed, as `score` builds them), and the answers the simulated models write
(`subtasks.sim_answers`):

- ``oracle``: every predicate, action and parameter renamed, every list reordered (equivalent);
- ``drop-effect``: the same with one effect of one action left out (sim:noisy; not equivalent);
- ``no-deletes``: every delete effect left out (sim:random; not equivalent, and its states grow);

each judged by `planners.domain_equivalence.domain_equivalence` with formalize-domain's bounds. The
reference is `bfs.reachable_states` of the three instances under the true domain.

    .venv/bin/python scripts/bench_formalize.py            # about a minute
"""

from __future__ import annotations

import argparse
import os
import random
import time

from widthbench.generators import generate
from widthbench.planners.bfs import reachable_states
from widthbench.planners.domain_equivalence import DEFAULT_MAX_CHECKS, domain_equivalence
from widthbench.subtasks.definitions.formalize_domain import JUDGED_ON, MAX_STATES
from widthbench.subtasks.sim_answers import _renamed_domain

ANSWERS = {"oracle": None, "drop-effect": "effect", "no-deletes": "deletes"}


def cpu(fn, repeat: int):
    best, out = float("inf"), None
    for _ in range(repeat):
        t = time.process_time()
        out = fn()
        best = min(best, time.process_time() - t)
    return best, out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} at start; CPU time, best of "
          f"{args.repeat}")
    print("domain      answer        judge (s)  reference (s)  judge / reference  states  verdict")
    for name in ("blocksworld", "logistics"):
        tasks = [i.task() for i in generate(name, JUDGED_ON, args.seed)]
        domain = tasks[0].domain
        ref, states = cpu(lambda: sum(len(reachable_states(t)) for t in tasks), args.repeat)
        for label, drop in ANSWERS.items():
            text, _ = _renamed_domain(domain, random.Random(args.seed), drop=drop)
            took, verdict = cpu(lambda: domain_equivalence(domain, text, tasks, max_states=MAX_STATES,
                                                           max_checks=DEFAULT_MAX_CHECKS), args.repeat)
            print(f"{name:11} {label:12} {took:10.3f} {ref:14.3f} {took / ref:18.1f}  {states:6}  {verdict.reason}")
    print(f"load average {os.getloadavg()[0]:.2f} at the end")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
