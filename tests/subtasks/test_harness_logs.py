"""Harness logs and frozen item sets read back never drop a line in silence (issue 39): a damaged line
in the middle of a JSON-lines file they read (an lm-eval log's samples, an export folder's item
rows that an inspect log and `score --items` read) is one line naming the file and the line, exit 2.
Before, `read_jsonl` skipped it: the lm-eval import judged one item fewer without a word, and a
frozen set was refused only as "the items differ from those exported", naming neither file nor line. The logs here are made without a server: lm-eval's samples file is
written as lm-eval writes it, inspect's log by inspect's mock model. A log read back names its items
by the stable item ids the exports carry as sample ids, so `compare` aligns it with a native run
item by item (issue 43)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from widthbench.cli import main

EXPORT = ["--subtask", "plan-verification", "--style", "pddl", "--thinking", "off", "--count", "3", "--seed", "0"]
TASK = "widthbench_blocksworld_plan_verification_pddl_nothink"


def _damage(path: Path, line: int) -> None:
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    assert len(lines) > line
    lines[line - 1] = lines[line - 1][:40] + "\n"
    path.write_text("".join(lines), encoding="utf-8")


def _one_error(capsys, where: str) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"{where}: not JSON" in err[0] and "Traceback" not in err[0], err
    assert len(err[0]) <= 300
    return err[0]


def _export(kind: str, folder: Path) -> Path:
    assert main(["export", kind, *EXPORT, "--out", str(folder)]) == 0
    return folder


def _lm_eval_log(export: Path, logs: Path) -> Path:
    """An lm-eval --log_samples folder as lm-eval writes it: results_<time>.json naming the export
    folder, and one sample per exported row, each answered "yes"."""
    model = logs / "m"
    model.mkdir(parents=True)
    stamp = "2026-01-01T00-00-00.000000"
    (model / f"results_{stamp}.json").write_text(json.dumps({
        "config": {"model_args": "model=m,base_url=http://x"},
        "configs": {TASK: {"custom_dataset": f"functools.partial(<function load_dataset>, PosixPath('{export}'))"}}}))
    rows = [json.loads(x) for x in (export / "data" / "plan-verification" / "pddl.jsonl").read_text().splitlines()]
    samples = [{"doc": row, "resps": [["Answer: yes"]], "filtered_resps": ["Answer: yes"],
                "arguments": {"gen_args_0": {"arg_0": json.dumps([{"role": "system", "content": row["system"]},
                                                                  {"role": "user", "content": row["user"]}]),
                                             "arg_1": {"max_gen_toks": 512}}}} for row in rows]
    (model / f"samples_{TASK}_{stamp}.jsonl").write_text("".join(json.dumps(s) + "\n" for s in samples))
    return model / f"samples_{TASK}_{stamp}.jsonl"


def test_a_damaged_line_of_an_lm_eval_log_is_one_line_naming_it(tmp_path, capsys):
    export = _export("lm-eval", tmp_path / "tasks")
    samples = _lm_eval_log(export, tmp_path / "logs")
    capsys.readouterr()
    assert main(["report", str(tmp_path / "logs")]) == 0  # the whole log imports, and agrees with itself
    assert capsys.readouterr().err == ""
    assert len((tmp_path / "logs.widthbench" / "items.jsonl").read_text().splitlines()) == 3
    _damage(samples, 2)
    assert main(["report", str(tmp_path / "logs")]) == 2
    _one_error(capsys, f"{samples}:2")


def test_a_damaged_item_row_of_a_frozen_set_is_one_line_for_score_items(tmp_path, capsys):
    export = _export("lm-eval", tmp_path / "tasks")
    rows = export / "data" / "plan-verification" / "pddl.jsonl"
    _damage(rows, 2)
    capsys.readouterr()
    assert main(["score", "--items", str(export), "--subtask", "plan-verification", "--style", "pddl",
                 "--thinking", "off", "--model", "sim:oracle", "--out", str(tmp_path / "run"), "--quiet"]) == 2
    _one_error(capsys, f"{rows}:2")
    assert not (tmp_path / "run" / "items.jsonl").exists()


def test_a_damaged_item_row_behind_an_inspect_log_is_one_line_naming_it(tmp_path, capsys):
    inspect_ai = pytest.importorskip("inspect_ai", reason="inspect-ai is not installed (pip install -e '.[inspect]')")
    from inspect_ai.model import ModelOutput, ModelUsage

    from widthbench.subtasks.harness import inspect_tasks

    def reply(messages, tools, tool_choice, config):
        out = ModelOutput.from_content(model="mockllm", content="Answer: yes")
        out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        return out

    export = _export("inspect", tmp_path / "tasks")
    task = inspect_tasks.frozen_task(export, "plan-verification", "pddl", False)
    (log,) = inspect_ai.eval(task, model="mockllm/model", model_args={"custom_outputs": reply},
                             log_dir=str(tmp_path / "logs"), display="none")
    assert log.status == "success"
    capsys.readouterr()
    assert main(["report", str(tmp_path / "logs")]) == 0
    assert capsys.readouterr().err == ""
    rows = export / "data" / "plan-verification" / "pddl.jsonl"
    _damage(rows, 2)
    assert main(["report", str(tmp_path / "logs")]) == 2
    _one_error(capsys, f"{rows}:2")


def _native(tmp_path: Path) -> tuple[Path, set]:
    """The exported items scored natively (built again from the same settings, not read from the export)."""
    out = tmp_path / "native"
    assert main(["score", *EXPORT, "--model", "sim:oracle", "--no-cache", "--out", str(out), "--quiet"]) == 0
    ids = {json.loads(x)["item_id"] for x in (out / "items.jsonl").read_text().splitlines()}
    assert len(ids) == 3
    return out, ids


def _compared(capsys, native: Path, log: Path, out: Path) -> dict:
    capsys.readouterr()
    assert main(["compare", str(native), str(log), "--out", str(out)]) == 0
    (row,) = [r for r in (out / "compare.csv").read_text().splitlines()[1:] if ",accuracy," in r]
    assert "3 items in common (3 answered in A, 3 in B)" in (out / "compare.md").read_text()
    return dict(zip((out / "compare.csv").read_text().splitlines()[0].split(","), row.split(",")))


def test_a_native_run_and_its_lm_eval_log_read_back_align_every_item_by_id(tmp_path, capsys):
    export = _export("lm-eval", tmp_path / "tasks")
    native, ids = _native(tmp_path)
    rows = [json.loads(x) for x in (export / "data" / "plan-verification" / "pddl.jsonl").read_text().splitlines()]
    assert {r["id"] for r in rows} == {r["item_id"] for r in rows} == ids  # the export's sample ids
    _lm_eval_log(export, tmp_path / "logs")
    row = _compared(capsys, native, tmp_path / "logs", tmp_path / "cmp")
    assert row["n"] == "3" and row["a"] == "3"  # the oracle is right on all three; the log said "yes" to each


def test_a_native_run_and_its_inspect_log_read_back_align_every_item_by_id(tmp_path, capsys):
    inspect_ai = pytest.importorskip("inspect_ai", reason="inspect-ai is not installed (pip install -e '.[inspect]')")
    from inspect_ai.model import ModelOutput, ModelUsage

    from widthbench.subtasks.harness import inspect_tasks

    def reply(messages, tools, tool_choice, config):
        out = ModelOutput.from_content(model="mockllm", content="Answer: yes")
        out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        return out

    export = _export("inspect", tmp_path / "tasks")
    native, ids = _native(tmp_path)
    task = inspect_tasks.frozen_task(export, "plan-verification", "pddl", False)
    (log,) = inspect_ai.eval(task, model="mockllm/model", model_args={"custom_outputs": reply},
                             log_dir=str(tmp_path / "logs"), display="none")
    assert {s.id for s in inspect_ai.log.read_eval_log(log.location).samples} == ids  # the sample ids
    row = _compared(capsys, native, tmp_path / "logs", tmp_path / "cmp")
    assert row["n"] == "3" and row["a"] == "3"
