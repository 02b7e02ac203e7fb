"""Every figure as PNG and PDF, with labels that fit; report.html's Figures 2 and 3 on the axes of the
PNG files (log tokens; Figure 3: log10(1 + states) with the ticks `search.states_ticks`)."""

from __future__ import annotations

import json

import pytest

from widthbench.cli import main
from widthbench.reports.search import states_ticks

from .conftest import score_run
from .test_html_browser import _css, _errors, _open, _tab, browser  # noqa: F401 (the browser fixture)

FIGURES = ("search_success_tokens", "search_states")


def _valid_png(path) -> tuple[int, int]:
    from PIL import Image

    with Image.open(path) as im:
        im.verify()
    with Image.open(path) as im:
        return im.size


def _valid_pdf(path) -> None:
    data = path.read_bytes()
    assert data.startswith(b"%PDF-") and b"%%EOF" in data[-64:], path


def test_search_figures_are_written_as_png_and_pdf(grid, tmp_path):
    assert main(["report", str(grid), "--out", str(tmp_path)]) == 0
    for stem in FIGURES:
        w, h = _valid_png(tmp_path / f"{stem}.png")
        assert w > 400 and h > 300
        _valid_pdf(tmp_path / f"{stem}.pdf")


def test_table_chart_is_png_and_pdf_and_names_the_whiskers(tmp_path, monkeypatch):
    from matplotlib.figure import Figure

    labels = []
    save = Figure.savefig

    def spy(fig, path, *a, **k):  # the axis labels of every chart written
        labels.extend(ax.get_xlabel() for ax in fig.axes)
        return save(fig, path, *a, **k)

    monkeypatch.setattr(Figure, "savefig", spy)
    run = score_run(tmp_path / "run", "sim:noisy:0.3", count=2, subtasks="action-generation", extension="off")
    assert main(["report", str(run), "--out", str(tmp_path / "rep"), "--figures"]) == 0
    _valid_png(tmp_path / "rep" / "table.png")
    _valid_pdf(tmp_path / "rep" / "table.pdf")
    chart = [x for x in labels if x.startswith("accuracy")]
    assert chart and all("whiskers: Wilson 95% interval" in x and "bars: Wilson" not in x for x in chart)


@pytest.mark.parametrize("top,want", [(0, [0, 1]), (1, [0, 1]), (2, [0, 1, 3]), (10, [0, 1, 3, 10]),
                                      (11, [0, 1, 3, 10, 30]), (510, [0, 1, 3, 10, 30, 100, 300, 1000])])
def test_states_ticks_reach_the_top(top, want):
    assert states_ticks(top) == want


def test_html_figures_use_the_png_axes_and_no_label_is_cut_off(browser, grid, tmp_path):  # noqa: F811
    assert main(["report", str(grid), "--out", str(tmp_path)]) == 0
    _open(browser, tmp_path / "report.html")
    _tab(browser, "charts")
    top = max(max(json.loads((grid / e["folder"] / "summary.json").read_text())["states_per_instance"])
              for e in json.loads((grid / "grid.json").read_text())["runs"])
    ticks = [t.text for t in _css(browser, "#view-charts svg.fig3 text.tick")]
    assert ticks == [str(t) for t in states_ticks(top)]
    # Figure 3's ticks are placed at log10(1 + value), as the PNG's axis (a linear axis fails this)
    import math

    ys = [float(t.get_attribute("y")) for t in _css(browser, "#view-charts svg.fig3 text.tick")]
    for v, y in zip(states_ticks(top), ys):
        share = (ys[0] - y) / (ys[0] - ys[-1])
        assert abs(share - math.log10(1 + v) / math.log10(1 + states_ticks(top)[-1])) < 0.01, (v, share)
    cut = browser.execute_script("""
      const out = [];
      for (const svg of document.querySelectorAll('#view-charts svg.fig2, #view-charts svg.fig3')) {
        const b = svg.getBoundingClientRect();
        for (const t of svg.querySelectorAll('text')) {
          const c = t.getBoundingClientRect();
          if (c.left < b.left - 0.5 || c.right > b.right + 0.5 || c.top < b.top - 0.5 || c.bottom > b.bottom + 0.5)
            out.push(t.textContent);
        } }
      return out;""")
    assert cut == []
    overlaps = browser.execute_script("""
      const ts = [...document.querySelectorAll('#view-charts svg.fig2 text')].map(t => t.getBoundingClientRect());
      let n = 0;
      for (let i = 0; i < ts.length; i++) for (let j = i + 1; j < ts.length; j++) {
        const a = ts[i], b = ts[j];
        if (a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1) n++;
      }
      return n;""")
    assert overlaps == 0
    legend = _css(browser, "#view-charts table.fig-legend tr")
    assert len(legend) == 16
    assert _errors(browser) == []


def test_widths_and_difficulty_figures_are_written_as_png_and_pdf(tmp_path):
    """Figure 1 (`widths`) and the difficulty curves (`report --by`) come as PNG and PDF too."""
    from widthbench.cli import main

    out = tmp_path / "w"
    assert main(["widths", "blocksworld", "--count", "3", "--blocks", "4", "--max-width", "2", "--out", str(out),
                 "--quiet"]) == 0
    for name in ("widths.png", "widths.pdf"):
        assert (out / name).stat().st_size > 1000
    assert (out / "widths.pdf").read_bytes().startswith(b"%PDF")
    run = tmp_path / "s"
    assert main(["score", "--subtask", "plan-verification", "--count", "6", "--style", "pddl", "--thinking", "off",
                 "--model", "sim:noisy:0.3", "--out", str(run), "--quiet"]) == 0
    assert main(["report", str(run), "--by", "plan-length"]) == 0
    assert (run / "difficulty-plan-length.png").is_file()
    assert (run / "difficulty-plan-length.pdf").read_bytes().startswith(b"%PDF")


def test_score_report_draws_its_figures_only_when_asked_for(tmp_path):
    """A score report writes every table, csv and report.html at once; the PNG and PDF charts
    (about a second each) come with --figures (all of them) or --by (that feature's curves)."""
    run = score_run(tmp_path / "run", "sim:noisy:0.3", count=3, subtasks="plan-verification,novelty",
                    extension="off")
    plain, by, every = tmp_path / "plain", tmp_path / "by", tmp_path / "every"
    assert main(["report", str(run), "--out", str(plain)]) == 0
    assert main(["report", str(run), "--out", str(by), "--by", "plan-length"]) == 0
    assert main(["report", str(run), "--out", str(every), "--figures"]) == 0
    tables = ("table.md", "table.csv", "rows.csv", "errors.json", "difficulty.md", "difficulty.csv",
              "difficulty-slopes.csv", "report.html")
    assert {p.name for p in plain.iterdir()} == set(tables)
    assert {p.name for p in by.iterdir()} - set(tables) == {"difficulty-plan-length.png", "difficulty-plan-length.pdf"}
    import csv

    with open(every / "difficulty.csv", newline="") as f:
        features = {r["feature"] for r in csv.DictReader(f)}
    assert len(features) >= 2
    drawn = {"table"} | {f"difficulty-{f}" for f in features}
    assert {p.name for p in every.iterdir()} - set(tables) == {f"{s}.{x}" for s in drawn for x in ("png", "pdf")}
    for name in tables[:-1]:  # the same tables with or without the figures
        assert (plain / name).read_text() == (every / name).read_text(), name
    _valid_png(every / "table.png")
    _valid_pdf(every / "difficulty-plan-length.pdf")


def test_the_pages_figure_3_counts_states_where_the_png_does_on_the_graphml_trees(grid, tmp_path):
    import shutil

    from widthbench.reports.html import payload
    from widthbench.searches.graph import run_state_counts
    from widthbench.subtasks.results.loader import load_runs

    # a copy whose summary.json says other counts: the page and the PNG both count the trees
    folder = next(p.parent for p in sorted(grid.rglob("summary.json")) if (p.parent / "trees").is_dir()
                  and json.loads(p.read_text())["config"]["method"] != "naive")
    mine = tmp_path / "run"
    shutil.copytree(folder, mine)
    summary = json.loads((mine / "summary.json").read_text())
    counts = run_state_counts(mine)
    want = [counts[i]["generated"] for i in summary.get("instances") or sorted(counts)]
    assert sorted(want) == sorted(summary["states_per_instance"])  # the trees hold the run's counts
    summary["states_per_instance"] = [n + 1000 for n in want]
    (mine / "summary.json").write_text(json.dumps(summary))
    page = payload(load_runs([mine]))["runs"][0]
    assert page["states_per_instance"] == want
