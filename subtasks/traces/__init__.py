"""The reasoning-trace verifier (docs/traces.md): claims read from a model's thinking, judged on the
engine, the first error found, and per-cell aggregates.

Sentences and claims are read with the reader package's grammar (`widthbench.pddl_domains.readers`:
`discourse` for sentences, `mood` for the mood and time of a clause, `claims` for each sentence's
actions and facts); here:

- `verify`: the replay of the lines of reasoning on the engine (`verify_trace`);
- `aggregate`: per-cell summaries of many traces (`summarise_traces`);
- `injections`: a trace scored against the errors a simulated model put into its thinking;
- `sources`: traces read from a run's items.jsonl or a PlanBench result file; `report`: text lines.
"""

from widthbench.subtasks.traces.aggregate import summarise_traces
from widthbench.subtasks.traces.verify import verify_trace

__all__ = ["verify_trace", "summarise_traces"]
