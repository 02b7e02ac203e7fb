"""Blocksworld generator: uniform configurations, exact counts, determinism, uniqueness, filters."""

from __future__ import annotations

import collections
import random

import pytest

from widthbench.core.errors import UserError
from widthbench.generators import blocksworld as bw
from widthbench.generators import generate
from widthbench.planners.bfs import shortest_plan
from widthbench.planners.strips import execute_plan, ground, load_domain, state_atoms

# chi-square critical values at p = 0.001 (scipy.stats.chi2.isf(0.001, dof))
CHI2_CRIT_12 = 32.909
CHI2_CRIT_72 = 114.835


def _chi_square(counts: collections.Counter, cells: list, total: int) -> float:
    expected = total / len(cells)
    return sum((counts[c] - expected) ** 2 / expected for c in cells)


def test_configuration_counts_are_lah_sums_and_match_enumeration():
    assert [bw.count_configurations(n) for n in range(8)] == [1, 1, 3, 13, 73, 501, 4051, 37633]
    for n in range(1, 6):
        configs = bw.all_configurations(bw.block_names(n))
        assert len(configs) == len(set(configs)) == bw.count_configurations(n)
        assert sum(bw.lah(n, m) for m in range(1, n + 1)) == bw.count_configurations(n)
        by_towers = collections.Counter(len(c) for c in configs)
        assert all(by_towers[m] == bw.lah(n, m) for m in range(1, n + 1))


def test_sampler_is_uniform_over_the_13_configurations_of_3_blocks():
    cells = bw.all_configurations("abc")
    assert len(cells) == 13
    rng = random.Random(2024)
    total = 13 * 1000
    counts = collections.Counter(bw.sample_configuration(rng, "abc") for _ in range(total))
    assert set(counts) == set(cells)
    assert _chi_square(counts, cells, total) < CHI2_CRIT_12


def test_sampler_is_uniform_over_the_73_configurations_of_4_blocks():
    cells = bw.all_configurations("abcd")
    rng = random.Random(7)
    total = 73 * 300
    counts = collections.Counter(bw.sample_configuration(rng, "abcd") for _ in range(total))
    assert set(counts) == set(cells)
    assert _chi_square(counts, cells, total) < CHI2_CRIT_72


def test_a_tower_sampler_would_fail_the_same_test():
    # The test has power: "shuffle, then cut into towers at random points" is biased.
    cells = bw.all_configurations("abc")
    rng = random.Random(2024)
    counts = collections.Counter()
    for _ in range(13 * 1000):
        order = rng.sample("abc", 3)
        cuts = [i for i in (1, 2) if rng.random() < 0.5]
        pieces = [tuple(order[a:b]) for a, b in zip([0] + cuts, cuts + [3])]
        counts[tuple(sorted(pieces))] += 1
    assert _chi_square(counts, cells, 13 * 1000) > CHI2_CRIT_12


def _valid_pairs(n: int) -> set:
    configs = bw.all_configurations(bw.block_names(n))
    pairs = set()
    for i in configs:
        init = set(bw.state_atoms(i))
        for g in configs:
            goal = bw.goal_atoms(g)
            if not set(goal) <= init:
                pairs.add((tuple(sorted(init)), tuple(goal)))
    return pairs


def test_count_instances_matches_brute_force():
    assert bw.count_instances(1) == 0
    for n in (2, 3, 4):
        assert bw.count_instances(n) == len(_valid_pairs(n))
    assert bw.count_instances(3) == 132


def test_all_132_three_block_instances_and_not_one_more():
    insts = generate("blocksworld", 132, seed=3, blocks=3, optimal=False)
    found = {bw_key(i) for i in insts}
    assert found == _valid_pairs(3)
    with pytest.raises(UserError, match=r"asked for 133 distinct .* only 132"):
        generate("blocksworld", 133, seed=3, blocks=3, optimal=False)


def bw_key(inst):
    """(initial atoms, goal atoms) as sorted texts, read back through the engine."""
    task = inst.task()
    init = tuple(sorted(set(state_atoms(task, task.init)) | set(task.static_atoms)))
    return init, tuple(sorted(state_atoms(task, task.goal)))


def test_same_seed_same_instances_other_seed_other_instances():
    a = generate("blocksworld", 30, seed=11, blocks="4-6", optimal=False)
    b = generate("blocksworld", 30, seed=11, blocks="4-6", optimal=False)
    c = generate("blocksworld", 30, seed=12, blocks="4-6", optimal=False)
    assert a == b
    assert [i.problem_pddl for i in a] != [i.problem_pddl for i in c]
    assert [i.id for i in a][:2] == ["bw-0001", "bw-0002"]


def test_instances_are_distinct_nontrivial_and_planbench_shaped():
    insts = generate("blocksworld", 200, seed=5, blocks="4-6", optimal=False)
    keys = [bw_key(i) for i in insts]
    assert len(set(keys)) == len(keys)
    sizes = collections.Counter(i.params["blocks"] for i in insts)
    assert set(sizes) == {4, 5, 6}
    for inst, (init, goal) in zip(insts, keys):
        assert goal and all(g.startswith("(on ") for g in goal)
        assert not set(goal) <= set(init)
        assert "(handempty)" in init
        t = inst.task()
        assert t.objects == tuple((n, "object") for n in bw.block_names(inst.params["blocks"]))


def test_manifest_seed_and_parameters_recreate_the_instance():
    insts = generate("blocksworld", 5, seed=9, blocks="4-5", optimal=False)
    for inst in insts:
        cand = bw.sample_instance(inst.seed, **inst.params)
        assert bw_key(inst) == (tuple(sorted(cand.init)), tuple(sorted(cand.goal)))


def test_ground_once_per_size_equals_a_fresh_ground():
    dom = load_domain("blocksworld")
    for seed in range(5):
        cand = bw.sample_instance(seed, 5)
        fast = bw.with_init_and_goal(bw.ground_blocks(dom, 5), cand.init, cand.goal)
        fresh = ground(dom, cand.objects, cand.init, cand.goal)
        assert (fast.atoms, fast.actions, fast.init, fast.goal) == (fresh.atoms, fresh.actions, fresh.init, fresh.goal)


def test_optimal_plans_are_valid_and_as_short_as_breadth_first_search():
    insts = generate("blocksworld", 25, seed=4, blocks="3-5", optimal=True)
    for inst in insts:
        task = inst.task()
        assert execute_plan(task, inst.optimal_plan).valid
        assert inst.optimal_length == len(inst.optimal_plan) == len(shortest_plan(task).plan)


def test_every_three_block_instance_has_an_even_optimal_length_of_at_most_eight():
    dom = load_domain("blocksworld")
    lengths = collections.Counter()
    for init, goal in _valid_pairs(3):
        res = shortest_plan(ground(dom, "abc", init, goal))
        lengths[len(res.plan)] += 1
    assert all(n % 2 == 0 and 2 <= n <= 4 * (3 - 1) for n in lengths)
    assert max(lengths) == 8


def test_plan_length_filter():
    insts = generate("blocksworld", 20, seed=6, blocks="4-5", min_plan_length=8, max_plan_length=10)
    assert all(8 <= i.optimal_length <= 10 for i in insts)
    assert all(i.optimal_plan is not None for i in insts)
    # a filter implies computing plans even with optimal=False
    only_max = generate("blocksworld", 10, seed=6, blocks=4, max_plan_length=4, optimal=False)
    assert all(i.optimal_length <= 4 for i in only_max)


@pytest.mark.parametrize("kwargs, message", [
    (dict(blocks=4, min_plan_length=13), r"optimal plans have even length between 2 and 12"),
    (dict(blocks=4, min_plan_length=5, max_plan_length=5), r"even length"),
    (dict(blocks="6-4"), r"--blocks: range 6-4 is empty"),
    (dict(blocks=1), r"--blocks: must be at least 2"),
    (dict(blocks="four"), r"--blocks: expected a number or a range"),
    (dict(min_plan_length=9, max_plan_length=3), r"greater than --max-plan-length"),
    (dict(planner="magic"), r"unknown planner"),
])
def test_impossible_or_bad_requests_fail_at_once(kwargs, message):
    with pytest.raises(UserError, match=message):
        generate("blocksworld", 5, seed=1, **kwargs)


def test_too_few_instances_with_the_asked_length_gives_up_with_what_was_found():
    # 3 blocks: only a handful of pairs need 8 steps; asking for 100 must stop, not loop.
    with pytest.raises(UserError, match=r"asked for 100 distinct .* found only \d+: gave up after 300 consecutive"):
        generate("blocksworld", 100, seed=1, blocks=3, min_plan_length=8, max_failed_draws=300)


def test_count_must_be_positive():
    with pytest.raises(UserError, match="--count"):
        generate("blocksworld", 0, seed=1)


def test_block_names_extend_planbench_letters():
    assert bw.block_names(4) == ["a", "b", "c", "d"]
    names = bw.block_names(30)
    assert names[25:] == ["z", "aa", "ab", "ac", "ad"]
    assert len(set(bw.block_names(800))) == 800
