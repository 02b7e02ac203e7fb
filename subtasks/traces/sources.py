"""Traces read from a PlanBench result file (``reasoning_content``) and verified (`widthbench traces`).

A PlanBench result file (``{"task", "domain", "instances": [...]}``) whose answers hold the model's
thinking in ``response_object.choices[0].message.reasoning_content`` (DeepSeek-R1's API) or in an
instance's own ``reasoning_content`` / ``reasoning``; a chain-of-thought answer without thinking
(GPT-4's state-tracking answers) is its ``llm_raw_response``. With ``--instances`` PlanBench's data
root, the problem, domain and words are the file's variant's (`rescore.Instances`, as for ``rescore
planbench``); with a folder, the problem is its ``instance-N.pddl``, read in PlanBench's Blocksworld
words, and the domain is ``--domain`` (a name or a file), else the domain file beside the instances or
in their parent folder, else the built-in domain the file's ``domain`` names ("blocksworld_3" ->
blocksworld). The final answer of a plan-generation file is judged on the engine
(the flexible plan reader, then the plan executed); for other tasks it is PlanBench's verdict.
"""

from __future__ import annotations

import re
from pathlib import Path

from widthbench.core.errors import ParseError, UserError
from widthbench.pddl_domains import planbench_configs
from widthbench.planners.strips import DOMAINS_DIR, Task, execute_plan, load_task
from widthbench.subtasks import flexible
from widthbench.subtasks.planbench.files import load_result_file, planbench_verdict, read_result_json, thinking_of
from widthbench.subtasks.planbench.problems import Instances, domain_file_beside, query_style
from widthbench.subtasks.traces.verify import verify_trace



def _domain(domain: str | None, instances: Path, data_domain: str):
    if domain:
        return domain
    beside = domain_file_beside(instances)
    if beside is not None:
        return beside
    base = re.split(r"[_\-/]", data_domain.lower())[0]
    if (DOMAINS_DIR / f"{base}.pddl").is_file():
        return base
    raise UserError(f"{instances}: no domain file (generated_domain.pddl or domain.pddl) beside the "
                    f"instances or in their parent, and {data_domain!r} names no built-in domain: give --domain")


def planbench_traces(path: str | Path, instances: str | Path, domain: str | None = None,
                     chain_of_thought: bool = False) -> list[dict]:
    """One record per entry with a trace: ``{"file", "instance_id", "task", "source", "style",
    "final_answer_correct", "trace"}``. ``chain_of_thought``: entries without thinking are verified on
    their answer (``llm_raw_response``)."""
    p, folder = Path(path), Path(instances)
    if not folder.is_dir():
        raise UserError(f"instances folder not found: {folder}")
    data = read_result_json(p)
    # the PlanBench data root: each file's variant (mystery, obfuscated, ...) with its own words
    root = None if domain else Instances([folder]) if planbench_configs.is_data_root(folder) else None
    rf = load_result_file(p) if root else None
    dom = None if root else _domain(domain, folder, str(data.get("domain", "")))
    task_name = str(data.get("task", ""))
    out = []
    for i, inst in enumerate(data["instances"]):
        if not isinstance(inst, dict) or "instance_id" not in inst:
            raise UserError(f"{p}: entry {i} has no 'instance_id'")
        text, source = thinking_of(inst)
        if text is None and chain_of_thought and isinstance(inst.get("llm_raw_response"), str):
            text, source = inst["llm_raw_response"], "llm_raw_response"
        if text is None:
            continue
        if root is not None:
            problem = root.problem(rf, inst)
            task, templates = problem.task, problem.templates
        else:
            prob = folder / f"instance-{inst['instance_id']}.pddl"
            if not prob.is_file():
                raise UserError(f"{p}: entry {i}: {prob} not found")
            task, templates = load_task(dom, prob), "planbench"
        style = query_style(inst.get("query", ""))
        correct = _final_verdict(task, task_name, inst, style, templates)
        out.append({"file": str(p), "instance_id": inst["instance_id"], "task": task_name, "source": source,
                    "style": style, "final_answer_correct": correct,
                    "trace": verify_trace(task, text, style=style, templates=templates,
                                          final_answer_correct=correct)})
    return out


def _final_verdict(task: Task, task_name: str, inst: dict, style: str, templates: str = "planbench") -> bool | None:
    if task_name.startswith(("task_1", "t1")):
        answer = inst.get("llm_raw_response") or ""
        try:
            plan = flexible.read_plan(task, answer, style, templates).value
        except ParseError:
            return None  # the answer does not read: not judged (counted apart, never as wrong)
        return execute_plan(task, plan).valid
    return planbench_verdict(inst)
