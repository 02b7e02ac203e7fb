"""`widthbench compare RUN_A RUN_B --out DIR`: which differences between two runs are more than noise."""

from __future__ import annotations

import argparse

HELP = "compare two runs item by item: paired intervals, exact tests, Holm's correction and power"
DESCRIPTION = """Align the items of two score runs (or two solve runs, or a run and a harness log read
back) by their stable item id and compare them per cell (sub-task, style, thinking, extension, domain)
and metric, on the items both runs answered (their count is said). Per cell: both accuracies, the
difference B - A with a 95% interval from a seeded paired bootstrap over items, the exact McNemar
p-value for one right/wrong answer per item, else a paired sign-flip permutation test (samples, counts,
tokens); Holm's correction over every test of the table. Writes compare.md, compare.csv and compare.tex
to --out, and prints the smallest difference each cell's items can detect at 80% power and the `score
--count` a --target difference needs. --across thinking (style, extension) compares the modes instead:
thinking off in RUN_A against on in RUN_B, which may be the same run. docs/compare.md explains how to
read it."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run_a", metavar="RUN_A", help="run folder (or harness log) A")
    parser.add_argument("run_b", metavar="RUN_B", help="run folder (or harness log) B; diff = B - A")
    parser.add_argument("--out", required=True, metavar="DIR", help="folder for compare.md, compare.csv, compare.tex")
    parser.add_argument("--across", default=None, choices=("style", "thinking", "extension"),
                        help="compare modes instead of runs: each cell of RUN_A with style pddl / thinking off / "
                        "extension off against the same cell of RUN_B with nl / on / on (RUN_B may be RUN_A: "
                        "thinking off against on within one run)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the bootstrap and permutation draws (default 0)")
    parser.add_argument("--target", type=float, default=None, metavar="DIFF",
                        help="the difference to plan for, as a fraction in (0, 1] (0.1 = 10 points): the items "
                        "each cell needs to find it with 80%% power (default: each cell's observed difference)")


def run(args: argparse.Namespace) -> int:
    from widthbench.core.errors import UserError
    from widthbench.core.runfiles import check_output_dir
    from widthbench.reports.compare_tables import significant, write_compare
    from widthbench.subtasks.harness.logs import import_runs
    from widthbench.subtasks.results.comparison import MCNEMAR, POWER
    from widthbench.subtasks.results.loader import load_run
    from widthbench.subtasks.results.run_outcomes import compare_runs

    check_output_dir(args.out, "--out")
    if args.target is not None and not 0 < args.target <= 1:
        raise UserError(f"--target {args.target:g} is not a difference in (0, 1] (0.1 = 10 points)")
    folder_a, folder_b = import_runs([args.run_a, args.run_b])
    run_a, run_b = load_run(folder_a, "A"), load_run(folder_b, "B")
    result = compare_runs(run_a, run_b, seed=args.seed, target=args.target, across=args.across)
    rows = result.rows
    for path in write_compare(rows, args.out, label_a=f"{args.run_a} ({run_a.summary.get('model', '?')})",
                              label_b=f"{args.run_b} ({run_b.summary.get('model', '?')})", seed=args.seed,
                              notes=result.notes):
        print(f"wrote {path}")
    tests = [r for r in rows if r.p is not None]
    print(f"compare: {result.common} items in common (A {result.items_a}, B {result.items_b}); "
          f"{len(rows)} cells, {sum(map(significant, rows))} of {len(tests)} tests significant "
          f"after Holm's correction over the {len(tests)}")
    for r in rows:
        if r.test != MCNEMAR:
            continue
        c = r.cell
        where = f"{c.subtask} {c.metric} ({c.style}, thinking {c.thinking}, extension {c.extension}, {c.domain})"
        detect = ("no difference at this discordance" if r.detectable is None
                  else f"±{100 * r.detectable:.1f} points")
        advice = ("" if r.needed is None else
                  f"; for ±{100 * r.target:.1f} points: {run_a.kind} --count {r.needed}")
        print(f"  {where}: n {r.n}, diff {100 * r.diff:+.1f} points; detectable at {POWER:.0%} power: {detect}{advice}")
    return 0
