"""Items of the sub-task evaluations: seeded, built from instances, with exact ground truth.

An item is one question with its truth, independent of how it is asked (style, thinking, prompt
extension): every mode asks the same items, so modes compare pairwise. Item i of a sub-task uses
the i-th instance of the pool that yields one (every instance does, except for the novelty variants,
which skip instances without a qualifying state); the pool is `generate(domain, n, seed)` (extended
on demand: generation is prefix-stable) or an instance folder. Every random choice is seeded by
(seed, sub-task, instance), so the same seed gives the same items.

Construction (docs/subtasks.md):
- States for action-generation, action-single and successor-*: a random walk from the initial state
  of uniformly 0..h*(init) steps that never enters a goal state and skips no-op moves. The walk is
  seeded per instance, not per sub-task, so these four sub-tasks ask about the same state.
- action-single truth: the set of optimal next actions (`GroundTruth.optimal_next_actions`).
- plan-verification: exactly N // 2 items (a seeded choice) carry an optimal plan; the others an
  executable random plan of the same length that never reaches a goal state ("non-goal"), or the
  optimal plan with one step replaced by an inapplicable action ("inapplicable"; pick-up/unstack
  confusions first), or alternately one and the other ("mixed").
- novelty*: IW(w) with w the instance's effective width, traced, stopped at a seeded random point:
  the new state is the state generated there, the previous states are the distinct states generated
  before it. Only stop points whose prompt fits the prompt budget (both styles) are drawn, so no
  list is ever cut. novelty: any generated state; novelty-hard: non-duplicates pruned for novelty
  > w (seed 000's NDAP); novelty-balanced: even items kept non-duplicates, odd items novelty-pruned
  non-duplicates; novelty-estimate: non-duplicates, truth the exact novelty (any size).
- width-estimate: the instance's effective width (IW, engine successor order, goal test after the
  prune).
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass, field
from typing import Any

from widthbench.errors import UserError
from widthbench.planners import strips

SUBTASKS = ("action-generation", "action-single", "successor-mapping", "successor-separate",
            "plan-verification", "novelty", "novelty-hard", "novelty-balanced", "novelty-estimate",
            "width-estimate")
#: Seed 000's Table 1 (its 8 rows come from these 7 sub-tasks).
PAPER = SUBTASKS[:7]
INVALID_KINDS = ("non-goal", "inapplicable", "mixed")
DEFAULT_PROMPT_BUDGET = 15_000  # estimated tokens: Qwen3's 32,768 minus 16,384 thinking answer, margin
TOKEN_SAFETY = 1.5  # our estimate counts word pieces; real BPE counts run higher on PDDL and names


def derive_seed(seed: int, *parts) -> int:
    """A stable 64-bit seed from a master seed and labels (not Python's salted hash)."""
    text = "\x1f".join(map(str, (seed, *parts)))
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


def rng_for(seed: int, *parts) -> random.Random:
    return random.Random(derive_seed(seed, *parts))


@dataclass(frozen=True, slots=True)
class Item:
    """One question. ``truth`` is JSON-ready except successor truths (action -> state int)."""

    subtask: str
    index: int
    instance_id: str
    domain: str
    task: strips.Task = field(repr=False, compare=False)
    state: int | None = None  # the state asked about (the initial state for plans and widths)
    actions: tuple[str, ...] = ()  # successor-*: the actions to map
    plan: tuple[str, ...] = ()  # plan-verification
    previous: tuple[int, ...] = ()  # novelty*: distinct states generated before the new one
    width: int | None = None  # novelty*: IW threshold k
    truth: Any = None
    info: dict = field(default_factory=dict, compare=False)

    @property
    def id(self) -> str:
        return f"{self.subtask}-{self.index:04d}"


# ---------------------------------------------------------------------------------------------
# Instance pool with per-instance caches


class Pool:
    """Instances in a fixed order, with their tasks, ground truth, width and IW trace cached."""

    def __init__(self, domain: str | None, seed: int, instances=None, generator_options=None,
                 initial: int = 1):
        self.domain = domain
        self.seed = seed
        self.fixed = instances is not None
        self.options = dict(generator_options or {})
        self._instances = list(instances) if instances is not None else []
        self._cache: dict[int, dict] = {}
        if not self.fixed:
            self._extend(max(1, initial))

    def _extend(self, n: int) -> None:
        from widthbench.generators import generate

        self._instances = generate(self.domain, n, self.seed, **self.options)

    def __len__(self) -> int:
        return len(self._instances)

    def instance(self, i: int):
        if i >= len(self._instances):
            if self.fixed:
                raise UserError(f"the instance folder has only {len(self._instances)} instances; "
                                "not enough to build the requested items (lower --count)")
            self._extend(max(i + 1, 2 * len(self._instances)))
        return self._instances[i]

    def data(self, i: int) -> dict:
        d = self._cache.get(i)
        if d is None:
            inst = self.instance(i)
            d = self._cache[i] = {"instance": inst, "task": inst.task()}
        return d

    def task(self, i: int) -> strips.Task:
        return self.data(i)["task"]

    def truth(self, i: int):
        from widthbench.planners.truth import GroundTruth

        d = self.data(i)
        if "gt" not in d:
            d["gt"] = GroundTruth(d["task"])
        return d["gt"]

    def width(self, i: int) -> int | None:
        from widthbench.planners.iw import iterated_width
        from widthbench.planners.model import StripsModel

        d = self.data(i)
        if "width" not in d:
            task = d["task"]
            d["width"] = iterated_width(StripsModel(task), max_k=max(1, task.n_atoms)).width
        return d["width"]

    def trace(self, i: int):
        from widthbench.planners.iw import iw
        from widthbench.planners.model import StripsModel

        d = self.data(i)
        if "trace" not in d:
            w = self.width(i)
            d["trace"] = None if not w else iw(StripsModel(d["task"]), w, trace=True).trace
        return d["trace"]

    def optimal_plan(self, i: int) -> tuple[str, ...]:
        inst = self.instance(i)
        if inst.optimal_plan is not None:
            return tuple(inst.optimal_plan)
        return tuple(str(a) for a in self.truth(i).optimal_plan())

    def walk_state(self, i: int) -> tuple[int, int]:
        """(state, walk length) shared by the state-based sub-tasks of instance i."""
        from widthbench.subtasks.truth import random_walk

        d = self.data(i)
        if "walk" not in d:
            rng = rng_for(self.seed, "state", i, d["instance"].id)
            h = self.truth(i).h_star()
            length = rng.randint(0, max(1, int(h)))
            s, steps = random_walk(d["task"], rng, length)
            d["walk"] = (s, len(steps))
        return d["walk"]


# ---------------------------------------------------------------------------------------------
# Building items


@dataclass(frozen=True, slots=True)
class ItemOptions:
    invalid_kind: str = "non-goal"
    prompt_budget: int = DEFAULT_PROMPT_BUDGET  # estimated prompt tokens, novelty prompts


def build_items(subtask: str, pool: Pool, count: int, options: ItemOptions = ItemOptions()) -> list[Item]:
    if subtask not in SUBTASKS:
        raise UserError(f"unknown sub-task {subtask!r} (known: {', '.join(SUBTASKS)}, all, paper)")
    if options.invalid_kind not in INVALID_KINDS:
        raise UserError(f"unknown --invalid-kind {options.invalid_kind!r} (known: {', '.join(INVALID_KINDS)})")
    build = _BUILDERS[subtask]
    items: list[Item] = []
    i = 0
    skipped = 0
    while len(items) < count:
        item = build(pool, i, len(items), count, options)
        i += 1
        if item is None:
            skipped += 1
            if skipped > 10 * count + 50:
                raise UserError(f"{subtask}: {skipped} instances yielded no item; try other instances")
            continue
        items.append(item)
    return items


def _base(subtask: str, pool: Pool, i: int, index: int, **kw) -> Item:
    inst = pool.instance(i)
    return Item(subtask=subtask, index=index, instance_id=inst.id, domain=pool.task(i).domain_name,
                task=pool.task(i), **kw)


def _action_generation(pool, i, index, count, options):
    task = pool.task(i)
    s, walk = pool.walk_state(i)
    from widthbench.subtasks.truth import noop_actions

    truth = [str(a) for a in strips.applicable_actions(task, s)]
    return _base("action-generation", pool, i, index, state=s, truth=truth,
                 info={"walk_length": walk, "noops": noop_actions(task, s), "n_applicable": len(truth)})


def _action_single(pool, i, index, count, options):
    task = pool.task(i)
    s, walk = pool.walk_state(i)
    best = [str(a) for a in pool.truth(i).optimal_next_actions(s)]
    if not best:
        return None
    applicable = [str(a) for a in strips.applicable_actions(task, s)]
    return _base("action-single", pool, i, index, state=s, truth={"optimal": best, "applicable": applicable},
                 info={"walk_length": walk, "h_star": int(pool.truth(i).h_star(s)),
                       "optimal_set_size": len(best), "n_applicable": len(applicable)})


def _successors(subtask):
    def build(pool, i, index, count, options):
        task = pool.task(i)
        s, walk = pool.walk_state(i)
        acts = strips.applicable_actions(task, s)
        if not acts:
            return None
        truth = {str(a): strips.successor(s, a) for a in acts}
        return _base(subtask, pool, i, index, state=s, actions=tuple(truth), truth=truth,
                     info={"walk_length": walk, "n_actions": len(acts)})

    return build


def _plan_kinds(count: int, seed: int, invalid_kind: str) -> list[str]:
    """Exactly count // 2 "optimal" plans, placed by a seeded shuffle; the rest invalid."""
    rng = rng_for(seed, "plan-verification", count)
    order = list(range(count))
    rng.shuffle(order)
    valid = set(order[:count // 2])
    kinds, n_invalid = [], 0
    for k in range(count):
        if k in valid:
            kinds.append("optimal")
            continue
        if invalid_kind == "mixed":
            kinds.append("non-goal" if n_invalid % 2 == 0 else "inapplicable")
        else:
            kinds.append(invalid_kind)
        n_invalid += 1
    return kinds


def _plan_verification(pool, i, index, count, options):
    from widthbench.subtasks.truth import inapplicable_action, random_walk

    task = pool.task(i)
    kind = _plan_kinds(count, pool.seed, options.invalid_kind)[index]
    best = pool.optimal_plan(i)
    rng = rng_for(pool.seed, "plan", i, pool.instance(i).id)
    info = {"plan_kind": kind, "optimal_length": len(best)}
    if kind == "optimal":
        plan = best
    elif kind == "non-goal":
        end, plan = random_walk(task, rng, max(1, len(best)), avoid_goal=True, skip_noops=False)
        if not plan or strips.is_goal(task, end):
            return None
    else:
        states = strips.execute_plan(task, best).states
        j = rng.randrange(len(best))
        bad = inapplicable_action(task, states[j], rng)
        if bad is None:
            return None
        plan = best[:j] + (bad,) + best[j + 1:]
        info["inapplicable_step"] = j + 1
    result = strips.execute_plan(task, plan)
    if result.valid != (kind == "optimal"):
        raise AssertionError(f"plan-verification item {index}: {kind} plan has validity {result.valid}")
    return _base("plan-verification", pool, i, index, state=task.init, plan=tuple(plan),
                 truth=result.valid, info={**info, "plan_length": len(plan)})


def _token_estimate(text: str) -> float:
    from widthbench.llm import tokens

    return tokens.count_tokens(text) * TOKEN_SAFETY


def _novelty_candidates(pool: Pool, i: int, budget: int):
    """[(j, previous states, entry)] for the trace entries whose prompt fits ``budget`` in both styles.

    A prompt's estimate is the fixed part plus, per listed state, its header and its atoms: the
    word-piece count of text joined by white space is the sum of the counts of its parts.
    """
    from widthbench.subtasks import api

    d = pool.data(i)
    key = ("novelty_candidates", budget)
    if key in d:
        return d[key]
    trace = pool.trace(i)
    task = pool.task(i)
    out = []
    if trace:
        renderers = [api.renderer(task, st) for st in ("pddl", "nl")]
        atom_cost = [[_token_estimate(r.atom(a)) for a in task.atoms] for r in renderers]
        fixed = []
        for st in ("pddl", "nl"):
            msgs = api.novelty_prompt(task, [], task.init, st, width=max(1, pool.width(i)))
            fixed.append(sum(_token_estimate(m["content"]) for m in msgs))
        used = list(fixed)
        previous: list[int] = []
        seen: set[int] = set()
        for j, entry in enumerate(trace):
            if j > 0:
                out.append((j, tuple(previous), entry))
            if entry.state in seen:
                continue
            # The state joins the list of the next stop points: does it still fit?
            header = _token_estimate(f"State {len(previous) + 1}:")
            bits = [b for b in range(task.n_atoms) if entry.state >> b & 1]
            cost = [header + sum(ac[b] for b in bits) for ac in atom_cost]
            if any(u + c > budget for u, c in zip(used, cost)):
                break
            used = [u + c for u, c in zip(used, cost)]
            seen.add(entry.state)
            previous.append(entry.state)
    d[key] = out
    return out


def _novelty(subtask):
    from widthbench.planners.iw import DUPLICATE, KEPT, PRUNED
    from widthbench.subtasks.truth import novelty_of

    def build(pool, i, index, count, options):
        cands = _novelty_candidates(pool, i, options.prompt_budget)
        if subtask == "novelty":
            pick = cands
        elif subtask == "novelty-hard":
            pick = [c for c in cands if c[2].verdict == PRUNED]
        elif subtask == "novelty-balanced":
            want = KEPT if index % 2 == 0 else PRUNED
            pick = [c for c in cands if c[2].verdict == want]
        else:  # novelty-estimate
            pick = [c for c in cands if c[2].verdict != DUPLICATE
                    and novelty_of(c[2].state, c[1]) is not None]
        if not pick:
            return None
        rng = rng_for(pool.seed, subtask, index, i, pool.instance(i).id)
        j, previous, entry = rng.choice(pick)
        w = pool.width(i)
        info = {"stop_index": j, "trace_length": len(pool.trace(i)), "list_length": len(previous),
                "verdict": entry.verdict, "iw_novelty": entry.novelty, "depth": entry.depth,
                "generated_by": str(entry.label)}
        if subtask == "novelty-estimate":
            truth = novelty_of(entry.state, previous)
        else:
            truth = entry.verdict == KEPT
        return _base(subtask, pool, i, index, state=entry.state, previous=previous, width=w,
                     truth=truth, info=info)

    return build


def _width_estimate(pool, i, index, count, options):
    w = pool.width(i)
    if w is None:
        return None
    return _base("width-estimate", pool, i, index, state=pool.task(i).init, truth=w, info={})


_BUILDERS = {
    "action-generation": _action_generation,
    "action-single": _action_single,
    "successor-mapping": _successors("successor-mapping"),
    "successor-separate": _successors("successor-separate"),
    "plan-verification": _plan_verification,
    "novelty": _novelty("novelty"),
    "novelty-hard": _novelty("novelty-hard"),
    "novelty-balanced": _novelty("novelty-balanced"),
    "novelty-estimate": _novelty("novelty-estimate"),
    "width-estimate": _width_estimate,
}
