"""Per-cell aggregates of verified traces (docs/traces.md, "Aggregates").

`summarise_traces(records)` reads records that carry a ``trace`` field (`verify.verify_trace`) and
groups them by cell: the record's ``subtask`` and ``mode`` (a PlanBench entry: its task and
"planbench"). Per cell and for the whole run:

- ``traces``, ``with_error`` and ``share_with_error`` (a first error found);
- ``state_tracking_accuracy``: facts judged right / facts judged (withdrawn ones left out);
- ``coverage``: the mean share of a trace's sentences that yielded a claim;
- ``error_start_by_step``: how many first errors came after 0, 1, 2, ... actions of their line;
- ``first_error_kinds``: first errors by kind; ``initial_state_no_action``: first errors of kind
  "initial-state" with no action applied before them (a claim about the state the trace starts from);
- ``recovered`` (a first error, yet the final answer right), ``carried`` (a first error and the final
  answer wrong), ``unknown_verdict`` (a first error, no verdict given), and ``wrong_without_error``
  (the answer wrong with no error found in the thinking);
- ``unjudged_unknown_words``: claims left unjudged because their sentence holds words the verifier
  does not know, and ``unknown_words``: those words, the 20 found in most traces (word -> traces);
- ``injections`` (only when the records say what a simulated model injected into its thinking):
  `injections.summary` of each trace's `injections.outcome`.
"""

from __future__ import annotations

from collections import Counter

from widthbench.core.runstore import RunStore

from widthbench.subtasks.traces import injections


def cell_of(record: dict) -> str:
    sub = record.get("subtask") or record.get("task") or "traces"
    mode = record.get("mode") or ("planbench" if "instance_id" in record and "subtask" not in record else "")
    return f"{sub} | {mode}" if mode else str(sub)


def _summary(traces: list[dict], outcomes: list[dict]) -> dict:
    with_error = [t for t in traces if t.get("first_error")]
    right = wrong = 0
    for t in traces:
        for c in t.get("claims", ()):
            if c.get("kind") == "fact":
                right += c.get("verdict") == "right"
                wrong += c.get("verdict") == "wrong"
    steps = Counter(len(t["first_error"].get("actions", ())) for t in with_error)
    unknown = Counter(w for t in traces for w in t.get("unknown_words", ()))
    kinds = Counter(t["first_error"]["kind"] for t in with_error)
    return {
        "traces": len(traces),
        "with_error": len(with_error),
        "share_with_error": round(len(with_error) / len(traces), 4) if traces else None,
        "claims": sum(len(t.get("claims", ())) for t in traces),
        "checked": sum(t.get("checked", 0) for t in traces),
        "facts_judged": right + wrong,
        "state_tracking_accuracy": round(right / (right + wrong), 4) if right + wrong else None,
        "coverage": round(sum(t.get("coverage", 0.0) for t in traces) / len(traces), 4) if traces else None,
        "error_start_by_step": {str(k): steps[k] for k in sorted(steps)},
        "first_error_kinds": dict(sorted(kinds.items())),
        "initial_state_no_action": sum(1 for t in with_error if t["first_error"]["kind"] == "initial-state"
                                       and not t["first_error"].get("actions")),
        "recovered": sum(1 for t in with_error if t.get("final_answer_correct") is True),
        "carried": sum(1 for t in with_error if t.get("final_answer_correct") is False),
        "unknown_verdict": sum(1 for t in with_error if t.get("final_answer_correct") is None),
        "wrong_without_error": sum(1 for t in traces if not t.get("first_error")
                                   and t.get("final_answer_correct") is False),
        "unjudged_unknown_words": sum(1 for t in traces for c in t.get("claims", ()) if c.get("context") == "unknown-words"),
        "unknown_words": dict(sorted(unknown.items(), key=lambda kv: (-kv[1], kv[0]))[:20]),
        **({"injections": injections.summary(outcomes)} if outcomes else {}),
    }


def traces_of(rec: dict) -> list[tuple[dict, list | None]]:
    """(trace, what a simulated model injected into that thinking or None) of each reply of a record:
    a record of several requests (successor-separate) holds a list of traces and one of injections;
    a solve call's trace carries its own ``injected``."""
    t, inj = rec.get("trace"), rec.get("injected")
    pairs = list(zip(t, inj if isinstance(inj, list) else [None] * len(t))) if isinstance(t, list) else [(t, inj)]
    return [(one, one.get("injected", i)) for one, i in pairs if isinstance(one, dict)]


def summarise_traces(records) -> dict:
    """``{"cells": {cell: summary}, "run": summary}`` over the records that hold a ``trace`` field
    (the summary's keys: module docstring)."""
    cells: dict[str, list[tuple]] = {}
    every = []
    for rec in records:
        for one, inj in traces_of(rec):
            got = (one, injections.outcome(one, inj))
            cells.setdefault(cell_of(rec), []).append(got)
            every.append(got)

    def summary(pairs):
        return _summary([t for t, _ in pairs], [o for _, o in pairs if o is not None])

    return {"cells": {k: summary(v) for k, v in sorted(cells.items())}, "run": summary(every)}


def write_traces(out, records: list[dict], summary: dict, identity: dict):
    """A `traces --out` folder through the run store (kind "traces"): traces.jsonl, one record per
    trace, and summary.json. The folder is made whole each time (its records are recomputed, never
    resumed); a folder holding another kind of run is refused in one line."""
    store = RunStore.open(out, kind="traces", identity=identity, replace=True)
    store.clear()
    store.append(records)
    store.finish(summary)
    return store.path
