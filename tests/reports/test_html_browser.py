"""report.html in a real browser: headless Chromium (Debian's chromium + chromium-driver, installed by
.ci/run) through selenium. Through the DOM: the grid's numbers equal summary.json, a click on a cell
shows exactly its items, a filter and a search work, two runs compare, search trees render, and the
browser logs no console errors. Screenshots go to the test's tmp dir (and, with
WIDTHBENCH_DOCS_SCREENSHOT=1, to docs/figures/report.png)."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest

from tests.conftest import missing_part
from tests.reports.conftest import records, summary
from widthbench.reports.html import write_html

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
         "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
         "--window-size=1400,1000"]
DOCS_PNG = Path(__file__).resolve().parents[2] / "docs" / "figures" / "report.png"


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        missing_part("selenium is not installed (pip install -e '.[test]')")
    if not CHROMIUM.exists() or not CHROMEDRIVER.exists():
        missing_part(f"no {CHROMIUM} / {CHROMEDRIVER}: install Debian's chromium and chromium-driver "
                    "(.ci/run does when apt-get is available)")
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    driver.set_page_load_timeout(120)
    yield driver
    driver.quit()


def _open(driver, page: Path) -> float:
    driver.get(page.resolve().as_uri())
    for _ in range(1200):  # generous: CI machines are 2 busy cores
        ready = driver.execute_script("return window.__widthbenchReportReady || null")
        if ready is not None:
            return ready
        time.sleep(0.05)
    raise AssertionError(f"the app did not finish rendering; console: {driver.get_log('browser')}")


def _wait(found, what: str):
    """Poll ``found()`` until it returns something truthy (a <details> builds its body on its
    toggle event, which fires after the click returns; a search redraws the list after a typing
    pause, so elements read meanwhile may go stale). Up to 30 s: 2 busy cores are slow."""
    from selenium.common.exceptions import StaleElementReferenceException

    for _ in range(600):
        try:
            got = found()
        except StaleElementReferenceException:
            got = None
        if got:
            return got
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def _errors(driver) -> list:
    return [e for e in driver.get_log("browser") if e.get("level") == "SEVERE"]


def _css(driver, selector):
    from selenium.webdriver.common.by import By

    return driver.find_elements(By.CSS_SELECTOR, selector)


def _tab(driver, name: str) -> None:
    [button] = [b for b in _css(driver, "nav#tabs button") if b.get_attribute("data-tab") == name]
    button.click()


def _rec_key(r: dict) -> str:
    return "|".join([r["subtask"], r["item_id"], r["style"], "on" if r["thinking"] else "off",
                     "true" if r["extension"] else "false", str(r.get("sample", 0))])


def _cell_records(recs: list[dict], row: dict) -> list[dict]:
    return [r for r in recs if r["subtask"] == row["subtask"] and r["style"] == row["style"]
            and ("on" if r["thinking"] else "off") == row["thinking"] and bool(r["extension"]) == bool(row["extension"])
            and r["domain"] == row["domain"] and r["model"] == row["model"]]


@pytest.fixture(scope="module")
def score_page(runs, tmp_path_factory):
    return write_html([runs["noisy"]], tmp_path_factory.mktemp("page-score"))


def test_grid_numbers_equal_summary_json(browser, score_page, runs, tmp_path):
    _open(browser, score_page)
    assert "SIMULATED" in browser.title
    rows = summary(runs["noisy"])["rows"]
    recs = records(runs["noisy"])
    headline = summary(runs["noisy"]).get("headline_reader")
    cells = _css(browser, "td.cell")
    want = [r for r in rows if r.get("reader", headline) == headline]
    assert len(cells) == len(want) > 20
    seen = set()
    for td in cells:
        row = rows[int(td.get_attribute("data-row"))]
        kn = td.find_element("css selector", ".kn")
        assert kn.text == f"{row['correct']}/{row['n']}"
        assert td.get_attribute("data-col") == f"{row['style']}/{row['thinking']}"
        if row["n"]:
            assert f"{100 * row['accuracy']:.0f}%" in td.text
        strict = [r for r in rows if r.get("reader") == "strict" and r["subtask"] == row["subtask"]
                  and r["metric"] == row["metric"] and r["style"] == row["style"] and r["thinking"] == row["thinking"]
                  and r["extension"] == row["extension"]]
        if headline and headline != "strict":
            if strict:
                k, n = strict[0]["correct"], strict[0]["n"]
            else:  # no strict rows in the summary: the page counts the items' strict readings
                mine = [r for r in _cell_records(recs, row) if not r.get("request_error") and not r.get("skipped")]
                got = [r["readings"]["strict"]["metrics"].get(row["metric"], 0) for r in mine]
                k = sum(g[0] if isinstance(g, list) else int(bool(g)) for g in got)
                n = sum(g[1] if isinstance(g, list) else 1 for g in got)
            assert td.find_element("css selector", ".second").text.startswith(f"strict {k}/{n}")
        seen.add(int(td.get_attribute("data-row")))
    assert seen == {rows.index(r) for r in want}
    for table in _css(browser, "table.grid caption"):
        assert "SIMULATED" in table.text
    browser.save_screenshot(str(tmp_path / "grid.png"))
    assert not _errors(browser)


def test_clicking_a_cell_shows_exactly_its_items_and_filters_and_search_work(browser, score_page, runs, tmp_path):
    from selenium.webdriver.common.by import By

    _open(browser, score_page)
    rows = summary(runs["noisy"])["rows"]
    recs = records(runs["noisy"])
    # A cell with both right and wrong answers.
    cells = [td for td in _css(browser, "td.cell")
             if 0 < rows[int(td.get_attribute("data-row"))]["correct"] < rows[int(td.get_attribute("data-row"))]["n"]
             and rows[int(td.get_attribute("data-row"))]["metric"] != "per-action"]
    assert cells, "the noisy run should have mixed cells"
    td = cells[0]
    row = rows[int(td.get_attribute("data-row"))]
    td.click()
    shown = _css(browser, "#items-list details.item")
    mine = _cell_records(recs, row)
    assert sorted(d.get_attribute("data-key") for d in shown) == sorted(_rec_key(r) for r in mine)
    assert sum(d.get_attribute("data-verdict") == "correct" for d in shown) == row["correct"]

    # Filter: wrong answers only.
    browser.find_element(By.CSS_SELECTOR, "input[name=filter][value=wrong]").click()
    wrong = _css(browser, "#items-list details.item")
    assert len(wrong) == row["n"] - row["correct"] and all(d.get_attribute("data-verdict") == "wrong" for d in wrong)
    browser.find_element(By.CSS_SELECTOR, "input[name=filter][value=all]").click()

    # Search: one item id leaves that item only.
    target = mine[0]["item_id"]
    box = browser.find_element(By.ID, "search")
    box.send_keys(target)
    def searched():
        d = _css(browser, "#items-list details.item")
        count = browser.find_element(By.ID, "items-count").get_attribute("data-shown")
        keys_ok = d and all(x.get_attribute("data-key").split("|")[1] == target for x in d)
        return d if keys_ok and count == str(len(d)) else None

    found = _wait(searched, "the search to apply")

    # An item opens: prompt (collapsed), raw answer, what was read, truth, diff.
    found[0].find_element(By.TAG_NAME, "summary").click()
    body = _wait(lambda: found[0].find_elements(By.CSS_SELECTOR, ".body"), "the item's body")[0]
    assert body.find_element(By.CSS_SELECTOR, "details.prompt").get_attribute("open") is None
    assert body.find_element(By.CSS_SELECTOR, "pre.raw").text.strip()
    assert "What was read" in body.text and "Truth" in body.text and "Diff" in body.text
    browser.save_screenshot(str(tmp_path / "items.png"))
    assert not _errors(browser)


def test_two_runs_side_by_side_list_the_items_that_changed_verdict(browser, runs, tmp_path):
    page = write_html([runs["oracle"], runs["noisy"]], tmp_path)
    _open(browser, page)
    assert len(_css(browser, "table.grid")) == 2
    _tab(browser, "compare")
    a = {_rec_key(r): r for r in records(runs["oracle"])}
    b = {_rec_key(r): r for r in records(runs["noisy"])}
    changed = sum(1 for k in a if k in b and bool(a[k]["correct"]) != bool(b[k]["correct"]))
    assert changed > 0
    cells = [td for td in _css(browser, "#view-compare td.cell") if int(td.get_attribute("data-changed")) > 0]
    assert cells
    cells[0].click()
    shown = _css(browser, "#view-compare #items-list details.item")
    assert len(shown) == 2 * int(cells[0].get_attribute("data-changed"))
    assert {d.get_attribute("data-verdict") for d in shown} <= {"correct", "wrong"}
    assert not _errors(browser)


def test_the_cells_whose_difference_is_significant_are_marked(browser, contrast, tmp_path):
    page = write_html([contrast["oracle"], contrast["yes"]], tmp_path)
    _open(browser, page)
    _tab(browser, "compare")
    cells = _css(browser, "#view-compare td.cell")
    marked = [td for td in cells if td.get_attribute("data-significant") == "yes"]
    # each mode's cell: 30/30 against about 15/30, exact McNemar p < 0.001 before and after Holm
    assert len(cells) == 4 and marked == cells
    assert all(" *" in td.text and "p (Holm)" in td.get_attribute("title") for td in marked)
    assert all("detectable at 80% power" in td.get_attribute("title") for td in marked)
    assert all("with 80% power: " in td.get_attribute("title") and "(score --count)" in td.get_attribute("title")
               for td in marked)
    assert "detect with 80% power" in _css(browser, "#view-compare p.sig-note")[0].text
    assert not _errors(browser)


def test_a_cell_of_a_sampled_run_lists_every_sample(browser, tmp_path):
    from widthbench.cli import main

    run = tmp_path / "sampled"
    assert main(["score", "--model", "sim:noisy:0.3", "--subtask", "plan-verification", "--count", "3",
                 "--style", "pddl", "--thinking", "off", "--samples", "4", "--no-cache", "--quiet",
                 "--out", str(run)]) == 0
    _open(browser, write_html([run], tmp_path))
    (row,) = summary(run)["rows"]
    (td,) = _css(browser, "td.cell")
    td.click()
    shown = _css(browser, "#items-list details.item")
    assert len(shown) == 12 == row["n"]  # 3 items x 4 samples, none hidden behind another
    assert sorted(d.get_attribute("data-key") for d in shown) == sorted(_rec_key(r) for r in records(run))
    assert not _errors(browser)


def test_search_runs_show_table_3_4_and_the_trees(browser, runs, tmp_path):
    from selenium.webdriver.common.by import By

    page = write_html([runs["bfs"], runs["mcts"]], tmp_path)
    _open(browser, page)
    assert "SIMULATED" in browser.title
    table = browser.find_element(By.CSS_SELECTOR, "table.search-table")
    assert "SIMULATED" in table.find_element(By.TAG_NAME, "caption").text
    s = summary(runs["bfs"])
    assert f"{s['solved']}/{s['n']}" in table.text
    assert len(_css(browser, "svg.fig2 circle, svg.fig2 rect, svg.fig2 path")) == 2
    _css(browser, "table.runs-table tr.clickable")[0].click()
    cards = _css(browser, "section.instances details.item")
    items = records(runs["bfs"])
    assert len(cards) == len(items)
    cards[0].find_element(By.TAG_NAME, "summary").click()
    nodes = _wait(lambda: cards[0].find_elements(By.CSS_SELECTOR, ".node-line"), "the search tree")
    assert len(nodes) == len(items[0]["tree"])
    assert [n.get_attribute("data-status") for n in nodes] == [n["status"] for n in sorted(items[0]["tree"], key=lambda n: n["id"])] \
        or sorted(n.get_attribute("data-status") for n in nodes) == sorted(n["status"] for n in items[0]["tree"])
    # Tokens per node, as recorded in the tree.
    tree = {n["id"]: n for n in items[0]["tree"]}
    for line in nodes:
        node = tree[int(line.get_attribute("data-node"))]
        assert "tok" in line.text and line.get_attribute("data-status") == node["status"]
    assert "Plan and validation" in cards[0].text
    browser.save_screenshot(str(tmp_path / "search.png"))
    assert not _errors(browser)


def test_screenshot_of_a_noisy_run(browser, score_page, tmp_path):
    """The picture in docs/report.md: written there with WIDTHBENCH_DOCS_SCREENSHOT=1, of the run
    folder WIDTHBENCH_DOCS_RUN when set (docs/report.md names the run)."""
    from selenium.webdriver.common.by import By

    docs_run = os.environ.get("WIDTHBENCH_DOCS_RUN")
    page = write_html([docs_run], tmp_path) if docs_run else score_page
    browser.set_window_size(1400, 1900)
    _open(browser, page)
    cells = _css(browser, "td.cell")
    [c for c in cells if c.get_attribute("data-label") == "Action Generation"][0].click()
    browser.find_element(By.CSS_SELECTOR, "input[name=filter][value=wrong]").click()
    first = _css(browser, "#items-list details.item")
    if first:
        first[0].find_element(By.TAG_NAME, "summary").click()
    browser.execute_script("window.scrollTo(0, 0)")
    shot = tmp_path / "report.png"
    assert browser.save_screenshot(str(shot)) and shot.stat().st_size > 10_000
    browser.set_window_size(1400, 1000)
    if os.environ.get("WIDTHBENCH_DOCS_SCREENSHOT") == "1":
        DOCS_PNG.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(shot, DOCS_PNG)
    assert not _errors(browser)


@pytest.mark.slow
def test_full_paper_grid_page_is_small_and_quick(browser, tmp_path):
    """Issue 15's scale: the paper grid (1,600 item-modes with prompts) under 20 MB, opening and
    filtering without a wait. Prints the numbers (docs/report.md quotes them)."""
    from tests.reports.conftest import score_run

    run = score_run(tmp_path / "paper", "sim:oracle", count=50)
    assert len(records(run)) == 1600
    page = write_html([run], tmp_path)
    size = page.stat().st_size
    ready = _open(browser, page)
    click = browser.execute_script(
        "const t = performance.now(); document.querySelector('td.cell').click(); return performance.now() - t")
    _tab(browser, "items")
    filt = browser.execute_script(
        "const t = performance.now(); document.querySelector('#view-items input[name=filter][value=wrong]').click();"
        "return performance.now() - t")
    print(f"paper grid: {size / 1e6:.1f} MB, app ready {ready:.0f} ms after navigation, "
          f"cell click {click:.0f} ms, filter over 1600 {filt:.0f} ms")
    assert size < 20e6 and ready < 5000 and click < 1000 and filt < 1000
    assert not _errors(browser)


def test_one_reader_records_and_thinking_none_produced(browser, runs, tmp_path):
    """Today's shape before the second reader (no reader keys) renders the same grid; a cell whose
    row says thinking was requested but none produced is labelled so."""
    import json

    run = tmp_path / "one-reader"
    run.mkdir()
    s = summary(runs["noisy"])
    first = s["rows"][0].get("reader")
    rows = [{k: v for k, v in r.items() if k != "reader"} for r in s["rows"] if r.get("reader") == first]
    marked = next(i for i, r in enumerate(rows) if r["thinking"] == "on")
    rows[marked]["thinking_produced"] = False
    s = {k: v for k, v in s.items() if k not in ("headline_reader", "readers")} | {"rows": rows}
    (run / "summary.json").write_text(json.dumps(s), encoding="utf-8")
    with open(run / "items.jsonl", "w", encoding="utf-8") as f:
        for r in records(runs["noisy"]):
            f.write(json.dumps({k: v for k, v in r.items() if k not in ("reader", "readings")}) + "\n")
    _open(browser, write_html([run], tmp_path))
    cells = _css(browser, "td.cell")
    assert len(cells) == len(rows)
    assert not _css(browser, "td.cell .second")  # one reader: no strict line
    for td in cells:
        row = rows[int(td.get_attribute("data-row"))]
        assert td.find_element("css selector", ".kn").text == f"{row['correct']}/{row['n']}"
        assert ("thinking requested, none produced" in td.text) == (row is rows[marked])
    assert not _errors(browser)


def _as_real_model(run: Path, dest: Path) -> Path:
    """A copy of a run with the simulated flags off, as a real model's run writes them."""
    import json

    shutil.copytree(run, dest)
    s = json.loads((dest / "summary.json").read_text())
    s["simulated"], s["model"] = False, "openai:a-real-model"
    for rows in [s["rows"], *s.get("reader_rows", {}).values()]:
        for r in rows:
            r["simulated"], r["model"] = False, "openai:a-real-model"
    (dest / "summary.json").write_text(json.dumps(s))
    lines = [json.loads(x) for x in (dest / "items.jsonl").read_text().splitlines() if x.strip()]
    for rec in lines:
        rec["simulated"], rec["model"] = False, "openai:a-real-model"
    (dest / "items.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    return dest


def test_a_real_models_run_renders_without_errors_and_is_not_labelled_simulated(browser, runs, tmp_path):
    # Every view once drew its SIMULATED banner with appendChild(null) when there was none.
    real = _as_real_model(runs["noisy"], tmp_path / "real")
    page = write_html([real], tmp_path)
    _open(browser, page)
    assert "SIMULATED" not in browser.title and "a-real-model" in browser.title
    cells = _css(browser, "td.cell")
    assert cells
    cells[0].click()
    _wait(lambda: _css(browser, "#items-list details.item"), "the cell's items")
    assert not _css(browser, ".sim-badge")
    assert not _errors(browser)


def test_sub_tasks_left_out_of_a_run_are_shown_with_their_reason(browser, runs, tmp_path):
    import json

    run = tmp_path / "run"
    shutil.copytree(runs["noisy"], run)
    data = json.loads((run / "summary.json").read_text())
    data["not_built"] = {"novelty-hard": "novelty-hard: 0 of 3 items from 3 instances: <b>too few</b>"}
    (run / "summary.json").write_text(json.dumps(data))
    _open(browser, write_html([run], tmp_path / "page"))
    notes = [p.text for p in _css(browser, "p.not-built")]
    assert notes == ["Not built: novelty-hard: 0 of 3 items from 3 instances: <b>too few</b>"]  # the name once
    assert not _errors(browser)


def test_a_cell_shows_its_unread_answers_by_reason(browser, runs, tmp_path):
    import json
    import shutil as sh

    run = tmp_path / "unread-run"
    sh.copytree(runs["noisy"], run)
    recs = records(run)
    target = next(r for r in recs if not r.get("request_error") and not r.get("skipped"))
    cell = [r for r in recs if (r["subtask"], r["style"], r["thinking"], r["extension"]) ==
            (target["subtask"], target["style"], target["thinking"], target["extension"])][:2]
    for i, r in enumerate(cell):  # two answers of one cell made unread, for two reasons
        r.update(parsed=None, correct=False, parse_error=["cannot read the step 'put it down': it reads as no action",
                                                          "two different plans in one reply: (a) / (b)"][i])
    (run / "items.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs), encoding="utf-8")
    page = write_html([run], tmp_path / "page-unread")
    _open(browser, page)
    rows = summary(run)["rows"]
    want = (target["subtask"], target["style"], "on" if target["thinking"] else "off", bool(target["extension"]))
    td = next(td for td in _css(browser, "td.cell") if (lambda row: (row["subtask"], row["style"], row["thinking"],
                                                                       bool(row["extension"])) == want)(
        rows[int(td.get_attribute("data-row"))]))
    td.click()
    panel = _wait(lambda: _css(browser, "#unread-panel"), "the unread panel")[0]
    assert f"Unread answers: {len(cell)}," in panel.text
    reasons = [tr.find_elements("css selector", "td")[0].text for tr in panel.find_elements("css selector", "tr")[1:]]
    assert len(reasons) == len(cell) and "cannot read the step '…': it reads as no action" in reasons
    assert not _errors(browser)


def test_two_runs_differing_in_seed_each_show_their_numbers_under_their_label(browser, tmp_path):
    """Two score runs differing only in --seed: two grids, each captioned by its run's label
    ("seed 1", "seed 2"), each cell the k/n of its own run's summary row; two solve runs differing
    only in --model: a Table 3/4 row each, the Run column naming the model."""
    from tests.reports.test_multi_run import _score, _solve
    from widthbench.subtasks.results.loader import load_runs

    s1 = _score(tmp_path / "s1", "--count", "12", "--seed", "1")
    s2 = _score(tmp_path / "s2", "--count", "12", "--seed", "2")
    a = _solve(tmp_path / "a")
    b = _solve(tmp_path / "b", "--model", "sim:oracle")
    page = write_html(load_runs([s1, s2, a, b]), tmp_path / "page")
    _open(browser, page)
    grids = _css(browser, "table.grid")
    assert len(grids) == 2
    for grid, run, label in zip(grids, (s1, s2), ("seed 1", "seed 2")):
        assert f"run {label}:" in grid.find_element("css selector", "caption").text
        rows = summary(run)["rows"]
        cells = grid.find_elements("css selector", "td.cell")
        assert cells and len(cells) == len(rows)
        for td in cells:
            row = rows[int(td.get_attribute("data-row"))]
            assert td.find_element("css selector", ".kn").text == f"{row['correct']}/{row['n']}"
    _tab(browser, "search")
    table = _css(browser, "table.search-table")[0]
    lines = [tr.text for tr in table.find_elements("css selector", "tr")[1:]]
    for run, model in ((a, "sim:noisy:0.2"), (b, "sim:oracle")):
        s = summary(run)
        assert any(line.startswith(f"model {model}") and f"{s['solved']}/{s['n']}" in line for line in lines), lines
    browser.save_screenshot(str(tmp_path / "two-runs.png"))


def test_an_imported_inspect_log_renders_side_by_side_with_a_native_run(browser, runs, tmp_path):
    """`widthbench report LOG RUN` (issue 31): a run imported from an inspect log opens in the browser,
    its grid's numbers are its summary's, next to a native run, without console errors."""
    inspect_ai = pytest.importorskip("inspect_ai", reason="inspect-ai is not installed (pip install -e '.[inspect]')")
    from inspect_ai.model import ModelOutput, ModelUsage

    from widthbench.core.runfiles import load_summary
    from widthbench.subtasks.harness import logs as harness_logs
    from widthbench.subtasks.harness import inspect_tasks

    def reply(messages, tools, tool_choice, config):  # a model that answers every verification "yes"
        out = ModelOutput.from_content(model="mockllm", content="Answer: yes")
        out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        return out

    task = inspect_tasks.widthbench_task("plan-verification", style="pddl", thinking="off", count=4, seed=3)
    (log,) = inspect_ai.eval(task, model="mockllm/model", model_args={"custom_outputs": reply},
                             log_dir=str(tmp_path / "logs"), display="none")
    assert log.status == "success"
    run = harness_logs.import_log(tmp_path / "logs")
    rows = load_summary(run, "score")["rows"]
    assert rows and all(r["model"] == "inspect:mockllm/model" for r in rows)
    page = write_html([str(run), str(runs["noisy"])], tmp_path / "page")
    _open(browser, page)
    mine = [td for td in _css(browser, "td.cell") if "inspect:mockllm/model" in
            td.find_element("xpath", "./ancestor::table").text]
    assert len(mine) == 1  # plan-verification, pddl, thinking off
    row = rows[0]
    assert mine[0].find_element("css selector", ".kn").text == f"{row['correct']}/{row['n']}"
    assert not _errors(browser)


def test_a_verified_trace_shows_each_claim_and_highlights_the_first_error(browser, tmp_path):
    """A score run whose thinking holds one wrong fact (a trace written from an engine run, with the
    error injected): the item's reasoning is shown with every checked claim marked, and the one
    highlighted as the first error is the record's ``trace.first_error`` span; the run's per-cell
    trace table is on the grid page."""
    import json

    from tests.subtasks.traces_gen import write_trace
    from widthbench.simulated import open_model
    from widthbench.subtasks.score_run import ScoreConfig, build_all_items, read_records, run_score, trace_of
    from widthbench.subtasks.scoring import Mode
    from widthbench.subtasks.traces import summarise_traces

    config = ScoreConfig(subtasks=("plan-verification",), styles=("nl",), thinking=(True,), count=3, seed=2)
    run = tmp_path / "traced"
    run_score(config, open_model("sim:oracle", use_cache=False), run, quiet=True)
    items = {i.id: i for i in build_all_items(config)["plan-verification"]}
    recs = read_records(run)
    for n, rec in enumerate(recs):
        item = items[rec["item_id"]]
        text = write_trace(item.task, "nl", "widthbench", seed=n, steps=3, inject="fact", at=2).text
        rec["reasoning"] = text
        rec["trace"] = trace_of(item, Mode("nl", True), text, rec["correct"])
    assert all(r["trace"]["first_error"] for r in recs)
    (run / "items.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs), encoding="utf-8")
    data = json.loads((run / "summary.json").read_text())
    data["traces"] = summarise_traces(recs)
    (run / "summary.json").write_text(json.dumps(data), encoding="utf-8")

    page = write_html([run], tmp_path / "page-traces")
    _open(browser, page)
    table = _wait(lambda: _css(browser, "table.traces-summary"), "the per-cell trace table")[0]
    assert "plan-verification" in table.text
    _css(browser, "td.cell")[0].click()
    item = _wait(lambda: _css(browser, "#items-list details.item"), "the cell's items")[0]
    item.find_element("css selector", "summary").click()
    check = _wait(lambda: item.find_elements("css selector", "details.trace-check"), "the trace check")[0]
    rec = next(r for r in recs if r["item_id"] == item.get_attribute("data-key").split("|")[1])
    first = rec["trace"]["first_error"]
    marked = check.find_elements("css selector", "mark.first-error")
    assert len(marked) == 1
    assert marked[0].get_attribute("textContent") == rec["reasoning"][first["span"][0]:first["span"][1]]
    assert f"first error: {first['kind']}" in check.text
    # the facts stated before the injected one were checked and are marked right
    assert check.find_elements("css selector", "mark.claim.right")
    assert not _errors(browser)


def test_a_solve_run_shows_its_calls_thinking_checked(browser, tmp_path):
    """A solve run with thinking: the search page has the per-purpose trace table, and an instance's
    card shows each call's thinking checked, the first error highlighted where the record has it."""
    import json

    from tests.searches.test_thinking import RestatesTheInitialState, _thinking
    from widthbench.searches.config import SearchConfig
    from widthbench.searches.solve_run import load_problems, solve
    from widthbench.simulated import open_model

    p = load_problems("blocksworld", count=6, seed=11, max_plan_length=8)[0]
    model = RestatesTheInitialState(open_model("sim:oracle", use_cache=False), _thinking(p))
    config = SearchConfig(method="tot-bfs", mapping="esa", actions="llm", successors="engine", seed=1, thinking=True)
    solve(config, [p], model, tmp_path / "run", progress=False)
    item = json.loads((tmp_path / "run" / "items.jsonl").read_text().splitlines()[-1])
    page = write_html([tmp_path / "run"], tmp_path / "page-solve-traces")
    _open(browser, page)
    _tab(browser, "search")
    table = _wait(lambda: _css(browser, "#view-search table.traces-summary"), "the per-purpose trace table")[0]
    assert "next-action | thinking" in table.text
    card = _wait(lambda: _css(browser, "details.item[data-instance]"), "the instance card")[0]
    card.find_element("css selector", "summary").click()
    checks = _wait(lambda: card.find_elements("css selector", "details.trace-check"), "the thinking checks")
    assert len(checks) == len(item["trace"])
    for check, trace, thought in zip(checks, item["trace"], item["reasoning"]):
        marked = check.find_elements("css selector", "mark.first-error")
        first = trace["first_error"]
        assert len(marked) == (1 if first else 0)
        if first:
            assert marked[0].get_attribute("textContent") == thought["text"][first["span"][0]:first["span"][1]]
    assert not _errors(browser)


def test_a_chain_of_thought_answer_is_shown_checked(browser, tmp_path):
    """Thinking off, the reasoning written before the answer is checked: the item shows that text
    with the first error marked at the record's span of the raw answer."""
    from tests.subtasks.test_chain_of_thought import ReasonsFirst
    from widthbench.simulated import open_model
    from widthbench.subtasks.score_run import ScoreConfig, read_records, run_score

    config = ScoreConfig(subtasks=("plan-verification",), styles=("nl",), thinking=(False,), count=2, seed=2)
    run = tmp_path / "cot"
    run_score(config, ReasonsFirst(open_model("sim:oracle", use_cache=False),
                                   "The hand is empty. The hand is holding the red block."), run, quiet=True)
    recs = read_records(run)
    page = write_html([run], tmp_path / "page-cot")
    _open(browser, page)
    _css(browser, "td.cell")[0].click()
    item = _wait(lambda: _css(browser, "#items-list details.item"), "the cell's items")[0]
    item.find_element("css selector", "summary").click()
    check = _wait(lambda: item.find_elements("css selector", "details.trace-check"), "the trace check")[0]
    rec = next(r for r in recs if r["item_id"] == item.get_attribute("data-key").split("|")[1])
    s, e = rec["trace"]["first_error"]["span"]
    [marked] = check.find_elements("css selector", "mark.first-error")
    assert marked.get_attribute("textContent") == rec["raw_answer"][s:e]
    assert "the reasoning written before the answer" in check.text
    assert not _errors(browser)
