"""Digests of the grounded tasks of every reference file, to pin grounding across rewrites.

A task's digest covers everything grounding decides: the objects, the fluent atoms in index order,
the static atoms, the initial state and the goal masks, and every action in id order (name,
arguments, precondition, negative-precondition, add and delete masks, and the preconditions found
impossible), plus the trigger index that ``applicable_actions`` walks. A file the engine refuses is
pinned by its error line. ``tests/planners/data/grounding_digests.json`` holds the digests computed by
the grounding code before it was rewritten for speed; ``test_grounding_digests.py`` checks that the
current code gives the same ones.

    python -m tests.planners.grounding_digests --write   # recompute the stored file (after review only)
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

from tests.conftest import ACP, DATA, IPC, PLANBENCH
from widthbench.core.errors import UserError
from widthbench.planners import strips

STORED = Path(__file__).resolve().parent / "data" / "grounding_digests.json"


def reference_sets() -> list[tuple[Path, list[Path]]]:
    """(domain file, problem files) for every reference set: PlanBench's instance folders (each with
    its generated_domain.pddl), ACPBench's 13 domains, the IPC domains with their own domain files and
    with our built-in copies."""
    out = []
    for dom in sorted(PLANBENCH.rglob("generated_domain.pddl")):
        probs = sorted(p for p in dom.parent.rglob("*.pddl") if p.name != "generated_domain.pddl")
        out.append((dom, probs))
    for d in sorted(p for p in ACP.iterdir() if p.is_dir()):
        out.append((d / "domain.pddl", sorted(p for p in d.glob("*.pddl") if p.name != "domain.pddl")))
    for d in sorted(p for p in IPC.iterdir() if p.is_dir()):
        probs = sorted(p for p in d.glob("*.pddl") if not p.name.startswith("domain"))
        out.append((d / "domain.pddl", probs))
        out.append((strips.domain_path(d.name), probs))
    return out


def label(domain: Path) -> str:
    return f"builtin:{domain.stem}" if domain.parent == strips.DOMAINS_DIR else str(domain.relative_to(DATA))


def task_digest(task: strips.Task) -> str:
    h = hashlib.sha256()

    def put(*xs) -> None:
        h.update(repr(xs).encode())
        h.update(b"\n")

    put("task", task.domain_name, task.problem_name, task.objects)
    put("atoms", task.atoms)
    put("static", task.static_atoms)
    put("init", task.init, task.goal, task.goal_neg)
    for a in task.actions:
        put(a.id, a.name, a.args, a.pre, a.neg_pre, a.add, a.dele, a.impossible)
    groups, always = task._triggers
    put("triggers", tuple(tuple(x[2].id for x in g) for g in groups), tuple(x[2].id for x in always))
    return h.hexdigest()[:24]


def _error(exc: Exception) -> str:
    """An error line without the machine's data folder (the stored file holds relative paths)."""
    return "error: " + str(exc).replace(str(DATA) + "/", "").replace(str(strips.DOMAINS_DIR) + "/", "builtin:")


def file_digest(domain: strips.Domain | Exception, problem: Path) -> str:
    if isinstance(domain, Exception):
        return _error(domain)
    try:
        return task_digest(strips.load_task(domain, problem))
    except UserError as exc:
        return _error(exc)


def all_digests() -> dict[str, dict[str, str]]:
    """domain label -> problem file (relative to the data folder) -> digest or error line."""
    out = {}
    for dom_path, probs in reference_sets():
        try:
            dom = strips.load_domain(dom_path)
        except UserError as exc:
            dom = exc
        out[label(dom_path)] = {str(p.relative_to(DATA)): file_digest(dom, p) for p in probs}
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--write", action="store_true", help=f"write {STORED.name}")
    args = ap.parse_args(argv)
    digests = all_digests()
    values = [v for per in digests.values() for v in per.values()]
    errors = sum(1 for v in values if v.startswith("error"))
    print(f"{len(values)} reference files, {errors} refused by the engine", file=sys.stderr)
    if args.write:
        STORED.write_text(json.dumps(digests, indent=1, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
