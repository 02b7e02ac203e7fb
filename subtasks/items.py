"""Items of the sub-task evaluations: seeded, built from instances, with exact ground truth.

An item is one question with its truth, independent of how it is asked (style, thinking, prompt
extension): every mode asks the same items, so modes compare pairwise. Item i of a sub-task uses
the i-th instance of the pool that yields one (every instance does, except for the novelty variants,
which skip instances without a qualifying state); the pool is `generate(domain, n, seed)` (extended
on demand: generation is prefix-stable) or an instance folder. Every random choice is seeded by
(seed, sub-task, instance), so the same seed gives the same items.

States for the state-based sub-tasks (action generation, single action, successors) come from a
random walk from the initial state of uniformly 0..h*(init) steps that never enters a goal state
and skips no-op moves (`Pool.walk_state`); the walk is seeded per instance, not per sub-task, so
these sub-tasks ask about the same state. How each sub-task builds its items is in its module
under `widthbench.subtasks.definitions` (docs/subtasks.md).

The costly part of building items is per instance (ground truth, widths, IW traces): with an
executor (`build_items(..., executor=...)`, ``score --jobs N`` or ``--executor ray``), the instances a
sub-task is about to use are worked on at once by the executor's workers (`Pool.prepare`), each on a
copy of that instance's cache, and the copy comes back and is installed when the sequential loop
reaches the instance -- so every instance's cache sees the same calls in the same order as without
an executor, and the items are the same (tests/test_executor_ray.py, `--jobs 1` / `2` / ray).

Every item carries its difficulty features (`widthbench.subtasks.results.difficulty`); `Strata` draws
items until each bin of one feature holds its count (`score --stratify`).
"""

from __future__ import annotations

import dataclasses
import hashlib
import random
from dataclasses import dataclass, field
from typing import Any

from widthbench.core.errors import UserError
from widthbench.planners import strips
# Widths are searched up to DEFAULT_MAX_WIDTH (IW(1) .. IW(K)); an instance of larger width feeds no
# novelty or width-estimate item. Re-exported here for subtasks.score_run.
from widthbench.planners.iw import DEFAULT_MAX_WIDTH
from widthbench.generators import generate
from widthbench.pddl_domains import obfuscate
from widthbench.planners.ground_truth import GroundTruth
from widthbench.planners.iw import iterated_width, iw
from widthbench.planners.state_model import StripsModel
from widthbench.subtasks.results.difficulty import bin_of, item_features
from widthbench.subtasks.exact import random_walk
from widthbench.subtasks import item_ids
from widthbench.subtasks.registry import Registry

INVALID_KINDS = ("non-goal", "inapplicable", "mixed")
DEFAULT_PROMPT_BUDGET = 15_000  # estimated tokens: Qwen3's 32,768 minus 16,384 thinking answer, margin


def check_max_width(k: int) -> int:
    if k < 1:
        raise UserError(f"--max-width must be at least 1, got {k}")
    return k


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
    features: dict = field(default_factory=dict, compare=False)  # difficulty (subtasks.difficulty)

    # the stable item id (`subtasks.item_ids`): the sub-task, the instance's content and the payload
    id: str = field(init=False, default="", compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "id", item_ids.item_id(self.subtask, item_ids.task_digest(self.task), payload(self)))


def payload(item: Item) -> dict:
    """What the question asks about besides its instance (the states as atom lists): the part of
    the item id that tells two questions on one instance apart."""
    task = item.task
    return {"state": None if item.state is None else strips.state_atoms(task, item.state),
            "actions": list(item.actions), "plan": list(item.plan),
            "previous": [strips.state_atoms(task, s) for s in item.previous], "width": item.width}


# ---------------------------------------------------------------------------------------------
# Serialisation: one JSON form of an item


def _maps_actions_to_states(item: Item) -> bool:
    truth = item.truth
    return (isinstance(truth, dict) and bool(item.actions) and set(truth) == set(item.actions)
            and all(isinstance(v, int) and not isinstance(v, bool) for v in truth.values()))


def item_to_json(item: Item) -> dict:
    """The item as JSON (states as atom lists): THE serialisation of an item (frozen item sets,
    the lm-eval rows, and, through `record_item`, the ``item`` of every score record);
    `item_from_json` reads it back."""
    task = item.task
    truth = item.truth
    if _maps_actions_to_states(item):
        truth = {"states": {a: strips.state_atoms(task, s) for a, s in truth.items()}}
    return {
        "subtask": item.subtask, "index": item.index, "id": item.id, "instance_id": item.instance_id,
        "domain": item.domain,
        "state": None if item.state is None else strips.state_atoms(task, item.state),
        "actions": list(item.actions), "plan": list(item.plan),
        "previous": [strips.state_atoms(task, s) for s in item.previous],
        "width": item.width, "truth": truth, "info": item.info,
    }


def item_from_json(data: dict, task: strips.Task) -> Item:
    """The `Item` of `item_to_json`'s output, on ``task`` (the item's problem, grounded)."""
    actions = tuple(data["actions"])
    truth = data["truth"]
    if isinstance(truth, dict) and set(truth) == {"states"} and actions:
        truth = {a: strips.state_from_atoms(task, atoms) for a, atoms in truth["states"].items()}
    state = data["state"]
    return Item(subtask=data["subtask"], index=data["index"], instance_id=data["instance_id"],
                domain=data["domain"], task=task,
                state=None if state is None else strips.state_from_atoms(task, state),
                actions=actions, plan=tuple(data["plan"]),
                previous=tuple(strips.state_from_atoms(task, p) for p in data["previous"]),
                width=data["width"], truth=truth, info=data["info"])


def record_item(item: Item) -> dict:
    """The ``item`` field of a score record: `item_to_json` without what the record holds beside
    it (ids, truth, info) and with the previous states of a novelty item as their count."""
    data = item_to_json(item)
    out = {"state": data["state"]}
    for key in ("actions", "plan"):
        if data[key]:
            out[key] = data[key]
    if data["previous"]:
        out["previous_count"] = len(data["previous"])
    if data["width"] is not None:
        out["width"] = data["width"]
    return out


# ---------------------------------------------------------------------------------------------
# Instance pool with per-instance caches


class NotEnoughItems(UserError):
    """The instances cannot feed a sub-task ``--count`` items (too few, or none qualifies)."""


class Pool:
    """Instances in a fixed order, with their tasks, ground truth, width and IW trace cached."""

    def __init__(self, domain: str | None, seed: int, instances=None, generator_options=None,
                 initial: int = 1, max_width: int = DEFAULT_MAX_WIDTH, obfuscation: tuple = (),
                 prompts: dict | None = None):
        self.domain = domain
        # --obfuscate (mode, seed): every task's domain carries it (pddl_domains.obfuscate); the
        # tasks, their truth and the items are the plain ones
        self.obfuscation = tuple(obfuscation or ())
        self._attached: dict[int, tuple] = {}  # id(plain domain) -> (plain domain, attached domain)
        # --prompt-dir / --novelty-prompt (`strips.with_presentation` keywords): put on every
        # instance's domain, so every prompt about it is filled from those templates
        self.prompts = {k: v for k, v in (prompts or {}).items() if v}
        self._domains: dict = {}
        self.seed = seed
        self.max_width = check_max_width(max_width)
        self.fixed = instances is not None
        self.options = dict(generator_options or {})
        self._instances = list(instances) if instances is not None else []
        self._cache: dict[int, dict] = {}
        self._staged: dict[tuple[str, int], dict] = {}  # (sub-task, i) -> cache prepared by a worker
        if not self.fixed:
            self._extend(max(1, initial))

    def _extend(self, n: int) -> None:
        self._instances = generate(self.domain, n, self.seed, **self.options)

    def __len__(self) -> int:
        return len(self._instances)

    def instance(self, i: int):
        if i >= len(self._instances):
            if self.fixed:
                raise NotEnoughItems(f"the instance folder has only {len(self._instances)} instances; "
                                     "not enough to build the requested items (lower --count)")
            self._extend(max(i + 1, 2 * len(self._instances)))
        return self._instances[i]

    def any_unsolvable(self) -> bool:
        """Whether the pool holds a certified unsolvable instance (an instance folder from
        ``generate --unsolvable``; generated pools never do)."""
        return self.fixed and any(getattr(x, "solvable", None) is False for x in self._instances)

    def data(self, i: int) -> dict:
        d = self._cache.get(i)
        if d is None:
            inst = self.instance(i)
            d = self._cache[i] = {"instance": inst, "task": self._present(inst.task(self._domain(inst)))}
        return d

    def _present(self, task: strips.Task) -> strips.Task:
        if not self.obfuscation:
            return task

        hit = self._attached.get(id(task.domain))
        if hit is None or hit[0] is not task.domain:
            hit = self._attached[id(task.domain)] = (task.domain, obfuscate.attach(task.domain, *self.obfuscation))
        return dataclasses.replace(task, domain=hit[1])

    def task(self, i: int) -> strips.Task:
        return self.data(i)["task"]

    def _domain(self, inst):
        """The instance's domain with the pool's prompt settings (None: the instance's own)."""
        if not self.prompts:
            return None
        key = inst.domain if inst.domain_model is None else id(inst.domain_model)
        dom = self._domains.get(key)
        if dom is None:
            base = inst.domain_model if inst.domain_model is not None else strips.load_domain(inst.domain)
            dom = self._domains[key] = strips.with_presentation(base, **self.prompts)
        return dom

    def truth(self, i: int):
        d = self.data(i)
        if "gt" not in d:
            d["gt"] = GroundTruth(d["task"])
            plan = d["instance"].optimal_plan
            if plan is not None:  # stored with the instance: h* along it needs no search
                d["gt"].know_plan(plan)
        return d["gt"]

    def width(self, i: int) -> int | None:
        """The effective width of instance i, or None: above ``max_width``, or unsolvable."""
        d = self.data(i)
        if "width" not in d:
            task = d["task"]
            model = StripsModel(task)
            top = max(1, min(task.n_atoms, self.max_width))
            # IW(1) and IW(2) run on the fast path without a trace; from k = 3 on every run is traced
            # (the general loop, a few % slower), so the solving run's trace is kept for `trace`
            # instead of running IW(w) a second time.
            res = iterated_width(model, max_k=min(2, top))
            if res.width is None and not res.unsolvable and top > 2:
                res = iterated_width(model, max_k=top, min_k=3, trace=True)
                if res.width is not None:
                    d["trace"] = res.last.trace
            d["width"] = res.width
            d["width_unsolvable"] = res.unsolvable
        return d["width"]

    def prepare(self, subtask: str, indices, index: int, count: int, options: "ItemOptions", executor) -> None:
        """Run ``subtask``'s build for instances ``indices`` on the executor's workers, each on a copy
        of the instance's cache; the copies are kept apart until `install` (see the module doc).
        ``index``: the item index the first of them would get (a guess: the build's index-dependent
        choices do not change what it caches)."""
        todo = [i for i in indices if (subtask, i) not in self._staged]
        if self.fixed:
            todo = [i for i in todo if i < len(self._instances)]
        if not todo:
            return
        jobs = [(subtask, i, self.instance(i), self._cache.get(i), self.seed, self.max_width,
                 min(index + n, count - 1), count, options, self.obfuscation, self.prompts)
            for n, i in enumerate(todo)]
        for i, d in zip(todo, executor.map(_prepare_instance, jobs, quiet=True)):
            self._staged[(subtask, i)] = d  # None: the worker's build raised; the loop runs it here

    def install(self, subtask: str, i: int) -> None:
        """Instance i's cache as prepared for ``subtask``, if it was (the loop has reached i)."""
        d = self._staged.pop((subtask, i), None)
        if d is not None:
            self._cache[i] = d

    def discard(self, subtask: str) -> None:
        """Forget what was prepared for instances the loop did not reach."""
        for key in [k for k in self._staged if k[0] == subtask]:
            del self._staged[key]

    def computed(self, key: str) -> list:
        """The values stored under ``key`` for the instances that have one so far (their order)."""
        return [d[key] for d in self._cache.values() if key in d]

    def width_summary(self) -> str:
        """The widths found so far, e.g. "widths of 12 instances: 2: 3, 3: 5, above --max-width 4: 4"
        ("" before any)."""
        counts: dict[str, int] = {}
        for w, unsolvable in zip(self.computed("width"), self.computed("width_unsolvable")):
            key = str(w) if w is not None else "unsolvable" if unsolvable else f"above --max-width {self.max_width}"
            counts[key] = counts.get(key, 0) + 1
        if not counts:
            return ""
        n = sum(counts.values())
        order = sorted(counts, key=lambda k: (not k.isdigit(), int(k) if k.isdigit() else 0, k))
        return f"widths of {n} instance{'s' * (n != 1)}: " + ", ".join(f"{k}: {counts[k]}" for k in order)

    def trace(self, i: int):
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
        d = self.data(i)
        if "walk" not in d:
            rng = rng_for(self.seed, "state", i, d["instance"].id)
            h = self.truth(i).h_star()
            if h == float("inf"):  # e.g. an ACPBench problem whose init is a dead end
                raise UserError(f"instance {d['instance'].id} has no plan: sub-task items need solvable "
                                "problems (remove it from the folder)")
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


@dataclass(frozen=True, slots=True)
class Strata:
    """``score --stratify FEATURE --bins ... --per-bin N``: items drawn until each bin holds N."""

    feature: str
    bins: tuple  # of subtasks.difficulty.Bin
    per_bin: int

    def identity(self) -> dict:
        return {"feature": self.feature, "bins": ",".join(map(str, self.bins)), "per_bin": self.per_bin}


def build_items(subtask: str, pool: Pool, count: int, options: ItemOptions = ItemOptions(),
                registry=None, executor=None, strata: Strata | None = None) -> list[Item]:
    """``count`` items of ``subtask`` (a name in ``registry``, default: the built-in sub-tasks),
    each with its difficulty ``features``; with ``strata``, ``per_bin`` items in each bin of the
    feature (``count`` is then ignored), in the order they were drawn. ``executor`` (a
    `widthbench.planners.executor.Executor` of more than one worker): the instances' ground truth
    and widths are computed by its workers (the built-in sub-tasks only: a worker finds those by name)."""
    if (registry is not None and registry is not Registry.default()) or (executor is not None
                                                                          and not executor.parallel):
        executor = None  # one process: the plain loop
    record = (registry or Registry.default()).get(subtask)
    if options.invalid_kind not in INVALID_KINDS:
        raise UserError(f"unknown --invalid-kind {options.invalid_kind!r} (known: {', '.join(INVALID_KINDS)})")
    if strata is not None:
        count = strata.per_bin * len(strata.bins)
    filled = {b: 0 for b in strata.bins} if strata else {}
    takes_unsolvable = record.answer.name == "plan-or-none"
    items: list[Item] = []
    i = 0
    skipped = 0

    def why() -> str:
        text = record.no_item(pool, options) if callable(record.no_item) else record.no_item
        if not takes_unsolvable and pool.any_unsolvable():
            text = "; ".join(x for x in (text, "certified unsolvable instances feed plan-generation only") if x)
        return f" ({text})" if text else ""

    def short_bins(instances: str) -> str:
        lacking = [f"bin {b} fell short: found {n} of {strata.per_bin}"
                   for b, n in filled.items() if n < strata.per_bin]
        found = ", ".join(f"{b}: {n}" for b, n in filled.items())
        return f"{subtask}: --stratify {strata.feature}: " + "; ".join(lacking) + f" after {instances} " \
            f"(items per bin: {found})"

    try:
        while len(items) < count:
            if executor is not None and (subtask, i) not in pool._staged:
                ahead = max(count - len(items), executor.spec.workers)
                pool.prepare(subtask, range(i, i + ahead), len(items), count, options, executor)
            pool.install(subtask, i)
            try:
                # a certified unsolvable instance feeds only sub-tasks whose answer may say "no plan"
                if takes_unsolvable or getattr(pool.instance(i), "solvable", None) is not False:
                    item = record.build(pool, i, len(items), count, options)
                else:
                    item = None
            except NotEnoughItems as exc:  # the instances ran out
                if strata is not None:
                    raise NotEnoughItems(short_bins(f"all {i} instances of the folder")) from None
                raise NotEnoughItems(f"{subtask}: {len(items)} of {count} items from {i} instances: "
                                     f"{exc}{why()}") from None
            if item is not None:
                item = dataclasses.replace(item, features=item_features(pool, i, item))
                if strata is not None:
                    if strata.feature not in item.features:
                        raise UserError(f"--stratify {strata.feature}: {subtask} items have no {strata.feature} "
                                        f"(theirs: {', '.join(item.features)})")
                    b = bin_of(item.features.get(strata.feature), strata.bins)
                    if b is None or filled[b] >= strata.per_bin:
                        item = None  # outside the bins, or its bin is full: draw on
                    else:
                        filled[b] += 1
            i += 1
            if item is None:
                skipped += 1
                # generated instances never run out: give up after 10 x count + 50 instances without one;
                # an instance folder is tried to its end (a sub-task rare in it still gets its items)
                if not pool.fixed and skipped > 10 * count + 50:
                    if strata is not None:
                        raise NotEnoughItems(short_bins(f"{i} generated instances, the last {skipped} without a "
                                                        "new item; generate instances of that difficulty "
                                                        "(e.g. --blocks) or lower --per-bin"))
                    raise NotEnoughItems(f"{subtask}: {skipped} instances yielded no item; try other instances{why()}")
                continue
            skipped = 0 if strata is not None else skipped
            items.append(item)
    finally:
        pool.discard(subtask)
    return items


def _prepare_instance(job) -> dict | None:
    """A worker's part of `Pool.prepare`: instance i's cache after ``subtask``'s build (None if the
    build raised: the sequential loop then meets the same error itself)."""
    subtask, i, instance, cache, seed, max_width, index, count, options, obfuscation, prompts = job
    pool = Pool(None, seed, instances=[None] * i + [instance], max_width=max_width, obfuscation=obfuscation,
                prompts=prompts)
    if cache is not None:
        pool._cache[i] = cache
    try:
        Registry.default().get(subtask).build(pool, i, index, count, options)
    except Exception:  # noqa: BLE001 (re-raised by the sequential loop, which runs the same build)
        return None
    return pool._cache.get(i)


def base_item(subtask: str, pool: Pool, i: int, index: int, **kw) -> Item:
    """An item of ``subtask`` about instance ``i`` of the pool (the sub-task modules' constructor)."""
    inst = pool.instance(i)
    return Item(subtask=subtask, index=index, instance_id=inst.id, domain=pool.task(i).domain_name,
                task=pool.task(i), **kw)


def __getattr__(name: str):
    # SUBTASKS and PAPER are read from the registry (the one list of sub-tasks).
    if name in ("SUBTASKS", "PAPER"):
        from widthbench.subtasks.registry import Registry

        reg = Registry.default()
        return reg.names if name == "SUBTASKS" else reg.paper
    raise AttributeError(name)
