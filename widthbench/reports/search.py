"""Reports of solve runs (summary.json kind "solve"): the paper's Table 3/4 layout and Figures 2-3.

    write_report(run_dir)                  # one run
    write_report([run1, run2, ...], out)   # several configurations side by side
    write_report([Run, ...], out)          # loaded runs (`subtasks.loader`), as `widthbench report` gives them

Writes, into ``out`` (default: the first run folder):

- ``search_table.md`` / ``search_table.csv``: the paper's Table 3/4 layout. Rows: search (DFS, BFS,
  MCTS, CaT, naive) x method (Direct, ESA); columns: Normal / Thinking x Base / Nov. pruning (llm)
  / Oracle pruning, each with Perf. (solved/n) and ATU (average tokens used per instance, prompt +
  completion, thinking included). Runs with other settings (LLM verification, engine hooks, other
  domains) get rows of their own; runs that would fill the same cell (two models, two seeds, a
  prompt extension on and off) get a row each, its ``Run`` column naming the identity fields they
  differ in. No cell holds two runs.
- ``search_runs.md`` / ``search_runs.csv``: every run in one line, by its label: solved, mean states, mean tokens, pruned, dead nodes,
  calls, false goals (goals claimed by an LLM verifier that the engine rejects), tokens per purpose.
- ``search_success_tokens.png`` (Figure 2: success vs average tokens per configuration) and
  ``search_states.png`` (Figure 3: distribution of generated states per instance).

Simulated runs are labelled "simulated" in every title.
"""

from __future__ import annotations

import csv
from pathlib import Path

from collections import Counter

from widthbench.core.errors import UserError
from widthbench.core.runfiles import make_output_dir
from widthbench.subtasks.results.loader import as_runs, differing_fields, flatten, shown
from widthbench.searches.graph import run_state_counts
from widthbench.searches.registry import MethodRegistry

# the methods' names in the tables and their order, from the search-method registry (searches/methods/)
SEARCH_NAMES = MethodRegistry.default().labels()
SEARCH_ORDER = MethodRegistry.default().label_order()
NOVELTY_NAMES = {"off": "Base", "llm": "Nov. pruning", "oracle": "Oracle pruning"}


# identity fields the Table 3/4 layout shows as its rows and columns
TABLE_FIELDS = ("method", "mapping", "novelty", "thinking", "verify", "actions", "successors", "domain")


def summaries_of(runs) -> list[dict]:
    """The solve runs' summaries with ``_dir``, ``_label`` (the run's label) and ``_run``: what
    tells apart the runs that would share a Table 3/4 cell ("" when none do; `_contexts`)."""
    runs = [r for r in as_runs(runs) if r.kind == "solve"]
    out = [{**r.summary, "_dir": r.dir, "_label": r.label} for r in runs]
    for s, ctx in zip(out, _contexts(out, [r.identity for r in runs])):
        s["_run"] = ctx
    return out


def _contexts(summaries: list[dict], identities: list[dict]) -> list[str]:
    """Per run, the identity fields outside the table's axes that tell apart runs sharing a cell."""
    cells = [(_row_key(s), _col_key(s)) for s in summaries]
    if len(set(cells)) == len(cells):
        return [""] * len(cells)
    outside = [{k: v for k, v in flatten(i).items() if k.split(".")[-1] not in TABLE_FIELDS} for i in identities]
    fields = differing_fields(outside)
    ctx = [", ".join(f"{k} {shown(o.get(k))}" for k in fields) for o in outside]
    clash = Counter(zip(cells, ctx))
    return [c if clash[(cell, c)] == 1 else (f"{c}, {s['_label']}" if c else s["_label"])
            for cell, c, s in zip(cells, ctx, summaries)]


def atu(x) -> str:
    """Average tokens as the paper prints them: 950, 9.5k, 95k, 1.2M."""
    if x is None:
        return "–"
    if x >= 1e6:
        return f"{x / 1e6:.1f}M"
    if x >= 1e3:
        return f"{x / 1e3:.0f}k" if x >= 1e4 else f"{x / 1e3:.1f}k"
    return f"{x:.0f}"


def _row_key(s: dict) -> tuple:
    c = s["config"]
    search = SEARCH_NAMES.get(c["method"], c["method"])
    hooks = MethodRegistry.default().uses_hooks(c["method"])
    if c["method"] == "naive":
        method = "Naive"
    elif not hooks:  # a closed-loop method: its own settings tell its rows apart
        method = ", ".join(f"{k} {v}" for k, v in (c.get("settings") or {}).items()) or "-"
    else:
        method = "Direct" if c["mapping"] == "direct" else "ESA"
    extras = []
    if hooks:
        if c.get("verify", "engine") != "engine":
            extras.append("verify llm")
        if c.get("actions", "llm") != "llm":
            extras.append("engine actions")
        if c.get("successors", "llm") != "llm" and c["mapping"] == "esa":
            extras.append("engine successors")
    if extras:
        method += f" ({', '.join(extras)})"
    return (s.get("_run", ""), s.get("domain") or "", search, method)


def _col_key(s: dict) -> tuple:
    c = s["config"]
    return ("Thinking" if c.get("thinking") else "Normal",
            "Base" if not MethodRegistry.default().uses_hooks(c["method"]) else NOVELTY_NAMES.get(c["novelty"], c["novelty"]))


def layout(summaries: list[dict]) -> dict:
    """The Table 3/4 layout: {"header", "rows", "cell_runs" (per row and column, the index of the
    summary in that cell or None), "lead" (the columns before the cells)}. Raises if two summaries
    would share a cell (`summaries_of` keys them apart)."""
    modes = [m for m in ("Normal", "Thinking") if any(_col_key(s)[0] == m for s in summaries)]
    novs = [n for n in NOVELTY_NAMES.values() if any(_col_key(s)[1] == n for s in summaries)]
    cols = [(m, n) for m in modes for n in novs]
    cells: dict[tuple, int] = {}
    for i, s in enumerate(summaries):
        key = (_row_key(s), _col_key(s))
        if key in cells:
            raise ValueError(f"two solve runs in one Table 3/4 cell: {summaries[cells[key]].get('_dir')} "
                             f"and {s.get('_dir')}")
        cells[key] = i
    rows_keys = sorted({_row_key(s) for s in summaries},
                       key=lambda k: (k[0], k[1], SEARCH_ORDER.index(k[2]) if k[2] in SEARCH_ORDER else 99, k[3]))
    with_run = any(k[0] for k in rows_keys)
    multi_domain = len({k[1] for k in rows_keys}) > 1
    header = (["Run"] if with_run else []) + (["Domain"] if multi_domain else []) + ["Search", "Method"]
    lead = len(header)
    for m, n in cols:
        header += [f"{m} {n} Perf.", f"{m} {n} ATU"]
    rows, cell_runs = [], []
    for rk in rows_keys:
        row = ([rk[0]] if with_run else []) + ([rk[1]] if multi_domain else []) + [rk[2], rk[3]]
        line = [cells.get((rk, col)) for col in cols]
        for i in line:
            row += ["–", "–"] if i is None else [f"{summaries[i]['solved']}/{summaries[i]['n']}",
                                                 atu(summaries[i].get("mean_tokens"))]
        rows.append(row)
        cell_runs.append(line)
    return {"header": header, "rows": rows, "cell_runs": cell_runs, "lead": lead}


def table(summaries: list[dict]) -> tuple[list[str], list[list[str]]]:
    """(header, rows) of the Table 3/4 layout."""
    got = layout(summaries)
    return got["header"], got["rows"]


def _markdown(header: list[str], rows: list[list[str]]) -> str:
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(str(x) for x in r) + " |" for r in rows]
    return "\n".join(out) + "\n"


def runs_table(summaries: list[dict]) -> tuple[list[str], list[list[str]]]:
    header = ["Run", "Configuration", "n", "Solved", "Mean states", "Mean pruned", "Mean dead",
              "Mean calls", "Mean tokens", "False goals", "Tokens per purpose (mean)"]
    rows = []
    for s in summaries:
        per = ", ".join(f"{p} {atu(v.get('mean_tokens'))}" for p, v in s.get("tokens_by_purpose", {}).items())
        rows.append([s.get("_label") or Path(s["_dir"]).name, s.get("label", ""), s["n"], f"{s['solved']}/{s['n']}",
                     s.get("mean_states"), s.get("mean_pruned"), s.get("mean_dead"), s.get("mean_calls"),
                     atu(s.get("mean_tokens")), s.get("false_goals", 0), per])
    return header, rows


def short(s: dict) -> str:
    c = s["config"]
    if c["method"] == "naive":
        label = "naive"
    elif not MethodRegistry.default().uses_hooks(c["method"]):
        label = " ".join([c["method"], *(f"{k}-{v}" for k, v in (c.get("settings") or {}).items())])
    else:
        label = f"{SEARCH_NAMES.get(c['method'], c['method'])} {'Direct' if c['mapping'] == 'direct' else 'ESA'} {NOVELTY_NAMES[c['novelty']]}"
    return label + (" (T)" if c.get("thinking") else "") + (f" [{s['_run']}]" if s.get("_run") else "")


def states_per_instance(summary: dict) -> list[int]:
    """Figure 3's generated states per instance, counted on the run's GraphML search trees
    (`searches.graph.run_state_counts`); the summary's own list for runs without trees."""
    counts = run_state_counts(summary["_dir"]) if summary.get("_dir") else {}
    wanted = summary.get("instances") or sorted(counts)
    if not counts or any(i not in counts for i in wanted):
        return list(summary.get("states_per_instance") or [])
    return [counts[i]["generated"] for i in wanted]


def figures(summaries: list[dict], out: Path, title_tag: str) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    written = []
    markers = {"off": "o", "llm": "s", "oracle": "^"}
    fig, ax = plt.subplots(figsize=(10, 5.5))
    colours = plt.get_cmap("tab20").colors
    groups = sorted({(s["config"]["method"], s["config"]["mapping"]) for s in summaries})
    for s in summaries:
        c = s["config"]
        x, y = s.get("mean_tokens") or 0, s.get("success_rate") or 0
        colour = colours[groups.index((c["method"], c["mapping"])) % len(colours)]
        nov = "off" if c["method"] == "naive" else c["novelty"]
        ax.scatter([max(x, 1)], [100 * y], marker=markers.get(nov, "o"), s=60,
                   facecolors="none" if c.get("thinking") else colour, edgecolors=colour,
                   label=f"{short(s)}: {s['solved']}/{s['n']}, {atu(s.get('mean_tokens'))}")
    ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5), frameon=False)
    ax.set_xscale("log")
    ax.set_xlabel("average tokens per instance (log scale)")
    ax.set_ylabel("solved instances (%)")
    ax.set_ylim(-5, 105)
    ax.set_title(f"Success vs token cost per configuration{title_tag}\n"
                 "(circle: no pruning, square: LLM novelty, triangle: oracle novelty; hollow: thinking)", fontsize=10)
    ax.grid(alpha=0.3)
    written += _save(fig, out / "search_success_tokens")

    novelty_order = list(NOVELTY_NAMES)
    searched = sorted((s for s in summaries if s["config"]["method"] != "naive"),
                      key=lambda s: (SEARCH_ORDER.index(SEARCH_NAMES.get(s["config"]["method"], "Naive")),
                                     s["config"]["mapping"], bool(s["config"].get("thinking")),
                                     novelty_order.index(s["config"]["novelty"])))
    if searched:
        fig, ax = plt.subplots(figsize=(min(14, max(6, 0.45 * len(searched) + 2)), 5.5))
        data = [states_per_instance(s) or [0] for s in searched]
        ax.boxplot(data, showmeans=True)
        ax.set_xticks(range(1, len(searched) + 1))
        ax.set_xticklabels([short(s) for s in searched], rotation=45, ha="right", fontsize=7)
        # the axis report.html draws too (report.js fig3): log10(1 + states), ticks states_ticks
        ax.set_yscale("function", functions=(_log1p, _expm1))
        ax.set_yticks(states_ticks(max(max(d) for d in data)))
        ax.set_yticklabels([str(t) for t in states_ticks(max(max(d) for d in data))])
        ax.set_ylim(0, states_ticks(max(max(d) for d in data))[-1])
        ax.set_ylabel("generated states per instance (log scale)")
        ax.set_title(f"Distribution of generated states per instance{title_tag}", fontsize=10)
        ax.grid(alpha=0.3, axis="y")
        written += _save(fig, out / "search_states")
    return written


# ---- figure files and Figure 3's axis (issue 32) ----
FIGURE_FORMATS = ("png", "pdf")


def _save(fig, stem: Path) -> list[Path]:
    """``stem``.png and .pdf of a figure, cropped to everything drawn (legends outside the axes
    included, so no label is cut off)."""
    import matplotlib.pyplot as plt

    paths = []
    for ext in FIGURE_FORMATS:
        p = stem.with_suffix(f".{ext}")
        fig.savefig(p, dpi=120, bbox_inches="tight")
        paths.append(p)
    plt.close(fig)
    return paths


def _log1p(x):
    import numpy as np

    return np.log10(1 + np.maximum(x, 0))


def _expm1(y):
    import numpy as np

    return 10 ** np.asarray(y) - 1


def states_ticks(top: float) -> list[int]:
    """Figure 3's ticks, the same in the PNG/PDF and report.html: 0, 1, 3, 10, 30, ... up to the
    first at or above ``top``."""
    ticks, step = [0, 1], 0
    while ticks[-1] < top:
        ticks.append((3, 10)[step % 2] * 10 ** (step // 2))
        step += 1
    return ticks
# ---- end figure files ----


# ---- closed-loop runs (solve --method feedback / agent; issue 42) ----
FEEDBACK_COLUMNS = (("solved", "Solved"), ("n", "n"), ("solved_round_1", "Round 1"),
                    ("mean_rounds_to_success", "Rounds to success"), ("tokens_per_solved", "Tokens per solved"),
                    ("mean_progress", "Progress"))
AGENT_COLUMNS = (("solved", "Solved"), ("n", "n"), ("invalid_action_rate", "Invalid-action rate"),
                 ("invalid_actions", "Invalid actions"), ("recoveries", "Recoveries"),
                 ("steps_over_optimal", "Steps over optimal"), ("mean_turns", "Turns"),
                 ("tokens_per_solved", "Tokens per solved"), ("mean_progress", "Progress"))


def closed_loop_tables(summaries: list[dict]) -> dict[str, tuple[list[str], list[list]]]:
    """{"feedback": (header, rows), "agent": (header, rows)}: one row per run of that method, by its
    label, with its own measures (rows of the feedback table add "Within N": solved by the last
    round); methods without runs are left out."""
    out = {}
    for method, columns in (("feedback", FEEDBACK_COLUMNS), ("agent", AGENT_COLUMNS)):
        mine = [s for s in summaries if s["config"]["method"] == method]
        if not mine:
            continue
        header = ["run"] + [label for _, label in columns]
        rows = [[s["_label"]] + [s.get(k) for k, _ in columns] for s in mine]
        if method == "feedback":
            header.append("Within N")
            for s, r in zip(mine, rows):
                r.append(f"{(s.get('solved_by_round') or [None])[-1]} (N = {len(s.get('solved_by_round') or [])})")
        out[method] = (header, rows)
    return out


def rounds_figure(summaries: list[dict], out: Path, title_tag: str) -> list[Path]:
    """Success by round of the feedback runs: % solved by round k, one line per run."""
    mine = [s for s in summaries if s["config"]["method"] == "feedback" and s.get("solved_by_round")]
    if not mine:
        return []
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 5))
    for s in mine:
        by = s["solved_by_round"]
        ax.plot(range(1, len(by) + 1), [100 * k / s["n"] for k in by], marker="o", label=f"{s['_label']}: {by[-1]}/{s['n']}")
    ax.set_xlabel("round")
    ax.set_ylabel("solved by this round (%)")
    ax.set_ylim(-5, 105)
    ax.set_title(f"Validator feedback: success by round{title_tag}", fontsize=10)
    ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5), frameon=False)
    ax.grid(alpha=0.3)
    return _save(fig, out / "search_rounds")


def _closed_loop_files(summaries: list[dict], out_dir: Path, tag: str) -> list[Path]:
    tables = closed_loop_tables(summaries)
    if not tables:
        return []
    md = [f"# Closed-loop runs{tag}", "",
          "Feedback: solved/n, solved in round 1, mean rounds to success, tokens per solved instance, mean "
          "progress (1 - h*(s_k)/h*(s_0)). Agent: invalid-action rate (invalid turns / turns), recoveries "
          "(an error, then the goal), mean steps over optimal (solved instances).", ""]
    p_csv = out_dir / "closed_loop.csv"
    with p_csv.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        for method, (header, rows) in tables.items():
            md += [f"## {method}", "", _markdown(header, [["–" if v is None else str(v) for v in r] for r in rows]), ""]
            w.writerow(["method"] + header)
            for r in rows:
                w.writerow([method] + r)
    p_md = out_dir / "closed_loop.md"
    p_md.write_text("\n".join(md), encoding="utf-8")
    return [p_md, p_csv]


def write_report(runs, out=None, figures_asked: bool = False) -> list[Path]:
    """Write the search report of one run folder or a list of them; returns the files written.
    ``figures_asked`` (`report --figures`): also the closed-loop figure (success by round)."""
    runs = [r for r in as_runs(runs) if r.kind == "solve"]
    if not runs:
        raise UserError("no solve run folders given")
    summaries = summaries_of(runs)
    out_dir = make_output_dir(out if out is not None else runs[0].dir)
    simulated = any(s.get("simulated") for s in summaries)
    tag = " (simulated)" if simulated else ""
    models = sorted({s.get("model", "") for s in summaries})
    header, rows = table(summaries)
    md = [f"# Search results{tag}", "",
          f"Model(s): {', '.join(models)}{' — simulated model' if simulated else ''}. "
          "Perf. = solved/n (every counted plan validated by the engine); ATU = average tokens per "
          "instance (prompt + completion, thinking included, novelty calls included).", "",
          _markdown(header, rows)]
    p_table = out_dir / "search_table.md"
    p_table.write_text("\n".join(md), encoding="utf-8")
    p_csv = out_dir / "search_table.csv"
    with p_csv.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        # the run column: the Run column when runs share cells, else the labels of the row's runs
        got = layout(summaries)
        run_col = header[:1] == ["Run"]
        w.writerow(["run"] + header[1 if run_col else 0:] + ["simulated"])
        for r, line in zip(rows, got["cell_runs"]):
            names = "; ".join(summaries[i]["_label"] for i in line if i is not None)
            w.writerow(([] if run_col else [names]) + r + [simulated])
    rh, rr = runs_table(summaries)
    p_runs = out_dir / "search_runs.md"
    p_runs.write_text(f"# Search runs{tag}\n\n" + _markdown(rh, rr), encoding="utf-8")
    p_runs_csv = out_dir / "search_runs.csv"
    with p_runs_csv.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["run"] + rh[1:] + ["simulated", "folder"])
        for s, r in zip(summaries, rr):
            w.writerow(r + [bool(s.get("simulated")), s["_dir"]])
    return ([p_table, p_csv, p_runs, p_runs_csv] + _closed_loop_files(summaries, out_dir, tag)
            + figures(summaries, out_dir, tag) + (rounds_figure(summaries, out_dir, tag) if figures_asked else []))
