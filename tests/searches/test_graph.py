"""Search trees exported as GraphML (RUN/trees/<instance>.graphml): they open in networkx and give
back the run's state counts (Figure 3's generated states per instance)."""

from __future__ import annotations

import networkx as nx
import pytest

from widthbench.searches.config import SearchConfig
from widthbench.searches.graph import run_state_counts, tree_graph, tree_path, tree_state_counts
from widthbench.searches.solve_run import read_items, solve


@pytest.mark.parametrize("method,spec,novelty", [("tot-bfs", "sim:noisy:0.3", "llm"), ("mcts", "sim:oracle", "off"),
                                                  ("cat", "sim:noisy:0.3", "oracle")])
def test_graphml_trees_open_in_networkx_and_match_the_runs_state_counts(bw_problems, model_factory, tmp_path,
                                                                         method, spec, novelty):
    out = tmp_path / "run"
    summary = solve(SearchConfig(method=method, mapping="direct", novelty=novelty, seed=5), bw_problems[:3],
                    model_factory(spec), out, progress=False)
    items = {it["id"]: it for it in read_items(out)}
    counts = run_state_counts(out)
    assert set(counts) == set(items)
    for iid, item in items.items():
        g = nx.read_graphml(tree_path(out, iid))
        assert g.graph["instance"] == iid and nx.is_arborescence(g)
        assert g.number_of_nodes() == len(item["tree"])
        assert tree_state_counts(g) == item["counts"] == counts[iid]
        for row in item["tree"]:
            a = g.nodes[str(row["id"])]
            assert a["state"] == (row["state"] or "") and a["status"] == row["status"]
            assert a["dead"] == (row["status"] == "dead") and a["tokens"] == row["tokens"]
            assert a["pruned"] == (row["status"] in ("duplicate", "pruned-novelty", "pruned-pre", "pruned-post"))
            if row["parent"] is not None:
                assert g.edges[str(row["parent"]), str(row["id"])]["action"] == (row["action"] or "")
    # Figure 3's per-instance counts, from the files
    assert sorted(c["generated"] for c in counts.values()) == sorted(summary["states_per_instance"])


def test_a_method_without_a_tree_writes_no_graph(bw_problems, model_factory, tmp_path):
    solve(SearchConfig(method="naive", mapping="direct", novelty="off", seed=1), bw_problems[:2],
          model_factory(), tmp_path / "naive", progress=False)
    assert run_state_counts(tmp_path / "naive") == {}
    assert tree_graph({"id": "x", "tree": []}).number_of_nodes() == 0


def test_figure_3_counts_come_from_the_graphml_trees(tmp_path):
    from widthbench.cli import main
    from widthbench.reports.search import states_per_instance, summaries_of

    out = tmp_path / "run"
    assert main(["solve", "--method", "tot-bfs", "--domain", "blocksworld", "--count", "3", "--seed", "4",
                 "--max-plan-length", "6", "--model", "sim:noisy:0.2", "--cache-dir", str(tmp_path / "c"),
                 "--out", str(out), "--quiet"]) == 0
    [summary] = summaries_of([out])
    assert states_per_instance(summary) == summary["states_per_instance"]
    # The figure reads the trees: edit one tree and the count follows it.
    import networkx as nx
    path = sorted((out / "trees").glob("*.graphml"))[0]
    g = nx.read_graphml(path)
    g.add_node("extra", status="generated", has_state=True)
    nx.write_graphml(g, path)
    changed = states_per_instance(summary)
    assert changed != summary["states_per_instance"] and sum(changed) == sum(summary["states_per_instance"]) + 1
