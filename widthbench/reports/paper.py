"""The paper's tables as paper-ready files (`widthbench report RUN --format md|csv|latex`).

    write_paper(runs, out, formats=("latex",), reader=None) -> [Path, ...]

From the loaded runs (`subtasks.loader.Run`) and the summary rows they carry (score runs:
`subtasks.results`; solve runs: `searches.results`, laid out by `widthbench.reports.search.layout`),
it writes, per format (``md``, ``csv``, ``tex``):

- ``paper-table1.FMT``: Table 1, the headline only: one row per sub-task metric counted per item
  (the summary's ``headline`` metric for a sub-task that names one, e.g. action generation's
  ``exact``), prompt extension off, read by the run's headline reader (``reader="strict"``: the
  strict reader's rows); columns Standard / Natural Language x Normal / Thinking. Each cell:
  accuracy, k/n and the Wilson 95% interval of the summary row.
- ``paper-table2.FMT``: Table 2 on its own: the sub-tasks asked with and without the prompt
  extension (action-single), one row per metric and extension setting.
- ``paper-table3.FMT``: Tables 3-5 from solve runs: rows search x mapping, columns Normal / Thinking x
  novelty setting, each with Perf. (solved/n, Wilson 95% interval) and ATU (average tokens per
  instance).

Several runs: every table has one block of rows per run, headed by its label (score), or the
``Run`` column of `search.layout` (solve runs sharing a cell). Nothing here counts: every number is
a field of a summary row. Simulated runs say so in every caption and title.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

from widthbench.core.errors import UserError
from widthbench.reports import search
from widthbench.core.runfiles import make_output_dir
from widthbench.subtasks.results.loader import as_runs
from widthbench.subtasks.results.tables import COLUMNS, headline_metric, label, sort_key
from widthbench.subtasks.results.cells import Cell

FORMATS = ("md", "csv", "latex")
SUFFIX = {"md": "md", "csv": "csv", "latex": "tex"}
READERS = ("flexible", "strict")


def parse_formats(text: str) -> tuple[str, ...]:
    """``"md,latex"`` as ("md", "latex"); a value outside `FORMATS` is one line."""
    got = tuple(dict.fromkeys(x.strip() for x in text.split(",") if x.strip()))
    bad = [x for x in got if x not in FORMATS]
    if not got or bad:
        raise UserError(f"--format {bad[0] if bad else text!r}: choose from {', '.join(FORMATS)} "
                        "(a comma-separated list writes each)")
    return got


# ---------------------------------------------------------------------------------------------
# Score runs: Tables 1 and 2, as blocks of (label, cells) per run, model and domain


def _reader_of(run, reader: str | None) -> str:
    # decided once by the loader (subtasks.results.loader.headline_reader); None only for a run made
    # before there were two readers, whose rows are the strict reader's
    head = run.summary.get("headline_reader") or "strict"
    if reader is None:
        return head
    readers = run.summary.get("readers") or [head]
    if reader not in readers:
        raise UserError(f"--reader {reader}: run {run.dir} was read by {', '.join(readers)} only "
                        "(widthbench rescore reads it again)")
    return reader


def _rows(run, reader: str | None) -> list[dict]:
    want = _reader_of(run, reader)
    head = run.summary.get("headline_reader") or "strict"
    return [r for r in run.rows() if r.get("reader", head) == want and headline_metric(r, run.summary)]


def _blocks(runs, reader: str | None, table: int) -> list[dict]:
    """[{"title", "run", "model", "domain", "simulated", "lines": [(label, extension, {col: row})]}]."""
    blocks = []
    for run in runs:
        groups: dict[tuple, list[dict]] = {}
        for r in _rows(run, reader):
            groups.setdefault((r["model"], r.get("domain") or ""), []).append(r)
        for (model, domain), rows in groups.items():
            extended = {r["subtask"] for r in rows if r.get("extension")}
            if table == 1:
                mine = [r for r in rows if not r.get("extension")]
            else:
                mine = [r for r in rows if r["subtask"] in extended]
            if not mine:
                continue
            lines: dict[tuple, dict] = {}
            for r in sorted(mine, key=lambda r: (sort_key({**r, "extension": False}), bool(r.get("extension")))):
                name = label({**r, "extension": False, "_secondary": False})
                cells = lines.setdefault((name, bool(r.get("extension"))), {})
                col = Cell.of(r).column
                if col in cells:  # never two rows in one cell
                    raise ValueError(f"two summary rows for {name} {col} in run {run.label}")
                cells[col] = r
            blocks.append({"run": run.label, "model": model, "domain": domain, "simulated": run.simulated,
                           "lines": [(n, ext, c) for (n, ext), c in lines.items()]})
    return blocks


def _columns(blocks) -> list[tuple]:
    used = {col for b in blocks for _, _, cells in b["lines"] for col in cells}
    return [c for c in COLUMNS if (c[0], c[1]) in used]


def _block_title(b: dict, several: bool) -> str:
    return ((f"{b['run']}: " if several else "") + ("SIMULATED model " if b["simulated"] else "")
            + f"{b['model']} on {b['domain']}")


def _pct(x) -> str:
    return "n/a" if x is None else f"{100 * x:.0f}"


def _score_cell_text(r: dict | None) -> str:
    if r is None:
        return "—"
    if not r["n"]:
        return "n/a (0/0)"
    return (f"{_pct(r['accuracy'])}% ({r['correct']}/{r['n']}) [{_pct(r['ci_low'])}–{_pct(r['ci_high'])}]"
            + (f"; progress {r['mean_progress']:.2f}" if r.get("mean_progress") is not None else ""))


# the partial credit of plans (docs/subtasks.md, "Partial credit"), in the csv when a row has it
PROGRESS_FIELDS = ("mean_progress", "progress_ci_low", "progress_ci_high")


def _score_cell_tex(r: dict | None) -> str:
    if r is None:
        return "--"
    if not r["n"]:
        return r"n/a {\scriptsize 0/0}"
    return (f"{_pct(r['accuracy'])}\\% {{\\scriptsize {r['correct']}/{r['n']} "
            f"[{_pct(r['ci_low'])}, {_pct(r['ci_high'])}]"
            + (f"; progress {r['mean_progress']:.2f}" if r.get("mean_progress") is not None else "") + "}")


def _ext_name(ext: bool) -> str:
    return "on" if ext else "off"


def _score_tables(runs, reader, table: int, fmt: str) -> str | None:
    blocks = _blocks(runs, reader, table)
    if not blocks:
        return None
    cols = _columns(blocks)
    several = len({b["run"] for b in blocks}) > 1 or len(blocks) > 1
    simulated = any(b["simulated"] for b in blocks)
    readers = sorted({_reader_of(run, reader) for run in runs})
    what = ("Table 1: sub-task accuracy (headline metrics)" if table == 1
            else "Table 2: the prompt extension off and on")
    extra = ["Extension"] if table == 2 else []
    if fmt == "csv":
        buf = io.StringIO()
        w = csv.writer(buf)
        head = ["run", "model", "domain", "simulated", "reader", "sub-task"] + [x.lower() for x in extra]
        credit = any(r.get("mean_progress") is not None for b in blocks for _, _, c in b["lines"] for r in c.values())
        fields = ("correct", "n", "accuracy", "ci_low", "ci_high") + (PROGRESS_FIELDS if credit else ())
        for _, _, name in cols:
            head += [f"{name} {k}" for k in fields]
        w.writerow(head)
        for b in blocks:
            for name, ext, cells in b["lines"]:
                line = [b["run"], b["model"], b["domain"], b["simulated"], ", ".join(readers), name]
                line += [_ext_name(ext)] if table == 2 else []
                for s, t, _ in cols:
                    r = cells.get((s, t))
                    line += [""] * len(fields) if r is None else [r.get(k, "") for k in fields]
                w.writerow(line)
        return buf.getvalue()
    note = (f"Cells: accuracy % (correct/n) [Wilson 95% interval, %]; parse errors count as wrong"
            + ("; progress: the mean partial credit of the plans, 1 - h*(s_k)/h*(s_0). "
               if any(r.get("mean_progress") is not None for b in blocks for _, _, c in b["lines"] for r in c.values())
               else ". ") +
            f"Reader: {', '.join(readers)}.")
    if fmt == "md":
        out = [f"# {what}" + (" — SIMULATED" if simulated else ""), ""]
        if simulated:
            out += ["**Simulated model (sim:...), not an LLM.**", ""]
        out += [note, ""]
        for b in blocks:
            out += [f"## {_block_title(b, several)}", ""]
            out.append("| Sub-task | " + " | ".join(extra + [c[2] for c in cols]) + " |")
            out.append("|---|" + "---|" * (len(extra) + len(cols)))
            for name, ext, cells in b["lines"]:
                vals = ([_ext_name(ext)] if table == 2 else []) + [_score_cell_text(cells.get((s, t)))
                                                                   for s, t, _ in cols]
                out.append(f"| {name} | " + " | ".join(vals) + " |")
            out.append("")
        return "\n".join(out)
    # LaTeX (booktabs)
    ncols = 1 + len(extra) + len(cols)
    styles = [st for st in ("pddl", "nl") if any(c[0] == st for c in cols)]
    style_name = {"pddl": "Standard", "nl": "Natural Language"}
    lines = [r"\begin{table}[t]", r"\centering", r"\small",
             r"\begin{tabular}{l" + "c" * len(extra) + "r" * len(cols) + "}", r"\toprule"]
    top, rules, start = ["Sub-task"] + extra, [], 2 + len(extra)
    for st in styles:
        k = sum(1 for c in cols if c[0] == st)
        top.append(f"\\multicolumn{{{k}}}{{c}}{{{style_name[st]}}}")
        rules.append(f"\\cmidrule(lr){{{start}-{start + k - 1}}}")
        start += k
    lines.append(" & ".join(top) + r" \\")
    lines.append(" ".join(rules))
    lines.append(" & ".join([""] * (1 + len(extra)) + ["Thinking" if t == "on" else "Normal" for _, t, _ in cols])
                 + r" \\")
    lines.append(r"\midrule")
    for i, b in enumerate(blocks):
        if several:
            if i:
                lines.append(r"\midrule")
            lines.append(f"\\multicolumn{{{ncols}}}{{l}}{{\\textit{{{_tex(_block_title(b, True))}}}}} \\\\")
        for name, ext, cells in b["lines"]:
            vals = [_tex(name)] + ([_ext_name(ext)] if table == 2 else [])
            vals += [_score_cell_tex(cells.get((s, t))) for s, t, _ in cols]
            lines.append(" & ".join(vals) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}"]
    models = sorted({b["model"] for b in blocks})
    cap = (f"{what}{' (SIMULATED model)' if simulated else ''}, {_tex(', '.join(models))}. "
           f"{_tex(note)}")
    lines += [f"\\caption{{{cap}}}", f"\\label{{tab:widthbench-{'table1' if table == 1 else 'table2'}}}",
              r"\end{table}", ""]
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# Solve runs: Tables 3-5


def _perf_text(s: dict) -> str:
    lo, hi = s["solved_ci"]  # the solve summary's (`searches.summary`), computed from the records
    return f"{s['solved']}/{s['n']} [{_pct(lo)}–{_pct(hi)}]"


def _perf_tex(s: dict) -> str:
    lo, hi = s["solved_ci"]
    return f"{s['solved']}/{s['n']} {{\\scriptsize [{_pct(lo)}, {_pct(hi)}]}}"


def solve_columns(summaries: list[dict]) -> list[tuple[str, str]]:
    """(mode, novelty) of the layout's cell columns, in its order (each a Perf. and an ATU column)."""
    got = search.layout(summaries)
    heads = got["header"][got["lead"]::2]
    return [tuple(h.removesuffix(" Perf.").split(" ", 1)) for h in heads]


def _solve_table(runs, fmt: str) -> str | None:
    solve = [r for r in runs if r.kind == "solve"]
    if not solve:
        return None
    summaries = search.summaries_of(solve)
    got = search.layout(summaries)
    lead_head = got["header"][:got["lead"]]
    cols = solve_columns(summaries)
    simulated = any(s.get("simulated") for s in summaries)
    models = sorted({s.get("model", "") for s in summaries})
    what = "Tables 3-5: tree searches"
    note = ("Perf. = solved/n [Wilson 95% interval, %], every counted plan validated by the engine; "
            "ATU = average tokens per instance (prompt + completion, thinking and novelty calls included).")
    lines_ = list(zip(got["rows"], got["cell_runs"]))
    if fmt == "csv":
        buf = io.StringIO()
        w = csv.writer(buf)
        head = ["run"] + [h.lower() for h in lead_head if h != "Run"] + ["model", "simulated"]
        for m, n in cols:
            head += [f"{m} {n} {k}" for k in ("solved", "n", "ci_low", "ci_high", "mean_tokens")]
        w.writerow(head)
        for row, cells in lines_:
            lead = row[:got["lead"]]
            run_col = lead[0] if lead_head[:1] == ["Run"] else "; ".join(
                summaries[i]["_label"] for i in cells if i is not None)
            rest = lead[1:] if lead_head[:1] == ["Run"] else lead
            used = [summaries[i] for i in cells if i is not None]
            line = [run_col] + rest + ["; ".join(sorted({s.get("model", "") for s in used})),
                                       any(s.get("simulated") for s in used)]
            for i in cells:
                if i is None:
                    line += ["", "", "", "", ""]
                    continue
                s = summaries[i]
                line += [s["solved"], s["n"], *s["solved_ci"], s.get("mean_tokens")]
            w.writerow(line)
        return buf.getvalue()
    if fmt == "md":
        out = [f"# {what}" + (" — SIMULATED" if simulated else ""), ""]
        if simulated:
            out += ["**Simulated model (sim:...), not an LLM.**", ""]
        out += [f"Model(s): {', '.join(models)}. {note}", ""]
        head = lead_head + [f"{m} {n} {k}" for m, n in cols for k in ("Perf.", "ATU")]
        out.append("| " + " | ".join(head) + " |")
        out.append("|" + "---|" * len(head))
        for row, cells in lines_:
            vals = list(row[:got["lead"]])
            for i in cells:
                vals += ["–", "–"] if i is None else [_perf_text(summaries[i]), search.atu(summaries[i].get("mean_tokens"))]
            out.append("| " + " | ".join(str(v) for v in vals) + " |")
        return "\n".join(out) + "\n"
    modes = list(dict.fromkeys(m for m, _ in cols))
    ncols = len(lead_head) + 2 * len(cols)
    lines = [r"\begin{table*}[t]", r"\centering", r"\small",
             r"\begin{tabular}{" + "l" * len(lead_head) + "rr" * len(cols) + "}", r"\toprule"]
    top, rules, start = list(lead_head), [], len(lead_head) + 1
    for m in modes:
        k = 2 * sum(1 for c in cols if c[0] == m)
        top.append(f"\\multicolumn{{{k}}}{{c}}{{{m}}}")
        rules.append(f"\\cmidrule(lr){{{start}-{start + k - 1}}}")
        start += k
    lines += [" & ".join(_tex(x) if "multicolumn" not in x else x for x in top) + r" \\", " ".join(rules)]
    second, rules, start = [""] * len(lead_head), [], len(lead_head) + 1
    for _, n in cols:
        second.append(f"\\multicolumn{{2}}{{c}}{{{_tex(n)}}}")
        rules.append(f"\\cmidrule(lr){{{start}-{start + 1}}}")
        start += 2
    lines += [" & ".join(second) + r" \\", " ".join(rules)]
    lines.append(" & ".join([""] * len(lead_head) + ["Perf.", "ATU"] * len(cols)) + r" \\")
    lines.append(r"\midrule")
    for row, cells in lines_:
        vals = [_tex(str(x)) for x in row[:got["lead"]]]
        for i in cells:
            vals += ["--", "--"] if i is None else [_perf_tex(summaries[i]),
                                                    _tex(search.atu(summaries[i].get("mean_tokens")))]
        lines.append(" & ".join(vals) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}",
              f"\\caption{{{what}{' (SIMULATED model)' if simulated else ''}, {_tex(', '.join(models))}. "
              f"{_tex(note)}}}", r"\label{tab:widthbench-searches}", r"\end{table*}", ""]
    return "\n".join(lines)


_TEX = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
        "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "–": "--", "—": "---",
        "×": r"$\times$"}


def _tex(text: str) -> str:
    return "".join(_TEX.get(ch, ch) for ch in str(text))


# ---------------------------------------------------------------------------------------------


def write_paper(runs, out, formats=("latex",), reader: str | None = None) -> list[Path]:
    """The paper's tables of the loaded runs in each of ``formats``; returns the files written."""
    runs = as_runs(runs)
    score = [r for r in runs if r.kind == "score"]
    if reader is not None and not score:
        raise UserError("--reader applies to score runs (Tables 1 and 2)")
    dest = make_output_dir(out)
    paths = []
    for fmt in formats:
        tables = {"paper-table1": _score_tables(score, reader, 1, fmt) if score else None,
                  "paper-table2": _score_tables(score, reader, 2, fmt) if score else None,
                  "paper-table3": _solve_table(runs, fmt)}
        for name, text in tables.items():
            if text is None:
                continue
            p = dest / f"{name}.{SUFFIX[fmt]}"
            p.write_text(text, encoding="utf-8")
            paths.append(p)
    return paths
