"""Search grids: `solve` with lists runs the product of the values, one run folder per configuration."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, strategies as st

from widthbench.core.errors import UserError
from widthbench.searches.config import SearchConfig
from widthbench.searches.grid import LIST_OPTIONS, grid_configs, parse_list, run_folders, too_deep

REPO = Path(__file__).resolve().parents[2]


@given(st.dictionaries(st.sampled_from(sorted(LIST_OPTIONS)),
                       st.sets(st.sampled_from(["tot-bfs", "tot-dfs", "mcts", "cat", "direct", "esa", "off",
                                                "llm", "oracle", "engine"]), min_size=1)),
       st.sampled_from([(False,), (True,), (False, True)]))
def test_the_grid_is_the_product_of_the_lists(lists, thinking):
    lists = {k: tuple(v for v in sorted(vs) if v in LIST_OPTIONS[k]) for k, vs in lists.items()}
    lists = {k: v for k, v in lists.items() if v}
    configs = grid_configs(SearchConfig(method="tot-bfs"), lists, thinking)
    size = len(thinking)
    for values in lists.values():
        size *= len(values)
    assert len(configs) == size == len(set(configs))  # no naive here: every combination is distinct
    for name, values in lists.items():
        assert {getattr(c, name) for c in configs} == set(values)
    folders = run_folders("R", configs)
    assert len(set(folders)) == len(configs)  # each configuration has its own folder
    if size > 1:
        assert all(f.parent == Path("R") for f in folders)


def test_naive_is_run_once_whatever_the_tree_settings():
    configs = grid_configs(SearchConfig(), {"method": ("naive", "tot-bfs"), "novelty": ("off", "llm")}, (False,))
    assert [c.method for c in configs].count("naive") == 1 and len(configs) == 3


def test_only_thinking_varying_keeps_the_thinking_folders():
    configs = grid_configs(SearchConfig(), {}, (False, True))
    assert [f.name for f in run_folders("R", configs)] == ["thinking-off", "thinking-on"]


@pytest.mark.parametrize("text,message", [("tot-bfs,bogus", "--method 'bogus': choose from"), (",", "give one or more")])
def test_a_bad_list_value_is_one_line(text, message):
    with pytest.raises(UserError, match=message):
        parse_list(text, "method", LIST_OPTIONS["method"])


def test_table3_grid_in_one_command(tmp_path):
    out = tmp_path / "t3"
    cmd = [sys.executable, "-m", "widthbench", "solve", "--method", "tot-bfs,tot-dfs", "--mapping", "direct,esa",
           "--novelty", "off,llm", "--thinking", "both", "--domain", "logistics", "--count", "4", "--seed", "1",
           "--model", "sim:noisy:0.2", "--out", str(out), "--quiet", "--max-depth", "6"]
    done = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    grid = json.loads((out / "grid.json").read_text())
    assert len(grid["runs"]) == 16
    labels = set()
    lengths = None
    for run in grid["runs"]:
        summary = json.loads((out / run["folder"] / "summary.json").read_text())
        assert summary["n"] == 4 and summary["simulated"] is True
        labels.add(summary["label"])
        items = [json.loads(x) for x in (out / run["folder"] / "items.jsonl").read_text().splitlines()]
        lengths = sorted(it["optimal_length"] for it in items)
    assert len(labels) == 16
    deep = sum(n > 6 for n in lengths)
    if deep:  # the warning counts the instances no depth-6 search can solve
        assert f"solve: warning: {deep} of 4 instances need more than --max-depth 6 steps" in done.stderr
    else:
        assert "warning" not in done.stderr


def test_too_deep_counts_instances_longer_than_the_depth():
    class P:
        def __init__(self, n):
            self.optimal_length = n

    assert too_deep([P(3), P(9), P(None), P(12)], 8) == (2, 3)
