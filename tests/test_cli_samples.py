"""`score --samples N` over HTTP: N seeded, distinct requests per item-mode, every sample recorded,
pass@k / pass^k / maj@k in the summary rows, resumed exactly (issue 43; docs/compare.md)."""

from __future__ import annotations

import json
import sqlite3
from collections import defaultdict

import pytest

from widthbench.cli import main
from widthbench.llm.sim_server import ServerThread, SimServerConfig, fetch_stats
from widthbench.simulated import simulator_for

MODELS = ("sim:noisy:0.3", "sim:gibberish")
GRID = ("--subtask", "plan-verification,action-single", "--count", "4", "--style", "pddl", "--thinking", "off",
        "--quiet")


@pytest.fixture(scope="module")
def servers():
    started = {m: ServerThread(SimServerConfig(model=m, simulator=simulator_for(m))).start() for m in MODELS}
    yield {m: s.base_url for m, s in started.items()}
    for s in started.values():
        s.stop()


def _asked(url) -> int:
    return fetch_stats(url)["chat_requests"]


def _score(servers, model, out, *extra):
    return main(["score", "--model", f"openai:{model}", "--base-url", servers[model], "--out", str(out), *GRID,
                 *extra])


def _records(out):
    recs = []
    for line in (out / "items.jsonl").read_text().splitlines():
        try:
            recs.append(json.loads(line))
        except json.JSONDecodeError:
            pass  # a line cut by a kill
    return recs


def _by_item_mode(recs):
    out = defaultdict(list)
    for r in recs:
        out[(r["subtask"], r["item_id"], r["mode"])].append(r)
    return out


def test_five_samples_are_five_requests_five_records_and_five_cache_entries(servers, tmp_path, capsys):
    url, cache = servers["sim:noisy:0.3"], tmp_path / "cache"
    before = _asked(url)
    assert _score(servers, "sim:noisy:0.3", tmp_path / "run", "--samples", "5", "--cache-dir", str(cache)) == 0
    printed = capsys.readouterr().out
    assert "plan-verification accuracy (pddl, thinking off): 4 items x 5 samples, mean accuracy" in printed
    assert "pass@5" in printed and "counted wrong" in printed
    assert _asked(url) - before == 5 * 8  # 4 items x 2 sub-tasks, one request each, five times
    groups = _by_item_mode(_records(tmp_path / "run"))
    assert len(groups) == 8
    for recs in groups.values():
        assert sorted(r["sample"] for r in recs) == [0, 1, 2, 3, 4]
        assert len({r["calls"][0]["key"] for r in recs}) == 5  # five distinct requests
        assert len({r["request_digest"] for r in recs}) == 5
    with sqlite3.connect(cache / "replies.sqlite") as db:
        assert db.execute("SELECT COUNT(*) FROM replies").fetchone()[0] == 40
    # the same run again in another folder: every sample from the cache, none collapsed
    before = _asked(url)
    assert _score(servers, "sim:noisy:0.3", tmp_path / "again", "--samples", "5", "--cache-dir", str(cache)) == 0
    assert _asked(url) == before
    again = _by_item_mode(_records(tmp_path / "again"))
    assert {k: sorted(r["raw_answer"] for r in v) for k, v in again.items()} == \
        {k: sorted(r["raw_answer"] for r in v) for k, v in groups.items()}

    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    for row in summary["rows"]:
        assert row["samples"] == 5 and row["items"] == 4 and row["answers"] == 20
        assert row["pass@1"] == row["mean_accuracy"] == row["accuracy"]
        assert row["pass@5"] >= row["pass@1"] >= row["pass^5"]
        assert all(f"{name}{k}" in row for k in range(1, 6) for name in ("pass@", "pass^", "maj@"))
        assert row["maj_ties"] == "counted wrong"
        lo, hi = row["pass@1_ci"]
        assert lo <= row["pass@1"] <= hi
        # the row's own interval is clustered by item too: the same as the mean accuracy's here
        assert row["interval"] == "clustered by item" and [row["ci_low"], row["ci_high"]] == row["mean_accuracy_ci"]
    assert any(row["pass@5"] > row["pass@1"] for row in summary["rows"])  # noise: some item right only sometimes


def test_samples_of_a_model_that_answers_at_random_are_five_different_replies(servers, tmp_path):
    assert _score(servers, "sim:gibberish", tmp_path / "run", "--samples", "5", "--no-cache") == 0
    for recs in _by_item_mode(_records(tmp_path / "run")).values():
        assert len({r["raw_answer"] for r in recs}) == 5


def test_a_resumed_sampled_run_keeps_its_samples_exact(servers, tmp_path):
    url = servers["sim:noisy:0.3"]
    assert _score(servers, "sim:noisy:0.3", tmp_path / "whole", "--samples", "3", "--no-cache") == 0
    out = tmp_path / "cut"
    assert _score(servers, "sim:noisy:0.3", out, "--samples", "3", "--no-cache") == 0
    lines = (out / "items.jsonl").read_text().splitlines()
    (out / "items.jsonl").write_text("\n".join(lines[:10]) + "\n" + lines[10][:30])
    before = _asked(url)
    assert _score(servers, "sim:noisy:0.3", out, "--samples", "3", "--no-cache") == 0
    assert _asked(url) - before == 24 - 10  # only the lost samples are asked again

    def answers(folder):
        return {(r["item_id"], r["mode"], r["sample"]): (r["raw_answer"], r["request_digest"])
                for r in _records(folder)}

    assert answers(out) == answers(tmp_path / "whole") and len(answers(out)) == 24


def test_samples_below_one_and_a_changed_sample_count_are_refused(servers, tmp_path, capsys):
    assert _score(servers, "sim:noisy:0.3", tmp_path / "r", "--samples", "0", "--no-cache") == 2
    assert "--samples must be at least 1, got 0" in capsys.readouterr().err
    assert _score(servers, "sim:noisy:0.3", tmp_path / "r2", "--samples", "2", "--no-cache") == 0
    assert _score(servers, "sim:noisy:0.3", tmp_path / "r2", "--samples", "3", "--no-cache") == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "samples" in err


def _solve(servers, out, *extra):
    return main(["solve", "--method", "naive", "--domain", "blocksworld", "--count", "4", "--seed", "1",
                 "--model", "openai:sim:noisy:0.3", "--base-url", servers["sim:noisy:0.3"], "--out", str(out),
                 "--quiet", *extra])


def test_solve_samples_are_searched_apart_recorded_and_resumed_exactly(servers, tmp_path):
    url = servers["sim:noisy:0.3"]
    before = _asked(url)
    assert _solve(servers, tmp_path / "whole", "--samples", "3", "--no-cache") == 0
    assert _asked(url) - before == 12  # naive: one call per search, 4 instances x 3 samples
    recs = _records(tmp_path / "whole")
    by_id = defaultdict(list)
    for r in recs:
        by_id[r["id"]].append(r)
    assert len(by_id) == 4
    for rs in by_id.values():
        assert sorted(r["sample"] for r in rs) == [0, 1, 2]
        assert len({r["calls"][0]["key"] for r in rs}) == 3 and len({r["item_id"] for r in rs}) == 1
    summary = json.loads((tmp_path / "whole" / "summary.json").read_text())
    sampled = summary["sampled"]
    assert summary["n"] == 12 and sampled["items"] == 4 and sampled["samples"] == 3
    assert sampled["pass@1"] == sampled["mean_accuracy"] == summary["success_rate"]
    assert sampled["pass@3"] >= sampled["pass@1"] >= sampled["pass^3"]

    out = tmp_path / "cut"
    assert _solve(servers, out, "--samples", "3", "--no-cache") == 0
    lines = (out / "items.jsonl").read_text().splitlines()
    (out / "items.jsonl").write_text("\n".join(lines[:7]) + "\n")
    before = _asked(url)
    assert _solve(servers, out, "--samples", "3", "--no-cache") == 0
    assert _asked(url) - before == 5

    def plans(folder):
        return {(r["id"], r["sample"]): (r["plan"], r["solved"]) for r in _records(folder)}

    assert plans(out) == plans(tmp_path / "whole")
