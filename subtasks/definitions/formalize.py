"""Formalization (issue 44): the model writes the PDDL of a problem described to it, and the engine
decides whether it states the same problem (docs/formalization.md).

- ``formalize-problem``: given the domain file and a description of an instance (its objects,
  initial state with the static facts, and goal; in PDDL notation or in words, the NL templates the
  run uses), the model writes the whole problem file.
- ``formalize-goal``: given the domain file, the problem file without its goal (and, in words, which
  words name which object), and the goal described, the model writes the ``(:goal ...)``; it is
  judged as the given problem with that goal.

Truth: the instance's problem. The answer (a PDDL form, `pddl_domains.readers.pddl_text`) is judged
by `planners.equivalence.problem_equivalence` with at most `MAX_STATES` reachable states per problem.
Metrics, headline first:

- ``equivalent``: the candidate states the same problem (some type-respecting bijection of the
  objects maps the initial state and the reachable goal states onto the truth's);
- ``parses``: the engine reads and grounds the candidate (its faults, parse errors, unknown
  predicates, objects or types, wrong arities, another domain and PDDL beyond the engine's fragment,
  are 0);
- ``solvable``: the candidate's goal admits a reachable state (decided by breadth-first search on the
  candidate, up to `MAX_STATES` states).

A verdict that is not decided (``unknown`` past the bound, ``unsupported``) is counted apart, never
as right or wrong: ``equivalent`` counts one [right, n] per item, and an undecided item is [0, 0]
(likewise ``solvable``); each row says how many were undecided (``undecided``). An answer in which no
PDDL of the kind asked can be read is a parse error (counted in the row's ``parse_errors``) and
wrong on every metric. The error analysis counts the verdicts' classes and the atoms that differ.
"""

from __future__ import annotations

from widthbench.core.errors import ParseError
from widthbench.pddl_domains import obfuscate
from widthbench.planners.bfs import SearchLimit, shortest_plan
from widthbench.planners.equivalence import Equivalence, problem_equivalence, read_candidate
from widthbench.planners.problem_writer import task_problem_text, with_goal
from widthbench.planners.strips import goal_atoms
from widthbench.subtasks import answers, api
from widthbench.subtasks.definitions.shared import mean, pattern, result, simulated, text_tokens
from widthbench.subtasks.items import NotEnoughItems, base_item
from widthbench.subtasks.registry import COUNTS, PER_ITEM, Metric, SubTask

MAX_STATES = 200_000
UNDECIDED = ("unknown", "unsupported")


def _build(name: str):
    def build(pool, i, index, count, options):
        task = pool.task(i)
        if obfuscate.is_obfuscated(task):
            # a grouped run (--subtask all) leaves it out with this reason; asked by name, one line
            raise NotEnoughItems(f"{name} shows the domain file, which --obfuscate would have to rename as well; "
                                 "leave --obfuscate out of formalization runs")
        truth = {"problem": task_problem_text(task), "goal": goal_atoms(task)}
        return base_item(name, pool, i, index, state=task.init, truth=truth,
                         info={"objects": len(task.objects), "init_atoms": bin(task.init).count("1")
                               + len(task.static_atoms), "goal_atoms": len(truth["goal"])})
    return build


def judge(truth_task, text: str) -> tuple[Equivalence, list[int]]:
    """The verdict on a candidate problem text, and whether its goal admits a reachable state
    ([1, 1], [0, 1], or [0, 0] when the search passes `MAX_STATES`)."""
    candidate = read_candidate(truth_task.domain, text)
    if isinstance(candidate, Equivalence):
        return candidate, [0, 1]
    verdict = problem_equivalence(truth_task, candidate, max_states=MAX_STATES)
    if verdict.equivalent:
        return verdict, [1, 1]
    if verdict.reason == "unsolvable":
        return verdict, [0, 1]
    try:
        plan = shortest_plan(candidate, max_states=MAX_STATES).plan
    except SearchLimit:
        return verdict, [0, 0]
    return verdict, [int(plan is not None), 1]


def _score(candidate_text):
    def score(item, mode, outcomes):
        o = outcomes[0]
        if isinstance(o, ParseError):
            metrics = {"equivalent": [0, 1], "parses": 0, "solvable": [0, 1], "reason": None}
            return result(None, item.truth, False, metrics, str(o))
        verdict, solvable = judge(item.task, candidate_text(item, o.value))
        decided = verdict.equivalent is not None
        shown = verdict.to_json()
        shown["verdict"] = shown.pop("equivalent")  # True / False / None; the metric is the count below
        metrics = {**shown, "equivalent": [int(bool(verdict.equivalent)), int(decided)],
                   "parses": int(verdict.method != "read"), "solvable": solvable}
        return result(o.value, item.truth, bool(verdict.equivalent), metrics)
    return score


def _whole(item, text: str) -> str:
    return text


def _goal_only(item, text: str) -> str:
    return with_goal(task_problem_text(item.task, with_goal=False), text)


def row_extras(records, metric):
    if metric != "equivalent":
        return {}
    return {"undecided": sum(1 for r in records if r["metrics"].get("reason") in UNDECIDED),
            "mean_goal_atoms": mean(r["info"].get("goal_atoms") for r in records)}


def errors(record, bump):
    m = record["metrics"]
    reason = m.get("reason")
    if reason in (None, "equivalent"):
        return
    bump("undecided (class)" if reason in UNDECIDED else "not equivalent (class)", reason)
    for atom in m.get("missing") or ():
        bump("atoms the truth has and the answer lacks (predicate)", pattern(atom.replace("(not ", "(")))
    for atom in m.get("extra") or ():
        bump("atoms the answer has beyond the truth (predicate)", pattern(atom.replace("(not ", "(")))


def _tokens(item, style) -> int:
    return text_tokens(item.truth["problem"])


_METRICS = {"problem": (Metric("equivalent", "Formalize Problem Equivalent", 300, COUNTS),
                        Metric("parses", "Formalize Problem Parses", 301, PER_ITEM),
                        Metric("solvable", "Formalize Problem Solvable", 302, COUNTS)),
            "goal": (Metric("equivalent", "Formalize Goal Equivalent", 310, COUNTS),
                     Metric("parses", "Formalize Goal Parses", 311, PER_ITEM),
                     Metric("solvable", "Formalize Goal Solvable", 312, COUNTS))}

SUBTASKS = (
    SubTask(name="formalize-problem", build=_build("formalize-problem"),
            prompts=lambda item, mode: [api.formalize_problem_prompt(item.task, mode.style)],
            answer=answers.PDDL_PROBLEM, score=_score(_whole), metrics=_METRICS["problem"],
            row_extras=row_extras, errors=errors,
            simulate={"formalize_problem": simulated("formalize_problem")}, answer_tokens=_tokens),
    SubTask(name="formalize-goal", build=_build("formalize-goal"),
            prompts=lambda item, mode: [api.formalize_goal_prompt(item.task, mode.style)],
            answer=answers.PDDL_GOAL, score=_score(_goal_only), metrics=_METRICS["goal"],
            row_extras=row_extras, errors=errors,
            simulate={"formalize_goal": simulated("formalize_goal")}, answer_tokens=_tokens),
)
