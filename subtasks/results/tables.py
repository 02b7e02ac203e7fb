"""Reports of score runs: the paper's Table 1 layout, a chart with CI bars, and an error analysis.

`write_report(runs, out=None)` takes loaded runs (`subtasks.loader`: each run folder's summary.json
and items.jsonl read once; run folders are loaded) and writes, into ``out`` (default: the first run
folder), every table keyed by run (the run's label says how its identity differs from the others'):
  table.md    per (run, model, domain): the k/n table in Table 1's layout (rows: sub-task metrics;
              columns: Standard Normal, Standard Thinking, Natural Language Normal, Natural Language
              Thinking), accuracy with Wilson 95% CIs, parse errors, mean tokens, then the error analysis
  table.csv   the k/n table, one line per run, model/domain and row label (a ``run`` column)
  rows.csv    every summary row with all its fields, its run first
  table.png   the accuracies with CI bars
  errors.json the error analysis as data (with, per sub-task, the unread answers of each cell grouped
              by the reason the reader gave up: `widthbench.subtasks.results.unread`)
Simulated models are marked SIMULATED in every title.
"""

from __future__ import annotations

import csv
import json
import re
from collections import Counter
from pathlib import Path

from widthbench.core.runfiles import make_output_dir
from widthbench.subtasks.obfuscation import report_lines
from widthbench.subtasks.results.loader import as_runs
from widthbench.subtasks.results.rows import all_rows
from widthbench.subtasks.results.cells import Cell
from widthbench.subtasks.results.unread import unread_by_reason
from widthbench.subtasks.registry import PER_ITEM, Registry
from widthbench.subtasks.score_run import not_built_reason


COLUMNS = (("pddl", "off", "Standard Normal"), ("pddl", "on", "Standard Thinking"),
           ("nl", "off", "Natural Language Normal"), ("nl", "on", "Natural Language Thinking"))



def _registry():
    return Registry.default()


def label(row: dict) -> str:
    """The row's label in the Table-1 layout (from its sub-task record); rows of a reader other
    than the run's headline reader say which reader they are."""
    text = _registry().label(row)
    return text + (f" [{row['reader']} reader]" if row.get("reader") and row.get("_secondary") else "")


def sort_key(row: dict):
    return _registry().label_order(row), bool(row.get("_secondary"))


def _mark_secondary(rows: list[dict]) -> list[dict]:
    """Rows with a ``_secondary`` flag on those whose reader is not the headline's (the first
    reader seen in each cell), so that tables show them as their own rows."""
    first: dict[tuple, str] = {}
    out = []
    for r in rows:
        key = (r.get("run", ""), r["model"], Cell.of(r), r["metric"])
        head = first.setdefault(key, r.get("reader", "strict"))
        out.append({**r, "_secondary": r.get("reader", "strict") != head})
    return out


def _groups(rows: list[dict]) -> dict[tuple, list[dict]]:
    """(run, model, domain, simulated) -> its rows: one table each, never two runs in one."""
    out: dict[tuple, list[dict]] = {}
    for r in rows:
        out.setdefault((r.get("run", ""), r["model"], r.get("domain", ""), bool(r.get("simulated"))), []).append(r)
    return out


def _title(run: str, model: str, domain: str, simulated: bool) -> str:
    return (f"Run {run}: " if run else "") + ("SIMULATED model " if simulated else "") + f"{model} on {domain}" + \
        (" (not a real LLM)" if simulated else "")


def _cells(rows: list[dict], secondary: bool = True) -> dict[str, dict[tuple, dict]]:
    """Label -> (style, thinking) -> row; the other reader's rows as their own labels (or left
    out with ``secondary=False``)."""
    table: dict[str, dict[tuple, dict]] = {}
    for r in sorted(_mark_secondary(rows), key=sort_key):
        if r["_secondary"] and not secondary:
            continue
        cells = table.setdefault(label(r), {})
        column = Cell.of(r).column
        if column in cells:  # never overwrite a cell: two rows, one place
            raise ValueError(f"two summary rows for {label(r)} {'/'.join(column)} in one table")
        cells[column] = r
    return table


def _md_table(table: dict, cell) -> list[str]:
    lines = ["| Sub-task | " + " | ".join(c[2] for c in COLUMNS) + " |",
             "|---|" + "---|" * len(COLUMNS)]
    for name, cols in table.items():
        vals = [cell(cols[(s, t)]) if (s, t) in cols else "—" for s, t, _ in COLUMNS]
        lines.append(f"| {name} | " + " | ".join(vals) + " |")
    return lines


def _note(r: dict) -> str:
    """A cell's caveat: thinking requested but none produced (the model does not think)."""
    return f" ({r['note']})" if r.get("note") else ""


def _kn(r: dict) -> str:
    """A k/n cell; items whose requests failed after their retries (not in n: a rerun asks them
    again) or that were skipped (too long for the context) are said, so the cell never reads complete."""
    return (f"{r['correct']}/{r['n']}" + (f" · {r['request_errors']} failed" if r.get("request_errors") else "")
            + (f" +{r['skipped']} skipped" if r.get("skipped") else "") + _note(r))


def _acc(r: dict) -> str:
    if not r["n"]:
        return "n/a"
    return f"{100 * r['accuracy']:.0f}% [{100 * r['ci_low']:.0f}–{100 * r['ci_high']:.0f}]" + _note(r)


def _tok(r: dict) -> str:
    def f(x):
        return "—" if x is None else f"{x:.0f}"
    return f"{f(r['mean_prompt_tokens'])} / {f(r['mean_completion_tokens'])} / {f(r['mean_thinking_tokens'])}"


def aggregate_of(row: dict) -> str:
    """How a row's metric adds up (the row says; rows from before it said: its sub-task's record)."""
    if row.get("aggregate"):
        return row["aggregate"]
    reg = _registry()
    metric = reg.get(row["subtask"]).metric(row["metric"]) if row["subtask"] in reg else None
    return metric.aggregate if metric is not None else PER_ITEM


def headline_metric(row: dict, summary: dict) -> bool:
    """A metric of the paper's Table 1 layout: as its sub-task's record declares it
    (`Metric.in_table1`); for a sub-task no registry knows, the summary's named headline of the
    sub-task, else any metric counted per item."""
    reg = _registry()
    metric = reg.get(row["subtask"]).metric(row["metric"]) if row["subtask"] in reg else None
    if metric is not None:
        return metric.in_table1
    named = (summary.get("headline") or {}).get(row["subtask"])
    if named is not None:
        return row["metric"] == named
    return aggregate_of(row) == PER_ITEM


def table1_rows(summary: dict) -> list[dict]:
    """The rows of the paper's Table 1: its sub-tasks (the registry's ``paper``), their headline
    metrics, prompt extension off, read by the run's headline reader."""
    paper = set(_registry().paper)
    return [r for r in summary["rows"] if r["subtask"] in paper and not r.get("extension")
            and headline_metric(r, summary)]


def format_table(summary: dict, table1: bool = False) -> str:
    """The k/n table(s) of one summary as markdown (what `widthbench score` prints); with
    ``table1``, only the paper's Table 1 rows (`table1_rows`, what `widthbench demo` prints)."""
    out = []
    for (run, model, domain, sim), rows in _groups(table1_rows(summary) if table1 else all_rows(summary)).items():
        out.append(_title(run, model, domain, sim))
        out += _md_table(_cells(rows), _kn)
        out.append("")

    for sub, why in (summary.get("not_built") or {}).items():
        out.append(f"Not built: {sub}: {not_built_reason(sub, why)}")
    return "\n".join(out).rstrip() + "\n"


# ---------------------------------------------------------------------------------------------
# Error analysis


def error_analysis(records: list[dict], top: int = 8) -> dict:
    """The most frequent mistakes per sub-task, over all modes (see docs/subtasks.md)."""
    by_sub: dict[str, list[dict]] = {}
    for r in records:
        if not r.get("request_error"):
            by_sub.setdefault(r["subtask"], []).append(r)
    out = {}
    for sub, recs in by_sub.items():
        c: dict[str, Counter] = {}

        def bump(kind: str, key: str, n: int = 1) -> None:
            c.setdefault(kind, Counter())[key] += n

        record = _registry().get(sub) if sub in _registry() else None
        for r in recs:
            if r.get("parse_error"):
                bump("parse errors", re.sub(r"'[^']*'", "'…'", r["parse_error"])[:90])
            strict = (r.get("readings") or {}).get("strict")
            if strict is not None and strict.get("parse_error") and not r.get("parse_error"):
                rule = (r["readings"].get("flexible") or {}).get("rule") or "?"
                if isinstance(rule, list):  # one rule per reply (successor-separate)
                    rule = ", ".join(dict.fromkeys(x for x in rule if x)) or "?"
                bump("read only by the flexible reader (rule)", rule)
            if r.get("parsed") is None or record is None or record.errors is None:
                continue
            record.errors(r, bump)
        out[sub] = {kind: cnt.most_common(top) for kind, cnt in c.items()}
        out[sub]["_items"] = len(recs)
        out[sub]["_unread"] = [{"cell": cell.name, "unread": sum(e["count"] for e in reasons), "reasons": reasons}
                               for cell, reasons in unread_by_reason(recs).items()]
    return out


def _errors_md(analysis: dict) -> list[str]:
    lines = ["## Error analysis (all modes together; most frequent first)", ""]
    if not analysis:
        lines.append("No answered items.")
    for sub, kinds in analysis.items():
        lines.append(f"### {sub} ({kinds.get('_items', 0)} item-modes)")
        shown = False
        for kind, pairs in kinds.items():
            if kind in ("_items", "_unread") or not pairs:
                continue
            shown = True
            lines.append(f"- {kind}: " + "; ".join(f"{k} ×{n}" for k, n in pairs))
        for cell in kinds.get("_unread", []):
            shown = True
            lines.append(f"- unread answers, {cell['cell']}: {cell['unread']}, by the reason the reader gave up:")
            for e in cell["reasons"]:
                ex = e["example"]
                lines.append(f"  - {e['reason']} ×{e['count']} (e.g. item {ex['item_id']}: "
                             f"{' '.join(ex['parse_error'].split())[:200]})")
        if not shown:
            lines.append("- no mistakes")
        lines.append("")
    return lines


# ---------------------------------------------------------------------------------------------
# Writing


def write_report(runs, out: str | Path | None = None, figures: bool = True) -> list[Path]:
    """The score report of loaded runs (`subtasks.loader.Run`) or run folders; returns the files.
    ``figures``: also draw table.png and table.pdf (matplotlib: about a second; `widthbench report`
    draws them with --figures, report.html draws the chart in the page either way)."""
    runs = [r for r in as_runs(runs) if r.kind == "score"]
    if not runs:
        raise ValueError("no score runs")
    dest = make_output_dir(out if out is not None else runs[0].dir)
    rows = [r for run in runs for r in run.rows()]
    simulated = any(run.simulated for run in runs)

    md = ["# widthbench sub-task scores" + (" — SIMULATED" if simulated else ""), ""]
    if simulated:
        md += ["**These results come from a simulated model (sim:...), not from an LLM.**", ""]
    md.append("Runs: " + ", ".join(f"{run.label} ({run.dir})" if run.label != run.name else run.dir
                                   for run in runs))
    md.append("")
    # --obfuscate runs name their renaming
    md += [line for run in runs for line in report_lines(run.summary, run.label)]
    analyses = {}
    records = {run.label: run.records for run in runs}
    for (run, model, domain, sim), grp in _groups(rows).items():
        title = _title(run if len(runs) > 1 else "", model, domain, sim)
        table = _cells(grp)
        md += [f"## {title}", "", "Correct / items (Table 1 layout; parse errors count as wrong):", ""]
        md += _md_table(table, _kn)
        md += ["", "Accuracy with Wilson 95% confidence interval:", ""]
        md += _md_table(table, _acc)
        md += ["", "Parse errors (answers that could not be read):", ""]
        md += _md_table(table, lambda r: str(r["parse_errors"]) + (f" (+{r['request_errors']} failed requests)"
                                                                   if r.get("request_errors") else ""))
        md += ["", "Mean tokens per item (prompt / completion / thinking):", ""]
        md += _md_table(table, _tok)
        md.append("")
        mine = [r for r in records[run] if r.get("model") == model and r.get("domain") == domain]
        analysis = error_analysis(mine)
        analyses[title] = analysis
        md += _errors_md(analysis)
    md += ["Headline for action generation: `exact` (the full set of applicable actions, no-op moves "
           "included, as PDDL semantics make them applicable); `exact-no-noop` ignores actions whose "
           "successor is the state itself.",
           "",
           "Readers: the headline rows use the reader named in the run (`flexible` by default: it finds "
           "the answer inside a real reply, never guessing); rows marked `[strict reader]` use today's "
           "format rules, the format-compliance measure (docs/subtasks.md, \"Readers\").", ""]
    paths = []
    p = dest / "table.md"
    p.write_text("\n".join(md), encoding="utf-8")
    paths.append(p)

    p = dest / "table.csv"
    with open(p, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["run", "model", "domain", "simulated", "sub-task"] + [c[2] for c in COLUMNS])
        for (run, model, domain, sim), grp in _groups(rows).items():
            for name, cols in _cells(grp).items():
                w.writerow([run, model, domain, sim, name] + [_kn(cols[(s, t)]) if (s, t) in cols else ""
                                                               for s, t, _ in COLUMNS])
    paths.append(p)

    p = dest / "rows.csv"
    keys = list(dict.fromkeys(k for r in rows for k in r))
    with open(p, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=["run", "label"] + [k for k in keys if k != "run"])
        w.writeheader()
        for r in sorted(rows, key=lambda r: (r["run"], sort_key(r))):
            w.writerow({"label": label(r), **r})
    paths.append(p)

    p = dest / "errors.json"
    p.write_text(json.dumps(analyses, indent=2) + "\n", encoding="utf-8")
    paths.append(p)

    if figures:
        p = dest / "table.png"
        _chart(rows, p, several=len(runs) > 1)
        paths += [p, p.with_suffix(".pdf")]  # the same chart as PDF (_chart writes both)
    return paths


def _chart(rows: list[dict], path: Path, several: bool = False) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    groups = list(_groups(rows).items())
    n_rows = max(len(_cells(g, secondary=False)) for _, g in groups)
    fig, axes = plt.subplots(len(groups), 1, figsize=(11, 0.55 * n_rows * len(groups) + 1.9 * len(groups)),
                             squeeze=False)
    colours = ("#4c72b0", "#55a868", "#dd8452", "#c44e52")
    for ax, ((run, model, domain, sim), grp) in zip(axes[:, 0], groups):
        table = _cells(grp, secondary=False)
        names = list(table)
        height = 0.8 / len(COLUMNS)
        for c, (style, think, col_name) in enumerate(COLUMNS):
            ys, xs, lo, hi = [], [], [], []
            for i, name in enumerate(names):
                r = table[name].get((style, think))
                if r is None or not r["n"]:
                    continue
                ys.append(i + (c - 1.5) * height)
                xs.append(r["accuracy"])
                lo.append(r["accuracy"] - r["ci_low"])
                hi.append(r["ci_high"] - r["accuracy"])
            ax.barh(ys, xs, height=height, color=colours[c], label=col_name, xerr=[lo, hi],
                    error_kw={"elinewidth": 0.8, "capsize": 2})
        ax.set_yticks(range(len(names)))
        ax.set_yticklabels(names, fontsize=8)
        ax.invert_yaxis()
        ax.set_xlim(0, 1)
        ax.set_xlabel("accuracy (bars); whiskers: Wilson 95% interval")
        ax.set_title(_title(run if several else "", model, domain, sim), fontsize=10)
        ax.legend(fontsize=7, ncol=4, loc="upper center", bbox_to_anchor=(0.5, -0.09), frameon=False)
    fig.tight_layout()
    for p in (path, path.with_suffix(".pdf")):
        fig.savefig(p, dpi=110, bbox_inches="tight")
    plt.close(fig)
