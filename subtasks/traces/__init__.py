"""The reasoning-trace verifier (docs/traces.md): claims read from a model's thinking, judged on the
engine, the first error found, and per-cell aggregates.

- `structure`: sentences and the words that mark restarts, retractions, hypotheticals, goals;
- `claims`: each sentence's claims (actions, facts, goal), each with its character span;
- `verify`: the replay of the lines of reasoning on the engine (`verify_trace`);
- `aggregate`: per-cell summaries of many traces (`summarise_traces`);
- `sources`: traces read from a run's items.jsonl or a PlanBench result file.
"""

from widthbench.subtasks.traces.aggregate import summarise_traces
from widthbench.subtasks.traces.verify import verify_trace

__all__ = ["verify_trace", "summarise_traces"]
