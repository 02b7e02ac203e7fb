"""`--method cat`: Caterpillar of Thoughts (`searches.cat`)."""

from __future__ import annotations

from widthbench.searches.registry import SearchMethod, Setting, tree_outcome

# The search code is imported when the method runs (see searches/methods/tot.py).


async def run(problem, config, llm, hooks, rng):
    from widthbench.searches.cat import cat

    return tree_outcome(problem, *(await cat(problem, hooks, config, rng)))


METHODS = (SearchMethod(
    name="cat", label="CaT", order=40, run=run, help="Caterpillar of Thoughts",
    settings=(Setting("iterations", 40, config_field=True), Setting("cat_temperature", 1.0, config_field=True),
              Setting("max_states", 1000, config_field=True))),)
