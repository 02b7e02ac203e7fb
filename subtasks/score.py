"""Asking items in one mode and scoring the replies symbolically.

`requests_for(item, mode)` builds the model requests of one item in one mode (one request, or one
per action for successor-separate); `score_item(item, mode, replies)` parses the replies and compares
them with the item's truth. Nothing is judged by a model. An answer that cannot be read is a parse
error: the item counts as wrong and the error is recorded apart.

Metrics (rows of the summary; the first of each sub-task is its headline):
  action-generation   exact (the set of applicable actions, headline), exact-no-noop (the same,
                      ignoring applicable actions whose successor is the state itself); precision,
                      recall and F1 per item
  action-single       valid (the action is applicable), optimal (it is in the optimal set)
  successor-*         exact (every action mapped exactly), per-action (n = actions)
  plan-verification   accuracy
  novelty*            accuracy
  novelty-estimate, width-estimate   exact; absolute error per item
"""

from __future__ import annotations

from dataclasses import dataclass

from widthbench.errors import ParseError
from widthbench.planners import strips
from widthbench.subtasks import api
from widthbench.subtasks.items import Item, derive_seed

METRICS = {
    "action-generation": ("exact", "exact-no-noop"),
    "action-single": ("valid", "optimal"),
    "successor-mapping": ("exact", "per-action"),
    "successor-separate": ("exact", "per-action"),
    "plan-verification": ("accuracy",),
    "novelty": ("accuracy",),
    "novelty-hard": ("accuracy",),
    "novelty-balanced": ("accuracy",),
    "novelty-estimate": ("exact",),
    "width-estimate": ("exact",),
}


@dataclass(frozen=True, slots=True)
class Mode:
    style: str  # "pddl" | "nl"
    thinking: bool
    extension: bool = False  # action-single only: the domain's prompt extension

    @property
    def label(self) -> str:
        return f"{self.style}/{'thinking' if self.thinking else 'normal'}" + ("/ext" if self.extension else "")


def prompts_for(item: Item, mode: Mode) -> list[list[dict]]:
    """The chat messages of each request of ``item`` in ``mode``."""
    t, s, st = item.task, item.state, mode.style
    k = item.subtask
    if k == "action-generation":
        return [api.action_generation_prompt(t, s, st)]
    if k == "action-single":
        return [api.next_action_prompt(t, s, st, extension=mode.extension)]
    if k == "successor-mapping":
        return [api.successor_mapping_prompt(t, s, item.actions, st)]
    if k == "successor-separate":
        return [api.successor_prompt(t, s, a, st) for a in item.actions]
    if k == "plan-verification":
        return [api.verification_prompt(t, item.plan, st)]
    if k in ("novelty", "novelty-hard", "novelty-balanced"):
        return [api.novelty_prompt(t, item.previous, s, st, width=item.width)]
    if k == "novelty-estimate":
        return [api.novelty_estimate_prompt(t, item.previous, s, st)]
    if k == "width-estimate":
        return [api.width_estimate_prompt(t, st)]
    raise ValueError(f"unknown sub-task {k!r}")


def requests_for(item: Item, mode: Mode, seed: int | None, max_tokens: int | None = None) -> list:
    """The requests of ``item`` in ``mode``; ``seed`` (the run seed) gives each request its own
    sampling seed, None sends none (the server samples freshly; the reply cache still makes reruns
    repeat the same answers)."""
    from widthbench.llm import Request

    return [Request(messages=m, thinking=mode.thinking, purpose=item.subtask, max_tokens=max_tokens,
                    seed=None if seed is None else derive_seed(seed, item.id, n) % 2**31)
            for n, m in enumerate(prompts_for(item, mode))]


# ---------------------------------------------------------------------------------------------
# Scoring


def _atoms(task: strips.Task, state: int | None):
    return None if state is None else strips.state_atoms(task, state)


def _set_scores(predicted: set, truth: set) -> dict:
    hit = len(predicted & truth)
    precision = hit / len(predicted) if predicted else float(not truth)
    recall = hit / len(truth) if truth else float(not predicted)
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"precision": precision, "recall": recall, "f1": f1}


def score_item(item: Item, mode: Mode, texts: list[str]) -> dict:
    """{"parsed", "truth", "correct", "metrics", "parse_error"}: JSON-ready. ``metrics`` maps every
    metric of the sub-task to 0/1 (per-action: [correct, total]) plus per-item extras."""
    fn = _SCORERS[item.subtask]
    return fn(item, mode, texts)


def _parse_error_result(item: Item, truth, exc: ParseError, extra: dict | None = None) -> dict:
    metrics = {m: 0 for m in METRICS[item.subtask]}
    metrics.update(extra or {})
    return {"parsed": None, "truth": truth, "correct": False, "metrics": metrics, "parse_error": str(exc)}


def _action_generation(item, mode, texts):
    truth = set(item.truth)
    noops = set(item.info.get("noops", ()))
    try:
        parsed = api.parse_action_list(item.task, texts[0], mode.style)
    except ParseError as exc:
        zero = {"precision": 0.0, "recall": 0.0, "f1": 0.0}
        return _parse_error_result(item, sorted(truth), exc, zero)
    pred = set(parsed)
    metrics = {"exact": int(pred == truth), "exact-no-noop": int(pred - noops == truth - noops),
               **_set_scores(pred, truth), "wrong": sorted(pred - truth), "missing": sorted(truth - pred)}
    return {"parsed": parsed, "truth": sorted(truth), "correct": bool(metrics["exact"]),
            "metrics": metrics, "parse_error": None}


def _action_single(item, mode, texts):
    truth = item.truth
    try:
        a = api.parse_single_action(item.task, texts[0], mode.style)
    except ParseError as exc:
        return _parse_error_result(item, truth, exc)
    valid = a in truth["applicable"]
    optimal = a in truth["optimal"]
    return {"parsed": a, "truth": truth, "correct": optimal,
            "metrics": {"valid": int(valid), "optimal": int(optimal)}, "parse_error": None}


def _successor_truth(item) -> dict:
    return {a: _atoms(item.task, s) for a, s in item.truth.items()}


def _successor_mapping(item, mode, texts):
    truth = _successor_truth(item)
    n = len(item.truth)
    try:
        parsed = api.parse_successor_mapping(item.task, texts[0], mode.style, item.actions)
    except ParseError as exc:
        return _parse_error_result(item, truth, exc, {"per-action": [0, n]})
    right = [a for a, s in item.truth.items() if parsed.get(a) == s]
    exact = len(right) == n and set(parsed) == set(item.truth)
    return {"parsed": {a: _atoms(item.task, s) for a, s in parsed.items()}, "truth": truth, "correct": exact,
            "metrics": {"exact": int(exact), "per-action": [len(right), n]}, "parse_error": None}


def _successor_separate(item, mode, texts):
    truth = _successor_truth(item)
    parsed: dict = {}
    errors = []
    right = 0
    for a, text in zip(item.actions, texts):
        try:
            s = api.parse_successor(item.task, text, mode.style)
        except ParseError as exc:
            errors.append(f"{a}: {exc}")
            parsed[a] = None
            continue
        parsed[a] = _atoms(item.task, s)
        right += s == item.truth[a]
    n = len(item.actions)
    exact = right == n
    return {"parsed": parsed, "truth": truth, "correct": exact,
            "metrics": {"exact": int(exact), "per-action": [right, n], "parse_errors": len(errors)},
            "parse_error": "; ".join(errors) if errors else None}


def _verdict(parser):
    def score(item, mode, texts):
        try:
            v = parser(texts[0])
        except ParseError as exc:
            return _parse_error_result(item, item.truth, exc)
        ok = v == item.truth
        return {"parsed": v, "truth": item.truth, "correct": ok, "metrics": {"accuracy": int(ok)},
                "parse_error": None}

    return score


def _integer(item, mode, texts):
    try:
        v = api.parse_integer(texts[0])
    except ParseError as exc:
        return _parse_error_result(item, item.truth, exc)
    ok = v == item.truth
    return {"parsed": v, "truth": item.truth, "correct": ok,
            "metrics": {"exact": int(ok), "abs_error": abs(v - item.truth)}, "parse_error": None}


_SCORERS = {
    "action-generation": _action_generation,
    "action-single": _action_single,
    "successor-mapping": _successor_mapping,
    "successor-separate": _successor_separate,
    "plan-verification": _verdict(api.parse_verdict),
    "novelty": _verdict(api.parse_novelty),
    "novelty-hard": _verdict(api.parse_novelty),
    "novelty-balanced": _verdict(api.parse_novelty),
    "novelty-estimate": _integer,
    "width-estimate": _integer,
}
