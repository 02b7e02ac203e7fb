"""The search tree every method records, and its counters.

A node is one generated state (or a dead one: the model's answer could not be read, or the engine
found the proposed action inapplicable). Statuses:

- ``open``      generated, kept, not (yet) expanded
- ``expanded``  its children were generated
- ``goal``      the goal check said yes (the first one ends the search)
- ``dead``      unreadable answer / inapplicable action: no state (``note`` says why)
- ``duplicate`` pruned as a duplicate by the novelty judge (oracle: the same state was generated
                before; llm: the model answered "not novel" for a state equal to an earlier one)
- ``pruned-novelty`` pruned by the novelty judge (not novel, not a duplicate)
- ``pruned-pre`` / ``pruned-post``  MCTS pruning below τ_pre / τ_post

Counters (`SearchTree.counts`): ``generated`` = readable states produced by successor generation
(the root not included; duplicates and pruned states included), ``dead`` = dead nodes, ``pruned`` =
generated states pruned by novelty (duplicates included) or by the MCTS post-judge; actions the MCTS
pre-judge pruned before execution are counted apart (``pruned_pre``: no state was generated).
``expanded`` = nodes expanded.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

PRUNED = ("duplicate", "pruned-novelty", "pruned-pre", "pruned-post")
PRUNED_STATES = ("duplicate", "pruned-novelty", "pruned-post")  # pruned-pre nodes have no state


@dataclass(slots=True)
class Node:
    id: int
    parent: int | None
    depth: int
    action: Any  # the domain's action (None for the root and for unreadable proposals)
    state: Any  # None for a dead node
    status: str = "open"
    note: str | None = None
    info: dict = field(default_factory=dict)  # method-specific numbers (value, r_pre, r_post, N, Q)

    @property
    def alive(self) -> bool:
        return self.state is not None and self.status not in ("dead",) + PRUNED


def counts(statuses, generated: int, expanded: int) -> dict[str, int]:
    """The counters (see the module docstring) from the statuses of the non-root nodes."""
    by: dict[str, int] = {}
    for status in statuses:
        by[status] = by.get(status, 0) + 1
    return {
        "generated": generated,
        "dead": by.get("dead", 0),
        "pruned": sum(by.get(s, 0) for s in PRUNED_STATES),
        "pruned_duplicate": by.get("duplicate", 0),
        "pruned_novelty": by.get("pruned-novelty", 0),
        "pruned_pre": by.get("pruned-pre", 0),
        "pruned_post": by.get("pruned-post", 0),
        "expanded": expanded,
    }


class SearchTree:
    """All nodes of one search, in generation order, with the budget on generated states."""

    def __init__(self, initial_state, max_states: int):
        self.nodes: list[Node] = [Node(0, None, 0, None, initial_state)]
        self.max_states = max_states
        self.expanded = 0

    @property
    def root(self) -> Node:
        return self.nodes[0]

    def add(self, parent: Node, action, state, status: str = "open", note: str | None = None) -> Node:
        node = Node(len(self.nodes), parent.id, parent.depth + 1, action, state, status, note)
        self.nodes.append(node)
        return node

    def exhausted(self) -> bool:
        """The budget of generated states is used up."""
        return self.generated >= self.max_states

    @property
    def generated(self) -> int:
        return sum(1 for n in self.nodes[1:] if n.state is not None)

    def path(self, node: Node) -> list[Node]:
        out = []
        while node is not None:
            out.append(node)
            node = self.nodes[node.parent] if node.parent is not None else None
        return out[::-1]

    def plan(self, node: Node) -> list:
        return [n.action for n in self.path(node)[1:]]

    def counts(self) -> dict[str, int]:
        return counts([n.status for n in self.nodes[1:]], self.generated, self.expanded)

    def to_json(self, show_state: Callable[[Any], str], show_action: Callable[[Any], str],
                tokens: dict[int, dict[str, int]] | None = None) -> list[dict]:
        """One dict per node; with ``tokens`` (node id -> {purpose: tokens}), each node also carries
        ``tokens`` (prompt + completion of the model calls made for it) and ``tokens_by_purpose``."""
        out = []
        for n in self.nodes:
            row = {"id": n.id, "parent": n.parent, "depth": n.depth,
                   "action": None if n.action is None else show_action(n.action),
                   "state": None if n.state is None else show_state(n.state),
                   "status": n.status}
            if n.note:
                row["note"] = n.note
            if n.info:
                row.update({k: (round(v, 4) if isinstance(v, float) else v) for k, v in n.info.items()})
            if tokens is not None:
                per = tokens.get(n.id, {})
                row["tokens"] = sum(per.values())
                row["tokens_by_purpose"] = dict(sorted(per.items()))
            out.append(row)
        return out
