"""PlanBench result files read as they are: the file and its settings, each entry's thinking,
conversation and back-prompting rounds, the plan it shipped and PlanBench's own verdict
(`widthbench rescore planbench`, docs/rescore.md)."""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from widthbench.core.errors import UserError
from widthbench.core.runfiles import input_file

TASKS = {1: "plan-generation", 3: "plan-verification", 7: "plan-execution"}


# ---------------------------------------------------------------------------------------------
# Result files and instances


@dataclass(frozen=True, slots=True)
class ResultFile:
    path: str
    task: str  # one of TASKS' values
    domain: str  # "blocksworld", "logistics" (PlanBench's name without "_zero_shot")
    instances: list
    variant: str = ""  # the results/<variant>/ folder it sits in ("" when not in such a layout)
    unanswered: int = 0  # prompts with neither an answer nor a verdict (`_unanswered`): skipped
    settings: dict | None = field(default=None, compare=False)  # a back-prompting file's (`backprompting_settings`)


def read_result_json(p: Path) -> dict:
    """A PlanBench result file's JSON (a dict with an ``instances`` list), or one UserError line."""
    p = input_file(p, "result file")  # "not found" only when nothing is there (/dev/null reads as empty)
    try:
        text = p.read_text(encoding="utf-8")
        if not text.strip():
            raise UserError(f"{p}: empty result file")
        data = json.loads(text)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise UserError(f"{p}: not a PlanBench result file (not JSON: {str(exc).splitlines()[0]})") from None
    if not isinstance(data, dict) or not isinstance(data.get("instances"), list):
        raise UserError(f"{p}: not a PlanBench result file (no 'instances' list)")
    return data


def load_result_file(path: str | Path) -> ResultFile:
    p = Path(path)
    data = read_result_json(p)
    m = re.match(r"^(?:t|task_?)(\d+)", str(data.get("task", "")))
    if not m or int(m.group(1)) not in TASKS:
        raise UserError(f"{p}: task {data.get('task')!r} is not plan generation (1), verification (3) or "
                        "execution (7)")
    domain = str(data.get("domain", "")).lower()
    domain = re.sub(r"_zero_shot$|_one_shot$", "", domain) or "unknown"
    data["instances"] = [_with_final_turn(inst) for inst in data["instances"]]
    asked = [inst for inst in data["instances"] if not _unanswered(inst)]
    unanswered = len(data["instances"]) - len(asked)
    data["instances"] = asked
    for i, inst in enumerate(data["instances"]):
        if not isinstance(inst, dict) or "instance_id" not in inst or "llm_raw_response" not in inst:
            raise UserError(f"{p}: instance {i} lacks 'instance_id' or 'llm_raw_response'")
        if planbench_verdict(inst) is None:
            raise UserError(f"{p}: instance {inst['instance_id']} has no PlanBench verdict "
                            "('correct', 'llm_correct', 'llm_correct_binary' or 'act_correct')")
    parts = p.resolve().parts[:-1]  # PlanBench's results/<variant>/ and results_backprompting/<variant>/
    roots = [i for i, part in enumerate(parts) if part == "results" or part.startswith("results_")]
    variant = parts[roots[-1] + 1] if roots and roots[-1] + 1 < len(parts) else ""
    multi = any(conversation(inst) for inst in data["instances"])
    return ResultFile(str(p), TASKS[int(m.group(1))], domain, data["instances"], variant, unanswered,
                      backprompting_settings(p.name, data) if multi else None)


def backprompting_settings(name: str, data: dict) -> dict:
    """The settings a back-prompting file records, in its name (PlanBench's newer files:
    ``..._backprompting_zero_shot_pddl_sound_verifier_sound_critique_zero_shot_val_form_1_history_
    feedback_type_1_tv0.0_tg1.0``) and in its fields (``engine``, ``prompt_type``,
    ``additional_task_info``, the temperatures): what a file does not say is left out."""
    stem = Path(name).stem.lower()
    out: dict[str, Any] = {}
    for key, field_name in (("model", "engine"), ("prompt_type", "prompt_type"),
                            ("task_info", "additional_task_info")):
        if isinstance(data.get(field_name), str):
            out[key] = data[field_name]
    for key, pattern, kind in (("verifier", r"_([a-z]+)_verifier", str), ("critique", r"_([a-z]+)_critique", str),
                               ("feedback_form", r"_val_form_(\d+)", int),
                               ("feedback_type", r"_feedback_type_(\d+)", int),
                               ("verifier_temperature", r"_tv(\d+(?:\.\d+)?)", float),
                               ("generator_temperature", r"_tg(\d+(?:\.\d+)?)", float)):
        m = re.search(pattern, stem)
        if m:
            out[key] = kind(m.group(1))
    m = re.search(r"_(no_)?history(?:_|$)", stem)
    if m:
        out["history"] = not m.group(1)
    temps = data.get("tempertures", data.get("temperatures"))  # PlanBench spells it "tempertures"
    if isinstance(temps, dict):
        for who in ("verifier", "generator"):
            if isinstance(temps.get(who), (int, float)):
                out[f"{who}_temperature"] = float(temps[who])
    return out


def thinking_of(inst: dict) -> tuple[str | None, str]:
    """(the trace, where it came from) of one PlanBench entry; None when it holds no trace."""
    try:
        msg = inst["response_object"]["choices"][0]["message"]
        for key in ("reasoning_content", "reasoning"):
            if isinstance(msg.get(key), str) and msg[key].strip():
                return msg[key], key
    except (KeyError, IndexError, TypeError):
        pass
    for key in ("reasoning_content", "reasoning"):
        if isinstance(inst.get(key), str) and inst[key].strip():
            return inst[key], key
    return None, ""


def _unanswered(inst) -> bool:
    """A prompt PlanBench wrote but has no answer to (a query, no response, no verdict): skipped."""
    return (isinstance(inst, dict) and bool(inst.get("query")) and "llm_raw_response" not in inst
            and planbench_verdict(inst) is None)


def conversation(inst) -> list[dict] | None:
    """The turns of a multi-turn entry (PlanBench's back-prompting files: ``messages``, a list or its
    Python text), each ``{"role", "content"}`` with text content; None for a one-answer entry."""
    if not isinstance(inst, dict) or "messages" not in inst:
        return None
    msgs = inst["messages"]
    if isinstance(msgs, str):
        try:
            msgs = ast.literal_eval(msgs)
        except (ValueError, SyntaxError):
            return None
    if not isinstance(msgs, list):
        return None
    return [{"role": m.get("role"), "content": m.get("content") or ""} for m in msgs if isinstance(m, dict)]


def _with_final_turn(inst):
    """A multi-turn answer (PlanBench's back-prompting files: ``messages``, the conversation): its last
    assistant turn is the answer and its first user turn the query; each round is read too
    (`rounds_of`, `judge`)."""
    if not isinstance(inst, dict) or "llm_raw_response" in inst:
        return inst
    turns = conversation(inst)
    said = [t["content"] for t in turns or () if t["role"] == "assistant"]
    asked = [t["content"] for t in turns or () if t["role"] == "user"]
    if not said:
        return inst
    return {**inst, "llm_raw_response": said[-1], "query": asked[0] if asked else "", "turns": len(said)}


@dataclass(frozen=True, slots=True)
class Round:
    """One round of a back-prompting conversation: the model's answer, the feedback PlanBench's
    validator sent after it (None after the last round) and PlanBench's verdict on it: the
    validator's (``sound_verifier_json`` in ``step_wise_dict``) where the file records one per
    round, else invalid for a round that got feedback (back-prompting sends feedback only on an
    invalid plan: every feedback of the files seen opens "The above plan is invalid.") and the
    entry's own verdict for the last round."""

    answer: str
    feedback: str | None
    planbench_valid: bool | None


def rounds_of(inst: dict) -> list[Round]:
    """The rounds of a multi-turn entry in order ([] for a one-answer entry)."""
    turns = conversation(inst) or []
    said = [k for k, t in enumerate(turns) if t["role"] == "assistant"]
    verdicts = _round_verdicts(inst)
    out = []
    for n, k in enumerate(said):
        nxt = turns[k + 1] if k + 1 < len(turns) else None
        feedback = nxt["content"] if nxt is not None and nxt["role"] == "user" else None
        default = False if feedback is not None else planbench_verdict(inst)
        out.append(Round(turns[k]["content"], feedback, verdicts.get(n, default)))
    return out


def _round_verdicts(inst: dict) -> dict[int, bool]:
    """PlanBench's validator verdict per round (0-based), where ``step_wise_dict`` records it."""
    steps = inst.get("step_wise_dict")
    out = {}
    for key, step in (steps.items() if isinstance(steps, dict) else ()):
        found = step.get("sound_verifier_json") if isinstance(step, dict) else None
        if isinstance(found, str):
            try:
                found = ast.literal_eval(found)
            except (ValueError, SyntaxError):
                found = None
        info = found.get("validation_info") if isinstance(found, dict) else None
        valid = info.get("is_valid_plan") if isinstance(info, dict) else None
        if isinstance(valid, bool) and str(key).isdigit():
            out[int(key)] = valid
    return out


def shipped_plan(rf: ResultFile, inst: dict) -> list[str] | None:
    """The optimal plan PlanBench ships with a plan-generation entry (``ground_truth_plan``: Fast
    Downward's ``astar(lmcut())`` plan, as a list, as text one action a line, or as ``{"plan": text}``),
    as PDDL action texts; None when the entry ships none (other tasks store a verdict or a state
    there). Not checked here: see `subtasks.difficulty.plan_fits`."""
    if rf.task != "plan-generation":
        return None
    gt = inst.get("ground_truth_plan")
    if isinstance(gt, dict):
        gt = gt.get("plan")
    if isinstance(gt, str):
        gt = gt.split("\n")
    if not isinstance(gt, list):
        return None
    plan = [str(x).strip() for x in gt if str(x).strip() and not str(x).strip().startswith(";")]
    return plan if plan and all(x.startswith("(") for x in plan) else None


def planbench_verdict(inst: dict) -> bool | None:
    # "act_correct": the newer back-prompting files (whether the final plan is correct, beside
    # "verifier_states_correct", what their verifier said of it)
    for key in ("llm_correct_binary", "llm_correct", "correct", "act_correct"):
        if key in inst:
            v = inst[key]
            return v if isinstance(v, bool) else str(v).strip().lower() == "true"
    return None


