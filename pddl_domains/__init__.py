"""widthbench.pddl_domains."""
