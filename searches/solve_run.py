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
import random
import sys
import time
from pathlib import Path

from widthbench.core.errors import UserError
from widthbench.llm.ledger import ledger_from_calls
from widthbench.core.runstore import RunStore, latest_records
from widthbench.subtasks import identity
from widthbench.searches.broker import LLM, Broker
from widthbench.searches.config import SearchConfig
from widthbench.searches.graph import write_tree
from widthbench.searches import unsolvable_verdict as unsolvable
from widthbench.searches.hooks import build_hooks
from widthbench.searches.summary import summarise
from widthbench.searches.cat import cat
from widthbench.searches.mcts import mcts
from widthbench.searches.naive import naive
from widthbench.searches.strips_problem import StripsProblem
from widthbench.searches.tot import tot_bfs, tot_dfs
from widthbench.subtasks.prompts import with_prompts

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


def check_config(config: SearchConfig, problems: list) -> None:
    if not problems:
        return
    p = problems[0]
    if not p.has_engine:
        used = [f"--{name} engine" for name in ("actions", "successors")
                if getattr(config, name) == "engine" and config.method != "naive"]
        if config.novelty == "oracle" and config.method != "naive":
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

async def solve_one(problem, config: SearchConfig, broker: Broker, simulated: bool) -> dict:
    llm = LLM(broker, seed=config.seed, thinking=config.thinking, max_tokens=config.max_tokens)
    rng = random.Random(f"{config.seed}/{problem.id}")
    start = time.perf_counter()
    tree, goal, stats, width, reply_text = None, None, {}, None, None
    if config.method == "naive":
        plan, error, reply_text = await naive(problem, llm)
        check = problem.check(plan) if plan is not None else {"plan_valid": False, "solved": False, "reason": error}
        goal_claimed = plan is not None
    else:
        hooks = build_hooks(problem, config, llm)
        _charge_hooks(hooks, problem)
        charges = _count_tokens(llm)
        if config.novelty == "oracle":
            width = problem.width()
        if config.method == "tot-bfs":
            tree, goal = await tot_bfs(problem, hooks, config)
        elif config.method == "tot-dfs":
            tree, goal = await tot_dfs(problem, hooks, config)
        elif config.method == "mcts":
            tree, goal, stats = await mcts(problem, hooks, config, rng)
        else:
            tree, goal, stats = await cat(problem, hooks, config, rng)
        goal_claimed = goal is not None
        plan = tree.plan(goal) if goal is not None else None
        if goal is not None:
            check = problem.check(plan, goal.state)
        else:
            check = {"plan_valid": False, "solved": False,
                     "reason": "budget used up" if tree.exhausted() else "search ended without a goal"}
    wall = time.perf_counter() - start
    tokens = llm.log.tokens()
    counts = tree.counts() if tree is not None else {
        "generated": 0, "dead": 0, "pruned": 0, "pruned_duplicate": 0, "pruned_novelty": 0,
        "pruned_pre": 0, "pruned_post": 0, "expanded": 0}
    item = {
        "id": problem.id,
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
    if width is not None:
        item["novelty_width"] = width
    if "answer" in check:
        item["answer"], item["gold"] = check["answer"], check["gold"]
    item.update({k: v for k, v in stats.items()})
    if tree is not None:
        per_node, rest = _node_tokens(tree, problem, charges)
        item["tree"] = tree.to_json(problem.show_state, problem.show_action, per_node)
        if rest:
            item["tokens_outside_nodes"] = rest
    return item


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
    return item["id"]


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
          model_factory=None, described: dict | None = None) -> dict:
    """Run ``config`` on ``problems``; returns the summary (also written to RUN/summary.json).
    ``executor`` + ``model_factory`` (a picklable callable that opens the model in a worker): the
    instances are searched by the executor's workers (see the module docstring). ``described``:
    how the run is made (servers, executor, jobs), recorded beside the identity."""
    config.check()
    check_config(config, problems)
    simulated = bool(model.simulated)
    store = RunStore.open(out, kind="solve", identity=run_identity(config, problems, model, source),
                          described={**(described or {}), "simulated": simulated, "started": time.time()},
                          key=item_key)
    done = store.done()
    todo = [p for p in problems if p.id not in done]
    started = time.perf_counter()
    write = lambda it: _write_item(store, it)  # noqa: E731
    if todo and executor is not None and executor.parallel and model_factory is not None:
        workers = executor.spec.workers
        size = max(1, min(parallel, -(-len(todo) // (2 * workers))))
        batches = [todo[i:i + size] for i in range(0, len(todo), size)]
        jobs = [(config, b, model_factory, simulated, parallel, store.run_id) for b in batches]
        executor.map(_solve_batch, jobs, weights=[len(b) for b in batches], desc=config.label(), unit="inst",
                     quiet=progress is False,
                     on_result=lambda _, items: [write(it) for it in items])
    elif todo:
        asyncio.run(_run_all(config, todo, model, write, parallel, simulated, progress, store.run_id))
    elapsed = time.perf_counter() - started
    order = {p.id: n for n, p in enumerate(problems)}  # the summary lists instances in the run's order,
    items = sorted((it for it in store.records() if it["id"] in order), key=lambda it: order[it["id"]])
    # not in the order they finished (which depends on the executor and the model's latency)
    summary = summarise(items, config, model.spec, simulated, source)
    summary["run_wall_time"] = round(elapsed, 3)
    summary["run_id"] = store.run_id
    store.finish(summary, ledger_totals(items, store.run_id))
    return summary


async def _run_all(config, problems, model, write, parallel: int, simulated: bool,
                   progress: bool | None, tag: str | None = None) -> None:
    broker = Broker(model, tag=tag)
    sem = asyncio.Semaphore(max(1, parallel))
    show = sys.stderr.isatty() if progress is None else progress
    bar = None
    if show:
        from tqdm import tqdm

        bar = tqdm(total=len(problems), desc=config.label(), unit="inst", file=sys.stderr, leave=False)

    async def one(problem):
        async with sem:
            item = await solve_one(problem, config, broker, simulated)
        write(item)
        if bar is not None:
            bar.update(1)

    try:
        await asyncio.gather(*(one(p) for p in problems))
    finally:
        await broker.close()
        if bar is not None:
            bar.close()


def _write_item(store: RunStore, item: dict) -> None:
    store.append([item])
    write_tree(store.path, item)  # RUN/trees/<instance>.graphml


def _solve_batch(job) -> list[dict]:
    """A worker's part of `solve`: the items of a batch of instances, searched with its own model."""
    config, problems, model_factory, simulated, parallel, tag = job
    model = model_factory()
    try:
        return asyncio.run(_solve_items(config, problems, model, simulated, parallel, tag))
    finally:
        model.close()


async def _solve_items(config, problems, model, simulated: bool, parallel: int,
                       tag: str | None = None) -> list[dict]:
    broker = Broker(model, tag=tag)
    sem = asyncio.Semaphore(max(1, parallel))

    async def one(problem):
        async with sem:
            return await solve_one(problem, config, broker, simulated)

    try:
        return list(await asyncio.gather(*(one(p) for p in problems)))
    finally:
        await broker.close()


def ledger_totals(items: list[dict], run_id: str) -> dict:
    """The run's token ledger: the calls of its instances, in the run's order
    (`llm.ledger.ledger_from_calls`: the same for a run made in one go or resumed)."""
    return ledger_from_calls([c for it in items for c in it.get("calls", ())], run_id)
