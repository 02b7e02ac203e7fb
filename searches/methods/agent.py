"""`--method agent`: the model acts one action per turn and the engine answers.

Each turn (``--tool-format text``, the prompt `llm/prompts/search/agent.toml`) shows what the last
action did, the current state in the run's style and the goal, and asks for one action, read with
the sub-task action reader. The engine applies it and answers with the new state, or with the
error: an action that cannot be taken (which preconditions do not hold) or an answer that names no
action; the state is then unchanged and the model goes on. An episode ends at the goal or after
``--max-steps`` turns.

``--tool-format openai`` offers the model OpenAI tools instead (`TOOLS`: ``apply_action(action)``,
``valid_actions()`` — its uses counted in ``valid_actions_calls``, left out with ``--hints off`` —
and ``declare_unsolvable()``), sent through the chat API's ``tools`` (vLLM: ``--enable-auto-tool-choice
--tool-call-parser hermes``); each tool result carries the next turn (`llm/prompts/search/agent_tools.toml`).
A declaration ends the episode: right on a certified unsolvable instance
(``declared_unsolvable_right``), wrong elsewhere (``declared_unsolvable_wrong``).

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

import json

from widthbench.core.errors import ParseError, UserError
from widthbench.planners import strips
from widthbench.searches.perturb import PERTURB, engine_check, exogenous_action, told
from widthbench.searches.registry import Outcome, SearchMethod, Setting

TOOL_FORMATS = ("text", "openai")
START = "No action has been taken yet."
# The OpenAI tools of --tool-format openai (valid_actions left out with --hints off)
TOOLS = (
    {"type": "function", "function": {
        "name": "apply_action", "description": "Take one action; the answer is the new state or why it cannot be taken.",
        "parameters": {"type": "object", "properties": {"action": {"type": "string", "description": "the action"}},
                       "required": ["action"]}}},
    {"type": "function", "function": {
        "name": "valid_actions", "description": "List the actions that can be taken in the current state.",
        "parameters": {"type": "object", "properties": {}}}},
    {"type": "function", "function": {
        "name": "declare_unsolvable", "description": "Declare that no sequence of actions reaches the goal; ends the episode.",
        "parameters": {"type": "object", "properties": {}}}},
)


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
    if config.setting("tool_format") == "openai":
        return await run_tools(problem, config, llm)
    most, perturb = config.setting("max_steps"), config.setting("perturb")
    state, observation = problem.task.init, START
    episode, taken, invalid = [], [], 0
    trajectory, change, best = [], None, problem.optimal_length  # trajectory: the model's actions and the change
    for turn in range(1, most + 1):
        if strips.is_goal(problem.task, state):
            break
        # each turn its own sample: a prompt repeated after a refused action is asked afresh
        reply = await llm.ask(problem.agent_messages(state, observation), "agent", sample=turn - 1, state=state)
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
    return _outcome(problem, episode, taken, trajectory, invalid, change, best)


def _outcome(problem, episode, taken, trajectory, invalid, change, best, extra: dict | None = None) -> Outcome:
    check = problem.check(trajectory)
    return Outcome(trajectory, check, bool(check["solved"]), fields={
        "episode": episode, "turns": len(episode), "steps": len(taken), "invalid_actions": invalid,
        "recovered": bool(invalid and check["solved"]), "perturbation": change,
        "steps_over_optimal": len(taken) - best if check["solved"] and best is not None else None, **(extra or {})})


class ToolEpisode:
    """One ``--tool-format openai`` episode on the engine: the state, the transcript and the
    counts. `call(name, arguments)` answers one tool call with the tool result's text (what the
    call did, the state now, the goal: the next turn), `no_call()` a reply without one; `outcome()`
    scores the episode. `solve` (`run_tools`) and the inspect task (`searches.inspect_agent`) both
    play episodes through it, so they agree on the same replies."""

    def __init__(self, problem, config):
        self.problem, self.seed = problem, config.seed
        self.perturb = config.setting("perturb")
        self.tools = [t for t in TOOLS if config.setting("hints") == "on" or t["function"]["name"] != "valid_actions"]
        self.names = ", ".join(t["function"]["name"] for t in self.tools)
        self.state = problem.task.init
        self.episode, self.taken, self.trajectory = [], [], []
        self.invalid, self.lookups, self.unread = 0, 0, 0
        self.change, self.best, self.declared = None, problem.optimal_length, False

    def opening(self) -> list[dict]:
        """The first messages: the domain context and the first turn."""
        return [*self.problem.agent_messages(self.state, START)[:-1],
                {"role": "user", "content": self.turn(START)}]

    def turn(self, observation: str) -> str:
        return self.problem.agent_tools_message(self.state, observation, self.names)

    @property
    def over(self) -> bool:
        return self.declared or strips.is_goal(self.problem.task, self.state)

    def no_call(self) -> str:
        self.invalid += 1
        observation = "Your answer called no tool; nothing changed. Call apply_action with one action."
        self.episode.append({"turn": len(self.episode) + 1, "tool": None, "action": None, "taken": False,
                             "answer": observation, "state": self.problem.show_state(self.state)})
        return self.turn(observation)

    def request_error(self) -> None:
        self.episode.append({"turn": len(self.episode) + 1, "tool": None, "action": None, "taken": False,
                             "answer": "request error", "state": None})

    def call(self, name: str, arguments: str) -> str:
        problem = self.problem
        entry = {"turn": len(self.episode) + 1, "tool": name, "action": None, "taken": False}
        offered = {t["function"]["name"] for t in self.tools}
        if name == "valid_actions" and name in offered:
            self.lookups += 1
            acts = strips.applicable_actions(problem.task, self.state)
            observation = "These actions can be taken now: " + "; ".join(problem.r.action(a) for a in acts) + "."
            entry["taken"] = None  # a lookup, not an action
        elif name == "declare_unsolvable":
            self.declared = True
            observation = "You declared that the goal cannot be reached; the episode ends."
            entry["taken"] = None
        elif name == "apply_action":
            try:
                text = str(json.loads(arguments or "{}").get("action", ""))
                action = str(problem.parse_next_action(text, self.state))
            except (ValueError, AttributeError, ParseError) as exc:
                self.unread += 1
                self.invalid += 1
                observation = f"No action could be read from the call ({exc}); nothing changed."
            else:
                entry["action"] = action
                self.state, ok, observation = engine_answer(problem, self.state, action)
                entry["taken"] = ok
                self.invalid += not ok
                if ok:
                    observation = self._taken(action, observation, entry)
        else:
            self.invalid += 1
            observation = f"There is no tool {name!r}; nothing changed."
        self.episode.append({**entry, "answer": observation, "state": problem.show_state(self.state)})
        return self.turn(observation)

    def _taken(self, action: str, observation: str, entry: dict) -> str:
        self.taken.append(action)
        self.trajectory.append(action)
        if self.perturb and self.change is None and len(self.taken) == self.perturb and not self.over:
            ex = exogenous_action(self.problem, self.state, self.taken, self.seed)
            if ex is not None:
                self.state = strips.successor(self.state, ex)
                self.change = {"after_step": self.perturb, "action": str(ex)}
                self.trajectory.append(str(ex))
                self.best = self.perturb + int(self.problem.truth.h_star(self.state))
                entry["exogenous"] = str(ex)
                return f"{observation} {told(self.problem, ex)}"
        return observation

    def outcome(self) -> Outcome:
        solvable = getattr(self.problem.instance, "solvable", None) is not False
        extra = {"valid_actions_calls": self.lookups, "declared_unsolvable": self.declared}
        if self.declared:  # right on a certified unsolvable instance, wrong elsewhere
            extra.update({"correct": not solvable, "claimed_plan": False,
                          "reason": "declared that no plan exists" + (" (right: the task is unsolvable)"
                                                                      if not solvable else "; the task has one")})
        acted = [e for e in self.episode if e.get("taken") is not None]  # lookups and declarations are no turns
        out = _outcome(self.problem, self.episode, self.taken, self.trajectory, self.invalid, self.change,
                       self.best, extra)
        return Outcome(out.plan, out.check, out.goal_claimed, fields={**out.fields, "turns": len(acted)})


async def run_tools(problem, config, llm) -> Outcome:
    """--tool-format openai: the conversation goes on through tool calls, answered in order by a
    `ToolEpisode`; a reply without a call is an invalid turn; ``declare_unsolvable`` ends it."""
    ep = ToolEpisode(problem, config)
    messages = ep.opening()
    for _ in range(config.setting("max_steps")):
        if ep.over:
            break
        reply = await llm.ask(messages, "agent", sample=len(ep.episode), state=ep.state, tools=ep.tools)
        if reply.error is not None:
            ep.request_error()
            break
        calls = list(reply.tool_calls or ())
        messages.append({"role": "assistant", "content": reply.text or "",
                         **({"tool_calls": [{"id": c["id"], "type": "function",
                                             "function": {"name": c["name"], "arguments": c["arguments"]}}
                                            for c in calls]} if calls else {})})
        if not calls:
            messages.append({"role": "user", "content": ep.no_call()})
            continue
        for c in calls:
            unread = ep.unread
            messages.append({"role": "tool", "tool_call_id": c["id"], "content": ep.call(c["name"], c["arguments"])})
            if ep.unread > unread:
                llm.unreadable("agent")
            if ep.declared:
                break
    return ep.outcome()


def summary(items: list[dict]) -> dict:
    turns = sum(it.get("turns", 0) for it in items)
    solved = [it for it in items if it["solved"]]
    declared = [it for it in items if it.get("declared_unsolvable")]
    tools = {"valid_actions_calls": sum(it.get("valid_actions_calls", 0) for it in items),
             "declared_unsolvable_right": sum(1 for it in declared if it.get("solvable") is False),
             "declared_unsolvable_wrong": sum(1 for it in declared if it.get("solvable") is not False)}
    over = [it["steps_over_optimal"] for it in solved if it.get("steps_over_optimal") is not None]
    return {"invalid_action_rate": round(sum(it.get("invalid_actions", 0) for it in items) / turns, 4) if turns else None,
            "invalid_actions": sum(it.get("invalid_actions", 0) for it in items),
            "recoveries": sum(1 for it in items if it.get("recovered")),
            "steps_over_optimal": round(sum(over) / len(over), 3) if over else None,
            "mean_turns": round(turns / len(items), 3) if items else None,
            "tokens_per_solved": round(sum(it["tokens"] for it in items) / len(solved), 1) if solved else None,
            **tools}


check = engine_check("agent", "agent_messages")


METHODS = (SearchMethod(
    name="agent", label="Agent", order=70, run=run, tree=False, summary=summary, check=check,
    help="one action per turn, the engine answers with the new state or the error",
    settings=(Setting("max_steps", 40, "most turns per episode", type=int, metavar="N"),
              PERTURB,
              Setting("tool_format", "text", "how the model acts: text (one action as text, read by the "
                      "action reader) or openai (tool calls: apply_action, valid_actions, declare_unsolvable)",
                      choices=TOOL_FORMATS),
              Setting("hints", "on", "--tool-format openai: off leaves the valid_actions tool out",
                      choices=("on", "off")))),)
