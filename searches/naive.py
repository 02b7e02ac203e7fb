"""The naive baseline (the paper): one prompt asks for the whole plan (Game of 24: the expression;
--tasks: the answer); the engine (or the exact-answer checker) judges it. No search, no hooks."""

from __future__ import annotations

from widthbench.core.errors import ParseError
from widthbench.searches.broker import LLM


async def naive(problem, llm: LLM) -> tuple[list | None, str | None, str | None]:
    """(plan, None, reply text), or (None, why the answer could not be read, reply text)."""
    reply = await llm.ask(problem.naive_messages(), "naive", state=getattr(problem, "initial", None))
    if reply.error is not None:
        return None, f"model call failed: {reply.error}", None
    try:
        return problem.parse_naive(reply.text or ""), None, reply.text
    except ParseError as exc:
        llm.unreadable("naive")
        return None, str(exc), reply.text
