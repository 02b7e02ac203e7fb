"""Search trees as networkx graphs, written as GraphML (one file per instance of a solve run).

`tree_graph(item)` turns a solve item (one line of RUN/items.jsonl, whose ``"tree"`` is
`SearchTree.to_json`) into a `networkx.DiGraph`:

- node ``id`` (the tree's node number, as text: GraphML ids are strings) with attributes
  ``state`` (the state as the prompts show it; ``""`` for a node without a state), ``has_state``,
  ``status`` (see `searches.tree`), ``pruned`` (duplicate, pruned for novelty, or by an MCTS
  judge), ``dead`` (unreadable answer or inapplicable action), ``depth``, ``tokens`` (prompt +
  completion tokens of the model calls made for the node), ``tokens_<purpose>`` per purpose,
  ``note`` when there is one, and the method's numbers (``value``, ``N``, ``Q``, ``r_pre``, ...);
- an edge parent -> child per non-root node, labelled ``action`` (the action text, ``""`` if none);
- graph attributes ``instance``, ``domain``, ``method``, ``config``, ``simulated``, ``solved`` and
  ``expanded`` (the tree's expansion counter, which node statuses do not hold).

`write_tree(run_dir, item)` writes RUN/trees/<instance>.graphml (the solve run calls it as each
instance finishes); `tree_state_counts(graph)` recomputes the tree's counters (`SearchTree.counts`)
from a graph, so Figure 3's generated states per instance can be read from the files:
``run_state_counts(run_dir)`` maps each instance to its counts.
"""

from __future__ import annotations

import re
from pathlib import Path

from widthbench.searches.tree import PRUNED, counts

TREES = "trees"  # the folder of a solve run that holds one GraphML file per instance
_NODE_KEYS = ("id", "parent", "depth", "action", "state", "status", "note", "tokens", "tokens_by_purpose")


def tree_graph(item: dict):
    """The search tree of a solve item as a `networkx.DiGraph` (see the module docstring)."""
    import networkx as nx

    g = nx.DiGraph()
    item_counts = item.get("counts") or {}
    g.graph.update(instance=str(item["id"]), domain=str(item.get("domain", "")),
                   method=str(item.get("method", "")), config=str(item.get("config", "")),
                   simulated=bool(item.get("simulated", False)), solved=bool(item.get("solved", False)),
                   expanded=int(item_counts.get("expanded", 0)))
    for row in item.get("tree") or []:
        status = row["status"]
        attrs = {"state": row["state"] if row["state"] is not None else "", "has_state": row["state"] is not None,
                 "status": status, "pruned": status in PRUNED, "dead": status == "dead",
                 "depth": int(row["depth"]), "tokens": int(row.get("tokens", 0))}
        for purpose, n in (row.get("tokens_by_purpose") or {}).items():
            attrs[f"tokens_{purpose}"] = int(n)
        if row.get("note"):
            attrs["note"] = str(row["note"])
        for key, value in row.items():  # the method's numbers (value, N, Q, r_pre, r_post, ...)
            if key not in _NODE_KEYS and isinstance(value, (int, float)) and not isinstance(value, bool):
                attrs[key] = float(value)
        g.add_node(str(row["id"]), **attrs)
        if row["parent"] is not None:
            g.add_edge(str(row["parent"]), str(row["id"]), action=row["action"] if row["action"] is not None else "")
    return g


def tree_state_counts(graph) -> dict[str, int]:
    """`SearchTree.counts` of the tree in ``graph``: ``generated`` = non-root nodes with a state
    (Figure 3's states per instance), ``dead``, ``pruned`` (states pruned: duplicates, novelty, MCTS
    post-judge) and each kind apart, ``expanded`` (a graph attribute)."""
    root = next((n for n, d in graph.in_degree() if d == 0), None)
    rest = [a for n, a in graph.nodes(data=True) if n != root]
    return counts([a["status"] for a in rest], sum(bool(a["has_state"]) for a in rest),
                  int(graph.graph.get("expanded", 0)))


def tree_path(run_dir, instance: str) -> Path:
    """RUN/trees/<instance>.graphml (characters other than letters, digits, ``.``, ``_``, ``-``
    become ``_``)."""
    return Path(run_dir) / TREES / (re.sub(r"[^A-Za-z0-9._-]", "_", instance) + ".graphml")


def write_tree(run_dir, item: dict) -> Path | None:
    """Write the item's search tree as GraphML; None (nothing written) for a method without a tree."""
    if not item.get("tree"):
        return None
    import networkx as nx

    # one tree per sample of an instance (solve --samples N)
    path = tree_path(run_dir, str(item["id"]) + (f"-sample{item['sample']}" if "sample" in item else ""))
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".graphml.tmp")
    nx.write_graphml(tree_graph(item), tmp)
    tmp.replace(path)
    return path


def run_state_counts(run_dir) -> dict[str, dict[str, int]]:
    """Instance -> `tree_state_counts` for every GraphML tree of a solve run."""
    import networkx as nx

    out = {}
    for path in sorted((Path(run_dir) / TREES).glob("*.graphml")):
        g = nx.read_graphml(path)
        out[g.graph.get("instance", path.stem)] = tree_state_counts(g)
    return out
