"""Benchmark: verifying DeepSeek-R1's 100 reasoning traces on 3-block Blocksworld (~1,500 reasoning
tokens each) with the trace verifier, against reading the same 100 final answers with the flexible
plan reader (its peer: the same reader package over the same task), measured in the same run.

Budget (issue 30): 100 traces in at most 10 s. CPU time (`time.process_time`), best of --repeat,
the tasks loaded once before timing and each trace verified on a fresh copy of its task (no reader
cached from an earlier round), so the first build of each task's grammar is counted.

    .venv/bin/python scripts/bench_traces.py
    .venv/bin/python scripts/bench_traces.py --file RESULTS.json --instances DIR --repeat 3
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import time
from pathlib import Path

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
FILE = DATA / ("planbench-responses/llm_planning_analysis/results/blocksworld_3/deepseek-r1-api/"
               "task_1_plan_generation_zero_shot.json")
INSTANCES = DATA / "planbench/llm_planning_analysis/instances/blocksworld/generated_basic_3"


def main() -> None:
    from widthbench.core.errors import ParseError
    from widthbench.planners.strips import load_task
    from widthbench.subtasks import flexible
    from widthbench.subtasks.traces import verify_trace
    from widthbench.subtasks.traces.sources import thinking_of

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--file", default=str(FILE))
    p.add_argument("--instances", default=str(INSTANCES))
    p.add_argument("--domain", default="blocksworld")
    p.add_argument("--repeat", type=int, default=3)
    args = p.parse_args()
    data = json.loads(Path(args.file).read_text(encoding="utf-8"))
    entries = []
    for inst in data["instances"]:
        text, _ = thinking_of(inst)
        if text:
            task = load_task(args.domain, Path(args.instances) / f"instance-{inst['instance_id']}.pddl")
            entries.append((task, text, inst.get("llm_raw_response") or ""))
    chars = sum(len(t) for _, t, _ in entries)

    def fresh(task):
        return dataclasses.replace(task)  # a new `views` dict: no reader kept from a round before

    def verify() -> float:
        tasks = [fresh(t) for t, _, _ in entries]
        start = time.process_time()
        for task, (_, text, _) in zip(tasks, entries):
            verify_trace(task, text, style="nl", templates="planbench")
        return time.process_time() - start

    def read_answers() -> float:
        tasks = [fresh(t) for t, _, _ in entries]
        start = time.process_time()
        for task, (_, _, answer) in zip(tasks, entries):
            try:
                flexible.read_plan(task, answer, "nl", "planbench")
            except ParseError:
                pass
        return time.process_time() - start

    verify(), read_answers()  # warm-up: imports, compiled expressions
    v = min(verify() for _ in range(args.repeat))
    r = min(read_answers() for _ in range(args.repeat))
    print(f"{len(entries)} traces ({chars} characters, ~{chars // 4} tokens): verify_trace {v:.2f} s "
          f"({1000 * v / len(entries):.1f} ms per trace); flexible plan reader on the final answers {r:.2f} s; "
          f"ratio {v / r:.1f}x; budget 10 s for 100 traces: {'met' if v * 100 / len(entries) <= 10 else 'NOT met'}")


if __name__ == "__main__":
    main()
