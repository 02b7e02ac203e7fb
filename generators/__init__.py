"""widthbench.generators."""
