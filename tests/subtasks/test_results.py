"""The results model: metrics aggregate as their sub-task declares them, never by their name; the
summary rows, the lm-eval aggregation and the difficulty curves all follow the declaration."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from widthbench.subtasks import answers
from widthbench.subtasks.harness import lmeval
from widthbench.subtasks.results.difficulty import headline_metric
from widthbench.subtasks.registry import COUNTS, PER_ITEM, Metric, Registry, SubTask
from widthbench.subtasks.results.rows import cell_stats, summarise, tally


def _never(*_args, **_kwargs):
    raise AssertionError("not called by the summary")


def _toy(metrics) -> Registry:
    """A registry of one sub-task whose metric names lie about how they add up."""
    return Registry([SubTask(name="toy", build=_never, prompts=_never, answer=answers.INTEGER, score=_never,
                             metrics=metrics)])


# "per-action" counted per item, "accuracy" counting [right, n] pairs: the names say the opposite
LYING = (Metric("per-action", "Toy per item", 1, PER_ITEM), Metric("accuracy", "Toy counts", 2, COUNTS))


def _record(i: int, flag: int, pair: tuple[int, int], error: bool) -> dict:
    return {"subtask": "toy", "item_id": f"toy-{i:04d}", "style": "pddl", "thinking": False, "extension": False,
            "domain": "blocksworld", "reader": "strict", "request_error": "boom" if error else None,
            "metrics": {"per-action": flag, "accuracy": list(pair)}, "parse_error": None,
            "tokens": {"prompt": 10, "completion": 2, "thinking": 0}}


pairs = st.tuples(st.integers(0, 5), st.integers(0, 5)).map(lambda p: (min(p), max(p)))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 1), pairs, st.booleans()), min_size=1, max_size=12))
def test_rows_add_up_as_each_metric_declares(values):
    records = [_record(i, f, p, e) for i, (f, p, e) in enumerate(values)]
    rows = summarise(records, model_spec="sim:oracle", simulated=True, registry=_toy(LYING))["rows"]
    by_metric = {r["metric"]: r for r in rows}
    answered = [(f, p) for f, p, e in values if not e]
    per_item = by_metric["per-action"]
    assert (per_item["correct"], per_item["n"]) == (sum(f for f, _ in answered), len(answered))
    assert per_item["aggregate"] == PER_ITEM
    counts = by_metric["accuracy"]
    assert (counts["correct"], counts["n"]) == (sum(p[0] for _, p in answered), sum(p[1] for _, p in answered))
    assert counts["aggregate"] == COUNTS
    for row in rows:
        assert row["request_errors"] == sum(e for *_, e in values)
        assert {k: row[k] for k in ("n", "correct", "accuracy", "ci_low", "ci_high")} == \
            cell_stats(row["correct"], row["n"])


@given(st.lists(pairs, max_size=10))
def test_metric_count_and_right(values):
    m = Metric("x", "X", 1, COUNTS)
    recs = [{"metrics": {"x": list(p)}} for p in values]
    assert tally(m, recs) == (sum(p[0] for p in values), sum(p[1] for p in values))
    assert [m.right(list(p)) for p in values] == [p[1] > 0 and p[0] == p[1] for p in values]
    assert Metric("y", "Y", 1).count(None) == (0, 1)  # a missing 0/1 value is a wrong item


def test_labels_come_from_the_metric_declarations():
    reg = _toy(LYING + (Metric("ext", "Toy", 3, extension_label="Toy + extension", extension_order=0),))
    assert reg.label({"subtask": "toy", "metric": "accuracy"}) == "Toy counts"
    assert reg.label({"subtask": "toy", "metric": "ext", "extension": True}) == "Toy + extension"
    assert reg.label_order({"subtask": "toy", "metric": "ext", "extension": True})[0] == 0
    with pytest.raises(ValueError, match="aggregate"):
        Metric("z", "Z", 1, "median")
    with pytest.raises(ValueError, match="Metric values"):
        SubTask(name="bad", build=_never, prompts=_never, answer=answers.INTEGER, score=_never, metrics=("exact",))


def test_lmeval_and_difficulty_follow_the_declaration_not_the_name():
    yaml = lmeval.task_yaml("t", "toy", "pddl", False, LYING, False, 64)
    blocks = dict(zip(*[iter(line.strip() for line in yaml.splitlines()
                             if line.strip().startswith(("- metric:", "aggregation:")))] * 2))
    assert blocks['- metric: "accuracy"'] == "aggregation: !function utils.ratio"
    assert blocks['- metric: "per-action"'] == "aggregation: mean"
    assert blocks['- metric: "parse_error"'] == "aggregation: mean"
    # the difficulty curves plot the first metric counted per item, whatever it is called
    reg_default = Registry.default()
    assert headline_metric("successor-mapping", []).name == "exact"
    assert reg_default.get("successor-mapping").metric("per-action").aggregate == COUNTS
    unknown = [{"subtask": "new", "metrics": {"pairs": [1, 2], "flag": 1}}]
    assert headline_metric("new", unknown).name == "flag"


def test_every_builtin_metric_is_declared_once_per_subtask():
    for record in Registry.default():
        names = record.metric_names
        assert len(set(names)) == len(names) and record.metrics[0].label
        assert all(m.aggregate in (PER_ITEM, COUNTS) for m in record.metrics)
