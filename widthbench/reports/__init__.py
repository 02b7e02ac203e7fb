"""Reports of finished runs: the top layer (it may import any package; none imports it).

- `widthbench.reports.search` — solve runs: the paper's Table 3/4 layout and Figures 2-3 (markdown,
  CSV, PNG).
- `widthbench.reports.html` — one self-contained report.html for score and solve runs, one or
  several side by side (docs/report.md).
- `widthbench.reports.compare_tables` — compare.md, compare.csv and compare.tex of two runs compared item
  by item (the rows: `widthbench.subtasks.results.comparison`; docs/compare.md).

Score runs' markdown tables and error analysis live in `widthbench.subtasks.results.tables`. Every writer
takes the runs loaded once by `widthbench.subtasks.results.loader.load_runs` (each labelled by how its
identity differs from the others'), and keys its tables, csvs and charts by that label.
"""
