"""Dual-feedback Monte Carlo tree search (ToolTree), over planning states.

One rollout:

1. Selection from the root: at node s choose the open edge maximising
   Q(s,a) + λ·r_pre(s,a)·√(ln N(s)) / (1 + N(s,a)); ties go to the higher r_pre, then to a
   seeded random order. (With N(s) ≤ 1 the bonus is 0: the first choice is the best-judged action.)
2. Pre-evaluation at a node reached for the first time: the proposer lists candidate actions (ESA:
   the action-generation prompt; direct: b sampled next states), the LLM judge scores them all in
   one call (r_pre ∈ [0, 1]); candidates below τ_pre are pre-pruned, and of the rest only the top K
   (K = branch factor) become edges. A node left without an open edge (all candidates pruned, or
   all executed edges closed) is asked for fresh candidates (new samples: other request seeds), up
   to 3 rounds in all; then it is closed and its parent edge with it.
3. Execution of the selected edge (never executed before): the mapper gives the successor (direct:
   the proposed state); then novelty judge, goal check (a goal ends the search), and the judge's
   post score r_post of the resulting state; below τ_post the edge is post-pruned (not expandable).
   Dead, pruned and depth-limit states close their edge.
4. Backpropagation of r_post (0 for dead or novelty-pruned states) along the path:
   N(s,a) += 1, Q(s,a) += (r_post − Q(s,a)) / N(s,a), N(s) += 1.

Budget: at most ``rollouts`` rollouts, each executing one new edge; early stop after ``patience``
rollouts without improvement, where a rollout improves when its new state has a higher r_post
than any before, or the same best r_post at a greater depth (so a steady descent along a path the
judge rates best counts as progress). An unreadable judge answer scores 0.5.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field

from widthbench.searches.hooks import Hooks
from widthbench.searches.tree import Node, SearchTree

NEUTRAL = 0.5
PRE_ROUNDS = 3  # a node whose candidates are all pruned or closed is asked for new ones, at most this often


@dataclass(slots=True)
class Edge:
    action: object
    r_pre: float
    state: object = None  # direct mapping: the proposed successor
    child: Node | None = None
    n: int = 0
    q: float = 0.0
    open: bool = True
    tie: float = field(default=0.0)


async def mcts(problem, hooks: Hooks, config, rng: random.Random) -> tuple[SearchTree, Node | None, dict]:
    tree = SearchTree(problem.initial, config.max_states)
    root = tree.root
    hooks.novelty.start(root.state)
    stats = {"rollouts": 0, "early_stop": False}
    if await hooks.verifier.is_goal(root.state):
        root.status = "goal"
        return tree, root, stats
    edges: dict[int, list[Edge]] = {}
    visits: dict[int, int] = {0: 0}
    best = (-1.0, -1)
    stale = 0

    tried: dict[int, set] = {}

    async def pre_evaluate(node: Node) -> list[Edge]:
        rnd = node.info.get("pre_rounds", 0)
        node.info["pre_rounds"] = rnd + 1
        if rnd == 0:
            tree.expanded += 1
            node.status = "expanded"
        cands = await hooks.proposer.candidates(node.state, config.branch_factor, rnd)
        readable, edged = [], tried.setdefault(node.id, set())
        keys = set()
        for c in cands:
            if c.error is not None:
                tree.add(node, c.action, None, "dead", c.error)
                continue
            key = (problem.action_key(c.action), problem.key(c.state) if c.state is not None else None)
            if key not in edged and key not in keys:  # pre-pruned ones may be judged afresh
                keys.add(key)
                readable.append((key, c))
        scores = await hooks.evaluator.judge_pre(node.state, [c.action for _, c in readable], rnd)
        scored = [(NEUTRAL if s is None else s, i, c, key) for i, ((key, c), s) in enumerate(zip(readable, scores))]
        passing = [x for x in scored if x[0] >= config.tau_pre]
        passing.sort(key=lambda x: (-x[0], x[1]))
        out = []
        for rank, (score, _, c, key) in enumerate(passing):
            if rank < config.branch_factor:
                edged.add(key)
                out.append(Edge(c.action, score, c.state, tie=rng.random()))
            else:
                tree.add(node, c.action, None, "pruned-pre", f"r_pre {score:.2f}: not in the top {config.branch_factor}").info["r_pre"] = score
        for score, _, c, _ in scored:
            if score < config.tau_pre:
                tree.add(node, c.action, None, "pruned-pre", f"r_pre {score:.2f} < τ_pre").info["r_pre"] = score
        return out

    def select(node: Node, options: list[Edge]) -> Edge:
        n_s = max(visits.get(node.id, 0), 1)
        bonus = math.sqrt(math.log(n_s))

        def score(e: Edge):
            return (e.q + config.lam * e.r_pre * bonus / (1 + e.n), e.r_pre, e.tie)

        return max(options, key=score)

    async def execute(node: Node, edge: Edge) -> tuple[Node, float, bool]:
        """The new child, its reward, and whether it is a goal."""
        if hooks.direct:
            state, error = edge.state, None
        else:
            p = await hooks.mapper.successor(node.state, edge.action)
            state, error = p.state, p.error
        if state is None:
            child = tree.add(node, edge.action, None, "dead", error or "no state")
            edge.child, edge.open = child, False
            return child, 0.0, False
        child = tree.add(node, edge.action, state)
        child.info["r_pre"] = edge.r_pre
        edge.child = child
        verdict = await hooks.novelty.judge(state, node.state)
        if verdict is not None:
            child.status, edge.open = verdict, False
            return child, 0.0, False
        if await hooks.verifier.is_goal(state):
            child.status = "goal"
            return child, 1.0, True
        r = await hooks.evaluator.judge_post(node.state, edge.action, state)
        r = NEUTRAL if r is None else r
        child.info["r_post"] = r
        if r < config.tau_post:
            child.status, edge.open = "pruned-post", False
        elif child.depth >= config.max_depth:
            edge.open = False
        return child, r, False

    while stats["rollouts"] < config.rollouts and not tree.exhausted():
        node, path = root, []
        while True:
            if node.id not in edges:
                edges[node.id] = await pre_evaluate(node)
            options = [e for e in edges[node.id] if e.open]
            if not options and node.info["pre_rounds"] < PRE_ROUNDS and not tree.exhausted():
                edges[node.id] += await pre_evaluate(node)
                continue
            if not options:
                node.info["exhausted"] = True
                if not path:
                    return tree, None, stats  # every edge of the root is closed
                path[-1][1].open = False
                node, path = root, []  # restart the selection; no rollout spent
                continue
            edge = select(node, options)
            path.append((node, edge))
            if edge.child is None:
                break
            node = edge.child
        stats["rollouts"] += 1
        parent, edge = path[-1]
        child, r, is_goal = await execute(parent, edge)
        for src, e in path:
            e.n += 1
            e.q += (r - e.q) / e.n
            visits[src.id] = visits.get(src.id, 0) + 1
            if e.child is not None:
                e.child.info["N"] = e.n
                e.child.info["Q"] = e.q
        if is_goal:
            return tree, child, stats
        if child.state is not None and child.status in ("open", "pruned-post") and (r, child.depth) > best:
            best, stale = (r, child.depth), 0
        else:
            stale += 1
            if stale >= config.patience:
                stats["early_stop"] = True
                break
    return tree, None, stats
