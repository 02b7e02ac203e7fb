"""Successor-state mapping: the state after each applicable action of a state, asked in one prompt
(``successor-mapping``) or one prompt per action (``successor-separate``) (the paper, Table 1 rows 4-5).

Truth: the engine's successors. Metrics: ``exact`` (every action mapped exactly), ``per-action``
(n = actions). States are compared on fluent atoms (static facts are neither rewarded nor punished).
"""

from __future__ import annotations

from widthbench.core.errors import ParseError
from widthbench.planners import strips
from widthbench.subtasks import answers, api
from widthbench.subtasks.registry import COUNTS, Metric, SubTask
from widthbench.subtasks.definitions.shared import (actions_tokens, atoms, parse_error_result, pattern, result, simulated,
                                         state_tokens)
from widthbench.subtasks.items import base_item

METRICS = ("exact", "per-action")


def _build(subtask):
    def build(pool, i, index, count, options):
        task = pool.task(i)
        s, walk = pool.walk_state(i)
        acts = strips.applicable_actions(task, s)
        if not acts:
            return None
        truth = {str(a): strips.successor(s, a) for a in acts}
        return base_item(subtask, pool, i, index, state=s, actions=tuple(truth), truth=truth,
                         info={"walk_length": walk, "n_actions": len(acts)})

    return build


def _truth(item) -> dict:
    return {a: atoms(item.task, s) for a, s in item.truth.items()}


def mapping_prompts(item, mode):
    return [api.successor_mapping_prompt(item.task, item.state, item.actions, mode.style)]


def separate_prompts(item, mode):
    return [api.successor_prompt(item.task, item.state, a, mode.style) for a in item.actions]


def score_mapping(item, mode, outcomes):
    truth = _truth(item)
    n = len(item.truth)
    o = outcomes[0]
    if isinstance(o, ParseError):
        return parse_error_result(METRICS, truth, o, {"per-action": [0, n]})
    parsed = o.value
    right = [a for a, s in item.truth.items() if parsed.get(a) == s]
    exact = len(right) == n and set(parsed) == set(item.truth)
    return result({a: atoms(item.task, s) for a, s in parsed.items()}, truth, exact,
                  {"exact": int(exact), "per-action": [len(right), n]})


def score_separate(item, mode, outcomes):
    truth = _truth(item)
    parsed: dict = {}
    errors = []
    right = 0
    for a, o in zip(item.actions, outcomes):
        if isinstance(o, ParseError):
            errors.append(f"{a}: {o}")
            parsed[a] = None
            continue
        parsed[a] = atoms(item.task, o.value)
        right += o.value == item.truth[a]
    n = len(item.actions)
    exact = right == n
    return result(parsed, truth, exact, {"exact": int(exact), "per-action": [right, n], "parse_errors": len(errors)},
                  "; ".join(errors) if errors else None)


def mapping_tokens(item, style) -> int:
    """A correct mapping: each action, a label line and its resulting state."""
    return sum(actions_tokens(item.task, style, [a]) + state_tokens(item.task, style, t) + 32
               for a, t in item.truth.items())


def separate_tokens(item, style) -> int:
    return max(state_tokens(item.task, style, t) for t in item.truth.values())


def errors(record, bump):
    for action, want in record["truth"].items():
        got = record["parsed"].get(action)
        if got is None:
            bump("actions without a readable state", pattern(action))
            continue
        for x in sorted(set(want) - set(got)):
            bump("missing facts after action", f"{pattern(action, action)}: {pattern(x, action)}")
        for x in sorted(set(got) - set(want)):
            bump("wrong facts after action", f"{pattern(action, action)}: {pattern(x, action)}")


def _successor_subtask(name: str, title: str, order: int, *, prompts, answer, score, simulate: str,
                       answer_tokens) -> SubTask:
    """One of the two successor sub-tasks: the paper's exact-state metric titled ``title`` at table
    position ``order``, and its per-action count 80 after it."""
    return SubTask(name=name, build=_build(name), prompts=prompts, answer=answer, score=score,
                   metrics=(Metric("exact", title, order),
                            Metric("per-action", f"{title}, per action", order + 80, COUNTS)),
                   paper=True, errors=errors, simulate={simulate: simulated(simulate)}, answer_tokens=answer_tokens)


SUBTASKS = (
    _successor_subtask("successor-mapping", "Successor State Mapping", 40, prompts=mapping_prompts,
                       answer=answers.MAPPING, score=score_mapping, simulate="successor_mapping",
                       answer_tokens=mapping_tokens),
    _successor_subtask("successor-separate", "Successor State Mapping Separate", 50, prompts=separate_prompts,
                       answer=answers.STATE, score=score_separate, simulate="successor",
                       answer_tokens=separate_tokens),
)
