"""Instances and instance sets on disk.

An ``Instance`` is one planning problem as PDDL text plus where it came from. An *instance set* is a
folder holding ``domain.pddl``, one problem file per instance and ``manifest.jsonl``:

    DIR/domain.pddl            the domain, byte-identical to pddl_domains/<name>.pddl
    DIR/instance-0001.pddl     problem files, numbered in set order (4 digits, more if needed)
    DIR/manifest.jsonl         one JSON object per line, keys sorted:
        {"domain", "file", "id", "optimal_length", "optimal_plan", "parameters", "seed"}

``optimal_length``/``optimal_plan`` are null when they were not computed; ``seed`` is the instance
seed (see ``generators.common``) or null for files that did not come from a generator. A certified
unsolvable instance (``generate --unsolvable``, `generators.unsolvable`) adds ``"solvable": false`` and
``"certificate": {"method", "states_explored"}`` (no other row has these keys).

``read_instance_set`` also reads folders without a manifest (a copy of the IPC or PlanBench files):
any ``domain.pddl`` (or the single ``*domain*.pddl``) plus the other ``*.pddl`` files, in natural
order (``instance-2`` before ``instance-10``), ids = file stems. Problems are parsed by the engine
(``strips.load_task``/``strips.parse_problem_text``, whose fast plain-STRIPS reader avoids the slow
``pddl`` parser), so a broken file raises a ``UserError`` naming it.
"""

from __future__ import annotations

import dataclasses
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from widthbench.core.errors import UserError
from widthbench.generators.common import solve
from widthbench.generators.domains import DomainRegistry
from widthbench.planners import strips
from widthbench.planners.problem_writer import problem_text
from widthbench.core.runfiles import make_output_dir
from widthbench.planners.ground_truth import GroundTruth
from widthbench.planners.problem_writer import task_problem_text

MANIFEST = "manifest.jsonl"
DOMAIN_FILE = "domain.pddl"


@dataclass(frozen=True, slots=True)
class Instance:
    id: str  # "bw-0007"
    domain: str  # a built-in domain name ("blocksworld") or the path of a domain file
    problem_pddl: str
    params: dict = field(default_factory=dict, hash=False)
    seed: int | None = None
    optimal_length: int | None = None
    optimal_plan: tuple[str, ...] | None = None
    # The parsed domain when the set was read with one (``read_instance_set(..., domain=...)`` or a
    # user's context/templates file attached): ``task()`` grounds with it instead of re-reading
    # ``domain``, so the presentation choices travel with the instance.
    domain_model: strips.Domain | None = field(default=None, compare=False, repr=False)
    # Certified unsolvable instances (`generators.unsolvable`): solvable False and how it was proved
    # ({"method", "states_explored"}); None = not known (solvable instances carry an optimal plan).
    solvable: bool | None = None
    certificate: dict | None = field(default=None, hash=False)

    def task(self, domain: str | Path | strips.Domain | None = None) -> strips.Task:
        """Ground the problem (without the ``pddl`` parser when the text is plain STRIPS)."""
        if isinstance(domain, strips.Domain):
            dom = domain
        elif domain is None and self.domain_model is not None:
            dom = self.domain_model
        else:
            dom = strips.load_domain(domain or self.domain)
        return strips.parse_problem_text(dom, self.problem_pddl, source=self.id)


# --------------------------------------------------------------------------------------------
# Instance sets on disk


def problem_file_names(n: int) -> list[str]:
    width = max(4, len(str(n)))
    return [f"instance-{i:0{width}d}.pddl" for i in range(1, n + 1)]


def domain_source_text(domain: str | Path | strips.Domain) -> str:
    if isinstance(domain, strips.Domain):
        if domain.source and Path(domain.source).is_file():
            return Path(domain.source).read_text(encoding="utf-8")
        return domain.text
    return strips.domain_path(domain).read_text(encoding="utf-8")


def manifest_row(inst: Instance, file: str) -> dict:
    return {
        "id": inst.id,
        "file": file,
        "domain": inst.domain,
        "parameters": inst.params,
        "seed": inst.seed,
        "optimal_length": inst.optimal_length,
        "optimal_plan": list(inst.optimal_plan) if inst.optimal_plan is not None else None,
        # only for certified unsolvable instances, so that other sets keep their bytes
        **({"solvable": inst.solvable, "certificate": inst.certificate} if inst.certificate is not None else {}),
    }


def write_instance_set(directory: str | Path, domain: str | Path | strips.Domain, instances) -> list[Path]:
    """Write ``domain.pddl``, one problem file per instance and ``manifest.jsonl``; return the paths.

    The bytes depend only on the arguments (sorted JSON keys, ``\\n`` line ends, no timestamps).
    Existing files of the same names are overwritten; nothing else in the folder is touched.
    """
    instances = list(instances)
    out = make_output_dir(directory)
    ids = [i.id for i in instances]
    if len(set(ids)) != len(ids):
        dup = next(x for x in ids if ids.count(x) > 1)
        raise UserError(f"instance id {dup!r} occurs twice in the set")
    written = []
    written.append(_write(out / DOMAIN_FILE, domain_source_text(domain)))
    rows = []
    for inst, name in zip(instances, problem_file_names(len(instances))):
        text = inst.problem_pddl if inst.problem_pddl.endswith("\n") else inst.problem_pddl + "\n"
        written.append(_write(out / name, text))
        rows.append(json.dumps(manifest_row(inst, name), sort_keys=True, ensure_ascii=False))
    written.append(_write(out / MANIFEST, "".join(r + "\n" for r in rows)))
    return written


def _write(path: Path, text: str) -> Path:
    try:
        with open(path, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
    except OSError as exc:
        raise UserError(f"cannot write {path}: {exc.strerror}") from None
    return path


def _natural_key(name: str):
    return [(0, int(t), "") if t.isdigit() else (1, 0, t) for t in re.findall(r"\d+|\D+", name)]


def find_domain(folder: Path) -> Path:
    d = folder / DOMAIN_FILE
    if d.is_file():
        return d
    candidates = sorted(p for p in folder.glob("*.pddl") if "domain" in p.name.lower())
    if len(candidates) == 1:
        return candidates[0]
    if not candidates:
        raise UserError(f"{folder}: no {DOMAIN_FILE} (an instance set needs a domain file)")
    raise UserError(f"{folder}: no {DOMAIN_FILE} and several domain files "
                    f"({', '.join(p.name for p in candidates)}); keep one")


def builtin_name(domain: strips.Domain) -> str | None:
    """The built-in domain this one is equivalent to, if any: the same predicates and the same action
    schemas up to the names of their parameters and the order of their literals."""
    mine = _canonical(domain)
    for name in DomainRegistry.default().names:
        if _canonical(strips.load_domain(name)) == mine:
            return name
    return None


def _canonical(domain: strips.Domain):
    def lits(schema, literals):
        rename = {p: f"?{i}" for i, p in enumerate(schema.params)}
        return tuple(sorted((l.positive, l.predicate, tuple(rename.get(a, a) for a in l.args)) for l in literals))

    schemas = tuple(sorted((s.name, s.param_types, lits(s, s.pre), lits(s, s.add), lits(s, s.dele))
                           for s in domain.schemas))
    return tuple(sorted(domain.predicates.items())), tuple(sorted(domain.constants)), schemas


def read_instance_set(directory: str | Path, validate: bool = True, domain: str | Path | None = None,
                      context_file: str | Path | None = None,
                      templates_file: str | Path | None = None) -> list[Instance]:
    """Read a folder written by ``write_instance_set`` or any folder of domain + problem files.

    ``domain`` (a domain file or built-in name) replaces the folder's domain file, which then need not
    exist (``--domain FILE --instances DIR``); ``context_file``/``templates_file`` attach a
    hand-written prompt context and NL templates to the domain (``strips.with_presentation``).
    ``Instance.domain`` is the built-in name when the domain is equivalent to a built-in domain (e.g.
    PlanBench's ``blocksworld-4ops``), else the absolute path of the domain file; ``domain_model`` is
    set when a domain or a presentation file was given.
    With ``validate`` every problem is grounded once, so a broken file fails here, with its name.
    """
    folder = Path(directory)
    if not folder.is_dir():
        raise UserError(f"instance set folder not found: {folder}")
    if domain is not None:
        dom_path = strips.domain_path(domain)
    else:
        dom_path = find_domain(folder)
    dom = strips.load_domain(dom_path, context_file=context_file, templates_file=templates_file)
    model = dom if (domain is not None or context_file or templates_file) else None
    dom_name = builtin_name(dom) or str(dom_path.resolve())
    manifest = folder / MANIFEST
    instances, paths = [], []
    if manifest.is_file():
        for n, line in enumerate(manifest.read_text(encoding="utf-8").splitlines(), start=1):
            if not line.strip():
                continue
            where = f"{manifest}:{n}"
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise UserError(f"{where}: not JSON ({exc.msg})") from None
            if not isinstance(row, dict) or not isinstance(row.get("id"), str) or not isinstance(row.get("file"), str):
                raise UserError(f"{where}: a manifest row needs string fields 'id' and 'file'")
            path = folder / row["file"]
            if not path.is_file():
                raise UserError(f"{where}: problem file {row['file']} not found in {folder}")
            plan = row.get("optimal_plan")
            length = row.get("optimal_length")
            if plan is not None and (not isinstance(plan, list) or not all(isinstance(a, str) for a in plan)):
                raise UserError(f"{where}: 'optimal_plan' must be a list of action texts")
            if length is not None and (isinstance(length, bool) or not isinstance(length, int)):
                raise UserError(f"{where}: 'optimal_length' must be an integer")
            params = row.get("parameters") or {}
            if not isinstance(params, dict):
                raise UserError(f"{where}: 'parameters' must be an object")
            seed = row.get("seed")
            if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
                raise UserError(f"{where}: 'seed' must be an integer")
            cert = row.get("certificate")
            if cert is not None and (not isinstance(cert, dict) or row.get("solvable") is not False):
                raise UserError(f"{where}: 'certificate' must be an object, with 'solvable': false")
            paths.append(path)
            instances.append(Instance(
                id=row["id"], domain=dom_name, problem_pddl=_read_text(path), params=params, seed=seed,
                optimal_length=length, optimal_plan=tuple(plan) if plan is not None else None,
                domain_model=model, solvable=False if cert is not None else None, certificate=cert))
    else:
        # Other domain files (e.g. a second copy of the domain under another name) are not problems.
        files = sorted((p for p in folder.glob("*.pddl")
                        if p.resolve() != dom_path.resolve() and not _defines_domain(p)),
                       key=lambda p: _natural_key(p.name))
        if not files:
            raise UserError(f"{folder}: no problem files (*.pddl besides {dom_path.name})")
        for p in files:
            paths.append(p)
            instances.append(Instance(id=p.stem, domain=dom_name, problem_pddl=_read_text(p),
                                      domain_model=model))
    if validate:
        for inst, path in zip(instances, paths):
            strips.load_task(dom, path)
    return instances


_DOMAIN_HEAD = re.compile(r"^\s*(?:;[^\n]*\n\s*)*\(\s*define\s*\(\s*domain\b", re.IGNORECASE)


def _defines_domain(path: Path) -> bool:
    return bool(_DOMAIN_HEAD.match(_read_text(path)[:4096]))


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise UserError(f"cannot read {path}: {exc.strerror}") from None


# --------------------------------------------------------------------------------------------
# More problems of a user's domain from a few samples


def walk_instances(instances, count: int, seed: int, max_walk: int = 30, max_tries: int = 20,
                   min_plan_length: int = 3) -> list[Instance]:
    """``count`` problems derived from sample problems by seeded random walks.

    For a domain that comes with a handful of problems (ACPBench's folders hold 2-6, often with an
    initial state close to the goal or on it): round-robin over the samples, walk 0..``max_walk``
    uniformly random applicable actions from the sample's initial state and keep the state reached as
    the initial state of a new problem with the sample's objects, static facts and goal, if it is not
    a goal state, has a plan of at least ``min_plan_length`` steps (h* finite; short problems give IW
    too little to prune for the novelty sub-tasks; after ``max_tries`` misses the bound drops to 1)
    and was not kept before. A sample whose walks end in its
    goal five times (ACPBench's satellite problems start in a goal state and no action undoes an image) gets
    *walk goals* instead: 1-3 facts that a second walk of 1..``max_walk`` steps makes true (solvable
    by construction; the same bound on the plan length applies). Ids are ``<sample id>-w<k>``;
    ``params`` records the sample, the walk length and the kind of goal; ``optimal_plan`` holds one
    optimal plan. Deterministic in (samples, count, seed). Raises UserError when the samples yield
    fewer than ``count`` distinct problems.
    """
    import random


    samples = list(instances)
    if not samples:
        raise UserError("no sample problems to derive instances from")
    rng = random.Random(seed)
    tasks = [s.task() for s in samples]
    truths = [GroundTruth(t) for t in tasks]
    seen: set[tuple] = set()
    misses = [0] * len(samples)  # walks of a sample that ended in a goal state
    out: list[Instance] = []
    tries = 0

    def walk(task, state, steps):
        # Steps into states with no applicable action are avoided when there is another choice
        # (alfred's validate actions end every plan: a walk through one is stuck for good).
        for _ in range(steps):
            acts = strips.applicable_actions(task, state)
            if not acts:
                break
            order = [acts[i] for i in rng.sample(range(len(acts)), len(acts))]
            nxt = [strips.successor(state, a) for a in order]
            state = next((t for t in nxt if strips.applicable_actions(task, t)), nxt[0])
        return state

    while len(out) < count:
        if tries >= max_tries * (count + 2 * len(samples)):
            raise UserError(f"derived only {len(out)} of {count} problems from {len(samples)} sample(s) "
                            "(the reachable non-goal states with a plan are too few)")
        tries += 1
        j = len(out) % len(samples) if tries <= count else rng.randrange(len(samples))
        task = tasks[j]
        steps = rng.randint(0, max_walk)
        state = walk(task, task.init, steps)
        walk_goal = misses[j] >= 5
        if walk_goal:
            target = walk(task, state, rng.randint(1, max_walk))
            new = strips.bits(target & ~state)
            if not new:
                continue
            picked = sorted(rng.sample(new, min(len(new), rng.randint(1, 3))))
            goal = sum(1 << i for i in picked)
            key = (j, state, goal)
            if key in seen:
                continue
            seen.add(key)
            derived = dataclasses.replace(task, goal=goal, goal_neg=0)
            # a walk goal is near (1-3 facts a walk made true): breadth-first search finds its optimal
            # plan faster than enumerating the space
            plan = solve(dataclasses.replace(derived, init=state)).plan
            if len(plan) < min_plan_length and tries < max_tries * count:
                continue
        else:
            if strips.is_goal(task, state):
                misses[j] += 1
                continue
            if (j, state) in seen:
                continue
            seen.add((j, state))
            h = truths[j].h_star(state)
            if h == float("inf") or (h < min_plan_length and tries < max_tries * count):
                continue
            derived = task
            plan = tuple(str(a) for a in truths[j].optimal_plan(state))
        # The optimal plan travels with the problem (manifest.jsonl), so sub-task items built on
        # the set never search for it again.
        iid = f"{samples[j].id}-w{len(out) + 1:04d}"
        text = task_problem_text(dataclasses.replace(derived, problem_name=iid), state)
        out.append(Instance(id=iid, domain=samples[j].domain, problem_pddl=text,
                            params={"sample": samples[j].id, "walk": steps,
                                    "goal": "walk" if walk_goal else "sample"},
                            seed=seed, optimal_length=len(plan), optimal_plan=plan,
                            domain_model=samples[j].domain_model))
    return out


def instance_ids(prefix: str, count: int) -> list[str]:
    width = max(4, len(str(count)))
    return [f"{prefix}-{i:0{width}d}" for i in range(1, count + 1)]


def to_instances(prefix: str, domain: str, accepted: list) -> list:
    """Accepted (candidate, solved) pairs -> ``Instance`` objects with ids ``prefix-0001`` …"""
    out = []
    for iid, (cand, solved) in zip(instance_ids(prefix, len(accepted)), accepted):
        out.append(Instance(
            id=iid, domain=domain, problem_pddl=problem_text(iid, domain, cand.objects, cand.init, cand.goal),
            params=dict(cand.params), seed=cand.seed,
            optimal_length=solved.length if solved else None,
            optimal_plan=solved.plan if solved else None))
    return out
