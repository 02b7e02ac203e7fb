"""Certified unsolvable instances (`widthbench generate ... --unsolvable`).

Any domain, one mechanism: draw an ordinary instance of the generator, then replace its goal by a set
of atoms of which each one is reachable (it holds in some state reachable from the initial state) but
which no reachable state holds all at once. The goal keeps the predicates of the instance's own goal
(Blocksworld: ``on``; Logistics: ``at``) and its size, at least three atoms (two contradictory
atoms are always a contradictory pair). Goals whose atoms are also
pairwise reachable (every two of them hold together in some reachable state: ``(on a b) (on b c)
(on c a)``) are preferred, so that no single contradictory pair gives the answer away; where the
domain has none (Logistics' package goals: any placement of distinct packages is reachable, so the
contradiction is one package in two places), a jointly unreachable goal of any kind is taken.

Certificate: exhaustive breadth-first search of every state reachable from the initial state
(`planners.bfs.reachable_states`): the goal holds in none of them. It is recorded with the instance,
``{"method": "exhaustive-search", "states_explored": N}`` in ``manifest.jsonl`` (``certificate``, beside
``"solvable": false``), and `certify` repeats it (tests/generators/test_unsolvable.py re-certifies
every generated instance). A draw whose state space exceeds ``max_states`` is skipped.
"""

from __future__ import annotations

import dataclasses
import itertools
import random

from widthbench.core.errors import UserError
from widthbench.generators.common import check_count
from widthbench.generators.instance import Instance
from widthbench.planners import strips
from widthbench.planners.bfs import SearchLimit, reachable_states
from widthbench.planners.problem_writer import task_problem_text

METHOD = "exhaustive-search"
DEFAULT_MAX_STATES = 300_000
PAIRWISE_TRIES = 60  # goal draws that must be pairwise reachable before any jointly unreachable goal will do
TRIES = 200


@dataclasses.dataclass(frozen=True, slots=True)
class Certificate:
    method: str
    states_explored: int

    def as_dict(self) -> dict:
        return {"method": self.method, "states_explored": self.states_explored}


def certify(task: strips.Task, max_states: int = DEFAULT_MAX_STATES) -> Certificate | None:
    """A certificate that ``task`` has no plan (every reachable state explored, none a goal), or
    None when some reachable state is a goal state. Raises `SearchLimit` past ``max_states``."""
    states = reachable_states(task, max_states=max_states)
    if any(strips.is_goal(task, s) for s in states):
        return None
    return Certificate(METHOD, len(states))


def _bits(mask: int) -> list[int]:
    return [i for i in range(mask.bit_length()) if mask >> i & 1]


def unsolvable_goal(task: strips.Task, states, rng: random.Random) -> int | None:
    """A goal mask over ``task``'s atoms: each atom reachable, jointly unreachable, same predicates and
    size as the task's goal (see the module doc); None if no draw finds one."""
    states = list(states)
    preds = {task.atoms[i].strip("()").split()[0] for i in _bits(task.goal)} or None
    union = 0
    for s in states:
        union |= s
    candidates = [i for i in _bits(union) if preds is None or task.atoms[i].strip("()").split()[0] in preds]
    size = min(max(3, task.goal.bit_count()), len(candidates))
    if len(candidates) < 2:
        return None
    pairs: set[tuple[int, int]] = set()
    if len(candidates) <= 120:  # pairwise co-reachability table of the candidate atoms
        for s in states:
            held = [i for i in candidates if s >> i & 1]
            pairs.update(itertools.combinations(held, 2))
    for attempt in range(TRIES):
        pick = sorted(rng.sample(candidates, size))
        goal = 0
        for i in pick:
            goal |= 1 << i
        if any(s & goal == goal for s in states):
            continue
        if attempt < PAIRWISE_TRIES and pairs and not all(p in pairs for p in itertools.combinations(pick, 2)):
            continue
        return goal
    return None


def make_unsolvable(base: Instance, rng: random.Random, new_id: str, max_states: int = DEFAULT_MAX_STATES):
    """``base`` with an unsolvable goal and its certificate, or None (state space too large, or no
    such goal)."""
    task = base.task()
    try:
        states = reachable_states(task, max_states=max_states)
    except SearchLimit:
        return None
    goal = unsolvable_goal(task, states, rng)
    if goal is None:
        return None
    new_task = dataclasses.replace(task, goal=goal, goal_neg=0, problem_name=new_id)
    cert = Certificate(METHOD, len(states))  # the goal holds in none of ``states`` (checked in the draw)
    params = {**base.params, "unsolvable": True}
    return Instance(id=new_id, domain=base.domain, problem_pddl=task_problem_text(new_task), params=params,
                    seed=base.seed, optimal_length=None, optimal_plan=None, domain_model=base.domain_model,
                    solvable=False, certificate=cert.as_dict())


def generate_unsolvable(generate_base, count: int, seed: int, max_states: int = DEFAULT_MAX_STATES,
                        max_failed_draws: int = 2000) -> list[Instance]:
    """``count`` certified unsolvable instances from the instances ``generate_base(n)`` draws (the
    domain's generator without optimal plans; prefix-stable, so more are drawn when some are skipped)."""
    count = check_count(count)
    out: list[Instance] = []
    seen: set[str] = set()
    n, used, failed = count, 0, 0
    while len(out) < count:
        try:
            base = generate_base(n)
        except UserError:
            if not used:
                raise
            raise UserError(f"--unsolvable: only {len(out)} of {count} unsolvable instances from the "
                            f"{used} distinct base instances there are; allow larger instances") from None
        for inst in base[used:]:
            used += 1
            prefix = inst.id.rsplit("-", 1)[0]
            rng = random.Random(f"unsolvable\x1f{seed}\x1f{inst.id}")
            made = make_unsolvable(inst, rng, f"{prefix}-unsolvable-{len(out) + 1:04d}", max_states)
            body = None if made is None else made.problem_pddl.split("(:objects", 1)[-1]
            if made is None or body in seen:
                failed += 1
                if failed > max_failed_draws:
                    raise UserError(f"--unsolvable: {failed} draws gave no new certified unsolvable instance "
                                    f"({len(out)} of {count} found); try larger instances or fewer")
                continue
            failed = 0
            seen.add(body)
            out.append(made)
            if len(out) == count:
                break
        if len(base) < n:  # the generator ran out of distinct instances
            raise UserError(f"--unsolvable: only {len(out)} of {count} unsolvable instances from "
                            f"{len(base)} distinct base instances; allow larger instances")
        n *= 2
    return out
