"""The cell key and the one aggregation (subtasks/results/cells.py, subtasks/registry.py `add_up`)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from widthbench.subtasks.harness import lmeval
from widthbench.subtasks.registry import COUNTS, PER_ITEM, Metric, add_up, share
from widthbench.subtasks.results.cells import Cell, thinking_of
from widthbench.subtasks.results.comparison import ComparedCell
from widthbench.subtasks.results.rows import tally, verdict

names = st.text(st.characters(blacklist_characters="|", blacklist_categories=("Cs",)), min_size=1, max_size=8)
cells = st.builds(Cell, names, st.sampled_from(["pddl", "nl"]), st.booleans(), st.booleans(), names)


@given(cells)
def test_a_cell_reads_back_from_its_json_from_a_record_and_from_a_row(cell):
    assert Cell.from_json(cell.to_json()) == cell
    record = {"subtask": cell.subtask, "style": cell.style, "thinking": cell.thinking,
              "extension": cell.extension, "domain": cell.domain, "item_id": "x"}
    row = {**cell.to_json(), "metric": "exact"}
    assert Cell.of(record) == Cell.of(row) == cell
    assert cell.column == (cell.style, "on" if cell.thinking else "off")


@given(cells, cells)
def test_two_cells_have_one_text_only_when_they_are_one_cell(a, b):
    assert (a.text == b.text) == (a == b)
    assert (ComparedCell.at(a, "m").text == ComparedCell.at(b, "m").text) == (a == b)


def test_every_spelling_of_a_mode_is_one_value_and_nothing_else_is():
    for on in (True, "on", "thinking", "think"):
        assert thinking_of(on) is True
    for off in (False, "off", "normal", "nothink"):
        assert thinking_of(off) is False
    for bad in ("yes", None, 2, "both", "On"):
        with pytest.raises(ValueError):
            thinking_of(bad)


per_item_values = st.lists(st.sampled_from([0, 1, True, False]), max_size=30)
count_values = st.lists(st.tuples(st.integers(0, 5), st.integers(0, 5)).map(lambda p: [min(p), max(p)]), max_size=30)


@given(count_values)
def test_counts_add_up_the_same_in_rows_and_in_the_lm_eval_export(values):
    metric = Metric("per-action", "x", 1, COUNTS)
    right, n = add_up(metric, values)
    assert (right, n) == (sum(v[0] for v in values), sum(v[1] for v in values))
    assert tally(metric, [{"metrics": {"per-action": v}} for v in values]) == (right, n)
    assert lmeval.ratio(values) == share(right, n)


@given(per_item_values)
def test_a_per_item_metric_counts_items_right_over_items(values):
    metric = Metric("exact", "x", 1, PER_ITEM)
    assert add_up(metric, values) == (sum(bool(v) for v in values), len(values))


@given(st.sampled_from([[2, 2], [1, 2], [0, 0], [0, 3]]), st.booleans())
def test_a_records_verdict_is_its_metric_entirely_right(value, correct):
    metric = Metric("per-action", "x", 1, COUNTS)
    rec = {"subtask": "s", "readings": {"flexible": {"metrics": {"per-action": value}, "correct": correct}}}
    assert verdict(rec, metric, "flexible") == ("correct" if value[1] > 0 and value[0] == value[1] else "wrong")
    assert verdict(rec, None, "flexible") == ("correct" if correct else "wrong")
    assert verdict({**rec, "request_error": "timeout"}, metric, "flexible") == "request-error"
    assert verdict({**rec, "skipped": True}, metric, "flexible") == "skipped"


@pytest.mark.parametrize("extra", [[], ["--samples", "2", "--subtask", "plan-verification"]])
def test_every_summary_row_reads_back_as_a_typed_row_and_writes_the_same_json(tmp_path, extra):
    import json

    from widthbench.cli import main
    from widthbench.subtasks.results.rows import Row, all_rows

    args = ["score", "--count", "2", "--model", "sim:noisy:0.3", "--thinking", "both", "--seed", "3",
            "--quiet", "--no-cache", "--out", str(tmp_path / "run")]
    assert main(args + (extra or ["--subtask", "paper"])) == 0
    rows = all_rows(json.loads((tmp_path / "run" / "summary.json").read_text()))
    assert rows
    for r in rows:
        row = Row.from_json(r)
        assert row.to_json() == r
        assert Row.from_json(row.to_json()) == row
        assert row.cell == Cell.of(r) and (row.correct, row.n) == (r["correct"], r["n"])
    if extra:  # a --samples row's extras: pass@k and its clustered interval, apart from the typed fields
        assert all("pass@2" in Row.from_json(r).extras for r in rows)
