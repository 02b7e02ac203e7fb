"""Re-judging PlanBench result files with the engine and both readers (`widthbench rescore planbench`).

A PlanBench result file (``{"task", "domain", "instances": [...]}``, one answer per instance with
``instance_id``, ``query``, ``llm_raw_response`` and PlanBench's verdict) is read with

- ``strict``: today's rules -- the answer section (`parse.answer_section`) read by
  ``Renderer(task, style, "planbench")`` (``parse_plan``, ``parse_state``) or `parse.parse_verdict`;
- ``flexible``: `widthbench.subtasks.flexible` with the "planbench" template set;

and judged on the engine. ``valid`` means the answer is right on the engine: for plan generation
(task 1) the plan reaches the goal; for plan verification (task 3) the verdict equals the engine's
verdict on the plan of the query; for plan execution (task 7) the state equals the engine's state
after the action sequence of the query. An unread answer has ``valid = None`` and counts as wrong.
Agreement compares "read and valid" with PlanBench's verdict. Each disagreement has one class
(`DISAGREEMENT_CLASSES`): PlanBench's reading differs from ours (both shown), the same reading with
another verdict (the engine versus PlanBench's VAL), unread by us, unread by PlanBench; PlanBench's
reading is compared whether it stored it as a list or as text (`planbench_reading`).

Instances: ``instance-N.pddl`` in a folder that also holds (or whose parent holds) the domain file
(PlanBench's ``generated_basic`` layout: ``<domain>/generated_domain.pddl`` beside
``<domain>/generated_basic/``), or PlanBench's ``instances`` folder holding ``<domain>/generated_basic``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable

from widthbench.core.errors import ParseError, UserError
from widthbench.pddl_domains.readers import impossible, judged_alike
from widthbench.pddl_domains.readers.reply import reply_text
from widthbench.pddl_domains.render import Renderer
from widthbench.planners.bfs import shortest_plan
from widthbench.planners.problem_reader import read_problem
from widthbench.planners.strips import Task, execute_plan
from widthbench.subtasks import flexible
from widthbench.subtasks import strict as strict_parse
from widthbench.subtasks.planbench.files import ResultFile, Round, planbench_verdict, rounds_of, thinking_of
from widthbench.subtasks.planbench.problems import Instances, query_problem_text, query_style
from widthbench.subtasks.traces import verify_trace

READERS = ("strict", "flexible")


@dataclass(frozen=True, slots=True)
class ReaderResult:
    read: bool
    valid: bool | None  # None when the answer was not read (or nothing could be judged)
    reason: str
    value: Any = field(default=None, compare=False)  # the reading (plan list, state atoms, verdict)
    span: tuple[int, int] | None = None
    rule: str | None = None
    ambiguous: tuple = ()  # the other readings of an answer whose readings all got the same verdict

    @property
    def correct(self) -> bool:
        return bool(self.read and self.valid)


@dataclass(frozen=True, slots=True)
class AnswerResult:
    file: str
    instance_id: int
    task: str
    planbench_correct: bool
    strict: ReaderResult
    flexible: ReaderResult
    planbench_reading: Any = None
    # the reasoning-trace check of the entry's thinking (`thinking_of`; docs/traces.md), or None
    trace: dict | None = field(default=None, compare=False)
    # a back-prompting entry's rounds, in order (`_round_record`: the last is the answer above); ()
    # for a one-answer entry
    rounds: tuple = field(default=(), compare=False)

    @property
    def first_success_round(self) -> int | None:
        """The first round whose plan is read and valid on the engine (1-based), None if none is."""
        return next((x["round"] for x in self.rounds if x["read"] and x["valid"]), None)

    @property
    def planbench_first_success_round(self) -> int | None:
        """The first round PlanBench judged valid, None if none."""
        return next((x["round"] for x in self.rounds if x["planbench_valid"]), None)

    def record(self) -> dict:
        out = {"file": self.file, "instance_id": self.instance_id, "task": self.task,
               "planbench_correct": self.planbench_correct}
        for name in READERS:
            r: ReaderResult = getattr(self, name)
            rec = {"read": r.read, "valid": r.valid, "reason": r.reason}
            if r.value is not None:
                rec["value"] = r.value
            if r.rule is not None:
                rec["span"], rec["rule"] = list(r.span), r.rule
            if r.ambiguous:
                rec["ambiguous"] = [list(v) if isinstance(v, (list, tuple)) else v for v in r.ambiguous]
            out[name] = rec
        if self.trace is not None:
            out["trace"] = self.trace
        if self.rounds:
            out["rounds"] = list(self.rounds)
            out["first_success_round"] = self.first_success_round
            out["planbench_first_success_round"] = self.planbench_first_success_round
        return out


# ---------------------------------------------------------------------------------------------
# Judging one answer


def _last_block(query: str, opening: str, closing: str) -> str | None:
    m = None
    for m in re.finditer(rf"\[{opening}\](.*?)\[{closing}\]", query or "", re.S | re.I):
        pass
    return m.group(1) if m else None


def _error(exc: Exception) -> ReaderResult:
    return ReaderResult(False, None, f"parse error: {exc}")


def _each_reader(strict, flexible_read, judged, verdict=None) -> dict[str, ReaderResult]:
    """Each reader's result: ``strict()`` gives the strict reading, ``flexible_read()`` the
    flexible `Reading`; ``judged(value)`` -> (valid, reason, value shown). ``verdict(value)``: what
    counts as the same verdict, for a flexible reading that is ambiguous (`readers.judged_alike`:
    readings judged alike are judged, the others recorded in ``ambiguous``; the strict reader never
    reads an ambiguous answer)."""
    results = {}
    for name in READERS:
        ambiguous = ()
        try:
            if name == "strict":
                value, span, rule = strict(), None, None
            else:
                got = judged_alike(flexible_read, verdict) if verdict else flexible_read()
                value, span, rule, ambiguous = got.value, got.span, got.rule, got.ambiguous
        except ParseError as exc:
            results[name] = _error(exc)
            continue
        valid, reason, shown = judged(value)
        if ambiguous:
            reason += f" (every one of its {len(ambiguous) + 1} readings is judged so)"
        results[name] = ReaderResult(True, valid, reason, shown, span, rule, ambiguous)
    return results


def plan_verdict(task: Task, plan: list[str]) -> tuple:
    """What counts as the same verdict on a plan: valid, or invalid at the same first failing step
    (a step not applicable, or the goal not reached after the last step)."""
    result = execute_plan(task, plan)
    if result.valid:
        return ("valid",)
    return ("invalid", result.failed_step if result.failed_step is not None else f"goal after step {len(plan)}")


def _judge_plan(task: Task, plan: list[str]) -> tuple[bool, str]:
    result = execute_plan(task, plan)
    return result.valid, ("the plan reaches the goal" if result.valid else result.reason())


def judge(rf: ResultFile, inst: dict, instances: Instances,
          declares_impossible: Callable[[str], bool] | None = None) -> AnswerResult:
    """Judge one answer with both readers. ``declares_impossible(reply)`` (optional): True when the
    reply declares that no plan exists; it judges answers on unsolvable tasks that offer no plan
    (without it such answers are unread, "not judged")."""
    iid = int(inst["instance_id"])
    problem = instances.problem(rf, inst)
    task, templates = problem.task, problem.templates
    raw = inst.get("llm_raw_response") or ""
    style = query_style(inst.get("query", ""))
    r = Renderer(task, style, templates)
    if not problem.from_query:
        _check_instance(rf, iid, task, r, inst.get("query", ""))
    query = inst.get("query", "")
    rounds = ()
    if rf.task == "plan-generation":
        solvable = _solvable(task) if _maybe_unsolvable(rf, inst) else True
        results = _plan_results(task, r, templates, raw, solvable, declares_impossible)
        said = rounds_of(inst)
        if said:  # a back-prompting conversation: every round judged (its last is the answer above)
            rounds = tuple(_round_record(n, rd, results["flexible"] if n == len(said) else
                                         _plan_results(task, r, templates, rd.answer, solvable,
                                                       declares_impossible)["flexible"])
                           for n, rd in enumerate(said, start=1))
    elif rf.task == "plan-verification":
        truth, why_truth = _query_plan_truth(task, r, query)

        def judged(verdict):
            if truth is None:
                return None, why_truth, verdict
            said = "valid" if verdict else "invalid"
            return verdict == truth, f"the answer says {said}; engine: {why_truth}", verdict

        results = _each_reader(lambda: strict_parse.parse_verdict(raw), lambda: flexible.read_verdict(raw), judged)
    else:
        truth, why_truth = _query_state_truth(task, r, query)

        def judged(state):
            atoms = [task.atoms[i] for i in range(task.n_atoms) if state >> i & 1]
            if truth is None:
                return None, why_truth, atoms
            if state == truth:
                return True, "the state equals the engine's", atoms
            missing = [task.atoms[i] for i in range(task.n_atoms) if (truth & ~state) >> i & 1]
            extra = [task.atoms[i] for i in range(task.n_atoms) if (state & ~truth) >> i & 1]
            return False, f"missing {' '.join(missing) or 'none'}; wrong {' '.join(extra) or 'none'}", atoms

        results = _each_reader(lambda: r.parse_state(strict_parse.answer_section(raw)),
                               lambda: flexible.read_state(task, raw, style, templates), judged,
                               lambda state: None if truth is None else state == truth)
    thinking, _ = thinking_of(inst)
    trace = None
    if thinking is not None:  # the thinking checked on the engine, beside the flexible reader's verdict
        flex = results["flexible"]
        trace = verify_trace(task, thinking, style=style, templates=templates,
                             final_answer_correct=flex.correct if flex.read and flex.valid is not None else None)
    return AnswerResult(rf.path, iid, rf.task, bool(planbench_verdict(inst)), results["strict"],
                        results["flexible"], inst.get("extracted_llm_plan"), trace, rounds)


def _plan_results(task: Task, r: Renderer, templates: str, raw: str, solvable: bool,
                  declares_impossible=None) -> dict[str, ReaderResult]:
    """Both readers' results on a plan-generation answer (``solvable``: whether the task has a plan)."""

    def judged(plan):
        if not solvable:
            return False, "the task has no plan (the engine exhausted its states); the answer offers one", plan
        ok, why = _judge_plan(task, plan)
        return ok, why, plan

    results = _each_reader(lambda: r.parse_plan(strict_parse.answer_section(raw)),
                           lambda: flexible.read_plan(task, raw, r.style, templates), judged,
                           (lambda plan: plan_verdict(task, plan)) if solvable else (lambda plan: bool(plan)))
    if not solvable:
        results = {k: _unsolvable_result(v, raw, declares_impossible) for k, v in results.items()}
    return results


def _round_record(n: int, rd: Round, flex: ReaderResult) -> dict:
    """One judged back-prompting round (the flexible reader's reading and the engine's verdict)."""
    return {"round": n, "plan": list(flex.value) if flex.read and flex.value is not None else None,
            "read": flex.read, "valid": flex.valid, "reason": flex.reason, "feedback": rd.feedback,
            "planbench_valid": rd.planbench_valid}


UNSOLVABLE_STATE_LIMIT = 2_000_000  # states a breadth-first search may visit to certify "no plan"


def _maybe_unsolvable(rf: ResultFile, inst: dict) -> bool:
    """Whether to ask the engine if the task has a plan at all: PlanBench's unsolvable sets (by their
    variant's name) or a ground truth that is not a plan."""
    gt = inst.get("ground_truth_plan")
    return "unsolvable" in (rf.variant + " " + rf.domain).lower() or (isinstance(gt, str) and "(" not in gt)


def _solvable(task: Task) -> bool:
    return shortest_plan(task, max_states=UNSOLVABLE_STATE_LIMIT).plan is not None


def declares_no_plan(raw: str) -> bool:
    """Whether an answer (its thinking left out) declares that no plan exists
    (`pddl_domains.readers.impossible`, the reader plan generation uses)."""
    return bool(impossible.declarations(reply_text(raw or "")))


def _unsolvable_result(r: ReaderResult, raw: str, declares_impossible=None) -> ReaderResult:
    """An answer on an unsolvable task: an offered plan is wrong (already judged so); an answer with no
    plan is right when it declares that no plan exists (``declares_impossible``, default
    `declares_no_plan`)."""
    if r.read and r.value:
        return r
    declares_impossible = declares_impossible or declares_no_plan
    try:
        says_no = declares_impossible(raw)
    except ParseError as exc:
        return _error(exc)
    if says_no:
        return ReaderResult(True, True, "the task has no plan and the answer says so", [])
    return ReaderResult(False, None, "unsolvable task: the answer offers no plan and does not say none exists")


def _check_instance(rf: ResultFile, iid: int, task: Task, r: Renderer, query: str) -> None:
    """The initial state the query states must be the instance's (else the --instances folder is wrong)."""
    stated = None
    if r.style == "pddl":
        problem = query_problem_text(query)
        read = read_problem(problem.lower()) if problem is not None else None
        if read is not None:
            fluent = {"(" + " ".join((name, *args)) + ")" for name, args in read[3]} & set(task.atoms)
            stated = sum(1 << task.atom_index[a] for a in fluent)
    else:
        m = None
        for m in re.finditer(r"as initial conditions i have that,?(.*)", query, re.I):
            pass
        if m:
            try:
                stated = r.parse_state(m.group(1).strip().rstrip("."))
            except ParseError:
                stated = None
    if stated is not None and stated != task.init:
        raise UserError(f"{rf.path}: instance {iid}: the initial state of the query is not that of "
                        f"{task.problem_name} in --instances (wrong instance folder?)")


def _query_actions(r: Renderer, query: str, start: str, end: str, what: str, marker: str):
    """(the actions of the query's last ``marker`` block, None) or (None, why not)."""
    block = _last_block(query, start, end)
    if block is None:
        return None, f"no [{marker}] block in the query"
    try:
        return r.parse_plan(block), None
    except ParseError as exc:
        return None, f"cannot read the {what} of the query: {exc}"


def _query_plan_truth(task: Task, r: Renderer, query: str) -> tuple[bool | None, str]:
    plan, why = _query_actions(r, query, r"(?:query_)?plan", r"(?:query_)?plan[ _]end", "plan", "PLAN")
    if plan is None:
        return None, why
    return _judge_plan(task, plan)


def _query_state_truth(task: Task, r: Renderer, query: str) -> tuple[int | None, str]:
    plan, why = _query_actions(r, query, r"action sequence", r"action sequence end", "action sequence",
                               "ACTION SEQUENCE")
    if plan is None:
        return None, why
    result = execute_plan(task, plan)
    if result.failed_step is not None:
        return None, f"the action sequence of the query is not executable: {result.reason()}"
    return result.states[-1], "state after the action sequence"


# ---------------------------------------------------------------------------------------------
# Disagreements and counts


#: The classes of a disagreement between a reader and PlanBench's verdict, in the order printed.
DISAGREEMENT_CLASSES = ("planbench-reading-differs", "same-reading-other-verdict", "unread-by-us",
                        "unread-by-planbench")


def disagreement_class(a: AnswerResult, reader: str = "flexible") -> str | None:
    """The class of ``reader``'s disagreement with PlanBench on ``a`` (`DISAGREEMENT_CLASSES`), or None
    when they agree: PlanBench read nothing (``unread-by-planbench``), we read nothing
    (``unread-by-us``), both read and the readings differ (``planbench-reading-differs``), or both
    read the same and the verdicts differ (engine versus VAL: ``same-reading-other-verdict``)."""
    r: ReaderResult = getattr(a, reader)
    if r.correct == a.planbench_correct:
        return None
    if not r.read:
        return "unread-by-us"
    theirs = planbench_reading(a.task, a.planbench_reading)
    if theirs is None or theirs == []:
        return "unread-by-planbench"
    return "same-reading-other-verdict" if theirs == ours_comparable(a.task, r.value) else "planbench-reading-differs"


def disagreement(a: AnswerResult, reader: str = "flexible") -> str | None:
    """Why ``reader`` and PlanBench disagree on ``a``, on one line: the class, both verdicts, both
    readings (each on one line); None when they agree."""
    kind = disagreement_class(a, reader)
    if kind is None:
        return None
    r: ReaderResult = getattr(a, reader)
    theirs = one_line(a.task, planbench_reading(a.task, a.planbench_reading))
    pb = "correct" if a.planbench_correct else "incorrect"
    if not r.read:
        return f"[{kind}] PlanBench: {pb}; {reader}: {r.reason}; PlanBench read: {theirs}"
    ours = one_line(a.task, ours_comparable(a.task, r.value))
    why = _trace_text(a, r) if r.correct else r.reason
    return (f"[{kind}] PlanBench: {pb}; {reader}: {'correct' if r.correct else 'incorrect'} -- {why}; "
            f"{reader} read: {ours}; PlanBench read: {theirs}")


def planbench_reading(task: str, theirs):
    """PlanBench's reading (``extracted_llm_plan``) in our terms: a list of PDDL action texts (from a
    list or from text, one action a line), a verdict, or a set of atoms; [] when it read nothing;
    None when it stored nothing comparable."""
    if task == "plan-generation":
        if isinstance(theirs, str):
            theirs = [line for line in theirs.split("\n") if line.strip()]
        if isinstance(theirs, list):
            return ["(" + " ".join(str(x).lower().strip().strip("()").split()) + ")" for x in theirs]
        return None
    if task == "plan-verification":
        return bool(theirs["valid"]) if isinstance(theirs, dict) and "valid" in theirs else None
    if task == "plan-execution" and isinstance(theirs, list):
        return sorted({"(" + " ".join(str(x).lower().split("_")) + ")" for x in theirs})
    return None


def ours_comparable(task: str, value):
    """A reader's value in the form `planbench_reading` gives."""
    return sorted(set(value)) if task == "plan-execution" else value


def one_line(task: str, reading) -> str:
    """A reading shown on one line: actions or atoms space-separated, a verdict as a word."""
    if reading is None:
        return "(nothing comparable stored)"
    if isinstance(reading, bool):
        return "valid" if reading else "invalid"
    return " ".join(reading) if reading else "(nothing)"


def _trace_text(a: AnswerResult, r: ReaderResult) -> str:
    if a.task == "plan-generation":
        return "engine: every step applicable, goal reached"
    return r.reason


def counts(results: list[AnswerResult]) -> dict:
    """The per-reader counts of a list of answers."""
    n = len(results)
    pb = [a for a in results if a.planbench_correct]
    out = {"answers": n, "planbench_correct": len(pb)}
    for name in READERS:
        rs = [getattr(a, name) for a in results]
        agree = sum(1 for a, r in zip(results, rs) if r.correct == a.planbench_correct)
        pb_ok = sum(1 for a in pb if getattr(a, name).correct)
        out[name] = {
            "read": sum(r.read for r in rs),
            "valid": sum(bool(r.valid) for r in rs),
            "agree": agree,
            "agreement": round(agree / n, 4) if n else None,
            "planbench_correct_read_valid": pb_ok,
            "planbench_correct_read_valid_rate": round(pb_ok / len(pb), 4) if pb else None,
            "disagreements": n - agree,
            "disagreement_classes": {k: sum(1 for a in results if disagreement_class(a, name) == k)
                                     for k in DISAGREEMENT_CLASSES},
        }
    return out
