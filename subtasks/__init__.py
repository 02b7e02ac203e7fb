"""widthbench.subtasks: the paper's sub-task evaluations against exact ground truth.

`api` (prompts and parsers, shared with the tree searches), `prompts` (templates under llm/prompts/),
`parse` (reading rules), `items` (seeded items with truths), `truth` (small exact computations),
`score` (asking and scoring one item), `run` (the resumable grid), `stats` (Wilson intervals,
plain and clustered by item), `sampled` (pass@k, pass^k, maj@k of repeated samples), `paired`
(paired tests, Holm, power), `compare` (two runs compared item by item; docs/compare.md),
`report` (tables, chart, error analysis), `simulate` (sim:oracle / sim:noisy:P / sim:random).
See docs/subtasks.md.
"""
