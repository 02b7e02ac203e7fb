"""Tree of Thoughts over planning states (the paper): breadth- or depth-first, branch factor b,
depth limit, optional novelty pruning.

Expanding a node: the proposer samples b next steps (direct: next states with their action; ESA:
next actions, then each action is mapped to its successor). Identical proposals from the same node
are merged (the same action, or the same direct answer, is one child). Each new readable state is
then, in generation order:

1. judged by the novelty hook (off: always kept) — a pruned state is never expanded;
2. goal-checked by the verifier (engine or LLM) — the first goal ends the search.

This is IW's order ("after-prune" goal test, planners/iw.py): a goal state the novelty judge
prunes is lost, which is one of the ways novelty pruning can cost success. Dead nodes (unreadable
answers, inapplicable actions under engine mapping) are recorded and never expanded. Nodes at depth
max_depth are not expanded. The search stops at the first goal, when the tree is exhausted, or when
the budget of generated states is used up.

BFS expands a whole level at once (its model calls go out together); DFS expands the first kept
child of a node before its siblings, as Yao et al.'s DFS with backtracking (no value threshold).
"""

from __future__ import annotations

import asyncio

from widthbench.searches.hooks import Hooks, Proposal
from widthbench.searches.tree import Node, SearchTree


async def expand(problem, hooks: Hooks, tree: SearchTree, node: Node, k: int, round: int = 0) -> list[Node]:
    """Generate the children of ``node`` (not yet judged): proposals, merged, then mapped (ESA)."""
    proposals = await hooks.proposer.propose(node.state, k, round)
    tree.expanded += 1
    node.status = "expanded" if node.status == "open" else node.status
    seen: set = set()
    unique: list[Proposal] = []
    for p in proposals:
        if p.error is None:
            key = (problem.action_key(p.action), problem.key(p.state) if p.state is not None else None)
            if key in seen:
                continue
            seen.add(key)
        unique.append(p)
    if not hooks.direct:
        mapped = await asyncio.gather(*(
            hooks.mapper.successor(node.state, p.action) if p.error is None else _same(p) for p in unique))
        unique = list(mapped)
    children = []
    for p in unique:
        if p.error is not None or p.state is None:
            children.append(tree.add(node, p.action, None, "dead", p.error or "no state"))
        else:
            children.append(tree.add(node, p.action, p.state))
    return children


async def _same(p: Proposal) -> Proposal:
    return p


async def judge(hooks: Hooks, tree: SearchTree, parent: Node, children: list[Node]) -> Node | None:
    """Novelty-judge the children in order, then goal-check the kept ones; the first goal child."""
    kept = []
    for child in children:
        if child.status == "dead":
            continue
        verdict = await hooks.novelty.judge(child.state, parent.state)
        if verdict is not None:
            child.status = verdict
        else:
            kept.append(child)
    goals = await asyncio.gather(*(hooks.verifier.is_goal(c.state) for c in kept))
    for child, is_goal in zip(kept, goals):
        if is_goal:
            child.status = "goal"
            return child
    return None


async def _start(problem, hooks: Hooks, config) -> tuple[SearchTree, list[Node]]:
    """A tree holding the initial state (novelty started on it), and the nodes to search from: the
    root, or none when the root is already a goal (the tree's root then has status "goal")."""
    tree = SearchTree(problem.initial, config.max_states)
    hooks.novelty.start(tree.root.state)
    if await hooks.verifier.is_goal(tree.root.state):
        tree.root.status = "goal"
        return tree, []
    return tree, [tree.root]


def _end(tree: SearchTree) -> tuple[SearchTree, Node | None]:
    """The tree of a search that found no goal below the root: the root, when it is one."""
    return tree, tree.root if tree.root.status == "goal" else None


async def tot_bfs(problem, hooks: Hooks, config) -> tuple[SearchTree, Node | None]:
    tree, frontier = await _start(problem, hooks, config)
    for _ in range(config.max_depth):
        if not frontier or tree.exhausted():
            break
        level = await asyncio.gather(*(expand(problem, hooks, tree, n, config.branch_factor)
                                       for n in frontier))
        nxt = []
        for parent, children in zip(frontier, level):
            goal = await judge(hooks, tree, parent, children)
            if goal is not None:
                return tree, goal
            nxt.extend(c for c in children if c.status == "open")
        frontier = nxt
    return _end(tree)


async def tot_dfs(problem, hooks: Hooks, config) -> tuple[SearchTree, Node | None]:
    tree, stack = await _start(problem, hooks, config)
    while stack:
        node = stack.pop()
        if node.depth >= config.max_depth or tree.exhausted():
            continue
        children = await expand(problem, hooks, tree, node, config.branch_factor)
        goal = await judge(hooks, tree, node, children)
        if goal is not None:
            return tree, goal
        stack.extend(reversed([c for c in children if c.status == "open"]))
    return _end(tree)
