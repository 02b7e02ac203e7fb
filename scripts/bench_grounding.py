"""Benchmark: our grounding (problem file -> task) against Mimir's, per instance, on the same files.

Needs the optional bench extra (``pip install -e '.[bench]'``: pymimir). A benchmark, not a test:
timings depend on the machine and its load; every figure is the best of --repeat runs, both
groundings measured in the same run, by default as CPU time of this process (``--clock cpu``: Mimir
runs in-process), so other jobs on a shared machine do not skew the ratios.

What is timed, per instance, as a run of widthbench does it (the domain parsed once per set, before
the clock starts; its one-off parse is printed apart):

- ours: ``strips.load_task(domain, problem_file)``: read the file, the fast problem reader, the
  reachability grounding and the task build (atoms, actions with their masks, the trigger index);
- Mimir (pymimir, C++): ``Parser.parse_problem`` (the domain's ``Parser`` made once), its
  ``LiftedGrounder`` (delete-relaxed reachability), the grounded applicable-action generator (a
  match tree) and axiom evaluator, a ``StateRepository`` and the ``SearchContext``: what its grounded
  searches start from. Its console output is captured, not shown.

Sets: PlanBench's Blocksworld and Logistics instances, a generated set of --count Blocksworld
instances (--blocks), and every problem of each of ACPBench's 13 domains. Ground actions are counted
beside the times (ours and Mimir's; Mimir grounds actions the same relaxation reaches, so the counts
agree unless a domain has actions whose static preconditions Mimir evaluates differently).

    python scripts/bench_grounding.py                # all sets, 3 repeats (about a minute)
    python scripts/bench_grounding.py --sets planbench-blocksworld --repeat 5
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

from widthbench.generators import generate, write_instance_set
from widthbench.planners import strips

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(os.environ.get("WIDTHBENCH_SHARED", ROOT.parent / "shared")) / "data"
PLANBENCH = DATA / "planbench" / "plan-bench" / "instances"
ACPBENCH = DATA / "acpbench-domains"
SETS = ("planbench-blocksworld", "planbench-logistics", "generated", "acpbench")

CLOCK = time.process_time


def captured(fn):
    """Run fn with the process's stdout (C++ included) sent to a temporary file; return its result."""
    sys.stdout.flush()
    with tempfile.TemporaryFile(mode="w+") as tmp:
        saved = os.dup(1)
        os.dup2(tmp.fileno(), 1)
        try:
            return fn()
        finally:
            sys.stdout.flush()
            os.dup2(saved, 1)
            os.close(saved)


def problem_sets(args, tmp: Path) -> list[tuple[str, list[tuple[Path, list[Path]]]]]:
    """(set name, [(domain file, problem files), ...])."""
    out = []
    for name in args.sets:
        if name.startswith("planbench-"):
            d = PLANBENCH / name.split("-", 1)[1]
            out.append((f"PlanBench {d.name}", [(d / "generated_domain.pddl",
                                                 sorted((d / "generated_basic").glob("*.pddl")))]))
        elif name == "generated":
            insts = generate("blocksworld", args.count, args.seed, blocks=args.blocks, optimal=False)
            paths = write_instance_set(tmp / "generated", "blocksworld", insts)
            dom = next(p for p in paths if p.name == "domain.pddl")
            out.append((f"generated Blocksworld ({args.count}, {args.blocks} blocks)",
                        [(dom, sorted(p for p in paths if p.suffix == ".pddl" and p != dom))]))
        elif name == "acpbench":
            groups = [(d / "domain.pddl", sorted(p for p in d.glob("*.pddl") if p.name != "domain.pddl"))
                      for d in sorted(p for p in ACPBENCH.iterdir() if p.is_dir())]
            out.append((f"ACPBench {len(groups)} domains", groups))
    return out


def ours(groups, repeat: int):
    """(best seconds over the problems, domain parse seconds, problems, ground actions)."""
    doms, t_dom = [], 0.0
    for dom_path, _probs in groups:
        t = CLOCK()
        strips.parse_domain_text.cache_clear()  # a fresh parse, as the first use in a run
        doms.append(strips.load_domain(dom_path))
        t_dom += CLOCK() - t
    best, actions = float("inf"), 0
    for _ in range(repeat):
        for d in doms:
            d.views.clear()  # the per-domain join plans are made again each repeat (once per run)
        t = CLOCK()
        tasks = [strips.load_task(dom, p) for dom, (_d, probs) in zip(doms, groups) for p in probs]
        best = min(best, CLOCK() - t)
        actions = sum(len(x.actions) for x in tasks)
    return best, t_dom, len(tasks), actions


def mimir(groups, repeat: int):
    import pymimir.advanced.formalism as F
    import pymimir.advanced.search as S

    def ground(parser, path):
        prob = parser.parse_problem(str(path), F.ParserOptions())
        grounder = S.LiftedGrounder(prob)
        gen = grounder.create_grounded_applicable_action_generator(
            S.MatchTreeOptions(), S.DefaultGroundedApplicableActionGeneratorEventHandler.create(True))
        axioms = grounder.create_grounded_axiom_evaluator(S.MatchTreeOptions(), None)
        repo = S.StateRepository.create(axioms)
        return S.SearchContext.create(prob, gen, repo), grounder

    def run():
        parsers, t_dom = [], 0.0
        for dom_path, _probs in groups:
            t = CLOCK()
            parsers.append(F.Parser(str(dom_path), F.ParserOptions()))
            t_dom += CLOCK() - t
        best = float("inf")
        for _ in range(repeat):
            t = CLOCK()
            for parser, (_d, probs) in zip(parsers, groups):
                for p in probs:
                    ground(parser, p)
            best = min(best, CLOCK() - t)
        # counted once, untimed: the ground actions of each problem
        actions = sum(len(ground(parser, p)[1].create_ground_actions())
                      for parser, (_d, probs) in zip(parsers, groups) for p in probs)
        return best, t_dom, actions

    return captured(run)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", nargs="+", choices=SETS, default=list(SETS))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--count", type=int, default=1000, help="instances of the generated set")
    ap.add_argument("--blocks", default="4-8", help="blocks of the generated set")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--clock", choices=("cpu", "wall"), default="cpu")
    args = ap.parse_args(argv)
    global CLOCK
    CLOCK = time.process_time if args.clock == "cpu" else time.perf_counter
    try:
        import pymimir  # noqa: F401
    except ImportError as exc:
        print(f"bench_grounding needs the bench extra (pip install -e '.[bench]'): {exc}", file=sys.stderr)
        return 2
    if not DATA.is_dir():
        print(f"reference data not found at {DATA} (set WIDTHBENCH_SHARED)", file=sys.stderr)
        return 2
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} at start; "
          f"clock: {args.clock} time; best of {args.repeat}")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, groups in problem_sets(args, Path(tmp)):
            o_t, o_dom, n, o_act = ours(groups, args.repeat)
            m_t, m_dom, m_act = mimir(groups, args.repeat)
            rows.append((name, o_t, m_t))
            print(f"\n{name}: {n} problems, {len(groups)} domain file(s)\n"
                  f"  ours  {1e3 * o_t / n:7.3f} ms per instance ({o_t:.3f} s), {o_act} ground actions; "
                  f"domain parse once {1e3 * o_dom:.1f} ms\n"
                  f"  Mimir {1e3 * m_t / n:7.3f} ms per instance ({m_t:.3f} s), {m_act} ground actions; "
                  f"domain parse once {1e3 * m_dom:.1f} ms\n"
                  f"  ours/Mimir = {o_t / m_t:.2f}")
    print(f"\nload average {os.getloadavg()[0]:.2f} at the end")
    print("Ratios (grounding time per set, domain parsed once; < 1 means we are faster):")
    for name, o_t, m_t in rows:
        print(f"  {name:<44} ours/Mimir = {o_t / m_t:5.2f}   target <= 1.0: {'met' if o_t <= m_t else 'not met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
