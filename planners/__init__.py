"""widthbench.planners."""
