"""The report.html builder without a browser: one self-contained file, the payload it embeds (rows,
records, prompts stored once, solve tables and trees), old and new record shapes, and the CLI."""

from __future__ import annotations

import copy
import json
import re

import pytest

from widthbench.subtasks.registry import Registry

from tests.reports.conftest import records, summary
from widthbench.cli import main
from widthbench.reports import html as report_html
from widthbench.reports import search


def _payload(page: str) -> dict:
    m = re.search(r'<script type="application/json" id="report-data">(.*?)</script>', page, re.S)
    assert m, "no embedded data"
    return json.loads(m.group(1))


def _page(*run_dirs) -> str:
    return report_html.build_html(report_html.load_runs(run_dirs))


def _strip(row: dict) -> dict:
    return {k: v for k, v in row.items() if k not in ("label", "order", "run", "cell", "compare_key")}


def test_page_is_one_self_contained_file_labelled_simulated(runs):
    page = _page(runs["noisy"])
    assert page.startswith("<!DOCTYPE html>")
    title = re.search(r"<title>(.*?)</title>", page).group(1)
    assert "SIMULATED" in title and "sim:noisy:0.3" in title
    # Nothing is fetched: no external scripts, styles, images or fonts.
    assert not re.search(r"<(script|link|img|iframe)[^>]+(src|href)=", page)
    assert "http://" not in page.split('id="report-data"')[0] and "@import" not in page
    assert page.count("<script") == 2  # the data and the app, both inline
    assert "{{" not in page.split('id="report-data"')[0]


def test_payload_holds_every_row_and_record_with_prompts_stored_once(runs):
    data = _payload(_page(runs["noisy"]))
    run = data["runs"][0]
    assert run["kind"] == "score" and run["simulated"] is True and data["simulated"] is True
    s = summary(runs["noisy"])
    # the headline reader's rows, then the strict reader's (summary.json's reader_rows)
    assert [_strip(r) for r in run["rows"]] == s["rows"] + s["reader_rows"]["strict"]
    recs = records(runs["noisy"])
    assert len(run["records"]) == len(recs)
    # Messages point into one string table: the system message (the domain context) is there once.
    strings = data["strings"]
    systems = {m["content"] for r in recs for msgs in (r["prompt"] if isinstance(r["prompt"][0], list) else [r["prompt"]])
               for m in msgs if m["role"] == "system"}
    for text in systems:
        assert strings.count(text) == 1
    assert len(strings) == len(set(strings))
    by_key = {(r["subtask"], r["item_id"], r["style"], "on" if r["thinking"] else "off", r["extension"]): r
              for r in recs}
    for rec in run["records"]:
        orig = by_key[(rec["subtask"], rec["item_id"], rec["style"], rec["thinking"], rec["extension"])]
        prompts = rec["prompt"] if isinstance(rec["prompt"][0][0], list) else [rec["prompt"]]
        want = orig["prompt"] if isinstance(orig["prompt"][0], list) else [orig["prompt"]]
        assert [[{"role": role, "content": strings[i]} for role, i in msgs] for msgs in prompts] == want
        # Each reader's reading as score wrote it: the page merges nothing back.
        assert rec.get("readings") == orig.get("readings")
        # "schema": the file's layout (docs/design.md), not the record's; the page's own fields apart
        skip = ("prompt", "schema", "thinking", "cell", "key", "verdicts")
        assert {k: v for k, v in rec.items() if k not in skip} == {k: v for k, v in orig.items() if k not in skip}
        assert rec["thinking"] == ("on" if orig["thinking"] else "off")
        # what each reader made of it, by each metric, judged here and not by the page
        for reader, by_metric in rec["verdicts"].items():
            got = orig["readings"][reader]
            declared = Registry.default().get(orig["subtask"]).metrics
            assert set(by_metric) == {"", *(m.name for m in declared)}
            for m in declared:
                value = got["metrics"].get(m.name)
                if value is None:
                    want = got["correct"]
                elif m.aggregate == "counts":  # [right, n]: right when every one of n is
                    want = value[1] > 0 and value[0] == value[1]
                else:
                    want = bool(value)
                assert by_metric[m.name] == ("correct" if want else "wrong"), (reader, m.name, value)
            assert by_metric[""] == ("correct" if got["correct"] else "wrong")


def test_rows_get_table1_labels_in_table1_order(runs):
    rows = _payload(_page(runs["noisy"]))["runs"][0]["rows"]
    first = {}
    for r in rows:
        first.setdefault(r["label"], r["order"])
    ordered = [label for label, _ in sorted(first.items(), key=lambda kv: kv[1])]
    assert ordered[0] == "Action Generation"
    assert ordered.index("Goal State Verification") < ordered.index("Novelty Pruning")
    assert ordered.index("Novelty Pruning NDAP") < ordered.index("Action Generation Single Valid + extension (Table 2)")


def test_text_that_looks_like_markup_cannot_end_the_data_script(runs, tmp_path):
    run = report_html.load_run(runs["noisy"])
    run.records[0]["raw_answer"] = "</script><script>alert(1)</script> <!-- x"
    page = report_html.build_html([run])
    assert "</script><script>alert(1)" not in page
    assert _payload(page)["runs"][0]["records"][0]["raw_answer"] == "</script><script>alert(1)</script> <!-- x"


def _one_reader(run: dict) -> dict:
    """Today's record shape before the second reader: no reader keys anywhere."""
    run = copy.deepcopy(run)
    for rec in run.records:
        rec.pop("reader", None)
        rec.pop("readings", None)
    readers = [r.get("reader") for r in run.summary["rows"]]
    rows = [r for r in run.summary["rows"] if r.get("reader") == readers[0]]
    run.summary["rows"] = [{k: v for k, v in r.items() if k != "reader"} for r in rows]
    for key in ("headline_reader", "readers", "reader_rows"):
        run.summary.pop(key, None)
    return run


def _two_readers(run: dict) -> dict:
    """The two-reader shape: a headline reader plus each reader's reading, rows per reader."""
    run = _one_reader(run)
    for rec in run.records:
        strict = {k: rec.get(k) for k in ("parsed", "correct", "metrics", "parse_error")}
        rec["reader"] = "flexible"
        rec["readings"] = {"strict": strict, "flexible": {**strict, "span": [0, 3], "rule": "answer-label"}}
    rows = []
    for row in run.summary["rows"]:
        rows += [{**row, "reader": "flexible"}, {**row, "reader": "strict", "correct": 0, "accuracy": 0.0}]
    rows[0]["thinking_produced"] = False
    run.summary["rows"] = rows
    return run


def test_old_records_have_one_reader_new_ones_name_the_headline(runs):
    old = _one_reader(report_html.load_run(runs["noisy"]))
    data = report_html.payload([old])
    assert data["runs"][0]["headline_reader"] is None
    assert all("reader" not in r for r in data["runs"][0]["rows"])
    new = _two_readers(old)
    data = report_html.payload([new])
    assert data["runs"][0]["headline_reader"] == "flexible"
    assert len(data["runs"][0]["rows"]) == 2 * len(old.summary["rows"])
    new.summary["headline_reader"] = "strict"
    assert report_html.payload([new])["runs"][0]["headline_reader"] == "strict"


def test_unknown_subtasks_get_generic_rows(runs):
    run = report_html.load_run(runs["noisy"])
    row = dict(run.summary["rows"][0], subtask="brand-new-task", metric="valid")
    run.summary["rows"].append(row)
    run.records.append(dict(run.records[0], subtask="brand-new-task", item_id="brand-new-task-0000"))
    rows = report_html.payload([run])["runs"][0]["rows"]
    new = next(r for r in rows if r["subtask"] == "brand-new-task")
    assert new["label"] and "brand" in new["label"].lower()
    assert new["order"] >= max(r["order"] for r in rows if r is not new)


def test_solve_runs_carry_table_3_4_and_every_tree(runs):
    data = _payload(_page(runs["bfs"], runs["mcts"]))
    summaries = search.summaries_of([runs["bfs"], runs["mcts"]])
    header, rows = search.table(summaries)
    tables = data["solve_tables"]
    assert tables["header"] == header and tables["rows"] == rows
    filled = [i for line in tables["cell_runs"] for i in line if i is not None]
    assert sorted(filled) == [0, 1]
    for run, d in zip(data["runs"], (runs["bfs"], runs["mcts"])):
        items = records(d)
        assert run["kind"] == "solve" and len(run["items"]) == len(items)
        assert [it.get("tree") for it in run["items"]] == [it.get("tree") for it in items]
        assert all("ledger" not in it for it in run["items"])
    assert "SIMULATED" in data["title"]


def test_score_and_solve_runs_in_one_page(runs):
    data = _payload(_page(runs["noisy"], runs["bfs"]))
    assert [r["kind"] for r in data["runs"]] == ["score", "solve"]
    assert "score and solve" in data["title"]


def test_cli_report_writes_report_html_beside_table_md(runs, tmp_path, capsys):
    out = tmp_path / "rep"
    assert main(["report", str(runs["noisy"]), str(runs["oracle"]), "--html", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert (out / "table.md").is_file() and (out / "report.html").is_file()
    assert f"wrote {out / 'report.html'}" in printed
    assert len(_payload((out / "report.html").read_text(encoding="utf-8"))["runs"]) == 2
    assert main(["report", str(runs["bfs"]), "--out", str(tmp_path / "srep")]) == 0
    assert (tmp_path / "srep" / "report.html").is_file() and (tmp_path / "srep" / "search_table.md").is_file()


def test_cli_report_user_errors_are_one_line(tmp_path, capsys):
    assert main(["report", str(tmp_path / "nothing"), "--html"]) == 2
    err = capsys.readouterr().err.strip()
    assert "argument RUN: not found" in err and "\n" not in err
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "summary.json").write_text('{"kind": "other"}')
    assert main(["report", str(bad)]) == 2
    assert "unknown summary kind" in capsys.readouterr().err


def test_load_summary_checks_kind(tmp_path):
    from widthbench.core.errors import UserError
    from widthbench.core.runfiles import load_summary

    (tmp_path / "summary.json").write_text('{"kind": "solve", "n": 1}')
    assert load_summary(tmp_path, "solve")["n"] == 1
    with pytest.raises(UserError, match="expected 'score'"):
        load_summary(tmp_path, "score")
    (tmp_path / "summary.json").write_text("{not json")
    with pytest.raises(UserError, match="not valid JSON"):
        load_summary(tmp_path)


def test_search_trees_carry_tokens_per_node_that_add_up(runs):
    for name in ("bfs", "mcts"):
        for item in records(runs[name]):
            tree = item["tree"]
            assert all(isinstance(n["tokens"], int) and sum(n["tokens_by_purpose"].values()) == n["tokens"] for n in tree)
            outside = sum(item.get("tokens_outside_nodes", {}).values())
            assert sum(n["tokens"] for n in tree) + outside == item["tokens"]
            assert tree[0]["tokens"] > 0  # the root's expansion asked the model


def test_a_real_model_run_is_not_labelled_simulated(runs):
    run = report_html.load_run(runs["noisy"])
    run.summary["simulated"] = False
    run.summary["model"] = "openai:some-model"
    for row in run.summary["rows"]:
        row["simulated"] = False
    page = report_html.build_html([run])
    assert "SIMULATED" not in re.search(r"<title>(.*?)</title>", page).group(1)
    assert _payload(page)["simulated"] is False


def test_the_run_comparison_carries_each_cells_significance_as_compare_computes_it(runs, contrast):
    """Every pair of score runs gets, per cell, the p-values and marker of `widthbench compare`
    (same seed, fewer resamples); a score run and a solve run are no pair."""
    from widthbench.reports.compare_tables import cell_key, significant
    from widthbench.subtasks.results.run_outcomes import compare_runs

    loaded = report_html.load_runs([runs["oracle"], runs["noisy"], runs["bfs"]])
    data = report_html.payload(loaded)
    assert list(data["significance"]) == ["0|1"]
    pair = data["significance"]["0|1"]
    rows = [r for r in compare_runs(loaded[0], loaded[1], seed=0, resamples=2000).rows if r.p is not None]
    assert pair["tests"] == len(rows) and pair["common"] > 0
    for r in rows:
        got = pair["cells"][cell_key(r)]
        assert (got["p"], got["p_adjusted"], got["significant"]) == (r.p, r.p_adjusted, significant(r))
    assert "* marks a cell whose difference is significant" in report_html.build_html(loaded[:2])
    plain = report_html.payload(report_html.load_runs([contrast["oracle"], contrast["yes"]]))["significance"]["0|1"]
    marked = {k for k, c in plain["cells"].items() if c["significant"]}
    assert "plan-verification|accuracy|pddl|off|off|blocksworld" in marked


def test_cli_report_states_per_pair_what_differs_and_what_the_items_can_detect(contrast, tmp_path, capsys):
    assert main(["report", str(contrast["oracle"]), str(contrast["yes"]), "--out", str(tmp_path / "r")]) == 0
    lines = [x for x in capsys.readouterr().out.splitlines() if x.startswith("compare ")]
    assert len(lines) == 1
    m = re.search(r": (\d+) of (\d+) cells differ significantly \(Holm\), 30 items in common; "
                  r"detectable at 80% power: ±([\d.]+) to ±([\d.]+) points", lines[0])
    assert m and int(m.group(1)) >= 4 and int(m.group(2)) == 8  # 4 modes: accuracy and tokens
    assert 0 < float(m.group(3)) <= float(m.group(4)) <= 100
