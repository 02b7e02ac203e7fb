"""inspect_ai's entry point (pyproject: group ``inspect_ai``, name ``widthbench``): every widthbench
task, registered when inspect loads this module — one task per sub-task
(`widthbench.subtasks.harness.inspect_tasks`) and the step-by-step agent with tools
(`widthbench.searches.inspect_agent`): ``inspect eval widthbench/plan_verification``,
``inspect eval widthbench/agent`` (docs/inspect.md). A module of the top layer, since the agent
stands on the searches and the sub-task tasks on the sub-tasks."""

from __future__ import annotations

from widthbench.searches.inspect_agent import agent
from widthbench.subtasks.harness.inspect_tasks import TASKS as SUBTASK_TASKS

#: inspect task name -> task (the sub-tasks' names with _ for -, and ``agent``)
TASKS = {**SUBTASK_TASKS, "agent": agent}
