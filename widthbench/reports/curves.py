"""Scores by difficulty: accuracy per feature bin, with Wilson 95% intervals and a logistic slope per
mode, for one or more score runs (`widthbench report RUN... --by FEATURE`; docs/subtasks.md).

    tables(runs, features, bins=None) -> [breakdown per feature]      # data (subtasks.difficulty)
    write_difficulty(runs, out, features=None, bins=None) -> [paths]  # loaded runs or run folders

Each run is `subtasks.loader.Run`; its ``label`` (how its identity differs from the others') is the
``run`` column of every csv line and names its curves.

writes into ``out``:
  difficulty.md          per feature and sub-task: rows = bins, columns = run x mode, cells
                         "k/n acc% [low–high]"; then the logistic slopes per mode
  difficulty.csv         one line per run x sub-task x mode x feature x bin (n, correct, accuracy, CI)
  difficulty-slopes.csv  one line per run x sub-task x mode x feature: slope, its 95% interval, odds ratio
  difficulty-FEATURE.png one panel per sub-task, one line per run x mode, the interval as a band (and
                         .pdf; drawn when asked for: `report --by FEATURE` or `--figures`)
Runs side by side overlay their curves (a line per run and mode). Simulated runs are marked SIMULATED.
"""

from __future__ import annotations

import csv
from pathlib import Path

from widthbench.subtasks.results.difficulty import DEFAULT_FEATURES, breakdown, check_feature
from widthbench.subtasks.results.loader import as_runs
from widthbench.subtasks.results.difficulty import answer_records

ROW_FIELDS = ("run", "model", "simulated", "subtask", "metric", "mode", "line", "feature", "bin", "bin_lo", "bin_hi",
              "n", "correct", "accuracy", "ci_low", "ci_high",
              "mean_progress", "progress_ci_low", "progress_ci_high", "progress_n")  # progress: plan sub-tasks
SLOPE_FIELDS = ("run", "model", "simulated", "subtask", "metric", "mode", "line", "feature", "n", "slope", "slope_low",
                "slope_high", "odds_ratio", "odds_low", "odds_high", "intercept", "note")


def tagged_records(runs) -> list[dict]:
    """The score runs' records, each with ``_run`` = its run's label (labels are unique)."""
    return [{**r, "_run": run.label} for run in as_runs(runs) if run.kind == "score" for r in run.records]


def tables(runs, features=None, bins=None) -> list[dict]:
    """One `breakdown` per feature over the runs' records (features none of them carry left out
    unless asked for by name); ``runs``: loaded runs or run folders."""
    records = tagged_records(runs)
    several = len({r["_run"] for r in records}) > 1
    asked = features is not None
    out = []
    for f in (features or DEFAULT_FEATURES):
        check_feature(f)
        got = breakdown(records, f, bins)
        for r in got["rows"] + got["slopes"]:  # a curve's name: the mode, after the run when several
            r["line"] = f"{r['run']}: {r['mode']}" if several else r["mode"]
        if got["rows"] or asked:
            out.append(got)
    return out


def _cell(r: dict) -> str:
    if not r["n"]:
        return "—"
    return f"{r['correct']}/{r['n']} {100 * r['accuracy']:.0f}% [{100 * r['ci_low']:.0f}–{100 * r['ci_high']:.0f}]"


def _credit(r: dict | None) -> str:
    if r is None or r.get("mean_progress") is None:
        return "—"
    return f"{r['mean_progress']:.2f} [{r['progress_ci_low']:.2f}–{r['progress_ci_high']:.2f}] (n {r['progress_n']})"


def _line(r: dict) -> str:
    return r["line"]


def _interval(s: dict) -> str:
    if s["slope"] is None:
        return f"— ({s['note']})"
    return (f"{s['slope']:+.3f} [{s['slope_low']:+.3f}, {s['slope_high']:+.3f}]; odds ×{s['odds_ratio']:.3f} "
            f"[{s['odds_low']:.3f}, {s['odds_high']:.3f}] per unit")


def markdown(parts: list[dict]) -> str:
    simulated = any(r["simulated"] for p in parts for r in p["rows"])
    md = ["# Scores by difficulty" + (" — SIMULATED" if simulated else ""), ""]
    if simulated:
        md += ["**Some results come from a simulated model (sim:...), not from an LLM.**", ""]
    md += ["Accuracy of the headline metric per feature bin (k/n, Wilson 95% interval); the slope is the "
           "logistic fit's change in log-odds of a right answer per unit of the feature, with its 95% "
           "interval (features: docs/subtasks.md, \"Scores by difficulty\").", ""]
    for part in parts:
        md += [f"## {part['feature']}", ""]
        if not part["rows"]:
            md += ["No record carries this feature.", ""]
        subs = list(dict.fromkeys(r["subtask"] for r in part["rows"]))
        for sub in subs:
            rows = [r for r in part["rows"] if r["subtask"] == sub]
            lines = list(dict.fromkeys(_line(r) for r in rows))
            bins = list(dict.fromkeys(r["bin"] for r in rows))
            sim = " — SIMULATED" if any(r["simulated"] for r in rows) else ""
            md += [f"### {sub} ({rows[0]['metric']}) by {part['feature']}{sim}", "",
                   f"| {part['feature']} | " + " | ".join(lines) + " |", "|---|" + "---|" * len(lines)]
            cells = {(r["bin"], _line(r)): r for r in rows}
            for b in bins:
                md.append(f"| {b} | " + " | ".join(_cell(cells[(b, ln)]) if (b, ln) in cells else "—"
                                                   for ln in lines) + " |")
            if any("mean_progress" in r for r in rows):
                md += ["", "Partial credit, mean progress 1 - h*(s_k)/h*(s_0) (Wilson 95% interval; "
                       "docs/subtasks.md, \"Partial credit\"):", "",
                       f"| {part['feature']} | " + " | ".join(lines) + " |", "|---|" + "---|" * len(lines)]
                for b in bins:
                    md.append(f"| {b} | " + " | ".join(_credit(cells.get((b, ln))) for ln in lines) + " |")
            if part.get("without", {}).get(sub):
                md += ["", f"Left out: {part['without'][sub]} answered item-modes without a {part['feature']} "
                       "(width: above --max-width, or unsolvable; novelty-level: a repeated state)."]
            md += ["", "Logistic slope per mode:", ""]
            for s in part["slopes"]:
                if s["subtask"] == sub:
                    md.append(f"- {_line(s)} (n {s['n']}): {_interval(s)}")
            md.append("")
    return "\n".join(md)


def plot(part: dict, path: Path) -> None:
    """One panel per sub-task: accuracy per bin, a line per run x mode, the Wilson interval as a band."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    subs = list(dict.fromkeys(r["subtask"] for r in part["rows"]))
    n_lines = len({r["line"] for r in part["rows"]})
    many = n_lines > 5  # the legend goes beside each panel, which grows
    cols = min(2 if many else 3, len(subs)) or 1
    n_rows = (len(subs) + cols - 1) // cols or 1
    width, height = (7.5, 3.4 + 0.12 * n_lines) if many else (4.6, 3.4)
    fig, axes = plt.subplots(n_rows, cols, figsize=(width * cols, height * n_rows), squeeze=False)
    for ax in axes.flat[len(subs):]:
        ax.set_visible(False)
    for ax, sub in zip(axes.flat, subs):
        rows = [r for r in part["rows"] if r["subtask"] == sub]
        bins = list(dict.fromkeys(r["bin"] for r in rows))
        pos = {b: i for i, b in enumerate(bins)}
        for ln in dict.fromkeys(_line(r) for r in rows):
            mine = [r for r in rows if _line(r) == ln and r["n"]]
            xs = [pos[r["bin"]] for r in mine]
            line, = ax.plot(xs, [r["accuracy"] for r in mine], marker="o", label=ln)
            ax.fill_between(xs, [r["ci_low"] for r in mine], [r["ci_high"] for r in mine],
                            color=line.get_color(), alpha=0.15)
        ax.set_xticks(range(len(bins)))
        ax.set_xticklabels(bins, fontsize=8)
        ax.set_ylim(0, 1.02)
        ax.set_xlabel(part["feature"])
        ax.set_ylabel("accuracy (band: Wilson 95% CI)")
        sim = " — SIMULATED" if any(r["simulated"] for r in rows) else ""
        ax.set_title(f"{sub}{sim}", fontsize=9)
        if many:
            ax.legend(fontsize=6, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
        else:
            ax.legend(fontsize=6)
    fig.tight_layout()
    fig.savefig(path, dpi=100, bbox_inches="tight")
    fig.savefig(path.with_suffix(".pdf"), bbox_inches="tight")  # the same figure for a paper
    plt.close(fig)


def write_csv(path: Path, rows: list[dict], fields) -> None:
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=list(fields), extrasaction="ignore")
        w.writeheader()
        for r in rows:
            w.writerow(r)


def write_parts(parts: list[dict], dest: Path, stem: str = "difficulty", figures: bool = True) -> list[Path]:
    """difficulty.md, difficulty.csv, difficulty-slopes.csv and, with ``figures``, one PNG and PDF per
    feature (``stem`` names them)."""
    dest.mkdir(parents=True, exist_ok=True)
    paths = [dest / f"{stem}.md", dest / f"{stem}.csv", dest / f"{stem}-slopes.csv"]
    paths[0].write_text(markdown(parts) + "\n", encoding="utf-8")
    write_csv(paths[1], [r for p in parts for r in p["rows"]], ROW_FIELDS)
    write_csv(paths[2], [s for p in parts for s in p["slopes"]], SLOPE_FIELDS)
    for part in parts if figures else ():
        if part["rows"]:
            p = dest / f"{stem}-{part['feature']}.png"
            plot(part, p)
            paths += [p, p.with_suffix(".pdf")]
    return paths


def write_difficulty(runs, out=None, features=None, bins=None, figures: bool = True, parts=None) -> list[Path]:
    """The difficulty tables of score runs (`tables`, or ``parts`` when already computed) into
    ``out`` (default: the first run's folder); ``figures``: also the curves as PNG and PDF
    (`widthbench report` draws them for the features of --by, or every feature with --figures)."""
    runs = [r for r in as_runs(runs) if r.kind == "score"]
    dest = Path(out) if out is not None else Path(runs[0].dir)
    return write_parts(tables(runs, features, bins) if parts is None else parts, dest, figures=figures)


RESCORE_FEATURES = ("plan-length", "objects")


def write_rescore_difficulty(judged, instance_dirs, out, reader: str = "flexible") -> list[Path]:
    """Rescored PlanBench answers (`rescore.rescore`'s results) by plan length and block count: the
    same files as for score runs, one line per result file, the ``reader``'s read-and-valid as right."""
    records = answer_records(judged, instance_dirs, reader)
    parts = []
    for f in RESCORE_FEATURES:
        part = breakdown(records, f, metric="correct")
        for r in part["rows"] + part["slopes"]:
            r["line"] = r["mode"]
        parts.append(part)
    return write_parts(parts, Path(out))
