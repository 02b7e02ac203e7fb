"""widthbench: LLM planning sub-tasks scored against exact classical-planning ground truth."""

__version__ = "0.1.0"
