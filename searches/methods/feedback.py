"""`--method feedback`: validator feedback ("back-prompting", the LLM-Modulo setting).

The model proposes a plan (the naive prompt), the engine checks it, and an invalid plan goes back
with feedback (the feedback prompt, `llm/prompts/search/feedback.toml`), up to ``--rounds N``
(default 15, PlanBench's back-prompting bound). ``--feedback``: ``binary`` (valid or not),
``first-error`` (the first failing step and its unmet preconditions, or the unmet goal atoms),
``all-errors`` (every failing step: a step that cannot be taken is passed over and the plan goes on
from the same state, then the unmet goal atoms). Every feedback opens with "The above plan is
invalid.", as PlanBench's do. ``--history on`` sends the whole conversation each round; ``off``
only the problem, the last plan and its feedback.

``--perturb STEP`` (`searches.perturb`): the first plan whose first STEP steps can be taken is
carried out that far, then a seeded exogenous action changes the state; the rest of the plan is
judged from the changed state, and the model is told of the change and plans from the new state in
the rounds after. The instance's plan is the whole trajectory (the steps carried out, the change,
the last plan), so ``solved`` and ``progress`` are scored after the change; ``perturbation``
records it.

Each instance records every round (``rounds``: its plan, verdict, feedback text, tokens and
progress), ``solved_round`` (the round of the first valid plan, or null) and ``max_rounds``;
summary.json adds ``solved_by_round`` (entry k-1: instances solved by round k),
``solved_round_1``, ``mean_rounds_to_success`` and ``tokens_per_solved``.
"""

from __future__ import annotations

from widthbench.core.errors import ParseError, UserError
from widthbench.planners import strips
from widthbench.searches.perturb import PERTURB, engine_check, exogenous_action, told
from widthbench.searches.registry import Outcome, SearchMethod, Setting

FEEDBACK = ("binary", "first-error", "all-errors")
INVALID = "The above plan is invalid."


def step_errors(task: strips.Task, plan: list[str], every: bool,
                state: int | None = None) -> tuple[list[tuple[int, str, list[str]]], int]:
    """([(step, action text, unmet preconditions)], final state): the failing steps of ``plan`` from
    ``state`` (default: the initial state; ``every``: all of them, each passed over; else the first,
    where execution stops). A step that names no action of the task has no preconditions to list."""
    s, errors = (task.init if state is None else state), []
    for n, text in enumerate(plan, start=1):
        try:
            a = strips.parse_action(task, text)
        except UserError:
            errors.append((n, text, []))
        else:
            if strips.is_applicable(s, a):
                s = strips.successor(s, a)
                continue
            errors.append((n, text, strips.unmet_preconditions(task, s, a)))
        if not every:
            break
    return errors, s


def valid_from(problem, plan: list[str], state: int) -> bool:
    try:
        return strips.execute_plan(problem.task, plan, state).valid
    except UserError:  # a step that names no action of the task
        return False


def feedback_text(problem, plan: list[str], kind: str, state: int | None = None) -> str | None:
    """The validator's feedback on ``plan`` from ``state`` (default: the initial state) in the run's
    style; None when it is valid."""
    task, r = problem.task, problem.r
    if valid_from(problem, plan, task.init if state is None else state):
        return None
    if kind == "binary":
        return INVALID
    errors, s = step_errors(task, plan, kind == "all-errors", state)
    parts = []
    for n, text, unmet in errors:
        shown = r.action(strips.parse_action(task, text)) if unmet else text
        if unmet:
            parts.append(f"The action at step {n}, {shown}, cannot be taken: these preconditions do not hold: "
                         f"{r.atoms(unmet)}.")
        else:
            parts.append(f"Step {n}, {text}, is not an action of this problem.")
    if not errors or kind == "all-errors":
        missing = strips.state_atoms(task, task.goal & ~s)
        if missing:
            parts.append(f"After the plan these goal conditions do not hold: {r.atoms(missing)}.")
    return " ".join([INVALID, *parts])


async def run(problem, config, llm, hooks, rng) -> Outcome:
    if not hasattr(problem, "feedback_messages"):
        raise UserError(f"--method feedback needs a PDDL problem with an engine; {problem.domain} has none")
    most, kind = config.setting("rounds"), config.setting("feedback")
    history, perturb = config.setting("history") == "on", config.setting("perturb")
    first = problem.naive_messages()
    conversation = list(first)
    rounds, plan, solved_round = [], None, None
    start, done, change = problem.task.init, [], None  # plans are judged from start, reached by done
    for k in range(1, most + 1):
        reply = await llm.ask(conversation, "naive" if k == 1 else "feedback", sample=k - 1, state=problem.initial)
        tokens = (reply.prompt_tokens or 0) + (reply.completion_tokens or 0)
        if reply.error is not None:
            rounds.append({"round": k, "plan": None, "verdict": "request error", "feedback": None, "tokens": tokens})
            break
        text, news = reply.text or "", None
        try:
            plan = [str(a) for a in problem.parse_naive(text)]
        except ParseError as exc:
            llm.unreadable("feedback" if k > 1 else "naive")
            plan, verdict = None, "unread"
            feedback = f"{INVALID} No plan could be read from the answer: {exc}"
        else:
            if perturb and change is None and len(plan) > perturb:
                start, done, news, change = _change(problem, config, plan, perturb, start)
                if news is not None:
                    plan = plan[perturb:]  # what is left of the plan, judged after the change
            feedback = feedback_text(problem, plan, kind, start)
            verdict = "valid" if feedback is None else "invalid"
            if news is not None:
                feedback = news + " " + (feedback or "")
        rounds.append({"round": k, "plan": plan, "verdict": verdict,
                       "feedback": None if verdict == "valid" else feedback, "tokens": tokens,
                       "progress": problem.progress(done + plan) if plan is not None else None,
                       **({"perturbation": change} if news is not None else {})})
        if verdict == "valid":
            solved_round = k
            break
        shown = problem.r.plan(plan) if plan is not None else text
        turn = problem.feedback_messages(shown, feedback, start)
        conversation = ([*conversation, {"role": "assistant", "content": text}, turn[-1]] if history else turn)
    if plan is not None:
        plan = done + plan  # the whole trajectory from the initial state, the change included
    check = problem.check(plan) if plan is not None else {"plan_valid": False, "solved": False,
                                                          "reason": rounds[-1]["verdict"] if rounds else "no round"}
    return Outcome(plan, check, plan is not None, fields={"rounds": rounds, "solved_round": solved_round,
                                                          "max_rounds": most, "perturbation": change})


def _change(problem, config, plan: list[str], step: int, start: int):
    """The world runs the plan's first ``step`` steps from ``start`` and then changes by itself
    (`searches.perturb`): (new start, actions done since the initial state, what the model is
    told, the change), or the old start and no change when those steps cannot all be taken."""
    try:
        res = strips.execute_plan(problem.task, plan[:step], start)
    except UserError:
        return start, [], None, None
    if res.failed_step is not None or strips.is_goal(problem.task, res.states[-1]):
        return start, [], None, None
    s = res.states[-1]
    ex = exogenous_action(problem, s, plan[:step], config.seed)
    if ex is None:
        return start, [], None, None
    news = (f"The first {step} step(s) of the plan were carried out. {told(problem, ex)} The state "
            "now is the one shown as the initial state; plan from it.")
    return strips.successor(s, ex), [*plan[:step], str(ex)], news, {"after_step": step, "action": str(ex)}


def summary(items: list[dict]) -> dict:
    """solved_by_round (entry k-1: solved by round k), rounds to success, tokens per solved instance."""
    most = max((it.get("max_rounds") or 0 for it in items), default=0)
    solved = [it["solved_round"] for it in items if it.get("solved_round")]
    return {"solved_by_round": [sum(1 for r in solved if r <= k) for k in range(1, most + 1)],
            "solved_round_1": sum(1 for r in solved if r == 1),
            "mean_rounds_to_success": round(sum(solved) / len(solved), 3) if solved else None,
            "tokens_per_solved": round(sum(it["tokens"] for it in items) / len(solved), 1) if solved else None}


check = engine_check("feedback", "feedback_messages")


METHODS = (SearchMethod(
    name="feedback", label="Feedback", order=60, run=run, tree=False, summary=summary, check=check,
    help="plan, engine verdict, feedback, again (back-prompting)",
    settings=(Setting("rounds", 15, "most rounds per instance", type=int, metavar="N"),
              Setting("feedback", "first-error", "what the validator says of an invalid plan", choices=FEEDBACK),
              Setting("history", "on", "on: the whole conversation each round; off: the last plan and its feedback",
                      choices=("on", "off")),
              PERTURB)),)
