"""LLM tree searches over four interchangeable hooks (engine or LLM): ToT-BFS/DFS with novelty
pruning (the paper), dual-feedback MCTS (ToolTree), Caterpillar of Thoughts (Caterpillar of Thoughts), and the naive
whole-plan baseline. See docs/searches.md.

    from widthbench.searches import SearchConfig
    from widthbench.searches.solve_run import load_problems, solve
    summary = solve(SearchConfig(method="tot-dfs", novelty="llm"), load_problems("blocksworld", count=20),
                    open_model("sim:noisy:0.1"), "runs/x")
"""

from widthbench.searches.config import METHODS, SearchConfig

__all__ = ["METHODS", "SearchConfig"]
