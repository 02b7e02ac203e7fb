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

import ast
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from widthbench.core.runstore import RunStore
from widthbench.subtasks.identity import READER_VERSION, path_digest
from widthbench.pddl_domains.readers import impossible, judged_alike
from widthbench.pddl_domains.readers.reply import reply_text
from widthbench.core.errors import ParseError, UserError
from widthbench.core.runfiles import input_file
from widthbench.pddl_domains import planbench_configs
from widthbench.pddl_domains.render import PDDL_WORDS, Renderer, config_template_set
from widthbench.planners.bfs import shortest_plan
from widthbench.planners.problem_reader import definitions, read_problem
from widthbench.planners.strips import (Task, execute_plan, ground, load_domain, load_task, parse_atom_text,
                                        parse_domain_text, parse_problem_text)
from widthbench.subtasks import flexible
from widthbench.subtasks import strict as strict_parse
from widthbench.subtasks.traces import summarise_traces, verify_trace

TASKS = {1: "plan-generation", 3: "plan-verification", 7: "plan-execution"}
READERS = ("strict", "flexible")
_DOMAIN_FILES = ("generated_domain.pddl", "domain.pddl")


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
        if _planbench_verdict(inst) is None:
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
            and _planbench_verdict(inst) is None)


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
        default = False if feedback is not None else _planbench_verdict(inst)
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


def _planbench_verdict(inst: dict) -> bool | None:
    # "act_correct": the newer back-prompting files (whether the final plan is correct, beside
    # "verifier_states_correct", what their verifier said of it)
    for key in ("llm_correct_binary", "llm_correct", "correct", "act_correct"):
        if key in inst:
            v = inst[key]
            return v if isinstance(v, bool) else str(v).strip().lower() == "true"
    return None


@dataclass(frozen=True, slots=True)
class Problem:
    """The task an answer is judged on, the template set its prompt was written with ("planbench",
    a PlanBench config's path, or "pddl-words") and where the problem came from: its ``instance-N.pddl``
    file, or the query itself (``from_query``: the file is missing or states another problem, as for
    PlanBench's unsolvable and random-name sets, whose prompts were made from files it does not ship)."""

    task: Task
    templates: str
    from_query: bool = False
    file: Path | None = None  # the instance-N.pddl file it was read from (None: from the query)


class Instances:
    """Problem files by instance id for one or more ``--instances`` folders (see the module doc)."""

    def __init__(self, dirs):
        self.sources: list[tuple[str, Path, Path]] = []  # (domain name, domain file, problem folder)
        self.roots: list[Path] = []  # PlanBench data roots (plan-bench/, llm_planning_analysis/)
        for d in dirs:
            d = Path(d)
            if not d.is_dir():
                raise UserError(f"instances folder not found: {d}")
            if planbench_configs.is_data_root(d):
                self.roots.append(d)
                continue
            found = self._source(d)
            if found:
                self.sources.append(found)
                continue
            subs = [self._source(sub / "generated_basic") for sub in sorted(d.iterdir()) if sub.is_dir()]
            subs = [s for s in subs if s]
            if not subs:
                raise UserError(f"{d}: no instance-N.pddl files with a domain file (generated_domain.pddl or "
                                "domain.pddl beside them or in the parent folder), and not a PlanBench data "
                                "root (plan-bench/ or llm_planning_analysis/ with an instances folder)")
            self.sources.extend(subs)
        self._tasks: dict[tuple[str, int], tuple[Task, Path]] = {}
        self._problems: dict[tuple[str, int], Problem] = {}
        self._variants: dict[tuple[str, str], tuple] = {}
        self._file_tasks: dict[Path, Task] = {}
        self._info: dict[Path, dict] = {}  # info.json files read (`info_plan`)

    @staticmethod
    def _source(d: Path):
        if not d.is_dir() or not any(d.glob("instance-*.pddl")):
            return None
        for folder in (d, d.parent):
            for name in _DOMAIN_FILES:
                if (folder / name).is_file():
                    text = (folder / name).read_text(encoding="utf-8", errors="replace")
                    m = re.search(r"\(\s*domain\s+([^\s()]+)", text, re.I)
                    dom = m.group(1).lower() if m else folder.name.lower()
                    return dom, folder / name, d
        return None

    def task(self, domain: str, instance_id: int) -> Task:
        return self._task_and_file(domain, instance_id)[0]

    def _task_and_file(self, domain: str, instance_id: int) -> tuple[Task, Path]:
        key = (domain, instance_id)
        if key not in self._tasks:
            base = re.split(r"[_\-]", domain)[0]
            matching = [s for s in self.sources if re.split(r"[_\-]", s[0])[0] == base or s[2].parent.name == domain]
            if not matching:
                known = ", ".join(sorted({s[0] for s in self.sources}))
                raise UserError(f"no --instances folder for domain {domain!r} (have: {known})")
            _, dom_file, folder = matching[0]
            prob = folder / f"instance-{instance_id}.pddl"
            if not prob.is_file():
                raise UserError(f"instance {instance_id} of {domain}: {prob} not found")
            self._tasks[key] = (load_task(dom_file, prob), prob)
        return self._tasks[key]

    def problem(self, rf: "ResultFile", inst: dict) -> Problem:
        """The problem of one answer: from a plain ``--instances`` folder (set "planbench"), else from
        the PlanBench data root by the file's variant (`planbench_configs.find_variant`)."""
        iid = int(inst["instance_id"])
        key = (rf.path, iid)
        if key in self._problems:
            return self._problems[key]
        if not self.roots or (self.sources and not rf.variant):
            task, file = self._task_and_file(rf.domain, iid)
            got = Problem(task, "planbench", False, file)
        else:
            got = self._root_problem(rf, inst, iid)
        self._problems[key] = got
        return got

    def info_plan(self, problem: Problem) -> list[str] | None:
        """The optimal plan PlanBench's ``info.json`` ships for the instance file a problem was read
        from (``{"instance-N.pddl": {"plan": ..., "length": ...}}``, in the instance folder or a
        folder above it, in either part of a data root), as PDDL action texts; None when there is
        none. Not checked here: see `subtasks.difficulty.plan_fits`."""
        if problem.file is None:
            return None
        for path in self._info_files(problem.file.parent):
            if path not in self._info:
                try:
                    self._info[path] = json.loads(path.read_text(encoding="utf-8"))
                except (OSError, ValueError):
                    self._info[path] = {}
            entry = self._info[path].get(problem.file.name) if isinstance(self._info[path], dict) else None
            plan = entry.get("plan") if isinstance(entry, dict) else None
            if isinstance(plan, str) and plan.strip():
                return [line.strip() for line in plan.splitlines() if line.strip()]
        return None

    def _info_files(self, folder: Path) -> list[Path]:
        found = [folder / "info.json", folder.parent / "info.json"]
        for root in self.roots:
            for part in planbench_configs.PARTS:
                base = root / part / "instances"
                if base in folder.parents:
                    rel = folder.relative_to(base)
                    found += [root / other / "instances" / prefix / "info.json"
                              for prefix in (rel, *rel.parents) if str(prefix) != "."
                              for other in planbench_configs.PARTS]
        return [p for p in dict.fromkeys(found) if p.is_file()]

    def problem_of(self, rf: "ResultFile", instance_id: int) -> Problem:
        """`problem` of the answer of ``rf`` with this instance id."""
        for inst in rf.instances:
            if int(inst["instance_id"]) == instance_id:
                return self.problem(rf, inst)
        raise UserError(f"{rf.path}: no instance {instance_id}")

    def _variant(self, rf: "ResultFile"):
        key = (rf.variant, rf.domain)
        if key not in self._variants:
            v = planbench_configs.find_variant(self.roots[0], [n for n in (rf.variant, rf.domain) if n])
            dom_file = _domain_file_named(self.roots[0], [rf.variant, rf.domain]) or v.domain_file
            dom = _load_planbench_domain(dom_file)
            templates = v.config.path if v.config.has_templates else "planbench"
            ts = config_template_set(templates) if templates != "planbench" else None
            covered = templates == "planbench" or (ts is not None and ts.covers(dom))
            self._variants[key] = (v, dom, dom_file, templates if covered else PDDL_WORDS)
        return self._variants[key]

    def _root_problem(self, rf: "ResultFile", inst: dict, iid: int) -> Problem:
        v, dom, dom_file, templates = self._variant(rf)
        query = inst.get("query", "")
        prob = v.instance_dir / f"instance-{iid}.pddl"
        if prob.is_file() and dom_file == v.domain_file:
            if prob not in self._file_tasks:  # one task per problem file, shared by every result file
                self._file_tasks[prob] = load_task(dom, prob)
            task = self._file_tasks[prob]
            if _query_states(task, Renderer(task, _style(query), templates), query) in (None, (task.init, task.goal)):
                return Problem(task, templates, False, prob)
        return Problem(_task_from_query(dom, query, templates, f"{rf.path}: instance {iid}"), templates, True)


def _load_planbench_domain(path: Path):
    """A PlanBench domain file. Those its Tarski writer made (the obfuscated Logistics and random-name
    Blocksworld domains) type parameters ``- object`` without declaring ``:typing`` and keep empty
    ``(:types)``, ``(:constants)``, ``(:functions)`` sections: read as if declared and without them."""
    try:
        return load_domain(path)
    except UserError:
        text = path.read_text(encoding="utf-8")
        fixed = re.sub(r"\(\s*:(?:types|constants|functions)\s*\)", "", text, flags=re.I)
        if re.search(r"-\s*object\b", fixed, re.I) and not re.search(r":typing", fixed, re.I):
            fixed = re.sub(r"\(\s*:requirements", "(:requirements :typing", fixed, count=1, flags=re.I)
        if fixed == text:
            raise
    return parse_domain_text(fixed, source=str(path))


def _domain_file_named(root: Path, names) -> Path | None:
    """A domain file under ``root`` whose declared name is one of ``names`` (PlanBench's random-name
    Blocksworld answers name the domain their prompts were written in)."""
    wanted = {n.lower() for n in names if n}
    wanted |= {re.sub(r"_\d+$", "", n) for n in wanted}  # "<variant>_3": the 3-block set of the same domain
    for path in sorted(root.glob("*/instances/**/*domain*.pddl")):
        m = re.search(r"\(\s*domain\s+([^\s()]+)", path.read_text(encoding="utf-8", errors="replace")[:2000], re.I)
        if m and m.group(1).lower() in wanted:
            return path
    return None


def _query_states(task: Task, r: Renderer, query: str):
    """(initial state, goal) the query states for ``task``, None when it states none we can read."""
    if r.style == "pddl":
        problem = _query_problem_text(query)
        if problem is None:
            return None
        try:
            stated = parse_problem_text(task.domain, problem, "<query>")
        except UserError:
            return None
        if set(stated.atoms) - set(task.atoms) or {o for o, _ in stated.objects} != {o for o, _ in task.objects}:
            return ("other",)
        idx = task.atom_index
        to = lambda s: sum(1 << idx[stated.atoms[i]] for i in range(stated.n_atoms) if s >> i & 1)  # noqa: E731
        return to(stated.init), to(stated.goal)
    init, goal = _statement(query)
    if init is None:
        return None
    try:
        return r.parse_state(init), sum(1 << task.atom_index[a] for a in r.parse_atoms(goal))
    except (ParseError, KeyError):
        return ("other",)


def _statement(query: str) -> tuple[str | None, str | None]:
    """The initial conditions and goal of the query's last [STATEMENT] (NL prompts)."""
    m = None
    for m in re.finditer(r"as initial conditions i have that,?(.*?)\.?\s*\n\s*my goal is to have that(.*?)\.?\s*(?:\n|$)",
                         query or "", re.I | re.S):
        pass
    return (m.group(1).strip(), m.group(2).strip()) if m else (None, None)


def _query_problem_text(query: str) -> str | None:
    """The query's last complete PDDL problem definition (a one-shot prompt's example comes first),
    read as PDDL (`problem_reader.definitions`: any spacing, a stray parenthesis after it)."""
    spans = definitions(query or "")
    return query[spans[-1][0]:spans[-1][1]] if spans else None


def _task_from_query(dom, query: str, templates: str, where: str) -> Task:
    """The problem the query states: its PDDL problem, or (NL) its objects, initial conditions and goal
    read with the prompt's templates."""
    problem = _query_problem_text(query)
    if problem is not None:
        return parse_problem_text(dom, problem, where)
    init, goal = _statement(query)
    if init is None:
        raise UserError(f"{where}: the instance file is missing or states another problem, and the query "
                        "states no problem to judge on")
    probe = ground(dom, [], [], [], name="probe")
    names = Renderer(probe, "nl", templates).template_set.objects
    objects = _stated_objects(init + " , " + goal, names)
    task0 = ground(dom, [(o, "object") for o in objects], [], [], name="probe")
    r = Renderer(task0, "nl", templates)
    try:
        init_atoms = [a for a in r.parse_atoms(init)]
        goal_atoms = [a for a in r.parse_atoms(goal)]
    except ParseError as exc:
        raise UserError(f"{where}: cannot read the problem the query states: {exc}") from None
    return ground(dom, [(o, "object") for o in objects], [parse_atom_text(a) for a in init_atoms],
                  [parse_atom_text(a) for a in goal_atoms], name=f"query of {where}")


def _stated_objects(text: str, spec: dict) -> list[str]:
    """The PDDL names of the objects a statement mentions, by the template set's object names."""
    text = " " + " ".join(text.lower().split()) + " "
    if spec.get("scheme") == "encoded":
        found = [o for o, n in spec["encoded"].items() if "{}" not in n and f" {n}" in text.replace(",", " ")]
        return sorted(found)
    return sorted(set(re.findall(r"\bobject_\d+\b", text)), key=lambda o: int(o.split("_")[1]))


# ---------------------------------------------------------------------------------------------
# Judging one answer


def _style(query: str) -> str:
    """"pddl" when the query writes PDDL (a definition or an init section, spaced as PDDL allows)."""
    return "pddl" if re.search(r"\(\s*:init\b|\(\s*define\s*\(", query or "", re.I) else "nl"


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
    style = _style(inst.get("query", ""))
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
    return AnswerResult(rf.path, iid, rf.task, bool(_planbench_verdict(inst)), results["strict"],
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
        problem = _query_problem_text(query)
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


RESCORE_CHUNK = 50  # answers judged per executor call (each worker grounds the problems it meets)


def rounds_summary(rf: ResultFile, results: list[AnswerResult]) -> dict:
    """A back-prompting file's rounds ({} for other files): its settings, the rounds judged, the
    distribution of the first round whose plan is read and valid on the engine (flexible reader;
    "none": no round is) beside PlanBench's, and the agreement with PlanBench's verdict per round
    and on the first success round."""
    multi = [a for a in results if a.rounds]
    if not multi:
        return {}
    rounds = [x for a in multi for x in a.rounds]
    judged = [x for x in rounds if x["planbench_valid"] is not None]

    def distribution(rounds_of_answers) -> dict[str, int]:
        got: dict[str, int] = {}
        for k in sorted(rounds_of_answers, key=lambda k: (k is None, k or 0)):
            got[str(k) if k is not None else "none"] = got.get(str(k) if k is not None else "none", 0) + 1
        return got

    agree = sum(1 for x in judged if bool(x["read"] and x["valid"]) == x["planbench_valid"])
    same_first = sum(1 for a in multi if a.first_success_round == a.planbench_first_success_round)
    return {"settings": rf.settings or {}, "rounds": {
        "answers": len(multi), "rounds": len(rounds), "read": sum(1 for x in rounds if x["read"]),
        "valid": sum(1 for x in rounds if x["read"] and x["valid"]),
        "solved": sum(1 for a in multi if a.first_success_round is not None),
        "first_success_round": distribution([a.first_success_round for a in multi]),
        "planbench_first_success_round": distribution([a.planbench_first_success_round for a in multi]),
        "planbench_judged_rounds": len(judged), "round_agreement": agree,
        "round_agreement_rate": round(agree / len(judged), 4) if judged else None,
        "first_success_agreement": same_first}}


def rescore(paths, instance_dirs, executor=None,
            declares_impossible: Callable[[str], bool] | None = None) -> tuple[list[tuple[ResultFile, list[AnswerResult]]], dict]:
    """Judge every answer of every file: ([(file, results)], summary). ``executor``
    (`widthbench.planners.executor`): chunks of answers are judged by its workers.
    ``declares_impossible``: see `judge` (answers on unsolvable tasks).

    A file that cannot be read (not a PlanBench result file, or an answer that cannot be judged: its
    instance missing, its query stating no problem) is left out with the reason, in the summary's
    ``unreadable`` ({file: reason}); the other files are judged. A single file that cannot be read
    raises its UserError, as does a batch none of whose files can be."""
    paths = list(paths)
    instances = Instances(instance_dirs)
    files, unreadable = [], {}
    for p in paths:  # every file checked before any work
        try:
            files.append(load_result_file(p))
        except UserError as exc:
            unreadable[str(p)] = str(exc)
    jobs = [(ResultFile(rf.path, rf.task, rf.domain, rf.instances[k:k + RESCORE_CHUNK], rf.variant), instances,
             declares_impossible)
            for rf in files for k in range(0, len(rf.instances), RESCORE_CHUNK)]
    if executor is not None and executor.parallel:
        chunks = executor.map(_judge_chunk, jobs, desc="rescore", unit="chunk")
    else:
        chunks = [_judge_chunk(job) for job in jobs]  # one process: one cache of grounded problems
    by_file: dict[str, list[AnswerResult]] = {rf.path: [] for rf in files}
    for (chunk, _, _), results in zip(jobs, chunks):
        if isinstance(results, str):
            unreadable.setdefault(chunk.path, results)
        else:
            by_file[chunk.path].extend(results)
    if unreadable and len(unreadable) == len(paths):
        reasons = list(unreadable.values())
        raise UserError(reasons[0] if len(reasons) == 1 else
                        f"none of the {len(reasons)} result files could be read (the first: {reasons[0]})")
    out = [(rf, by_file[rf.path]) for rf in files if rf.path not in unreadable]
    summary = {"kind": "rescore-planbench",
               "files": {rf.path: {"task": rf.task, "domain": rf.domain, "variant": rf.variant,
                                   "unanswered": rf.unanswered, **counts(rs), **rounds_summary(rf, rs)}
                         for rf, rs in out},
               "overall": counts([a for _, rs in out for a in rs])}
    if unreadable:
        summary["unreadable"] = unreadable
    traced = [a.record() for _, rs in out for a in rs if a.trace is not None]
    if traced:  # entries that hold thinking (`reasoning_content`): the checks per cell (docs/traces.md)
        summary["traces"] = summarise_traces(traced)
    return out, summary


def _judge_chunk(job) -> list[AnswerResult] | str:
    """The chunk's results, or why one of its answers cannot be judged (the file is then left out)."""
    rf, instances, declares_impossible = job
    try:
        return [judge(rf, inst, instances, declares_impossible) for inst in rf.instances]
    except UserError as exc:
        return str(exc)


def rescore_identity(files, instances) -> dict:
    """What decides a rescore's verdicts: the result files and instance folder (by their text) and
    the readers' version (docs/design.md, "The run store")."""
    return {"files": {str(f): path_digest(f) for f in files},
            "instances": [str(Path(d).resolve()) for d in ([instances] if isinstance(instances, (str, Path))
                                                           else instances or [])],
            "reader_version": READER_VERSION}


def write_outputs(out_dir: str | Path, judged, summary: dict, identity: dict | None = None) -> None:
    """The rescore's folder through the run store: answers.jsonl (one record per answer) and
    summary.json; a folder holding a rescore of other files or readers is replaced (a rescore is
    made whole each time: its records are recomputed, never resumed)."""
    try:
        store = RunStore.open(out_dir, kind="rescore", identity=identity or {}, replace=True)
        store.clear()
        store.append(a.record() for _, rs in judged for a in rs)
        store.finish(summary)
    except OSError as exc:
        raise UserError(f"cannot write to {out_dir}: {exc.strerror}") from None


def report_lines(judged, summary: dict, readers=READERS) -> list[str]:
    """The printed report: per file, the counts of both readers and every disagreement of the
    ``readers`` listed (flexible first); then the overall counts."""
    lines = []
    for rf, rs in judged:
        c = summary["files"][rf.path]
        skipped = f" ({rf.unanswered} instances without an answer skipped)" if rf.unanswered else ""
        variant = f", variant {rf.variant}" if rf.variant and rf.variant != rf.domain else ""
        lines.append(f"{rf.path} ({rf.task}, {rf.domain}{variant}): {c['answers']} answers, PlanBench correct "
                     f"{c['planbench_correct']}{skipped}")
        lines.extend(_count_lines(c))
        lines.extend(_round_lines(c))
        for name in sorted(readers, key=lambda n: n != "flexible"):
            for a in rs:
                why = disagreement(a, name)
                if why:
                    lines.append(f"    {name} disagrees on instance {a.instance_id}: {why}")
    lines.append(f"overall: {summary['overall']['answers']} answers in {len(judged)} file(s), PlanBench correct "
                 f"{summary['overall']['planbench_correct']}")
    lines.extend(_count_lines(summary["overall"]))
    if summary.get("traces"):
        t = summary["traces"]["run"]
        lines.append(f"thinking checked: {t['traces']} traces, {t['with_error']} with a first error "
                     f"(carried into a wrong answer {t['carried']}, recovered {t['recovered']}), "
                     f"coverage {t['coverage']:.1%}")
    return lines


def _round_lines(c: dict) -> list[str]:
    """A back-prompting file's rounds (`rounds_summary`), on two lines; none for other files."""
    x = c.get("rounds")
    if not x:
        return []
    dist = lambda d: ", ".join(f"{k}: {v}" for k, v in d.items())  # noqa: E731
    rate = f" ({x['round_agreement_rate']:.1%})" if x["round_agreement_rate"] is not None else ""
    return [f"  rounds  : {x['rounds']} rounds of {x['answers']} conversations judged, {x['read']} read, "
            f"{x['valid']} valid; solved {x['solved']}/{x['answers']}; first success round {dist(x['first_success_round'])} "
            f"(PlanBench: {dist(x['planbench_first_success_round'])})",
            f"            agrees with PlanBench on {x['round_agreement']}/{x['planbench_judged_rounds']} rounds{rate} "
            f"and on the first success round of {x['first_success_agreement']}/{x['answers']} conversations"]


def _count_lines(c: dict) -> list[str]:
    out = []
    for name in READERS:
        x = c[name]
        pb = c["planbench_correct"]
        share = f" ({x['planbench_correct_read_valid_rate']:.1%})" if pb else ""
        agreement = f" ({x['agreement']:.1%})" if c["answers"] else ""
        out.append(f"  {name:8s}: read {x['read']}/{c['answers']}, valid {x['valid']}, agrees with PlanBench "
                   f"{x['agree']}/{c['answers']}{agreement}, PlanBench-correct read and valid "
                   f"{x['planbench_correct_read_valid']}/{pb}{share}")
        if x["disagreements"]:
            out.append("            disagreements: " + ", ".join(f"{k} {v}" for k, v in x["disagreement_classes"].items()))
    return out
