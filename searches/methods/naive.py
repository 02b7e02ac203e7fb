"""`--method naive`: the paper's baseline, one prompt for the whole plan (`searches.naive`)."""

from __future__ import annotations

from widthbench.searches.registry import Outcome, SearchMethod

# The search code is imported when a method runs, not with its record: `solve`'s parser is built
# from the registry by every `widthbench` command (docs/design.md, "Imports").


async def run(problem, config, llm, hooks, rng) -> Outcome:
    from widthbench.searches.naive import naive

    plan, error, reply_text = await naive(problem, llm)
    check = problem.check(plan) if plan is not None else {"plan_valid": False, "solved": False, "reason": error}
    return Outcome(plan, check, plan is not None, reply_text=reply_text)


METHODS = (SearchMethod(name="naive", label="Naive", order=50, run=run, tree=False,
                        help="one prompt asks for the whole plan; the engine judges it"),)
