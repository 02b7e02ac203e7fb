"""Benchmark: both answer readers on the whole development corpus of real answers, per model family.

Reads every PlanBench result file under ../shared/data/planbench-responses (SOURCE.md there: six
development families and a few more, on every PlanBench variant: plain, 3-block, Mystery and
random-name Blocksworld, Logistics, unsolvable Blocksworld, Sokoban; plan generation, plan
verification, plan execution), judges each answer on the engine with the strict and the flexible
reader (`widthbench.subtasks.planbench.judge.judge`, problems found from the PlanBench data root by each
file's variant) and prints, per family and variant, per family and overall, for each reader:

- answers read;
- PlanBench-correct answers read and valid on the engine (the readers' target: >= 99.5% per family);
- agreement with PlanBench's verdict, and the disagreements by class (`rescore.DISAGREEMENT_CLASSES`);
- (overall) the answers the flexible reader read several ways and judged because every reading got
  the same verdict (`readers.judged_alike`; the other readings are in the record's ``ambiguous``);
- the time taken to read (each reader timed alone over the same answers; the ratio flexible/strict is
  measured in the same run), beside the time to judge everything (both readers and the engine).

A benchmark, not a test: times are wall-clock seconds of this process (the machine is shared: compare
ratios measured in one run).

    .venv/bin/python scripts/bench_readers.py                          # every family
    .venv/bin/python scripts/bench_readers.py --family o1-mini_chat --show unread-by-us
    .venv/bin/python scripts/bench_readers.py --variant mystery_blocksworld
"""

from __future__ import annotations

import argparse
import time
from collections import defaultdict
from pathlib import Path

from widthbench.core.errors import ParseError
from widthbench.pddl_domains.render import Renderer
from widthbench.subtasks import flexible
from widthbench.subtasks import strict as strict_parse
from widthbench.subtasks.planbench.files import load_result_file
from widthbench.subtasks.planbench.judge import DISAGREEMENT_CLASSES, counts, disagreement, judge
from widthbench.subtasks.planbench.problems import Instances, query_style

REPO = Path(__file__).resolve().parent.parent
CORPUS = REPO.parent / "shared" / "data" / "planbench-responses"
DATA_ROOT = REPO.parent / "shared" / "data" / "planbench"


def corpus_files(root: Path) -> dict[tuple[str, str], list[Path]]:
    """Result files by (family, variant): results/<variant>/<family>/task_*.json, or
    results/<variant>/task_*.json for a file whose model is not named (family "unnamed")."""
    out: dict[tuple[str, str], list[Path]] = defaultdict(list)
    for p in sorted(root.glob("*/results/*/*/task_*.json")):
        out[(p.parent.name, p.parent.parent.name)].append(p)
    for p in sorted(root.glob("*/results/*/task_*.json")):
        out[("unnamed", p.parent.name)].append(p)
    return dict(sorted(out.items()))


def reading_calls(rf, inst, instances):
    """(strict, flexible) zero-argument readers of one answer, as `rescore.judge` calls them."""
    raw = inst.get("llm_raw_response") or ""
    if rf.task == "plan-verification":
        return (lambda: strict_parse.parse_verdict(raw)), (lambda: flexible.read_verdict(raw))
    problem = instances.problem(rf, inst)
    task, templates = problem.task, problem.templates
    style = query_style(inst.get("query", ""))
    r = Renderer(task, style, templates)
    if rf.task == "plan-generation":
        return ((lambda: r.parse_plan(strict_parse.answer_section(raw))),
                (lambda: flexible.read_plan(task, raw, style, templates)))
    return ((lambda: r.parse_state(strict_parse.answer_section(raw))),
            (lambda: flexible.read_state(task, raw, style, templates)))


def timed_reading(calls) -> float:
    t0 = time.perf_counter()
    for call in calls:
        try:
            call()
        except ParseError:
            pass
    return time.perf_counter() - t0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--family", action="append", help="only this family (repeatable); default all")
    ap.add_argument("--variant", action="append", help="only this variant (results folder; repeatable)")
    ap.add_argument("--show", choices=DISAGREEMENT_CLASSES, action="append", default=[],
                    help="print the flexible reader's disagreements of this class")
    ap.add_argument("--corpus", type=Path, default=CORPUS)
    args = ap.parse_args()
    groups = {k: v for k, v in corpus_files(args.corpus).items()
              if (not args.family or k[0] in args.family) and (not args.variant or k[1] in args.variant)}
    instances = Instances([DATA_ROOT])
    by_family: dict[str, list] = defaultdict(list)
    everything, times = [], {"strict": 0.0, "flexible": 0.0, "judge": 0.0}
    print(f"{'family / variant':56s} {'reader':8s} {'answers':>7s} {'read':>6s} {'PB-correct read+valid':>22s} "
          f"{'agree':>7s}  disagreements ({', '.join(DISAGREEMENT_CLASSES)})   time")
    for (family, variant), paths in groups.items():
        files = [load_result_file(p) for p in paths]
        pairs = [(rf, inst) for rf in files for inst in rf.instances]
        for rf, inst in pairs:  # problems loaded before any timing: reading is what is measured
            if rf.task != "plan-verification":
                instances.problem(rf, inst)
        calls = [reading_calls(rf, inst, instances) for rf, inst in pairs]
        t = {"strict": timed_reading(c[0] for c in calls), "flexible": timed_reading(c[1] for c in calls)}
        t0 = time.perf_counter()
        results = [judge(rf, inst, instances) for rf, inst in pairs]
        t["judge"] = time.perf_counter() - t0
        for k in times:
            times[k] += t[k]
        everything.extend(results)
        by_family[family].extend(results)
        _print_counts(f"{family} / {variant}", counts(results), t)
        for a in results:
            why = disagreement(a, "flexible")
            if why and any(why.startswith(f"[{k}]") for k in args.show):
                print(f"    {Path(a.file).parent.name}/{Path(a.file).name} #{a.instance_id}: {why}")
    for family, results in sorted(by_family.items()):
        _print_counts(f"{family} (all variants)", counts(results), {"strict": float("nan"), "flexible": float("nan")})
    _print_counts("overall", counts(everything), times)
    alike = [a for a in everything if a.flexible.ambiguous]
    print(f"flexible: {len(alike)} answers read several ways and judged, every reading judged alike "
          f"({sum(a.flexible.correct for a in alike)} of them correct)")
    ratio = times["flexible"] / times["strict"] if times["strict"] else float("nan")
    print(f"reading {len(everything)} answers: flexible {times['flexible']:.1f} s, strict {times['strict']:.1f} s "
          f"(flexible / strict = {ratio:.2f}); judging with both readers and the engine {times['judge']:.1f} s")
    return 0


def _print_counts(family: str, c: dict, t: dict) -> None:
    pb = c["planbench_correct"]
    for name in ("flexible", "strict"):
        x = c[name]
        rate = f"{x['planbench_correct_read_valid']}/{pb} ({x['planbench_correct_read_valid_rate']:.1%})" if pb else "-"
        classes = " ".join(str(x["disagreement_classes"][k]) for k in DISAGREEMENT_CLASSES)
        print(f"{family:56s} {name:8s} {c['answers']:7d} {x['read']:6d} {rate:>22s} {x['agreement']:7.1%}  "
              f"{x['disagreements']:4d}: {classes:24s} {t[name]:6.1f} s")


if __name__ == "__main__":
    raise SystemExit(main())
