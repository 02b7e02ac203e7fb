"""widthbench.subtasks.planbench: PlanBench's result files re-judged on the engine (`widthbench rescore planbench`)."""
