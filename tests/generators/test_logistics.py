"""Logistics generator: structure, solvability, exact counts, determinism, uniqueness, filters."""

from __future__ import annotations

import collections
import random

import pytest

from widthbench.core.errors import UserError
from widthbench.generators import generate
from widthbench.generators import logistics as lg
from widthbench.planners.bfs import shortest_plan
from widthbench.planners.strips import execute_plan, parse_atom_text, state_atoms


def _facts(inst):
    """(goal atoms, initial atoms incl. statics) as (predicate, args), read back through the engine."""
    task = inst.task()
    init = {parse_atom_text(a) for a in state_atoms(task, task.init) + list(task.static_atoms)}
    return [parse_atom_text(a) for a in state_atoms(task, task.goal)], init


def test_structure_one_airport_per_city_a_truck_in_every_city_planes_at_airports():
    insts = generate("logistics", 40, seed=3, cities="1-3", locations="1-3", trucks="3-4",
                     airplanes="1-2", packages="1-3", optimal=False)
    for inst in insts:
        goal, init = _facts(inst)
        p = inst.params
        cities = {a[0] for pred, a in init if pred == "city"}
        assert cities == {f"c{i}" for i in range(p["cities"])}
        city_of = {a[0]: a[1] for pred, a in init if pred == "in-city"}
        assert len(city_of) == p["cities"] * p["locations"]
        airports = [a[0] for pred, a in init if pred == "airport"]
        assert sorted(city_of[x] for x in airports) == sorted(cities)  # exactly one per city
        at = {a[0]: a[1] for pred, a in init if pred == "at"}
        trucks = [a[0] for pred, a in init if pred == "truck"]
        assert len(trucks) == p["trucks"]
        assert {city_of[at[t]] for t in trucks} == cities
        for i in range(p["cities"]):
            assert city_of[at[f"t{i}"]] == f"c{i}"
        assert all(at[a[0]] in airports for pred, a in init if pred == "airplane")
        packages = sorted(a[0] for pred, a in init if pred == "package")
        assert packages == [f"p{i}" for i in range(p["packages"])]
        assert sorted(g[1][0] for g in goal) == packages and all(g[0] == "at" for g in goal)
        assert not set(goal) <= init


def test_every_instance_is_solvable_and_plans_are_optimal():
    insts = generate("logistics", 12, seed=8, cities="1-2", locations="1-2", airplanes=1, packages="1-2",
                     planner="auto")
    for inst in insts:
        task = inst.task()
        assert execute_plan(task, inst.optimal_plan).valid
        assert inst.optimal_length == len(shortest_plan(task).plan)


def test_same_seed_same_instances_other_seed_other_instances():
    kw = dict(cities="2-3", locations=2, packages="2-3", optimal=False)
    a = generate("logistics", 15, seed=21, **kw)
    assert a == generate("logistics", 15, seed=21, **kw)
    assert [i.problem_pddl for i in a] != [i.problem_pddl for i in generate("logistics", 15, seed=22, **kw)]
    assert a[0].id == "lg-0001"
    for inst in a[:5]:
        cand = lg.sample_instance(inst.seed, **inst.params)
        _, init = _facts(inst)
        assert {f"({p} {' '.join(x)})" for p, x in init} == set(cand.init)


def test_instances_are_distinct():
    # 90 of the 96 that exist: the last draws hit many duplicates
    insts = generate("logistics", 90, seed=2, cities=2, locations=2, packages=1, optimal=False)
    keys = [(frozenset(init), frozenset(goal)) for goal, init in map(_facts, insts)]
    assert len(set(keys)) == len(keys)


@pytest.mark.parametrize("params", [
    dict(cities=1, locations=2, trucks=1, airplanes=0, packages=1),
    dict(cities=2, locations=1, trucks=2, airplanes=1, packages=1),
    dict(cities=1, locations=2, trucks=2, airplanes=1, packages=2),
    dict(cities=2, locations=2, trucks=2, airplanes=1, packages=1),
])
def test_count_instances_matches_enumeration(params):
    rng = random.Random(0)
    keys = set()
    for _ in range(3000):
        c = lg.sample_instance(rng.getrandbits(48), **params)
        if not c.goal_holds_initially():
            keys.add(c.key())
    assert len(keys) == lg.count_instances(**params)


def test_asking_for_more_than_exist_fails_at_once():
    n = lg.count_instances(cities=1, locations=2, trucks=1, airplanes=0, packages=1)
    assert n == 4
    assert len(generate("logistics", 4, seed=1, cities=1, locations=2, airplanes=0, packages=1, optimal=False)) == 4
    with pytest.raises(UserError, match=r"asked for 5 distinct Logistics instances \(cities 1, .* only 4"):
        generate("logistics", 5, seed=1, cities=1, locations=2, airplanes=0, packages=1, optimal=False)
    with pytest.raises(UserError, match=r"only 0"):
        generate("logistics", 1, seed=1, cities=1, locations=1, airplanes=0, packages=2)


def test_package_positions_are_uniform_over_locations():
    rng = random.Random(1)
    counts = collections.Counter()
    total = 9 * 500
    for _ in range(total):
        c = lg.sample_instance(rng.getrandbits(48), cities=3, locations=3, trucks=3, airplanes=1, packages=1)
        counts[next(a for a in c.init if a.startswith("(at p0 "))] += 1
    expected = total / 9
    assert len(counts) == 9
    assert sum((v - expected) ** 2 / expected for v in counts.values()) < 26.125  # chi2.isf(0.001, 8)


def test_plan_length_filter():
    insts = generate("logistics", 8, seed=5, cities=2, locations=2, packages="1-2", min_plan_length=6,
                     max_plan_length=9)
    assert all(6 <= i.optimal_length <= 9 for i in insts)


@pytest.mark.parametrize("kwargs, message", [
    (dict(cities=3, trucks=2), r"--trucks 2 is fewer than --cities 3"),
    (dict(cities="2-3", trucks="2-5"), r"--trucks 2-5 is fewer than --cities 2-3"),
    (dict(cities=2, airplanes=0), r"--airplanes 0: instances with more than one city need an airplane"),
    (dict(packages=0), r"--packages: must be at least 1"),
    (dict(cities="3-2"), r"--cities: range 3-2 is empty"),
    (dict(blocks=4), r"unknown option\(s\) blocks"),
])
def test_bad_requests_fail_with_a_user_error(kwargs, message):
    with pytest.raises(UserError, match=message):
        generate("logistics", 3, seed=1, **kwargs)


def test_unknown_domain():
    with pytest.raises(UserError, match="no generator for domain 'gripper'"):
        generate("gripper", 3, seed=1)
