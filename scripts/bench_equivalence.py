"""Benchmark: `widthbench equivalent` on pairs of 6-block Blocksworld problems (issue 44: under 1 s
CPU), against the engine's plain exhaustive search of the same tasks, measured in the same run.

A benchmark, not a test: timings depend on the machine and its load; every in-process figure is the
best of --repeat runs of CPU time of this process, so other jobs on a shared machine do not skew the
ratios. What is timed:

- judge, per pair: read and ground both problem texts (the domain parsed once before the clock, as
  in a run; its parse is printed apart) and `planners.equivalence.problem_equivalence`;
- reference, per truth: `bfs.reachable_states(task)`, every reachable state (7,057 for 6 blocks);
- command, per pair for the first --command pairs of each kind: `widthbench equivalent blocksworld A B`
  as a child process, its CPU time (user + system, from the children's resource usage): interpreter
  start, imports, domain parse, both problems, the verdict.

Pairs, per generated truth (--count, seed --seed): ``renamed`` (objects renamed, atoms shuffled:
equivalent by the atom graphs), ``implied`` (renamed, plus a goal fact every reachable goal state has:
equivalent by the goal-state sets), ``dropped`` (a goal atom that is not implied removed: not
equivalent, with an example state), ``init`` (one initial atom changed: not equivalent); and one
worst case for the search of bijections: six blocks on the table (720 automorphisms of the initial
state) against a goal naming other blocks.

    .venv/bin/python scripts/bench_equivalence.py                 # 10 truths, 3 repeats (about 30 s)
"""

from __future__ import annotations

import argparse
import functools
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from widthbench.generators import generate
from widthbench.planners.bfs import reachable_states
from widthbench.planners.equivalence import problem_equivalence
from widthbench.planners.problem_writer import problem_text
from widthbench.planners.strips import bits, load_domain, parse_atom_text, parse_problem_text, state_atoms

ROOT = Path(__file__).resolve().parent.parent
WIDTHBENCH = Path(sys.executable).parent / "widthbench"
KINDS = ("renamed", "implied", "dropped", "init", "automorphisms")
ON_TABLE = """(define (problem table) (:domain blocksworld) (:objects a b c d e f)
 (:init (handempty) (ontable a) (ontable b) (ontable c) (ontable d) (ontable e) (ontable f)
  (clear a) (clear b) (clear c) (clear d) (clear e) (clear f))
 (:goal (and (on a b) (on b c) (on d e))))"""


def rename(atom: str, names: dict) -> str:
    pred, args = parse_atom_text(atom)
    return "(" + " ".join([pred, *(names[x] for x in args)]) + ")"


def candidates(task, rng: random.Random) -> dict:
    """kind -> the candidate's problem text (None where the truth has no such variant)."""
    objects = [o for o, _ in task.objects]
    names = dict(zip(objects, rng.sample([f"blk{k}" for k in range(len(objects))], len(objects))))
    init = state_atoms(task, task.init)
    goal = state_atoms(task, task.goal)

    def text(init_atoms, goal_atoms):
        i = [rename(a, names) for a in init_atoms]
        g = [rename(a, names) for a in goal_atoms]
        rng.shuffle(i)
        rng.shuffle(g)
        return problem_text("candidate", "blocksworld", sorted(names.values()), i, g)

    found = [s for s in reachable_states(task) if s & task.goal == task.goal]
    implied = functools.reduce(lambda x, y: x & y, found) & ~task.goal if found else 0
    out = {"renamed": text(init, goal),
           "implied": text(init, goal + state_atoms(task, 1 << rng.choice(bits(implied)))) if implied else None,
           "dropped": text(init, goal[1:]) if len(goal) > 1 else None}
    ons = [a for a in init if a.startswith("(on ")]
    if ons:
        x, _y = parse_atom_text(ons[0])[1]
        out["init"] = text([a for a in init if a != ons[0]] + [f"(ontable {x})"], goal)
    return out


def best(fn, repeat: int) -> float:
    t_best = float("inf")
    for _ in range(repeat):
        t = time.process_time()
        fn()
        t_best = min(t_best, time.process_time() - t)
    return t_best


def command_cpu(truth: str, candidate: str, tmp: Path) -> tuple[float, int]:
    (tmp / "a.pddl").write_text(truth)
    (tmp / "b.pddl").write_text(candidate)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    code = subprocess.run([str(WIDTHBENCH), "equivalent", "blocksworld", str(tmp / "a.pddl"), str(tmp / "b.pddl")],
                          stdout=subprocess.DEVNULL).returncode
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), code


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=10, help="generated truths (6 blocks)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--command", type=int, default=2, help="pairs of each kind also run as the command")
    args = ap.parse_args(argv)
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} at start; CPU time, "
          f"best of {args.repeat}")
    t = time.process_time()
    dom = load_domain("blocksworld")
    print(f"domain parse once: {1e3 * (time.process_time() - t):.1f} ms")
    rng = random.Random(args.seed)
    truths = [(i.problem_pddl, i.task()) for i in generate("blocksworld", args.count, args.seed, blocks="6",
                                                           optimal=False)]
    table = parse_problem_text(dom, ON_TABLE)
    pairs = {k: [] for k in KINDS}  # kind -> [(truth text, candidate text, reference seconds)]
    for text, task in truths:
        ref = best(lambda: reachable_states(task), args.repeat)
        for kind, cand in candidates(task, rng).items():
            if cand is not None:
                pairs[kind].append((text, cand, ref))
    pairs["automorphisms"].append((ON_TABLE, ON_TABLE.replace("(on a b) (on b c) (on d e)",
                                                              "(on b a) (on a c) (on d e) (clear f)"),
                                   best(lambda: reachable_states(table), args.repeat)))
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for kind in KINDS:
            judge, refs, verdicts, cmds = [], [], set(), []
            for n, (truth, cand, ref) in enumerate(pairs[kind]):
                def run():
                    return problem_equivalence(parse_problem_text(dom, truth), cand)
                judge.append(best(run, args.repeat))
                refs.append(ref)
                verdicts.add(run().reason)
                if n < args.command:
                    cmds.append(command_cpu(truth, cand, Path(tmp)))
            if not judge:
                continue
            mean_j, mean_r = sum(judge) / len(judge), sum(refs) / len(refs)
            rows.append((kind, len(judge), mean_j, max(judge), mean_r, mean_j / mean_r, cmds, verdicts))
    print("\nper kind: pairs, judge mean / max (ms), exhaustive search mean (ms), judge / search, command CPU "
          "(s, exit code), verdicts")
    for kind, n, mj, xj, mr, ratio, cmds, verdicts in rows:
        shown = ", ".join(f"{c:.2f} ({code})" for c, code in cmds)
        print(f"  {kind:<13} {n:3d}  {1e3 * mj:7.1f} / {1e3 * xj:7.1f}  {1e3 * mr:7.1f}  {ratio:5.2f}  [{shown}]  "
              f"{', '.join(sorted(verdicts))}")
    worst_cmd = max(c for row in rows for c, _ in row[6])
    worst_judge = max(row[3] for row in rows)
    print(f"\nload average {os.getloadavg()[0]:.2f} at the end")
    print(f"slowest judgement in process {worst_judge:.3f} s, slowest command {worst_cmd:.2f} s CPU; target under "
          f"1 s CPU: {'met' if worst_cmd < 1.0 else 'not met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
