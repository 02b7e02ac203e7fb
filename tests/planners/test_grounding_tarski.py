"""Grounding cross-check: the engine against tarski's LP grounder (an independent implementation).

tarski (`tarski[clingo]`, pyproject.toml's pins) grounds a problem by computing, with clingo, the atoms and the
actions reachable in the delete relaxation: exactly what `strips.ground` keeps. For every reference
domain (ACPBench's 13, our Blocksworld and Logistics, the IPC copies) and its problems, both must agree
on the fluent atoms and on the ground actions. Only tarski's grounder is used, never its search
(it is slow: pyproject.toml's pins).

Conventions aligned before comparing: our task also lists goal atoms that no action can reach (so
that a goal can be written as a state mask); tarski does not, so those are left out here. tarski
lower-cases like we do. tarski's relaxation drops negative literals, inequalities included, where
the engine evaluates static ones at grounding time (``(not (= ?from ?to))`` in alfred): there tarski
grounds a superset, and the test checks that its extra actions are exactly the ones with a
statically false negative precondition, and its extra atoms only ones those actions add.
"""

from __future__ import annotations

import functools
from pathlib import Path

import pytest

from tests.conftest import ACP, IPC, missing_part, need_data
from widthbench.planners import strips

try:
    import tarski
except ImportError:  # a test extra: pip install -e '.[test]'
    tarski = None


@pytest.fixture(autouse=True)
def _tarski():
    if tarski is None:
        missing_part("tarski is not installed (pip install -e '.[test]')")


def _reference_problems() -> list[tuple[str, Path, Path]]:
    """(label, domain file, problem file): ACPBench's problems (all), the IPC and built-in domains."""
    out = []
    if ACP.is_dir():
        for d in sorted(p for p in ACP.iterdir() if p.is_dir()):
            for p in sorted(d.glob("*.pddl")):
                if p.name != "domain.pddl":
                    out.append((f"acp/{d.name}/{p.stem}", d / "domain.pddl", p))
    if IPC.is_dir():
        for name, probs in (("blocksworld", ("probBLOCKS-4-0", "probBLOCKS-6-1", "probBLOCKS-9-0")),
                            ("logistics", ("probLOGISTICS-4-0", "probLOGISTICS-6-1", "probLOGISTICS-9-0"))):
            for p in probs:
                out.append((f"ipc/{name}/{p}", IPC / name / "domain.pddl", IPC / name / f"{p}.pddl"))
                # the same problems with our own copies of the domains (the built-ins)
                out.append((f"builtin/{name}/{p}", strips.domain_path(name), IPC / name / f"{p}.pddl"))
    return out


CASES = _reference_problems()


@functools.lru_cache(maxsize=None)
def _tarski(domain: str, problem: str):
    """(fluent atoms, ground actions) as our PDDL texts, by tarski's LP grounder."""
    from tarski.grounding import LPGroundingStrategy
    from tarski.io import PDDLReader

    reader = PDDLReader(raise_on_error=True, strict_with_requirements=False, case_insensitive=True)
    reader.parse_domain(domain)
    problem_ = reader.parse_instance(problem)
    g = LPGroundingStrategy(problem_)
    actions = {"(" + " ".join((name, *args)) + ")"
               for name, bindings in g.ground_actions().items() for args in bindings}
    atoms = {"(" + " ".join((str(a.symbol.symbol), *(str(t) for t in a.binding))) + ")"
             for a in g.ground_state_variables().objects}
    return {x.lower() for x in atoms}, {x.lower() for x in actions}


def _ours(domain: Path, problem: Path):
    task = strips.load_task(domain, problem)
    added = 0
    for a in task.actions:
        added |= a.add
    reachable = task.init | added  # leaves out goal atoms no action adds and init does not hold
    atoms = {task.atoms[i] for i in strips.bits(reachable)}
    return task, atoms, {str(a) for a in task.actions}


@pytest.mark.parametrize("label,domain,problem", CASES, ids=[c[0] for c in CASES])
def test_engine_grounds_the_same_atoms_and_actions_as_tarski(label, domain, problem):
    need_data()
    task, atoms, actions = _ours(domain, problem)
    t_atoms, t_actions = _tarski(str(domain), str(problem))
    # tarski keeps a fluent symbol's atoms whether or not they are static in the problem; our statics
    # are folded away by predicate (no action changes them), so compare fluent predicates only.
    fluent = {a for a in t_atoms if strips.parse_atom_text(a)[0] not in task.domain.static_predicates}
    assert actions <= t_actions, sorted(actions - t_actions)[:5]
    assert atoms <= fluent, sorted(atoms - fluent)[:5]
    extra = t_actions - actions
    added = set()
    for text in extra:
        a = strips.parse_action(task, text)
        # only a statically false negative literal ((not (= x x)), (not (static ...))) may drop it
        assert a.id == -1 and a.impossible and all(r.startswith("(not ") for r in a.impossible), (text, a.impossible)
        schema = task.domain.schema(a.name)
        binding = dict(zip(schema.params, a.args))
        added |= {strips.atom_str(l.predicate, tuple(binding.get(x, x) for x in l.args)) for l in schema.add}
    assert not extra or any(l.predicate == "=" or not l.positive for s in task.domain.schemas for l in s.pre)
    assert fluent - atoms <= added, sorted(fluent - atoms - added)[:5]
