"""widthbench.subtasks.results.rows: the results model of runs: summary rows, loaded runs, statistics, comparisons, difficulty, tables."""
