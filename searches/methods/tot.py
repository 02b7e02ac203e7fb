"""`--method tot-bfs` and `tot-dfs`: Tree of Thoughts over the four hooks (`searches.tot`)."""

from __future__ import annotations

from widthbench.searches.registry import SearchMethod, Setting, tree_outcome

# The search code is imported when a method runs, not with its record: `solve`'s parser is built
# from the registry by every `widthbench` command (docs/design.md, "Imports").
SETTINGS = (Setting("max_depth", 8, config_field=True), Setting("branch_factor", 2, config_field=True),
            Setting("max_states", 1000, config_field=True))


async def run_bfs(problem, config, llm, hooks, rng):
    from widthbench.searches.tot import tot_bfs

    return tree_outcome(problem, *(await tot_bfs(problem, hooks, config)))


async def run_dfs(problem, config, llm, hooks, rng):
    from widthbench.searches.tot import tot_dfs

    return tree_outcome(problem, *(await tot_dfs(problem, hooks, config)))


METHODS = (
    SearchMethod(name="tot-dfs", label="DFS", order=10, run=run_dfs, settings=SETTINGS,
                 help="Tree of Thoughts, depth first"),
    SearchMethod(name="tot-bfs", label="BFS", order=20, run=run_bfs, settings=SETTINGS,
                 help="Tree of Thoughts, breadth first"),
)
