"""Built-in sub-tasks: one module each (a family may share one), each defining ``SUBTASKS``.

See `widthbench.subtasks.registry` and docs/design.md ("Adding a sub-task").
"""
