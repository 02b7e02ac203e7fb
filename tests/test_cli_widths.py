"""`widthbench widths`: --max-width (alias --max-k) and what its outputs say about the mean (issue 25)."""

from __future__ import annotations

import json

import pytest

from widthbench.cli import build_parser, main
from widthbench.planners.iw import DEFAULT_MAX_WIDTH

GEN = ["widths", "blocksworld", "--count", "3", "--seed", "1", "--quiet"]


def _rows(out):
    return [json.loads(line) for line in (out / "widths.jsonl").read_text().splitlines()]


@pytest.mark.parametrize("spelling", ["--max-width", "--max-k"])
def test_both_spellings_set_the_largest_k(spelling, tmp_path, capsys):
    out = tmp_path / "w"
    assert main([*GEN, spelling, "2", "--out", str(out)]) == 0
    assert {r["max_k"] for r in _rows(out)} == {2}
    assert json.loads((out / "summary.json").read_text())["max_k"] == 2


def test_without_the_option_the_limit_is_the_one_shared_default(tmp_path, capsys):
    out = tmp_path / "w"
    assert main([*GEN, "--out", str(out)]) == 0
    assert {r["max_k"] for r in _rows(out)} == {DEFAULT_MAX_WIDTH}
    score = build_parser().parse_args(["score", "--model", "sim:oracle", "--out", "x"])
    from widthbench.commands.score import config_from_args
    from widthbench.subtasks.score_run import max_width_of

    assert max_width_of(config_from_args(score)) == DEFAULT_MAX_WIDTH


def test_help_names_the_alias(capsys):
    with pytest.raises(SystemExit):
        main(["widths", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "--max-width K" in text and "--max-k is the older spelling" in text


def test_mean_says_which_rows_it_is_over_in_the_line_and_the_figure(tmp_path, capsys, monkeypatch):
    import matplotlib.figure

    titles = []
    monkeypatch.setattr(matplotlib.figure.Figure, "savefig",
                        lambda fig, *a, **k: titles.append(fig.axes[0].get_title()))
    out = tmp_path / "w"
    assert main([*GEN, "--max-width", "2", "--out", str(out)]) == 0
    widths = [r["width"] for r in _rows(out)]
    counted = [w for w in widths if w is not None]
    assert 0 < len(counted) < len(widths)  # the case the title got wrong: some rows above K
    line = capsys.readouterr().out
    mean = sum(counted) / len(counted)
    assert f"mean width {mean:.3f} over the {len(counted)} of {len(widths)} rows of width <= 2" in line
    # one figure, saved twice (widths.png and widths.pdf)
    assert titles == 2 * [f"widths (n={len(widths)}; mean width {mean:.2f} over the {len(counted)} of "
                          f"{len(widths)} rows of width <= 2)"]
