"""Logistics instances (IPC-2000 untyped domain) with random vehicle and package positions.

Objects use PlanBench's names, so PlanBench's object encodings (``p`` package, ``t`` truck, ``a``
airplane, ``l`` location, ``c`` city) apply: cities ``c0 c1 …``; locations ``l<city>-<k>`` with
``l<city>-0`` the city's one airport; trucks ``t0 t1 …``; airplanes ``a0 …``; packages ``p0 …``.

Drawing an instance with C cities, L locations per city, T ≥ C trucks, A airplanes, P packages:
- truck ``t<i>`` for i < C belongs to city i (so every city has a truck); each further truck belongs
  to a uniformly random city; each truck starts at a uniformly random location of its city;
- each airplane starts at a uniformly random airport;
- each package starts at a uniformly random location (of any city) and has an independent, uniformly
  random destination; the goal is ``(at p<i> <destination>)`` for every package.
Like PlanBench (where 12% of package goals already hold initially), a single package may already be
at its destination; the goal as a whole may not (such draws are rejected). Each parameter may be a
range; its value is drawn uniformly per instance.

Solvable by construction: a truck of a city can reach every location of it and carry a package to
the airport; any airplane can fly between any two airports; so a package reaches any destination
(city of origin by truck to the airport, by airplane to the destination's airport, by that city's
truck to the destination). This needs an airplane when there is more than one city, which is
required, and a truck per city, which ``t0 … t<C-1>`` guarantee.

Counting. With the per-city truck assignment above, one parameter combination has
L^C * (C L)^(T-C) * C^A * ((C L)^(2P) - (C L)^P) distinct (initial state, goal) pairs with a goal not
already true; different combinations have different objects. Asking for more fails at once.
"""

from __future__ import annotations

import itertools
import random

from widthbench.core.errors import UserError
from widthbench.generators.common import (
    DEFAULT_MAX_FAILED_DRAWS, DEFAULT_TIMEOUT, Candidate, check_count, check_length_filter, collect,
    derive_seed, int_range,
)
from widthbench.generators.instance import to_instances
from widthbench.planners.strips import ground, load_domain

DOMAIN = "logistics"
ID_PREFIX = "lg"
DEFAULTS = {"cities": "2", "locations": "2", "trucks": None, "airplanes": "1", "packages": "1-3"}
PARAMS = ("cities", "locations", "trucks", "airplanes", "packages")


def city(i: int) -> str:
    return f"c{i}"


def location(c: int, k: int) -> str:
    return f"l{c}-{k}"


def sample_instance(seed: int, cities: int, locations: int, trucks: int, airplanes: int, packages: int) -> Candidate:
    """The instance drawn from ``seed`` with these parameters (a manifest row's seed and parameters)."""
    rng = random.Random(seed)
    C, L = cities, locations
    truck_city = [i if i < C else rng.randrange(C) for i in range(trucks)]
    truck_at = [location(c, rng.randrange(L)) for c in truck_city]
    plane_at = [location(rng.randrange(C), 0) for _ in range(airplanes)]
    everywhere = [location(c, k) for c in range(C) for k in range(L)]
    pkg_at = [everywhere[rng.randrange(len(everywhere))] for _ in range(packages)]
    pkg_to = [everywhere[rng.randrange(len(everywhere))] for _ in range(packages)]

    cs = [city(i) for i in range(C)]
    ts = [f"t{i}" for i in range(trucks)]
    aps = [f"a{i}" for i in range(airplanes)]
    ps = [f"p{i}" for i in range(packages)]
    objects = aps + cs + ts + everywhere + ps
    init = [f"(airplane {a})" for a in aps] + [f"(city {c})" for c in cs] + [f"(truck {t})" for t in ts]
    for c in range(C):
        for k in range(L):
            init += [f"(location {location(c, k)})", f"(in-city {location(c, k)} {city(c)})"]
    init += [f"(airport {location(c, 0)})" for c in range(C)]
    init += [f"(package {p})" for p in ps]
    init += [f"(at {t} {loc})" for t, loc in zip(ts, truck_at)]
    init += [f"(at {p} {loc})" for p, loc in zip(ps, pkg_at)]
    init += [f"(at {a} {loc})" for a, loc in zip(aps, plane_at)]
    goal = [f"(at {p} {loc})" for p, loc in zip(ps, pkg_to)]
    params = {"cities": C, "locations": L, "trucks": trucks, "airplanes": airplanes, "packages": packages}
    return Candidate(params, seed, tuple(objects), tuple(init), tuple(goal))


def count_instances(cities: int, locations: int, trucks: int, airplanes: int, packages: int) -> int:
    """Distinct (initial state, goal) pairs of one parameter combination with a goal not already true."""
    C, L = cities, locations
    n = C * L
    return L ** C * n ** (trucks - C) * C ** airplanes * (n ** (2 * packages) - n ** packages)


def generate(count: int, seed: int, cities="2", locations="2", trucks=None, airplanes="1", packages="1-3",
             min_plan_length: int | None = None, max_plan_length: int | None = None,
             width: int | None = None, optimal: bool = True,
             planner: str = "auto", timeout: float = DEFAULT_TIMEOUT,
             max_failed_draws: int = DEFAULT_MAX_FAILED_DRAWS, progress=None) -> list:
    """``count`` distinct Logistics instances (see the module docstring), as ``Instance`` objects.

    ``trucks=None`` means one truck per city. Every parameter may be a number or a range ``"2-3"``.
    """
    count = check_count(count)
    rc = int_range(cities, "--cities", minimum=1)
    rl = int_range(locations, "--locations", minimum=1)
    rt = None if trucks is None else int_range(trucks, "--trucks", minimum=1)
    ra = int_range(airplanes, "--airplanes", minimum=0)
    rp = int_range(packages, "--packages", minimum=1)
    if rt is not None and rt.lo < rc.hi:
        raise UserError(f"--trucks {rt} is fewer than --cities {rc}: every city needs a truck "
                        "(give at least as many trucks as the largest number of cities)")
    if rc.hi > 1 and ra.lo < 1:
        raise UserError(f"--airplanes {ra}: instances with more than one city need an airplane "
                        "(else packages cannot change city)")
    lo, hi = check_length_filter(min_plan_length, max_plan_length)

    dom = load_domain(DOMAIN)

    def draw(master: random.Random) -> Candidate:
        c = rc.draw(master)
        t = c if rt is None else rt.draw(master)
        values = (c, rl.draw(master), t, ra.draw(master), rp.draw(master))
        return sample_instance(derive_seed(master), *values)

    def to_task(cand: Candidate):
        return ground(dom, cand.objects, cand.init, cand.goal, name=f"{ID_PREFIX}-candidate")

    capacity = 0
    for c, l, a, p in itertools.product(rc.values(), rl.values(), ra.values(), rp.values()):
        for t in ([c] if rt is None else rt.values()):
            capacity += count_instances(c, l, t, a, p)
    what = (f"Logistics instances (cities {rc}, locations per city {rl}, trucks "
            f"{'one per city' if rt is None else rt}, airplanes {ra}, packages {rp})")
    accepted = collect(
        what=what, count=count, seed=seed, draw=draw, to_task=to_task, capacity=capacity,
        min_plan_length=lo, max_plan_length=hi, width=width, optimal=optimal, planner=planner, timeout=timeout,
        max_failed_draws=max_failed_draws, progress=progress)
    return to_instances(ID_PREFIX, DOMAIN, accepted)
