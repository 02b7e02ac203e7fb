"""widthbench.core: layer 0, what every layer may use: the one user-error type (`errors`), run files (`runfiles`) and the run store (`runstore`). Standard library only."""
