"""widthbench.subtasks.harness: the sub-tasks in evaluation harnesses: frozen item sets, lm-eval and inspect_ai exports and tasks, harness logs read back as runs."""
