"""The lm-eval export (`subtasks.lmeval`) and frozen item sets (`subtasks.frozen`): items read back
equal, the task folder's YAML, groups and dataset card, and the hooks of its utils.py scoring with
widthbench's readers (the end-to-end runs through lm_eval are tests/e2e/test_lmeval_e2e.py)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from widthbench.subtasks.harness import frozen
from widthbench.subtasks.harness import lmeval
from widthbench.subtasks.items import item_from_json, item_to_json
from widthbench.subtasks.registry import Registry
from widthbench.subtasks.score_run import ScoreConfig, build_all_items
from widthbench.subtasks.scoring import Mode, default_max_tokens, prompts_for

yaml = pytest.importorskip("yaml")


def _config(subtasks, **kw) -> ScoreConfig:
    return ScoreConfig(subtasks=tuple(subtasks), **{"count": 2, **kw})


@pytest.fixture(scope="module")
def exported(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("lmeval") / "tasks"
    lmeval.export_lmeval(_config(Registry.default().paper), folder)
    return folder


def _utils(folder: Path):
    spec = importlib.util.spec_from_file_location(f"utils_{abs(hash(str(folder)))}", folder / "utils.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _rows(folder: Path, sub: str, style: str) -> list[dict]:
    return [json.loads(x) for x in (folder / "data" / sub / f"{style}.jsonl").read_text().splitlines()]


def test_every_subtask_item_reads_back_equal_with_equal_prompts():
    config = _config(Registry.default().names, count=2)
    for sub, items in build_all_items(config).items():
        for item in items:
            back = item_from_json(json.loads(json.dumps(item_to_json(item))), item.task)
            assert back == item, sub
            assert back.info == item.info
            for style in ("pddl", "nl"):
                assert prompts_for(back, Mode(style, False)) == prompts_for(item, Mode(style, False))


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6))
def test_successor_truths_and_states_survive_the_round_trip_for_any_seed(seed):
    config = _config(("successor-mapping", "successor-separate", "plan-verification"), seed=seed, count=1)
    for items in build_all_items(config).values():
        for item in items:
            data = json.loads(json.dumps(item_to_json(item)))
            assert item_from_json(data, item.task) == item


def test_the_folder_holds_a_task_per_subtask_style_and_thinking_mode_and_the_groups(exported):
    meta = json.loads((exported / frozen.EXPORT_FILE).read_text())
    reg = Registry.default()
    assert meta["subtasks"] == list(reg.paper)
    names = {p.stem for p in exported.glob("widthbench_blocksworld_*.yaml")}
    assert "widthbench_blocksworld_successor_mapping_nl_nothink" in names
    assert names == {lmeval.task_name("blocksworld", s, st_, t) for s in reg.paper for st_ in ("pddl", "nl")
                     for t in (False, True)}
    group = yaml.safe_load((exported / "widthbench_blocksworld.yaml").read_text())
    assert sorted(group["task"]) == sorted(names)
    paper = yaml.safe_load((exported / "widthbench_paper.yaml").read_text())
    assert paper["group"] == "widthbench_paper" and sorted(paper["task"]) == sorted(names)


def _task_yaml(folder: Path, name: str) -> dict:
    class Loader(yaml.SafeLoader):
        pass

    Loader.add_constructor("!function", lambda loader, node: ("function", loader.construct_scalar(node)))
    return yaml.load((folder / f"{name}.yaml").read_text(), Loader=Loader)


def test_task_yaml_sends_the_mode_and_max_tokens_as_score_does(exported):
    from widthbench.subtasks.harness.frozen import read_items

    items = read_items(exported)
    for sub in ("action-generation", "successor-separate"):
        for thinking in (False, True):
            cfg = _task_yaml(exported, lmeval.task_name("blocksworld", sub, "nl", thinking))
            kw = cfg["generation_kwargs"]
            assert kw["chat_template_kwargs"] == {"enable_thinking": thinking}
            assert kw["until"] == []
            assert kw["temperature"] == (0.6 if thinking else 0.7)
            want = max(default_max_tokens(i, Mode("nl", thinking)) or (16384 if thinking else 2048)
                       for i in items[sub])
            assert kw["max_gen_toks"] == want
            assert cfg["output_type"] == "generate_until" and cfg["description"] == "system"
            assert cfg["process_results"] == ("function", f"utils.process_results_{'think' if thinking else 'nothink'}")
            metrics = [m["metric"] for m in cfg["metric_list"]]
            assert metrics == lmeval.metric_names(Registry.default().get(sub).metrics)


def test_rows_carry_the_prompts_score_sends(exported):
    items = frozen.read_items(exported)
    for sub in ("successor-separate", "plan-verification"):
        rows = _rows(exported, sub, "pddl")
        want = [(m[0]["content"], m[1]["content"]) for i in items[sub] for m in prompts_for(i, Mode("pddl", False))]
        assert [(r["system"], r["user"]) for r in rows] == want
    assert all(r["per_item"] for r in _rows(exported, "successor-separate", "nl"))
    assert not any(r["per_item"] for r in _rows(exported, "successor-mapping", "nl"))


def test_dataset_card_header_has_license_categories_and_a_config_per_subtask(exported):
    text = (exported / "README.md").read_text()
    assert text.startswith("---\n")
    header = yaml.safe_load(text.split("---\n")[1])
    assert header["license"] == "mit"
    assert "text-generation" in header["task_categories"]
    configs = {c["config_name"]: c["data_files"] for c in header["configs"]}
    assert list(configs) == list(Registry.default().paper)
    for sub, files in configs.items():
        assert {f["split"] for f in files} == {"pddl", "nl"}
        assert all((exported / f["path"]).is_file() for f in files)


def test_utils_process_results_reads_with_both_readers_and_scores_against_the_truth(exported):
    utils = _utils(exported)
    doc = next(r for r in _rows(exported, "action-single", "pddl"))
    truth = json.loads(doc["target"])
    best, other = truth["optimal"][0], next((a for a in truth["applicable"] if a not in truth["optimal"]), None)
    assert utils.process_results_nothink(doc, [f"Answer: {best}"]) == {
        "valid": 1, "optimal": 1, "parse_error": 0, "valid_strict": 1, "optimal_strict": 1, "parse_error_strict": 0}
    assert utils.process_results_think(doc, ["blorp"]) == {
        "valid": 0, "optimal": 0, "parse_error": 1, "valid_strict": 0, "optimal_strict": 0, "parse_error_strict": 1}
    # a reply only the flexible reader reads: the headline counts it, the strict reader does not
    chatty = f"I would do {best} because it helps."
    got = utils.process_results_nothink(doc, [chatty])
    assert (got["optimal"], got["parse_error"], got["optimal_strict"], got["parse_error_strict"]) == (1, 0, 0, 1)
    if other is not None:
        assert utils.process_results_nothink(doc, [f"Answer: {other}"])["optimal"] == 0
    # a reply cut inside the thinking (no content) is a parse error
    assert utils.process_results_think(doc, [None])["parse_error"] == 1


def test_a_multi_request_item_is_scored_per_action_and_combined_per_item(exported):
    utils = _utils(exported)
    items = {i.id: i for i in frozen.read_items(exported)["successor-separate"]}
    rows = [r for r in _rows(exported, "successor-separate", "pddl") if r["parts"] > 1]
    assert rows, "an item with several actions"
    item = items[rows[0]["item_id"]]
    from widthbench.planners import strips
    from widthbench.subtasks import api

    r = api.renderer(item.task, "pddl")
    parts = [row for row in rows if row["item_id"] == item.id]
    good = [utils.process_results_nothink(p, ["Answer:\n" + "\n".join(
        r.atom(a) for a in strips.state_atoms(item.task, item.truth[item.actions[p["part"]]]))]) for p in parts]
    assert all(g["per-action"] == [1, 1] and g["exact"] == [item.id, 1] for g in good)
    bad = utils.process_results_nothink(parts[0], ["blorp"])
    assert bad["exact"] == [item.id, 0] and bad["parse_error"] == [item.id, 1] and bad["per-action"] == [0, 1]
    # one action wrong: the item is not exact, its other actions still count per action
    values = [bad["exact"]] + [g["exact"] for g in good[1:]]
    assert utils.all_per_item(values) == 0.0
    assert utils.ratio([bad["per-action"]] + [g["per-action"] for g in good[1:]]) == (len(parts) - 1) / len(parts)
    assert utils.any_per_item([bad["parse_error"]] + [g["parse_error"] for g in good[1:]]) == 1.0


def test_aggregations_count_items_and_actions_as_score_rows_do():
    assert lmeval.ratio([[1, 2], [3, 4]]) == 4 / 6
    assert lmeval.all_per_item([["a", 1], ["a", 0], ["b", 1], ["c", 1], ["c", 1]]) == 2 / 3
    assert lmeval.any_per_item([["a", 1], ["a", 0], ["b", 0]]) == 1 / 2


def test_the_dataset_loader_gives_one_split_per_style(exported):
    pytest.importorskip("datasets")
    ds = _utils(exported).load_dataset(subtask="plan-verification", version=1.0)
    assert set(ds) == {"pddl", "nl"}
    assert len(ds["nl"]) == 2 and ds["nl"][0]["style"] == "nl"
