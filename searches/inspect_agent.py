"""The step-by-step agent (`solve --method agent --tool-format openai`) as an inspect_ai task with tools.

    inspect eval searches/inspect_agent.py@agent --model openai/NAME -T count=10 -T seed=0 -T style=nl

(the file of this module: in an editable install, the repository's ``searches/inspect_agent.py``).
One sample per instance, the problems `solve` loads for the same options (generated Blocksworld or
Logistics, or ``-T instances=DIR``); its input the first messages `solve` sends (the domain context
and the first turn). The solver offers the tools `apply_action`, `valid_actions` (``-T hints=off``
leaves it out) and `declare_unsolvable` and plays the episode through the same `ToolEpisode` that
`solve` plays, on the engine: each call is answered with the tool result `solve` sends (what the
call did, the state now, the goal), up to ``-T max_steps``. So on the same replies a sample's
score is the record `solve` writes: the scorer's value holds ``solved``, ``steps``, ``turns``,
``invalid_actions``, ``recovered``, ``valid_actions_calls``, ``declared_unsolvable`` and
``progress``, its metadata the episode; `agent_metrics` adds them up as `solve`'s summary does
(``invalid_action_rate``: invalid turns over all turns).

inspect_ai is imported at the top: this module is loaded only by inspect or by code that uses it.
"""

from __future__ import annotations

import json

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessageSystem, ChatMessageTool, ChatMessageUser, get_model
from inspect_ai.scorer import Metric, SampleScore, Score, Target, metric, scorer
from inspect_ai.solver import Generate, TaskState, solver
from inspect_ai.tool import ToolInfo, ToolParam, ToolParams

from widthbench.searches.config import SearchConfig
from widthbench.searches.methods.agent import ToolEpisode
from widthbench.searches.solve_run import load_problems
from widthbench.subtasks.harness.inspect_tasks import generate_config

EPISODE = "widthbench_episode"  # the sample store's key of the episode's record fields
FIELDS = ("solved", "steps", "turns", "invalid_actions", "recovered", "valid_actions_calls", "declared_unsolvable",
          "progress")


def tool_info(tool: dict) -> ToolInfo:
    """An OpenAI tool (`searches.methods.agent.TOOLS`) as inspect's ToolInfo."""
    f = tool["function"]
    params = f.get("parameters") or {}
    return ToolInfo(name=f["name"], description=f.get("description", ""),
                    parameters=ToolParams(properties={k: ToolParam(**v) for k, v in (params.get("properties") or {}).items()},
                                          required=list(params.get("required") or [])))


def _message(m: dict):
    return ChatMessageSystem(content=m["content"]) if m["role"] == "system" else ChatMessageUser(content=m["content"])


def agent_config(style: str, seed: int, max_steps: int, hints: str, perturb: int) -> SearchConfig:
    return SearchConfig(method="agent", style=style, seed=seed).with_settings(
        {"max_steps": max_steps, "tool_format": "openai", "hints": hints, "perturb": perturb}).check()


@task
def agent(style="nl", thinking="off", count=10, seed=0, domain="blocksworld", instances=None, blocks=None,
          max_steps=40, hints="on", perturb=0) -> Task:
    config = agent_config(style, int(seed), int(max_steps), str(hints), int(perturb))
    problems = load_problems(None if instances else domain, count=int(count), seed=int(seed), instances=instances,
                             style=style, generator_options={"blocks": str(blocks)} if blocks else None)
    by_id = {p.id: p for p in problems}
    samples = [Sample(id=p.id, input=[_message(m) for m in ToolEpisode(p, config).opening()],
                      metadata={"instance": p.id, "optimal_length": p.optimal_length}) for p in problems]
    on = str(thinking).lower() in ("on", "true", "1")
    return Task(dataset=MemoryDataset(samples), solver=play(by_id, config), scorer=engine_scorer(),
                config=generate_config(on), metadata={"widthbench": {"method": "agent", **config.to_dict()}})


@solver
def play(problems: dict, config: SearchConfig):
    async def solve(state: TaskState, generate: Generate) -> TaskState:
        ep = ToolEpisode(problems[state.sample_id], config)
        infos = [tool_info(t) for t in ep.tools]
        model = get_model()
        for _ in range(config.setting("max_steps")):
            if ep.over:
                break
            out = await model.generate(state.messages, tools=infos, tool_choice="auto")
            state.messages.append(out.message)
            calls = out.message.tool_calls or []
            if not calls:
                state.messages.append(ChatMessageUser(content=ep.no_call()))
                continue
            for c in calls:
                text = ep.call(c.function, json.dumps(c.arguments or {}))
                state.messages.append(ChatMessageTool(content=text, tool_call_id=c.id, function=c.function))
                if ep.declared:
                    break
        outcome = ep.outcome()
        problem = problems[state.sample_id]
        record = {**outcome.fields, "solved": bool(outcome.check["solved"]), "plan": outcome.plan,
                  "progress": problem.progress(outcome.plan)}
        state.store.set(EPISODE, record)
        return state

    return solve


@metric
def agent_metrics() -> Metric:
    """`solve`'s summary of agent runs: solved rate, invalid-action rate (invalid turns over all
    turns), recoveries, mean steps over optimal (solved samples), valid_actions calls."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        values = [s.score.value for s in scores if isinstance(s.score.value, dict)]
        turns = sum(v["turns"] for v in values)
        over = [v["steps_over_optimal"] for v in values if v.get("steps_over_optimal") is not None]
        return {"solved": sum(v["solved"] for v in values) / len(values) if values else 0.0,
                "invalid_action_rate": sum(v["invalid_actions"] for v in values) / turns if turns else 0.0,
                "recoveries": float(sum(v["recovered"] for v in values)),
                "steps_over_optimal": sum(over) / len(over) if over else 0.0,
                "valid_actions_calls": float(sum(v["valid_actions_calls"] for v in values))}

    return compute


@scorer(metrics=[agent_metrics()], name="widthbench_agent")
def engine_scorer():
    async def score(state: TaskState, target: Target) -> Score:
        rec = state.store.get(EPISODE) or {}
        value = {k: (int(rec[k]) if isinstance(rec.get(k), bool) else rec.get(k)) for k in FIELDS}
        value["steps_over_optimal"] = rec.get("steps_over_optimal")
        return Score(value=value, explanation="solved" if rec.get("solved") else "not solved",
                     metadata={"episode": rec.get("episode"), "plan": rec.get("plan"),
                               "perturbation": rec.get("perturbation")})

    return score
