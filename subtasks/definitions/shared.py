"""Helpers shared by the sub-task modules: results, set scores, the parse-error result."""

from __future__ import annotations

from widthbench.core.errors import ParseError
from widthbench.planners import strips
from widthbench.llm import tokens


def atoms(task: strips.Task, state: int | None):
    return None if state is None else strips.state_atoms(task, state)


TOKEN_SAFETY = 1.5  # our word-piece count runs lower than real BPE counts on PDDL and names


def token_estimate(text: str) -> float:
    """Estimated tokens of a text: word pieces (`llm.tokens`) times TOKEN_SAFETY."""
    return tokens.count_tokens(text) * TOKEN_SAFETY


def text_tokens(text: str) -> int:
    """`token_estimate`, rounded up."""
    import math

    return math.ceil(token_estimate(text))


def actions_tokens(task: strips.Task, style: str, actions) -> int:
    """Estimated tokens of a list of actions written in ``style``, one per line."""
    from widthbench.subtasks import api

    return text_tokens(api.renderer(task, style).actions(actions))


def state_tokens(task: strips.Task, style: str, state: int) -> int:
    """Estimated tokens of a state written in ``style``, static facts included (a model may repeat them)."""
    from widthbench.subtasks import api

    return text_tokens(api.renderer(task, style).state(state))


def set_scores(predicted: set, truth: set) -> dict:
    hit = len(predicted & truth)
    precision = hit / len(predicted) if predicted else float(not truth)
    recall = hit / len(truth) if truth else float(not predicted)
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"precision": precision, "recall": recall, "f1": f1}


def result(parsed, truth, correct: bool, metrics: dict, parse_error: str | None = None) -> dict:
    return {"parsed": parsed, "truth": truth, "correct": bool(correct), "metrics": metrics,
            "parse_error": parse_error}


def parse_error_result(metric_names, truth, exc: ParseError, extra: dict | None = None) -> dict:
    metrics = {m: 0 for m in metric_names}
    metrics.update(extra or {})
    return result(None, truth, False, metrics, str(exc))


def first(outcomes):
    """The one outcome of a single-request item: its value, or raise its ParseError."""
    o = outcomes[0]
    if isinstance(o, ParseError):
        raise o
    return o.value


def mean(values) -> float | None:
    values = [v for v in values if v is not None]
    return round(sum(values) / len(values), 4) if values else None


def pattern(atom_or_action: str, action: str | None = None) -> str:
    """Abstract a PDDL text: the action's arguments become ?1 ?2 ..., other objects ?o."""
    name, *args = atom_or_action.strip("()").split()
    if action is None:
        return name
    a_args = action.strip("()").split()[1:]
    parts = [f"?{a_args.index(x) + 1}" if x in a_args else "?o" for x in args]
    return "(" + " ".join([name, *parts]) + ")"


def confusion(said: str, truth_set) -> str | None:
    """The paper's pick-up/unstack (and put-down/stack) confusion, if ``said`` is one."""
    name, *args = said.strip("()").split()
    for t in truth_set:
        tn, *targs = t.strip("()").split()
        if not args or not targs or args[0] != targs[0]:
            continue
        if (name, tn) in (("pick-up", "unstack"), ("unstack", "pick-up"), ("put-down", "stack"),
                          ("stack", "put-down")):
            return f"said {name} where {tn} was applicable"
    return None


def simulated(prompt_kind: str):
    """The simulated answer to a prompt kind, from the engine-backed simulator (bound at call time)."""

    def answer(q, mode, corrupt, rng):
        from widthbench.subtasks import sim_answers as engine_answers

        return engine_answers.ANSWERS[prompt_kind](q, mode, corrupt, rng)

    return answer
