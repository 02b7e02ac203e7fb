"""The PlanBench problem behind each answer: the instance files (PlanBench's ``generated_basic``
layout or a folder of ``instance-N.pddl`` beside a domain file) and the problem a query states,
read back with the PlanBench template set (docs/rescore.md)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from widthbench.core.errors import ParseError, UserError
from widthbench.pddl_domains import planbench_configs
from widthbench.pddl_domains.render import PDDL_WORDS, Renderer, config_template_set
from widthbench.planners.problem_reader import definitions
from widthbench.planners.strips import (Task, ground, load_domain, load_task, parse_atom_text, parse_domain_text,
                                        parse_problem_text)

DOMAIN_FILES = ("generated_domain.pddl", "domain.pddl")


def domain_file_beside(instances: Path) -> Path | None:
    """The domain file of a folder of ``instance-N.pddl`` files: one of `DOMAIN_FILES` in the folder
    or in its parent (PlanBench's ``<domain>/generated_domain.pddl`` beside ``<domain>/generated_basic/``)."""
    for folder in (instances, instances.parent):
        for name in DOMAIN_FILES:
            if (folder / name).is_file():
                return folder / name
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
        path = domain_file_beside(d)
        if path is None:
            return None
        m = re.search(r"\(\s*domain\s+([^\s()]+)", path.read_text(encoding="utf-8", errors="replace"), re.I)
        return (m.group(1).lower() if m else path.parent.name.lower()), path, d

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
            dom = load_planbench_domain(dom_file)
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
            if _query_states(task, Renderer(task, query_style(query), templates), query) in (None, (task.init, task.goal)):
                return Problem(task, templates, False, prob)
        return Problem(_task_from_query(dom, query, templates, f"{rf.path}: instance {iid}"), templates, True)


def load_planbench_domain(path: Path):
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
        problem = query_problem_text(query)
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


def query_problem_text(query: str) -> str | None:
    """The query's last complete PDDL problem definition (a one-shot prompt's example comes first),
    read as PDDL (`problem_reader.definitions`: any spacing, a stray parenthesis after it)."""
    spans = definitions(query or "")
    return query[spans[-1][0]:spans[-1][1]] if spans else None


def _task_from_query(dom, query: str, templates: str, where: str) -> Task:
    """The problem the query states: its PDDL problem, or (NL) its objects, initial conditions and goal
    read with the prompt's templates."""
    problem = query_problem_text(query)
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


def query_style(query: str) -> str:
    """"pddl" when the query writes PDDL (a definition or an init section, spaced as PDDL allows)."""
    return "pddl" if re.search(r"\(\s*:init\b|\(\s*define\s*\(", query or "", re.I) else "nl"
