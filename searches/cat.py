"""Caterpillar of Thoughts (its Algorithm 4 with a bounded number of iterations).

Every observed state is kept with an LLM value estimate v (0-10, higher = closer to the goal). Each
iteration rewinds to one observed state sampled with probability softmax(v / T) (T = 1 by default)
and expands it: b next steps are proposed (direct, or actions then successors), exactly as a ToT
expansion. New states are goal-checked (the first goal ends the search) and valued.

Choices written down here:
- Observed states form a set (the paper's Lemma 3.1: only the set of distinct states matters): a
  child equal to an observed state is a duplicate and is not added again. Novelty pruning (if on)
  judges the remaining new states.
- A state can be rewound to many times; each rewind samples new proposals (request seeds move on
  with the rewind count, so the model is asked afresh and the cache does not return the old
  answers). A state whose expansion twice in a row yields nothing new is retired, so a deterministic
  proposer cannot trap the search.
- States at max_depth are observed but never expanded. An unreadable value counts as 0.
"""

from __future__ import annotations

import asyncio
import math
import random

from widthbench.searches.hooks import Hooks
from widthbench.searches.tot import expand
from widthbench.searches.tree import Node, SearchTree

RETIRE_AFTER = 2


def softmax_pick(nodes: list[Node], temperature: float, rng: random.Random) -> Node:
    values = [n.info.get("value", 0.0) / temperature for n in nodes]
    top = max(values)
    weights = [math.exp(v - top) for v in values]
    return rng.choices(nodes, weights=weights, k=1)[0]


async def cat(problem, hooks: Hooks, config, rng: random.Random) -> tuple[SearchTree, Node | None, dict]:
    tree = SearchTree(problem.initial, config.max_states)
    root = tree.root
    hooks.novelty.start(root.state)
    stats = {"iterations": 0}
    if await hooks.verifier.is_goal(root.state):
        root.status = "goal"
        return tree, root, stats
    v = await hooks.evaluator.value(root.state)
    root.info["value"] = 0.0 if v is None else v
    observed = [root]
    keys = {problem.key(root.state)}
    rewinds: dict[int, int] = {}
    barren: dict[int, int] = {}
    while stats["iterations"] < config.iterations and not tree.exhausted():
        pool = [n for n in observed if n.depth < config.max_depth and barren.get(n.id, 0) < RETIRE_AFTER]
        if not pool:
            break
        stats["iterations"] += 1
        node = softmax_pick(pool, config.cat_temperature, rng)
        rnd = rewinds.get(node.id, 0)
        rewinds[node.id] = rnd + 1
        node.info["rewinds"] = rnd + 1
        children = await expand(problem, hooks, tree, node, config.branch_factor, rnd)
        new = []
        for child in children:
            if child.status == "dead":
                continue
            key = problem.key(child.state)
            if key in keys:
                child.status = "duplicate"
                continue
            verdict = await hooks.novelty.judge(child.state, node.state)
            if verdict is not None:
                child.status = verdict
                continue
            keys.add(key)
            new.append(child)
        barren[node.id] = 0 if new else barren.get(node.id, 0) + 1
        goals = await asyncio.gather(*(hooks.verifier.is_goal(c.state) for c in new))
        for child, is_goal in zip(new, goals):
            if is_goal:
                child.status = "goal"
                return tree, child, stats
        values = await asyncio.gather(*(hooks.evaluator.value(c.state) for c in new))
        for child, value in zip(new, values):
            child.info["value"] = 0.0 if value is None else value
            observed.append(child)
    return tree, None, stats
