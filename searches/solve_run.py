"""Running a search configuration over many instances: items.jsonl, summary.json, tokens.json.

`load_problems(...)` picks the instances (generated Blocksworld/Logistics, an instance folder, Game
of 24 rows, or a --tasks file); `solve(config, problems, model, out)` runs them all concurrently
(one asyncio task per instance, sharing the model through `Broker`), appends each finished item to
``RUN/items.jsonl`` at once, and writes ``RUN/summary.json`` and ``RUN/tokens.json`` at the end.
With an executor of several workers (``solve --jobs N`` or ``--executor ray``) and a
``model_factory``, batches of instances are searched by the workers, each with its own model client
(sending its requests to the same endpoints) and ``parallel`` instances in flight; this process
writes each batch's items as it comes back. An instance's search depends only on the instance, the
configuration and the replies, so the items are the same either way.

Resume: a rerun with the same ``--out`` skips the instances already in items.jsonl (a half-written
last line is dropped) and re-asks the unfinished ones; their model calls hit the reply cache, so a
killed run loses nothing. The configuration is stored in ``RUN/config.json``; a rerun with a
different configuration is refused.
"""

from __future__ import annotations

import asyncio
import contextvars
import json
import random
import sys
import time
from pathlib import Path

from widthbench.core.errors import UserError
from widthbench.llm.ledger import ledger_from_calls
from widthbench.core.runstore import RunStore, latest_records
from widthbench.subtasks import identity, item_ids
from widthbench.searches.broker import LLM, Broker
from widthbench.searches.config import SearchConfig
from widthbench.searches.graph import write_tree
from widthbench.searches import unsolvable_verdict as unsolvable
from widthbench.searches.hooks import build_hooks
from widthbench.searches.registry import MethodRegistry
from widthbench.searches.summary import summarise
from widthbench.searches.strips_problem import StripsProblem
from widthbench.subtasks.prompts import with_prompts
from widthbench.subtasks.results.sampled import Samples, summarise_samples

ITEMS = "items.jsonl"
SUMMARY = "summary.json"
CONFIG = "config.json"
TOKENS = "tokens.json"


# ---- instances ------------------------------------------------------------------------------

def _sample(items: list, count: int | None, seed: int) -> list:
    if count is None or count >= len(items):
        return items
    keep = sorted(random.Random(seed).sample(range(len(items)), count))
    return [items[i] for i in keep]


def load_problems(domain: str | None, *, count: int | None = None, seed: int = 0,
                  max_plan_length: int | None = None, min_plan_length: int | None = None,
                  instances: str | None = None, rows: str | None = None, tasks: str | None = None,
                  style: str = "nl", extension: bool = True, novelty_width: int | None = None,
                  generator_options: dict | None = None, domain_file: str | None = None,
                  reader: str = "flexible",
                  level: str | None = None, prompt_dir: str | None = None,
                  novelty_prompt: str | None = None) -> list:  # issue 32 (study helper): level, prompts
    """The problems of a run. Exactly one source: ``tasks`` (a JSONL file), ``instances`` (a
    folder), ``domain="game24"`` (``rows``, default 901-1000), or a generated domain. ``reader``:
    which sub-task reader reads the model's answers to STRIPS prompts (docs/subtasks.md, "Readers")."""
    if tasks is not None:
        from widthbench.searches.question_sets import load_problems as load_tasks

        return _sample(load_tasks(tasks, level, prompt_dir), count, seed)
    if domain == "game24":
        from widthbench.searches.game24_problem import load_problems as load_g24

        return _sample(load_g24(rows, prompt_dir=prompt_dir), count, seed)

    if instances is not None:
        from widthbench.generators import read_instance_set

        insts = read_instance_set(instances, domain=domain_file)  # domain_file: --domain FILE
        if max_plan_length is not None or min_plan_length is not None:
            insts = [i for i in insts if i.optimal_length is not None
                     and (max_plan_length is None or i.optimal_length <= max_plan_length)
                     and (min_plan_length is None or i.optimal_length >= min_plan_length)]
        insts = _sample(insts, count, seed)
    else:
        if domain is None:
            raise UserError("choose --domain (blocksworld, logistics, game24), --instances DIR or --tasks FILE")
        from widthbench.generators import generate

        insts = generate(domain, count or 20, seed, max_plan_length=max_plan_length,
                         min_plan_length=min_plan_length, **(generator_options or {}))
    if not insts:
        raise UserError("no instances to solve (check the plan-length filter)")

    insts = with_prompts(insts, prompt_dir, novelty_prompt)
    return [StripsProblem(i, style=style, extension=extension, novelty_width=novelty_width, reader=reader)
            for i in insts]


def check_config(config: SearchConfig, problems: list, methods: MethodRegistry | None = None) -> None:
    if not problems:
        return
    p = problems[0]
    hooks = (methods or MethodRegistry.default()).uses_hooks(config.method)
    if not p.has_engine:
        used = [f"--{name} engine" for name in ("actions", "successors")
                if getattr(config, name) == "engine" and hooks]
        if config.novelty == "oracle" and hooks:
            used.append("--novelty oracle")
        if used:
            raise UserError(f"{p.domain} has no engine model of actions: {', '.join(used)} is not available")


# ---- tokens per node --------------------------------------------------------------------------
# Each hook call is charged to a key naming the node it works for, and every model call made while
# it runs (its gathered sub-calls included: tasks copy the context) adds its tokens to that key:
#   ("at", s)       expanding the node of state s (proposals, MCTS candidates and pre-judge), its goal
#                   check, its CaT value
#   ("map", s, a)   the child reached from s by action a (successor mapping, MCTS post-judge)
#   ("judged", s, p) the novelty verdict on state s generated from parent state p
# After the search the keys are matched to nodes (`_node_tokens`); a key two nodes share (a state
# reached twice) goes to the first, so the per-node numbers add up to the instance's tokens.

_CHARGE: contextvars.ContextVar = contextvars.ContextVar("widthbench_search_charge", default=None)


class _Charged:
    """A hook whose model calls are charged to the key ``keys[method](*args)``."""

    def __init__(self, inner, keys: dict):
        self._inner = inner
        self._keys = keys

    def __getattr__(self, name):
        attr = getattr(self._inner, name)
        key_of = self._keys.get(name)
        if key_of is None:
            return attr

        async def charged(*args, **kwargs):
            token = _CHARGE.set(key_of(*args, **kwargs))
            try:
                return await attr(*args, **kwargs)
            finally:
                _CHARGE.reset(token)

        return charged


def _charge_hooks(hooks, problem) -> None:
    k, a = problem.key, problem.action_key
    at = lambda state, *_, **__: ("at", k(state))  # noqa: E731
    hooks.proposer = _Charged(hooks.proposer, {"propose": at, "candidates": at})
    hooks.mapper = _Charged(hooks.mapper, {"successor": lambda s, act, *_, **__: ("map", k(s), a(act))})
    hooks.verifier = _Charged(hooks.verifier, {"is_goal": at})
    hooks.novelty = _Charged(hooks.novelty, {"judge": lambda s, parent, *_, **__: ("judged", k(s), k(parent))})
    if hooks.evaluator is not None:
        hooks.evaluator = _Charged(hooks.evaluator, {"judge_pre": at, "value": at,
                                                     "judge_post": lambda s, act, *_, **__: ("map", k(s), a(act))})


def _count_tokens(llm: LLM) -> dict:
    """Wrap ``llm.ask`` to add each reply's tokens (prompt + completion) to the current key, per purpose."""
    charges: dict = {}
    ask = llm.ask

    async def counted(messages, purpose, sample=0, answer_tokens=None, state=None):
        reply = await ask(messages, purpose, sample, answer_tokens, state=state)
        per = charges.setdefault(_CHARGE.get(), {})
        per[purpose] = per.get(purpose, 0) + (reply.prompt_tokens or 0) + (reply.completion_tokens or 0)
        return reply

    llm.ask = counted
    return charges


def _node_tokens(tree, problem, charges: dict) -> tuple[dict, dict]:
    """({node id: {purpose: tokens}}, {purpose: tokens not matched to a node})."""
    k, a = problem.key, problem.action_key
    left = {key: dict(v) for key, v in charges.items()}
    out: dict[int, dict] = {}

    def take(node_id: int, key) -> None:
        got = left.pop(key, None)
        if got:
            mine = out.setdefault(node_id, {})
            for purpose, n in got.items():
                mine[purpose] = mine.get(purpose, 0) + n

    for node in tree.nodes:
        parent = tree.nodes[node.parent] if node.parent is not None else None
        if node.state is not None:
            take(node.id, ("at", k(node.state)))
        if parent is not None and parent.state is not None and node.action is not None:
            take(node.id, ("map", k(parent.state), a(node.action)))
        if parent is not None and parent.state is not None and node.state is not None:
            take(node.id, ("judged", k(node.state), k(parent.state)))
    rest: dict = {}
    for per in left.values():
        for purpose, n in per.items():
            rest[purpose] = rest.get(purpose, 0) + n
    return out, rest


# ---- one instance -----------------------------------------------------------------------------

async def solve_one(problem, config: SearchConfig, broker: Broker, simulated: bool,
                    methods: MethodRegistry | None = None, sample: int | None = None) -> dict:
    """One search of ``problem``; ``sample`` (--samples N): which sample, searched with its own seed."""
    method = (methods or MethodRegistry.default()).get(config.method)
    seed = config.seed if sample is None else identity.sample_seed(config.seed, sample)
    llm = LLM(broker, seed=seed, thinking=config.thinking, max_tokens=config.max_tokens)
    rng = random.Random(f"{seed}/{problem.id}")
    start = time.perf_counter()
    width, hooks = None, None
    if method.tree:
        hooks = build_hooks(problem, config, llm)
        _charge_hooks(hooks, problem)
        charges = _count_tokens(llm)
        if config.novelty == "oracle":
            width = problem.width()
    outcome = await method.run(problem, config, llm, hooks, rng)
    tree, plan, check, stats = outcome.tree, outcome.plan, outcome.check, outcome.stats
    goal_claimed, reply_text = outcome.goal_claimed, outcome.reply_text
    wall = time.perf_counter() - start
    tokens = llm.log.tokens()
    counts = tree.counts() if tree is not None else {
        "generated": 0, "dead": 0, "pruned": 0, "pruned_duplicate": 0, "pruned_novelty": 0,
        "pruned_pre": 0, "pruned_post": 0, "expanded": 0}
    item = {
        "id": problem.id,
        "item_id": solve_item_id(problem),  # the same problem in any run (subtasks.item_ids)
        "domain": problem.domain,
        "method": config.method,
        "config": config.label(),
        "simulated": simulated,
        "solved": bool(check["solved"]),
        "plan": None if plan is None else ([problem.show_action(a) for a in plan] if not isinstance(plan, str) else plan),
        "plan_length": None if plan is None or isinstance(plan, str) else len(plan),
        "plan_valid": bool(check["plan_valid"]),
        "goal_claimed": goal_claimed,
        "reason": check.get("reason"),
        "optimal_length": problem.optimal_length,
        "states_generated": counts["generated"],
        "states_pruned": counts["pruned"],
        "dead_nodes": counts["dead"],
        "counts": counts,
        "llm_calls": tokens["calls"],
        "tokens": tokens["tokens"],
        "tokens_detail": {k: tokens[k] for k in ("prompt", "completion", "thinking", "cached", "errors", "truncated")},
        "tokens_by_purpose": tokens["by_purpose"],
        "calls": llm.log.calls,
        # A search that lost a call is incomplete: the run store asks it again on resume.
        "request_error": f"{llm.log.errors} model call(s) failed after retries" if llm.log.errors else None,
        "unreadable": dict(sorted(llm.log.unreadable.items())),
        "params": llm.log.params_sent(),  # issue 32 (study helper): sampling parameters sent
        "wall_time": round(wall, 4),
    }
    # On a certified unsolvable instance the right answer is no plan (searches.unsolvable).
    item.update(unsolvable.judge(item, unsolvable.instance_solvable(getattr(problem, "instance", None)),
                                 reply=reply_text))
    item.update(_thinking_checked(problem, llm.log.thinking))
    if sample is not None:
        item["sample"] = sample
    if hasattr(problem, "progress") and not isinstance(plan, str):
        item["progress"] = problem.progress(plan)  # partial credit (planners.progress)
    if width is not None:
        item["novelty_width"] = width
    if "answer" in check:
        item["answer"], item["gold"] = check["answer"], check["gold"]
    item.update({k: v for k, v in stats.items()})
    item.update(outcome.fields)
    if tree is not None:
        per_node, rest = _node_tokens(tree, problem, charges)
        item["tree"] = tree.to_json(problem.show_state, problem.show_action, per_node)
        if rest:
            item["tokens_outside_nodes"] = rest
    return item


def solve_item_id(problem) -> str:
    """``solve-<digest>`` of what the problem is, not its name: a STRIPS instance's content
    (`item_ids.task_digest`), a Game of 24 puzzle's numbers (sorted), a task's question."""
    if getattr(problem, "puzzle", None) is not None:
        content = identity.digest("game24", *map(str, sorted(problem.puzzle.numbers)))
    elif getattr(problem, "question", None) is not None:
        content = identity.digest("task", problem.question)
    else:
        content = item_ids.task_digest(problem.task)
    return item_ids.item_id("solve", content, {})


def _thinking_checked(problem, thinking: list) -> dict:
    """The reasoning of an instance's calls and its check: ``reasoning`` (one entry per reply that
    held thinking, or a chain of thought before its answer: its call number, purpose, source
    ("thinking" or "answer") and text) and ``trace`` (the same order: the
    reasoning-trace check from the state the question was about, with the call and purpose; None
    for a question about several states or a problem the engine does not check)."""
    if not thinking:
        return {}
    check = getattr(problem, "check_thinking", None)
    reasoning, traces = [], []
    for call, purpose, state, text, source, injected in thinking:
        noted = {} if injected is None else {"injected": injected}  # a simulated model's errors, on purpose
        reasoning.append({"call": call, "purpose": purpose, "source": source, "text": text, **noted})
        t = check(text, state) if check is not None else None
        traces.append(None if t is None else {"call": call, "purpose": purpose, "source": source, **t, **noted})
    return {"reasoning": reasoning, "trace": traces}


# ---- a run ------------------------------------------------------------------------------------

def read_items(run_dir: Path) -> list[dict]:
    """The latest record per instance of a run's items.jsonl (a line cut by a kill: its instance is
    solved again)."""
    return latest_records(Path(run_dir) / ITEMS, item_key)


def item_key(item: dict):
    """(instance id, sample): one record per instance, or per sample of one with ``--samples N``."""
    return (item["id"], item.get("sample", 0))


def run_identity(config: SearchConfig, problems: list, model, source: dict | None) -> dict:
    """Everything that decides a solve run's answers (docs/design.md, "The run store"): the model and
    its sampling values, the search configuration, the problems (source options, instance ids and a
    digest of the instance or task files) and the texts the prompts are made of."""
    src = dict(source or {})
    problems_id = {**src, "ids": [p.id for p in problems]}
    if src.get("instances"):
        problems_id["instances"] = identity.instances_digest(src["instances"])
    if src.get("tasks"):
        problems_id["tasks"] = identity.path_digest(src["tasks"])
    shown = {"templates": identity.prompt_templates_digest(src.get("prompt_dir"), src.get("novelty_prompt"))}
    task = getattr(problems[0], "task", None) if problems else None
    if task is not None and getattr(task, "domain", None) is not None:
        shown.update(identity.presentation(task.domain))
    return {"model": model.spec, "search": config.to_dict(), "problems": problems_id, "prompts": shown,
            "sampling": identity.sampling(model)}


def solve(config: SearchConfig, problems: list, model, out, *, parallel: int = 64,
          source: dict | None = None, progress: bool | None = None, executor=None,
          model_factory=None, described: dict | None = None, samples: int = 1,
          methods: MethodRegistry | None = None) -> dict:
    """Run ``config`` on ``problems``; returns the summary (also written to RUN/summary.json).
    ``executor`` + ``model_factory`` (a picklable callable that opens the model in a worker): the
    instances are searched by the executor's workers (see the module docstring). ``described``:
    how the run is made (servers, executor, jobs), recorded beside the identity. ``samples`` (issue
    43): each instance searched that many times, sample k with its own seed (`identity.sample_seed`),
    each a record with its index; the summary adds pass@k, pass^k and maj@k over the samples.
    ``methods``: the search methods (default: the built-in ones; `MethodRegistry.from_modules` adds
    more)."""
    if samples < 1:
        raise UserError(f"--samples must be at least 1, got {samples}")
    methods = methods or MethodRegistry.default()
    config.check(methods)
    check_config(config, problems, methods)
    method = methods.get(config.method)
    if method.check is not None:
        method.check(config, problems)
    simulated = bool(model.simulated)
    ident = run_identity(config, problems, model, source)
    if samples != 1:  # the samples' seeds decide their answers
        ident["samples"] = samples
    store = RunStore.open(out, kind="solve", identity=ident,
                          described={**(described or {}), "simulated": simulated, "started": time.time()},
                          key=item_key)
    done = store.done()
    units = [(p, k if samples > 1 else None) for p in problems for k in range(samples)]
    todo = [(p, k) for p, k in units if (p.id, k or 0) not in done]
    started = time.perf_counter()
    write = lambda it: _write_item(store, it)  # noqa: E731
    if todo and executor is not None and executor.parallel and model_factory is not None:
        workers = executor.spec.workers
        size = max(1, min(parallel, -(-len(todo) // (2 * workers))))
        batches = [todo[i:i + size] for i in range(0, len(todo), size)]
        jobs = [(config, b, model_factory, simulated, parallel, store.run_id, methods.paths) for b in batches]
        executor.map(_solve_batch, jobs, weights=[len(b) for b in batches], desc=config.label(), unit="inst",
                     quiet=progress is False,
                     on_result=lambda _, items: [write(it) for it in items])
    elif todo:
        asyncio.run(_run_all(config, todo, model, write, parallel, simulated, progress, store.run_id, methods))
    elapsed = time.perf_counter() - started
    order = {p.id: n for n, p in enumerate(problems)}  # the summary lists instances in the run's order,
    items = sorted((it for it in store.records() if it["id"] in order),
                   key=lambda it: (order[it["id"]], it.get("sample", 0)))
    # not in the order they finished (which depends on the executor and the model's latency)
    summary = summarise(items, config, model.spec, simulated, source)
    if method.summary is not None:
        summary.update(method.summary(items))
    if samples > 1:
        summary.update(sampled_summary(items))
    summary["run_wall_time"] = round(elapsed, 3)
    summary["run_id"] = store.run_id
    store.finish(summary, ledger_totals(items, store.run_id))
    return summary


async def _run_all(config, units, model, write, parallel: int, simulated: bool,
                   progress: bool | None, tag: str | None = None, methods: MethodRegistry | None = None) -> None:
    """Search every (problem, sample) of ``units`` (sample None: a run without --samples)."""
    broker = Broker(model, tag=tag)
    sem = asyncio.Semaphore(max(1, parallel))
    show = sys.stderr.isatty() if progress is None else progress
    bar = None
    if show:
        from tqdm import tqdm

        bar = tqdm(total=len(units), desc=config.label(), unit="inst", file=sys.stderr, leave=False)

    async def one(unit):
        async with sem:
            item = await solve_one(unit[0], config, broker, simulated, methods, sample=unit[1])
        write(item)
        if bar is not None:
            bar.update(1)

    try:
        await asyncio.gather(*(one(u) for u in units))
    finally:
        await broker.close()
        if bar is not None:
            bar.close()


def _write_item(store: RunStore, item: dict) -> None:
    store.append([item])
    write_tree(store.path, item)  # RUN/trees/<instance>.graphml


def _solve_batch(job) -> list[dict]:
    """A worker's part of `solve`: the items of a batch of (instance, sample), searched with its own model."""
    config, units, model_factory, simulated, parallel, tag, method_modules = job
    methods = MethodRegistry.from_modules(method_modules) if method_modules else None
    model = model_factory()
    try:
        return asyncio.run(_solve_items(config, units, model, simulated, parallel, tag, methods))
    finally:
        model.close()


async def _solve_items(config, units, model, simulated: bool, parallel: int,
                       tag: str | None = None, methods: MethodRegistry | None = None) -> list[dict]:
    broker = Broker(model, tag=tag)
    sem = asyncio.Semaphore(max(1, parallel))

    async def one(unit):
        async with sem:
            return await solve_one(unit[0], config, broker, simulated, methods, sample=unit[1])

    try:
        return list(await asyncio.gather(*(one(u) for u in units)))
    finally:
        await broker.close()


def sampled_summary(items: list[dict]) -> dict:
    """pass@k, pass^k and maj@k over the samples of each instance (`sampled.summarise_samples`): a
    sample is right as the summary counts it (a valid plan; no plan on a certified unsolvable
    instance), and votes with its plan ("no plan" is a reading too)."""
    by_id: dict[str, list[dict]] = {}
    for it in items:
        if not it.get("request_error"):
            by_id.setdefault(it.get("item_id") or it["id"], []).append(it)
    if not by_id:
        return {}
    cells = [Samples(i, tuple(json.dumps(it.get("plan")) if it.get("plan") is not None else "no plan" for it in its),
                     tuple(bool(it.get("correct", it["solved"])) for it in its)) for i, its in by_id.items()]
    return {"sampled": {"items": len(by_id), **summarise_samples(cells).as_row(), "maj_ties": "counted wrong"}}


def ledger_totals(items: list[dict], run_id: str) -> dict:
    """The run's token ledger: the calls of its instances, in the run's order
    (`llm.ledger.ledger_from_calls`: the same for a run made in one go or resumed)."""
    return ledger_from_calls([c for it in items for c in it.get("calls", ())], run_id)
