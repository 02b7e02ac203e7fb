"""`--method mcts`: Monte Carlo tree search with pre- and post-pruning (ToolTree; `searches.mcts`)."""

from __future__ import annotations

from widthbench.searches.registry import SearchMethod, Setting, tree_outcome

# The search code is imported when the method runs (see searches/methods/tot.py).


async def run(problem, config, llm, hooks, rng):
    from widthbench.searches.mcts import mcts

    return tree_outcome(problem, *(await mcts(problem, hooks, config, rng)))


METHODS = (SearchMethod(
    name="mcts", label="MCTS", order=30, run=run, help="Monte Carlo tree search (ToolTree)",
    settings=tuple(Setting(n, d, config_field=True) for n, d in (
        ("rollouts", 60), ("lam", 1.4), ("tau_pre", 0.3), ("tau_post", 0.4), ("patience", 10), ("max_states", 1000)))),)
