"""The results model of solve runs: a run's summary, computed here and nowhere else.

`summarise(items, config, model, simulated, source)` turns the instances of a solve run (one line
of items.jsonl each: the plan, its validation by the engine, the tree's counters and the tokens by
purpose) into RUN/summary.json (kind "solve"): solved/n, the means of states, pruned and dead
nodes, calls and tokens, per purpose, and the per-instance lists of Figure 3. `solve` writes it;
`widthbench report` (`widthbench.reports.search`, report.html) reads it, keyed by run.
"""

from __future__ import annotations

from widthbench.llm.types import mode_name
from widthbench.searches import unsolvable_verdict as unsolvable
from widthbench.searches.config import SearchConfig
from widthbench.subtasks.results.stats import cell_stats, progress_stats
from widthbench.subtasks.traces import summarise_traces


def _mean(xs) -> float | None:
    xs = list(xs)
    return round(sum(xs) / len(xs), 3) if xs else None


def summarise(items: list[dict], config: SearchConfig, model: str, simulated: bool,
              source: dict | None = None) -> dict:
    """The summary of a solve run's instances (see the module docstring)."""
    purposes: dict[str, dict] = {}
    for it in items:
        for purpose, t in it["tokens_by_purpose"].items():
            p = purposes.setdefault(purpose, {"calls": 0, "tokens": 0, "prompt": 0, "completion": 0, "thinking": 0})
            for k in p:
                p[k] += t.get(k, 0)
    n = len(items)
    for p in purposes.values():
        p["mean_tokens"] = round(p["tokens"] / n, 3) if n else None
    solved = sum(it["solved"] for it in items)
    # right answers: a valid plan on a solvable instance, no plan on a certified unsolvable one
    correct = sum(bool(it.get("correct", it["solved"])) for it in items)
    return {
        "kind": "solve",
        "simulated": simulated,
        "model": model,
        "label": config.label() + (" (simulated)" if simulated else ""),
        "config": config.to_dict(),
        "domain": items[0]["domain"] if items else None,
        "source": source or {},
        "n": n,
        "solved": solved,
        # solved/n's Wilson 95% interval, the one the paper's Tables 3-5 print (`stats.cell_stats`)
        "solved_ci": [(st := cell_stats(solved, n))["ci_low"], st["ci_high"]],
        "success_rate": round(correct / n, 4) if n else None,
        "correct": correct,
        **unsolvable.summary_counts(items),
        "plan_valid": sum(it["plan_valid"] for it in items),
        "goal_claimed": sum(it["goal_claimed"] for it in items),
        "false_goals": sum(it["goal_claimed"] and not it["solved"] for it in items),
        "mean_tokens": _mean(it["tokens"] for it in items),
        "mean_tokens_solved": _mean(it["tokens"] for it in items if it["solved"]),
        "mean_states": _mean(it["states_generated"] for it in items),
        "mean_pruned": _mean(it["states_pruned"] for it in items),
        "mean_dead": _mean(it["dead_nodes"] for it in items),
        "mean_calls": _mean(it["llm_calls"] for it in items),
        "total_tokens": sum(it["tokens"] for it in items),
        "total_calls": sum(it["llm_calls"] for it in items),
        "tokens_by_purpose": dict(sorted(purposes.items())),
        "wall_time_items": round(sum(it["wall_time"] for it in items), 3),
        "states_per_instance": [it["states_generated"] for it in items],
        "tokens_per_instance": [it["tokens"] for it in items],
        "traces": _traces(items, mode_name(config.thinking)),
        # partial credit of plan-producing methods on engine problems (planners.progress)
        **(progress_stats(it.get("progress") for it in items) if any("progress" in it for it in items) else {}),
    }


def _traces(items: list[dict], mode: str) -> dict | None:
    """The reasoning-trace aggregates (`subtasks.traces.summarise_traces`) of the calls' thinking,
    per purpose (a cell: purpose | mode) and for the run; None when no call held thinking."""
    records = [{"subtask": t["purpose"], "mode": mode, "trace": t}
               for it in items for t in it.get("trace") or () if t is not None]
    return summarise_traces(records) if records else None
