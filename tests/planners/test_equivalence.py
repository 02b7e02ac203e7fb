"""`planners.equivalence`: whether two problems of one domain state the same problem (issue 44).

Property tests over generated Blocksworld and Logistics instances and ACPBench's gripper, ferry and
swap problems: a renaming of the objects plus a reordering of the atoms is equivalent; a goal fact
that every reachable goal state makes true may be added; removing a goal atom that is not implied,
or changing one initial atom, is not equivalent, with its class; past --max-states the verdict is
``unknown`` or the right one, never the opposite. The oracles here are the test's own: the goal-state
sets by plain enumeration, init isomorphism by trying every permutation of a few objects."""

from __future__ import annotations

import functools
import itertools
import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from widthbench.generators import generate
from widthbench.planners.bfs import reachable_states
from widthbench.planners.equivalence import Equivalence, problem_equivalence, read_candidate
from widthbench.planners.problem_writer import problem_text
from widthbench.planners.strips import (bits, load_domain, load_task, parse_atom_text, parse_problem_text,
                                        state_atoms)
from tests.conftest import ACP, need_data


@functools.cache
def pool() -> tuple:
    """The truths the properties draw from: generated Blocksworld (3-5 blocks) and Logistics (1-2
    packages) instances, and small ACPBench problems (typed domains)."""
    tasks = [i.task() for i in generate("blocksworld", 6, 11, blocks="3-5", optimal=False)]
    tasks += [i.task() for i in generate("logistics", 3, 11, packages="1-2", optimal=False)]
    if ACP.is_dir():
        for folder, name in (("gripper-strips", "gripper-1-2-4-09ec3a"), ("ferry", "ferry-l2-c2-0ae08c"),
                             ("swap", "swap-6-20-bf1056")):
            tasks.append(load_task(ACP / folder / "domain.pddl", ACP / folder / f"{name}.pddl"))
    return tuple(tasks)


def parts(task):
    """(objects [(name, type)], init atoms with the static ones, goal literals) of a task, as texts."""
    constants = {c for c, _ in task.domain.constants}
    objects = [(o, t) for o, t in task.objects if o not in constants]
    init = state_atoms(task, task.init) + list(task.static_atoms)
    goal = state_atoms(task, task.goal) + [f"(not {a})" for a in state_atoms(task, task.goal_neg)]
    return objects, init, goal


def rename_atom(text: str, names: dict) -> str:
    if text.startswith("(not "):
        return f"(not {rename_atom(text[5:-1], names)})"
    pred, args = parse_atom_text(text)
    return "(" + " ".join([pred, *(names.get(x, x) for x in args)]) + ")"


def write(task, objects, init, goal, names=None, rng=None) -> str:
    """A problem text of ``task``'s domain: objects renamed by ``names``, atoms shuffled by ``rng``."""
    names = names or {}
    typed = "typing" in task.domain.requirements
    objs = [f"{names.get(o, o)} - {t}" if typed else names.get(o, o) for o, t in objects]
    init = [rename_atom(a, names) for a in init]
    goal = [rename_atom(a, names) for a in goal]
    if rng is not None:
        for xs in (objs, init, goal):
            rng.shuffle(xs)
    return problem_text("candidate", task.domain.name, objs, init, goal)


def renaming(objects, rng, fresh: bool) -> dict:
    """A type-respecting permutation of the names (``fresh``: to new names instead)."""
    out = {}
    for t in sorted({t for _, t in objects}):
        group = [o for o, ot in objects if ot == t]
        targets = [f"x-{t}-{k}" for k in range(len(group))] if fresh else list(group)
        rng.shuffle(targets)
        out.update(zip(group, targets))
    return out


def goal_states(task) -> set:
    return {s for s in reachable_states(task) if s & task.goal == task.goal and not s & task.goal_neg}


def candidate_task(truth, text):
    got = read_candidate(truth.domain, text)
    assert not isinstance(got, Equivalence), got
    return got


SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
DRAW = st.tuples(st.integers(0, 10 ** 6), st.booleans())


@SETTINGS
@given(st.data())
def test_a_renaming_of_the_objects_and_a_reordering_of_the_atoms_is_equivalent(data):
    truth = data.draw(st.sampled_from(pool()))
    seed, fresh = data.draw(DRAW)
    rng = random.Random(seed)
    objects, init, goal = parts(truth)
    names = renaming(objects, rng, fresh)
    verdict = problem_equivalence(truth, write(truth, objects, init, goal, names, rng))
    assert verdict.equivalent is True and verdict.reason == "equivalent", verdict
    # the bijection reported maps the truth's initial state onto the candidate's
    sigma = dict(verdict.bijection)
    assert sorted(rename_atom(a, sigma) for a in init) == sorted(rename_atom(a, names) for a in init)


@SETTINGS
@given(st.data())
def test_adding_a_fact_every_reachable_goal_state_makes_true_keeps_it_equivalent(data):
    truth = data.draw(st.sampled_from(pool()))
    seed, fresh = data.draw(DRAW)
    found = goal_states(truth)
    assume(found)
    implied = functools.reduce(lambda x, y: x & y, found) & ~truth.goal
    assume(implied)
    rng = random.Random(seed)
    extra = state_atoms(truth, 1 << rng.choice(bits(implied)))
    objects, init, goal = parts(truth)
    names = renaming(objects, rng, fresh)
    verdict = problem_equivalence(truth, write(truth, objects, init, goal + extra, names, rng))
    assert verdict.equivalent is True, verdict


@SETTINGS
@given(st.data())
def test_removing_a_goal_atom_that_is_not_implied_admits_other_states(data):
    truth = data.draw(st.sampled_from(pool()))
    seed, fresh = data.draw(DRAW)
    rng = random.Random(seed)
    objects, init, goal = parts(truth)
    dropped = rng.choice(goal)
    kept = [g for g in goal if g != dropped]
    names = renaming(objects, rng, fresh)
    text = write(truth, objects, init, kept, names, rng)
    looser = candidate_task(truth, text)
    assume(len(goal_states(looser)) > len(goal_states(truth)))  # the atom is not implied by the rest
    verdict = problem_equivalence(truth, text)
    assert verdict.equivalent is False and verdict.reason == "goal-admits-other", verdict
    # the example is a reachable goal state of the candidate that lacks the dropped atom (as renamed)
    example = set(verdict.example_state)
    assert rename_atom(dropped, names) not in example
    assert all(a in looser.atom_index for a in example)
    assert state_from(looser, example) in goal_states(looser)


def state_from(task, atoms) -> int:
    return sum(1 << task.atom_index[a] for a in atoms)


@SETTINGS
@given(st.data())
def test_changing_one_initial_atom_to_another_predicate_makes_the_initial_states_differ(data):
    truth = data.draw(st.sampled_from(pool()))
    seed, fresh = data.draw(DRAW)
    rng = random.Random(seed)
    objects, init, goal = parts(truth)
    removed = rng.choice(init)
    pred = parse_atom_text(removed)[0]
    others = [(p, n) for p, n in sorted(truth.domain.predicates.items()) if p != pred]
    assume(others)
    p, n = rng.choice(others)
    names_all = [o for o, _ in truth.objects]
    added = "(" + " ".join([p, *(rng.choice(names_all) for _ in range(n))]) + ")"
    assume(added not in init)
    changed = [a for a in init if a != removed] + [added]
    names = renaming(objects, rng, fresh)
    verdict = problem_equivalence(truth, write(truth, objects, changed, goal, names, rng))
    assert verdict.equivalent is False and verdict.reason == "init-differs", verdict
    if not names or all(k == v for k, v in names.items()):
        assert (verdict.missing, verdict.extra) == ((removed,), (added,))


@SETTINGS
@given(st.data())
def test_an_initial_atom_left_out_or_added_is_the_one_atom_named_under_any_renaming(data):
    truth = data.draw(st.sampled_from(pool()))
    seed, fresh = data.draw(DRAW)
    rng = random.Random(seed)
    objects, init, goal = parts(truth)
    names = renaming(objects, rng, fresh)
    absent = [a for a in truth.atoms if a not in set(init)]
    if data.draw(st.booleans()) or not absent:
        atom = rng.choice(init)
        changed, named = [a for a in init if a != atom], "missing"
    else:
        atom = rng.choice(absent)
        changed, named = init + [atom], "extra"
    verdict = problem_equivalence(truth, write(truth, objects, changed, goal, names, rng))
    assert verdict.reason == "init-differs", verdict
    # exactly one atom differs under the embedding found (the one changed, or one like it under a
    # symmetry of the initial state): of the same predicate
    listed = verdict.missing if named == "missing" else verdict.extra
    assert len(listed) == 1 and not (verdict.extra if named == "missing" else verdict.missing), verdict
    assert parse_atom_text(listed[0])[0] == parse_atom_text(atom)[0]


def brute_force_isomorphic(objects, init_a: set, init_b: set) -> bool:
    names = [o for o, _ in objects]
    for perm in itertools.permutations(names):
        sigma = dict(zip(names, perm))
        if {rename_atom(a, sigma) for a in init_a} == init_b:
            return True
    return False


@SETTINGS
@given(st.integers(0, 10 ** 6))
def test_moving_one_block_changes_the_initial_state_unless_the_move_is_a_symmetry(seed):
    """A same-predicate change, against a brute-force isomorphism check over all permutations."""
    rng = random.Random(seed)
    truth = rng.choice([t for t in pool() if t.domain.name == "blocksworld"])
    objects, init, goal = parts(truth)
    ons = [a for a in init if a.startswith("(on ")]
    assume(ons)
    removed = rng.choice(ons)
    x, y = parse_atom_text(removed)[1]
    z = rng.choice([o for o, _ in objects if o not in (x, y)] or [x])
    added = f"(on {x} {z})"
    assume(added not in init)
    changed = [a for a in init if a != removed] + [added]
    verdict = problem_equivalence(truth, write(truth, objects, changed, goal, rng=rng))
    if brute_force_isomorphic(objects, set(init), set(changed)):
        assert verdict.reason != "init-differs", verdict
    else:
        assert verdict.equivalent is False and verdict.reason == "init-differs", verdict


@SETTINGS
@given(st.data())
def test_past_max_states_the_verdict_is_unknown_or_right_never_a_guess(data):
    truth = data.draw(st.sampled_from(pool()))
    seed, fresh = data.draw(DRAW)
    rng = random.Random(seed)
    objects, init, goal = parts(truth)
    names = renaming(objects, rng, fresh)
    found = goal_states(truth)
    implied = functools.reduce(lambda x, y: x & y, found) & ~truth.goal if found else 0
    choices = [goal[:-1] if len(goal) > 1 else goal, goal]
    if implied:
        choices.append(goal + state_atoms(truth, 1 << rng.choice(bits(implied))))
    text = write(truth, objects, init, rng.choice(choices), names, rng)
    exact = problem_equivalence(truth, text)
    bounded = problem_equivalence(truth, text, max_states=rng.choice([1, 3, 10]))
    assert bounded.equivalent in (None, exact.equivalent), (bounded, exact)
    if bounded.equivalent is None:
        assert bounded.reason == "unknown" and bounded.method == "bound"


BW = load_domain("blocksworld")
TRUTH_TEXT = """(define (problem t) (:domain blocksworld) (:objects a b c)
 (:init (handempty) (ontable a) (ontable b) (on c b) (clear a) (clear c))
 (:goal (and (on a b) (on b c))))"""


def judge(candidate: str, truth: str = TRUTH_TEXT, **options) -> Equivalence:
    return problem_equivalence(parse_problem_text(BW, truth), candidate, **options)


def test_a_goal_implied_only_through_the_state_space_is_unknown_past_the_bound_and_equivalent_within():
    """(handempty) and (clear a) hold in every reachable state with a on b on c: the search proves it;
    with 5 states allowed, nothing sound can, so the verdict is unknown (not a guess)."""
    text = TRUTH_TEXT.replace("(on b c))", "(on b c) (clear a) (handempty))")
    assert judge(text).equivalent is True
    bounded = judge(text, max_states=5)
    assert (bounded.equivalent, bounded.reason) == (None, "unknown")
    assert "(clear a)" in bounded.extra and "--max-states" in bounded.message


def test_identical_atom_graphs_are_equivalent_past_the_bound():
    text = """(define (problem t) (:domain blocksworld) (:objects s q r)
     (:init (clear s) (ontable q) (clear q) (on s r) (handempty) (ontable r))
     (:goal (and (on r s) (on q r))))"""
    verdict = judge(text, max_states=1)
    assert (verdict.equivalent, verdict.method) == (True, "syntax")
    assert dict(verdict.bijection) == {"a": "q", "b": "r", "c": "s"}


def test_an_initial_state_with_no_isomorphism_is_not_equivalent_past_the_bound():
    verdict = judge(TRUTH_TEXT.replace("(on c b)", "(ontable c)").replace("(clear a)", "(clear a) (clear b)"),
                    max_states=1)
    assert (verdict.equivalent, verdict.reason) == (False, "init-differs")
    assert verdict.missing == ("(on c b)",) and verdict.extra == ("(clear b)", "(ontable c)")
    # c on a instead of c on b is the same initial state up to swapping a and b, but then the goal is
    # another one: past the bound, a state SIW reaches under the one bijection tells them apart
    text = TRUTH_TEXT.replace("(on c b)", "(on c a)").replace("(clear a)", "(clear b)")
    verdict = judge(text, max_states=1)
    assert (verdict.equivalent, verdict.reason, verdict.method) == (False, "goal-admits-other", "siw")
    assert dict(verdict.bijection) == {"a": "b", "b": "a", "c": "c"}
    assert judge(text).reason == "goal-admits-other"


@pytest.mark.parametrize("text,reason", [
    ("(define (problem t) (:domain blocksworld) (:objects a b c)", "parse-error"),
    ("", "parse-error"),
    (TRUTH_TEXT.replace("(handempty)", "(arm-empty)"), "unknown-predicate"),
    (TRUTH_TEXT.replace("(on a b)", "(on a d)"), "unknown-object"),
    (TRUTH_TEXT.replace("(on a b)", "(on a)"), "wrong-arity"),
    (TRUTH_TEXT.replace("(:objects a b c)", "(:objects a b c - block)"), "unknown-type"),
    (TRUTH_TEXT.replace("(:domain blocksworld)", "(:domain logistics)"), "wrong-domain"),
])
def test_a_fault_of_the_candidate_is_a_verdict_of_its_class(text, reason):
    verdict = judge(text)
    assert (verdict.equivalent, verdict.reason, verdict.method) == (False, reason, "read")
    assert verdict.message and "\n" not in verdict.message


def test_pddl_beyond_the_engine_is_unsupported_not_a_verdict():
    verdict = judge(TRUTH_TEXT.replace("(:objects", "(:requirements :strips :action-costs) (:objects").replace(
        "(:init", "(:init (= (total-cost) 0)"))
    assert (verdict.equivalent, verdict.reason) == (None, "unsupported")
    # a disjunctive goal where the domain does not declare :disjunctive-preconditions is not PDDL
    verdict = judge(TRUTH_TEXT.replace("(and (on a b) (on b c))", "(or (on a b) (on b c))"))
    assert (verdict.equivalent, verdict.reason) == (False, "parse-error")
    assert "disjunctive-preconditions" in verdict.message


def test_an_unreachable_goal_where_the_truth_is_solvable_is_unsolvable():
    verdict = judge(TRUTH_TEXT.replace("(on b c))", "(on b c) (on c a))"))
    assert (verdict.equivalent, verdict.reason) == (False, "unsolvable")


def test_two_unsolvable_goals_over_one_initial_state_are_equivalent():
    truth = TRUTH_TEXT.replace("(on b c))", "(on b c) (on c a))")
    verdict = judge(truth.replace("(on a b)", "(on a c)"), truth=truth)
    assert verdict.equivalent is True and "neither goal" in verdict.message


def test_a_stricter_goal_admits_fewer_states_with_an_example_the_truth_admits():
    truth = TRUTH_TEXT.replace("(and (on a b) (on b c))", "(on a b)")
    verdict = judge(TRUTH_TEXT, truth=truth)
    assert (verdict.equivalent, verdict.reason) == (False, "goal-admits-fewer")
    assert "(on a b)" in verdict.example_state and "(on b c)" not in verdict.example_state
    assert verdict.extra == ("(on b c)",) and verdict.missing == ()


def test_a_goal_that_admits_other_states_and_misses_some_says_both():
    verdict = judge(TRUTH_TEXT.replace("(and (on a b) (on b c))", "(and (on a b) (on c a))"),
                    truth=TRUTH_TEXT.replace("(and (on a b) (on b c))", "(on a b)"))
    assert verdict.reason == "goal-admits-fewer"
    verdict = judge(TRUTH_TEXT.replace("(and (on a b) (on b c))", "(on b c)"))
    assert verdict.reason == "goal-admits-other" and "(on b c)" in verdict.example_state
    swapped = judge(TRUTH_TEXT.replace("(and (on a b) (on b c))", "(and (on b a) (on c b))"))
    assert swapped.reason == "goal-admits-other" and "misses" in swapped.message


def test_more_objects_than_the_truth_is_an_initial_state_that_differs():
    verdict = judge(TRUTH_TEXT.replace("(:objects a b c)", "(:objects a b c d)"))
    assert verdict.reason == "init-differs" and "3 of type object in the truth, 4" in verdict.message


def test_an_automorphism_of_the_initial_state_can_make_the_goals_match():
    """Blocks a and b lie on the table alike: a goal naming b where the truth names a is the same
    problem under the bijection that swaps them."""
    truth = """(define (problem t) (:domain blocksworld) (:objects a b c)
     (:init (handempty) (ontable a) (ontable b) (ontable c) (clear a) (clear b) (clear c))
     (:goal (on a c)))"""
    verdict = judge(truth.replace("(on a c)", "(on b c)"), truth=truth)
    assert verdict.equivalent is True and dict(verdict.bijection)["a"] == "b"


CONSTANT_DOMAIN = """(define (domain lamp) (:requirements :strips :typing) (:types switch)
 (:constants main - switch)
 (:predicates (on ?s - switch) (off ?s - switch))
 (:action flip :parameters (?s - switch) :precondition (off ?s) :effect (and (on ?s) (not (off ?s)))))"""


def test_the_domain_constants_are_fixed_by_every_bijection(tmp_path):
    (tmp_path / "d.pddl").write_text(CONSTANT_DOMAIN)
    dom = load_domain(tmp_path / "d.pddl")
    truth = parse_problem_text(dom, """(define (problem p) (:domain lamp) (:objects s1 - switch)
     (:init (off main) (off s1)) (:goal (on main)))""")
    same_shape = """(define (problem p) (:domain lamp) (:objects s1 - switch)
     (:init (off main) (off s1)) (:goal (on s1)))"""
    verdict = problem_equivalence(truth, same_shape)
    assert verdict.equivalent is False  # swapping s1 and the constant main would be a renaming


def test_types_are_part_of_the_initial_state():
    need_data()
    folder = ACP / "gripper-strips"
    truth = load_task(folder / "domain.pddl", folder / "gripper-1-2-4-09ec3a.pddl")
    objects, init, goal = parts(truth)
    ball = next(o for o, t in objects if t == "ball")
    room = next(o for o, t in objects if t == "room")
    retyped = [(o, "room" if o == ball else ("ball" if o == room else t)) for o, t in objects]
    verdict = problem_equivalence(truth, write(truth, retyped, init, goal))
    assert verdict.reason == "init-differs"  # a ball declared a room, a room a ball: the types differ


def brute_force_equivalent(truth, cand) -> bool:
    """The definition, literally: some type-respecting bijection maps init onto init and the set of
    reachable goal states onto the other's (every permutation tried; states compared as atom sets)."""
    def goal_sets(task):
        return {frozenset(state_atoms(task, s)) for s in goal_states(task)}

    init_a = set(state_atoms(truth, truth.init)) | set(truth.static_atoms)
    init_b = set(state_atoms(cand, cand.init)) | set(cand.static_atoms)
    sa, sb = goal_sets(truth), goal_sets(cand)
    objs_a, objs_b = dict(truth.objects), dict(cand.objects)
    names_a = sorted(objs_a)
    for perm in itertools.permutations(sorted(objs_b)):
        sigma = dict(zip(names_a, perm))
        if any(objs_a[o] != objs_b[sigma[o]] for o in names_a):
            continue
        if {rename_atom(a, sigma) for a in init_a} != init_b:
            continue
        if {frozenset(rename_atom(a, sigma) for a in s) for s in sa} == sb:
            return True
    return False


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10 ** 6), st.integers(1, 3), st.booleans())
def test_the_verdict_is_the_definition_computed_by_brute_force(seed, goal_size, same_init):
    """Random goals over 3-4 blocks, the candidate's init the truth's (renamed) or another one: the
    judge says equivalent exactly when some permutation of the objects maps init onto init and the
    reachable goal states onto the candidate's."""
    rng = random.Random(seed)
    blocks = rng.choice([3, 4])
    a, b = generate("blocksworld", 2, rng.randrange(10 ** 6), blocks=str(blocks), optimal=False)
    truth = a.task()
    objects, init, _ = parts(truth)
    other_init = parts(b.task())[1]
    atoms = list(truth.atoms)

    def goal():
        return rng.sample(atoms, goal_size)

    goal_a = goal()
    goal_b = rng.choice([goal_a, goal(), goal_a[:-1] or goal_a])
    truth = parse_problem_text(truth.domain, write(truth, objects, init, goal_a))
    names = renaming(objects, rng, fresh=False)
    text = write(truth, objects, init if same_init else other_init, goal_b, names, rng)
    verdict = problem_equivalence(truth, text)
    assert verdict.equivalent is brute_force_equivalent(truth, candidate_task(truth, text)), verdict


PLANETARIUM = Path(__file__).resolve().parent / "data" / "planetarium"


@pytest.mark.parametrize("change,reason", [
    (("(painted tile_1-1 white)", ""), "goal-admits-other"),
    (("(painted tile_1-1 white)", "(painted tile_1-1 white) (painted tile_1-2 white)"), "goal-admits-fewer"),
])
def test_past_the_bound_a_state_found_by_siw_under_every_bijection_refutes(change, reason):
    """Planetarium's 30-tile Floor-tile problem (more than a million states): a goal atom dropped, or one
    added that a goal state need not have, is refuted by a state SIW reaches; the state is shown."""
    dom = load_domain(PLANETARIUM / "domains" / "floor-tile.pddl")
    text = (PLANETARIUM / "problems" / "floortile_fully_specified.pddl").read_text()
    truth = parse_problem_text(dom, text)
    cand = candidate_task(truth, text.replace(*change))
    verdict = problem_equivalence(truth, cand, max_states=1000)
    assert (verdict.equivalent, verdict.reason, verdict.method) == (False, reason, "siw"), verdict
    state = state_from(cand, verdict.example_state)
    in_truth = state & truth.goal == truth.goal  # the same names: the bijection is the identity
    in_candidate = state & cand.goal == cand.goal
    assert (in_candidate, in_truth) == ((True, False) if reason == "goal-admits-other" else (False, True))
    # with the literals swapped for an implied one nothing is refuted: not a guess either way
    hard = (PLANETARIUM / "problems" / "floortile_no_white1.pddl").read_text()
    truth2 = parse_problem_text(dom, hard)
    assert problem_equivalence(truth2, hard.replace(*change), max_states=1000).equivalent in (False, None)


ON_TABLE = """(define (problem table) (:domain blocksworld) (:objects a b c d e f)
 (:init (handempty) (ontable a) (ontable b) (ontable c) (ontable d) (ontable e) (ontable f)
  (clear a) (clear b) (clear c) (clear d) (clear e) (clear f))
 (:goal (and (on a b) (on b c) (on d e))))"""


def test_among_720_automorphisms_the_bijection_that_nests_the_goal_states_explains():
    """Six blocks on the table: the candidate's tower b-a-c is the truth's a-b-c with a and b swapped,
    plus (clear f): under that bijection its goal states are a proper subset of the truth's."""
    verdict = judge(ON_TABLE.replace("(on a b) (on b c) (on d e)", "(on b a) (on a c) (on d e) (clear f)"),
                    truth=ON_TABLE)
    assert verdict.reason == "goal-admits-fewer"
    assert dict(verdict.bijection) == {"a": "b", "b": "a", "c": "c", "d": "d", "e": "e", "f": "f"}
    assert verdict.extra == ("(clear f)",) and verdict.missing == ()
    assert "(clear f)" not in verdict.example_state
