"""The files of `widthbench compare RUN_A RUN_B --out DIR`: compare.md, compare.csv, compare.tex.

    write_compare(rows, out, *, label_a, label_b, seed, resamples=RESAMPLES, notes=()) -> [Path, ...]
    significance(run_a, run_b) -> {cell key: p, Holm's p, significant, interval, detectable}  (report.html)
    compare_markdown(rows, ...) / compare_csv(rows) / compare_latex(rows, ...) -> text

``rows`` are `subtasks.compare.Comparison` values (`compare_cells`); nothing here computes a
statistic. compare.csv has exactly the columns of `subtasks.compare.CSV_COLUMNS`, one line per cell
and metric; compare.md adds what a reader needs around them (both values, the discordant pairs,
the planning columns), and compare.tex is the table in LaTeX (booktabs).
"""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Sequence

from widthbench.reports.paper import _tex
from widthbench.core.runfiles import make_output_dir
from widthbench.subtasks.results.comparison import AMOUNT, ALPHA, CSV_COLUMNS, MCNEMAR, NO_TEST, POWER, Comparison
from widthbench.subtasks.results.paired import EXACT_UP_TO, RESAMPLES


# report.html compares every pair of score runs: fewer bootstrap resamples than `compare` (the marker
# is the exact or permutation p-value, not the interval; the page says the count)
PAGE_RESAMPLES = 2000


def cell_key(row: Comparison) -> str:
    """How report.html finds a cell's comparison (`ComparedCell.text`)."""
    return row.cell.text


def significance(run_a, run_b, *, seed: int = 0, resamples: int = PAGE_RESAMPLES) -> dict:
    """What report.html's run comparison shows of two score runs (`run_outcomes.compare_runs`): per
    cell key (`cell_key`) the test, p, Holm's p, whether it is `significant`, the 95% interval of
    B − A, the difference its items detect at 80% power and the items (``needed``) that detect the
    observed difference (``target``) with 80% power; or ``error`` when the runs share no item."""
    from widthbench.core.errors import UserError
    from widthbench.subtasks.results.run_outcomes import compare_runs

    try:
        result = compare_runs(run_a, run_b, seed=seed, resamples=resamples)
    except UserError as exc:
        return {"error": str(exc)}
    cells = {cell_key(r): {"n": r.n, "test": r.test, "p": r.p, "p_adjusted": r.p_adjusted,
                           "significant": significant(r), "ci": [r.ci_low, r.ci_high], "detectable": r.detectable,
                           "needed": r.needed, "target": r.target}
             for r in result.rows if r.p is not None}
    return {"common": result.common, "tests": len(cells), "seed": seed, "resamples": resamples, "cells": cells}


def significant(row: Comparison) -> bool:
    """The marker of report tables: Holm-adjusted p below 0.05."""
    return row.p_adjusted is not None and row.p_adjusted < ALPHA


def _p(p: float | None) -> str:
    if p is None:
        return "–"
    return "< 0.0001" if p < 1e-4 else f"{p:.4f}"


def _side(row: Comparison, right: float | None, value: float | None) -> str:
    if value is None:
        return "–"
    if row.kind == AMOUNT:
        return f"{value:.1f}"
    if row.discordant is not None:
        return f"{right:g}/{row.n} ({100 * value:.1f}%)"
    return f"{right:g} right ({100 * value:.1f}%)"


def _diff(row: Comparison, tex: bool = False) -> str:
    if row.diff is None:
        return "–"
    scale, unit = (1, "") if row.kind == AMOUNT else (100, " pt")
    text = f"{scale * row.diff:+.1f} [{scale * row.ci_low:+.1f}, {scale * row.ci_high:+.1f}]{unit}"
    return text + ("$^{*}$" if tex else " *") * significant(row)


def _plan(row: Comparison) -> tuple[str, str]:
    if row.test != MCNEMAR:
        return "–", "–"
    b01, b10 = row.discordant
    detect = ("none at this discordance" if row.detectable is None else f"±{100 * row.detectable:.1f} pt")
    need = "–" if row.needed is None else f"{row.needed:,} for ±{100 * row.target:.1f} pt"
    return f"{b01}/{b10}; {detect}", need


def _explain(rows: Sequence[Comparison], label_a: str, label_b: str, seed: int, resamples: int) -> list[str]:
    tests = sum(1 for r in rows if r.p is not None)
    return [f"A: {label_a}. B: {label_b}. Each cell compares the items both runs answered (n); "
            "diff = B - A in percentage points (tokens: per answer), with its 95% interval from a paired "
            f"bootstrap over those items ({resamples:,} resamples, seed {seed}).",
            "p: the exact McNemar test where every item has one right/wrong answer in each run, else the "
            f"paired sign-flip permutation test (exact up to {EXACT_UP_TO} differing items, else "
            f"{resamples:,} seeded random flips). p (Holm): Holm's correction over the {tests} tests of "
            f"this table; * marks p (Holm) < {ALPHA}.",
            f"Discordant: b01/b10 = the items only B / only A got right. Detectable: the smallest difference "
            f"these items find with {POWER:.0%} power at this discordance (exact McNemar, level {ALPHA}); "
            f"items: the count that finds the target difference (default: the observed one) with "
            f"{POWER:.0%} power. How to read it: docs/compare.md."]


def compare_markdown(rows: Sequence[Comparison], *, label_a: str, label_b: str, seed: int,
                     resamples: int = RESAMPLES, notes: Sequence[str] = ()) -> str:
    out = [f"# Comparison: B against A", ""]
    out += [f"**{n}**" for n in notes] + ([""] if notes else [])
    out += [line for text in _explain(rows, label_a, label_b, seed, resamples) for line in (text, "")]
    head = ["Sub-task", "Metric", "Style", "Thinking", "Extension", "Domain", "n", "A", "B", "diff [95% CI]",
            "p", "p (Holm)", "test", "discordant; detectable", "items needed"]
    out += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        c = r.cell
        detect, need = _plan(r)
        out.append("| " + " | ".join([c.subtask, c.metric, c.style, c.thinking, c.extension, c.domain, str(r.n),
                                      _side(r, r.a, r.value_a), _side(r, r.b, r.value_b), _diff(r), _p(r.p),
                                      _p(r.p_adjusted), r.test, detect, need]) + " |")
    apart = [r for r in rows if r.only_a or r.only_b or r.test == NO_TEST]
    if apart:
        out += ["", "Items not in both runs (left out of the cell):", ""]
        for r in apart:
            c = r.cell
            why = " (no common item: not compared)" if r.test == NO_TEST else ""
            out.append(f"- {c.subtask} {c.metric} ({c.style}, thinking {c.thinking}, extension {c.extension}, "
                       f"{c.domain}): {r.only_a} only in A, {r.only_b} only in B{why}")
    return "\n".join(out) + "\n"


def compare_csv(rows: Sequence[Comparison]) -> str:
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=list(CSV_COLUMNS), lineterminator="\n")
    w.writeheader()
    for r in rows:
        w.writerow({k: "" if v is None else v for k, v in r.csv_row().items()})
    return buf.getvalue()


def compare_latex(rows: Sequence[Comparison], *, label_a: str, label_b: str, seed: int,
                  resamples: int = RESAMPLES, notes: Sequence[str] = ()) -> str:
    head = ["Sub-task", "Metric", "Style", "Thinking", "Ext.", "Domain", "$n$", "A", "B", "Diff.\\ [95\\% CI]",
            "$p$", "$p_{\\mathrm{Holm}}$"]
    lines = [r"\begin{table*}[t]", r"\centering", r"\small", r"\begin{tabular}{llllll" + "r" * 6 + "}",
             r"\toprule", " & ".join(head) + r" \\", r"\midrule"]
    for r in rows:
        c = r.cell
        cells = [_tex(x) for x in (c.subtask, c.metric, c.style, c.thinking, c.extension, c.domain)]
        cells += [str(r.n), _tex(_side(r, r.a, r.value_a)), _tex(_side(r, r.b, r.value_b))]
        diff = _diff(r, tex=True)
        cells += [_tex(diff.removesuffix("$^{*}$")) + ("$^{*}$" if diff.endswith("$^{*}$") else ""),
                  _tex(_p(r.p)), _tex(_p(r.p_adjusted))]
        lines.append(" & ".join(cells) + r" \\")
    caption = " ".join(notes) + (" " if notes else "") + " ".join(_explain(rows, label_a, label_b, seed, resamples))
    lines += [r"\bottomrule", r"\end{tabular}", f"\\caption{{{_tex(caption)}}}", r"\label{tab:widthbench-compare}",
              r"\end{table*}", ""]
    return "\n".join(lines)


def write_compare(rows: Sequence[Comparison], out, *, label_a: str, label_b: str, seed: int,
                  resamples: int = RESAMPLES, notes: Sequence[str] = ()) -> list[Path]:
    """compare.md, compare.csv and compare.tex in the folder ``out`` (made if missing)."""
    dest = make_output_dir(out)
    texts = {"compare.md": compare_markdown(rows, label_a=label_a, label_b=label_b, seed=seed,
                                            resamples=resamples, notes=notes),
             "compare.csv": compare_csv(rows),
             "compare.tex": compare_latex(rows, label_a=label_a, label_b=label_b, seed=seed,
                                          resamples=resamples, notes=notes)}
    paths = []
    for name, text in texts.items():
        p = dest / name
        p.write_text(text, encoding="utf-8")
        paths.append(p)
    return paths
