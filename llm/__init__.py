"""widthbench.llm."""
