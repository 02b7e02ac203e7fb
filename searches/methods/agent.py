"""`--method agent`: the model acts one action per turn and the engine answers.

Each turn (``--tool-format text``, the prompt `llm/prompts/search/agent.toml`) shows what the last
action did, the current state in the run's style and the goal, and asks for one action, read with
the sub-task action reader. The engine applies it and answers with the new state, or with the
error: an action that cannot be taken (which preconditions do not hold) or an answer that names no
action; the state is then unchanged and the model goes on. An episode ends at the goal or after
``--max-steps`` turns.

Each instance records its transcript (``episode``: per turn the action as read, whether it was
taken, the engine's answer and the state after it), ``turns``, ``steps`` (actions taken),
``invalid_actions``, ``recovered`` (an error followed by reaching the goal) and
``steps_over_optimal`` (solved instances); the plan is the actions taken, scored for ``progress``.
``--perturb STEP`` (`searches.perturb`): after the model's STEP-th action a seeded exogenous action
changes the state; the engine's answer says so, the plan (``trajectory``) holds the change among
the model's actions, success is scored after it, ``perturbation`` records it and steps over
optimal count from STEP + h* of the changed state.
summary.json adds ``invalid_action_rate`` (invalid turns / turns), ``recoveries``,
``steps_over_optimal`` (mean over solved instances), ``mean_turns`` and ``tokens_per_solved``.
"""

from __future__ import annotations

from widthbench.core.errors import ParseError, UserError
from widthbench.planners import strips
from widthbench.searches.perturb import exogenous_action, told
from widthbench.searches.registry import Outcome, SearchMethod, Setting

TOOL_FORMATS = ("text",)
START = "No action has been taken yet."


def engine_answer(problem, state: int, action_text: str) -> tuple[int, bool, str]:
    """(next state, taken, the engine's answer in the run's style) for one action (PDDL text)."""
    task, r = problem.task, problem.r
    try:
        a = strips.parse_action(task, action_text)
    except UserError:
        return state, False, f"The action {action_text} is not an action of this problem; nothing changed."
    if not strips.is_applicable(state, a):
        unmet = strips.unmet_preconditions(task, state, a)
        return state, False, (f"The action {r.action(a)} cannot be taken: these preconditions do not hold: "
                              f"{r.atoms(unmet)}. Nothing changed.")
    nxt = strips.successor(state, a)
    return nxt, True, f"You took the action {r.action(a)}."


async def run(problem, config, llm, hooks, rng) -> Outcome:
    most, perturb = config.setting("max_steps"), config.setting("perturb")
    state, observation = problem.task.init, START
    episode, taken, invalid = [], [], 0
    trajectory, change, best = [], None, problem.optimal_length  # trajectory: the model's actions and the change
    for turn in range(1, most + 1):
        if strips.is_goal(problem.task, state):
            break
        reply = await llm.ask(problem.agent_messages(state, observation), "agent", state=state)
        if reply.error is not None:
            episode.append({"turn": turn, "action": None, "taken": False, "answer": "request error", "state": None})
            break
        try:
            action = str(problem.parse_next_action(reply.text or "", state))
        except ParseError as exc:
            llm.unreadable("agent")
            invalid += 1
            observation = f"No action could be read from your answer ({exc}); nothing changed."
            episode.append({"turn": turn, "action": None, "taken": False, "answer": observation,
                            "state": problem.show_state(state)})
            continue
        state, ok, observation = engine_answer(problem, state, action)
        invalid += not ok
        if ok:
            taken.append(action)
            trajectory.append(action)
        entry = {"turn": turn, "action": action, "taken": ok, "answer": observation}
        if ok and perturb and change is None and len(taken) == perturb and not strips.is_goal(problem.task, state):
            ex = exogenous_action(problem, state, taken, config.seed)
            if ex is not None:
                state = strips.successor(state, ex)
                change = {"after_step": perturb, "action": str(ex)}
                trajectory.append(str(ex))
                best = perturb + int(problem.truth.h_star(state))  # the fewest steps left the model
                observation = f"{observation} {told(problem, ex)}"
                entry.update({"answer": observation, "exogenous": str(ex)})
        episode.append({**entry, "state": problem.show_state(state)})
    check = problem.check(trajectory)
    return Outcome(trajectory, check, bool(check["solved"]), fields={
        "episode": episode, "turns": len(episode), "steps": len(taken), "invalid_actions": invalid,
        "recovered": bool(invalid and check["solved"]), "perturbation": change,
        "steps_over_optimal": len(taken) - best if check["solved"] and best is not None else None})


def summary(items: list[dict]) -> dict:
    turns = sum(it.get("turns", 0) for it in items)
    solved = [it for it in items if it["solved"]]
    over = [it["steps_over_optimal"] for it in solved if it.get("steps_over_optimal") is not None]
    return {"invalid_action_rate": round(sum(it.get("invalid_actions", 0) for it in items) / turns, 4) if turns else None,
            "invalid_actions": sum(it.get("invalid_actions", 0) for it in items),
            "recoveries": sum(1 for it in items if it.get("recovered")),
            "steps_over_optimal": round(sum(over) / len(over), 3) if over else None,
            "mean_turns": round(turns / len(items), 3) if items else None,
            "tokens_per_solved": round(sum(it["tokens"] for it in items) / len(solved), 1) if solved else None}


def check(config, problems) -> None:
    if problems and not all(hasattr(p, "agent_messages") for p in problems):
        raise UserError("--method agent needs PDDL problems with an engine (not game24 or --tasks)")


METHODS = (SearchMethod(
    name="agent", label="Agent", order=70, run=run, tree=False, summary=summary, check=check,
    help="one action per turn, the engine answers with the new state or the error",
    settings=(Setting("max_steps", 40, "most turns per episode", type=int),
              Setting("perturb", 0, "a seeded exogenous change after the model's STEP-th action (0: none); "
                      "the model is told the new state, success is scored after the change", type=int),
              Setting("tool_format", "text", "how the model acts: text (one action as text, read by the "
                      "action reader)", choices=TOOL_FORMATS))),)
