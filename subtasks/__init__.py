"""widthbench.subtasks."""
