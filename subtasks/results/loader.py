"""Run folders as a report reads them: each loaded once, labelled by how its identity differs.

    load_runs(["runs/s1", "runs/s2"]) -> [Run, Run]   labels "seed 1" / "seed 2"
    load_run("runs/s1") -> Run                         one run, labelled by its folder name
    as_runs(runs_or_dirs) -> [Run, ...]                loaded runs pass through; folders are loaded

A `Run` holds the folder, its kind (score, solve, widths, rescore or traces:
`widthbench.core.schema.RUN_KINDS`), its identity (config.json's "identity";
a solve run that predates it: its model, search configuration and instance source), summary.json,
the records of items.jsonl (score: the latest per item and mode; solve: the latest per instance),
tokens.json and config.json. Every report writer (the tables of `subtasks.report`, the
difficulty curves, the search tables and report.html) takes these runs, so `widthbench report`
parses each file once and every table, csv and chart is keyed by the same ``label``.

A folder written by `solve --thinking both` holds no summary.json but one run per thinking mode
(``thinking-on``, ``thinking-off``): it stands for those runs.

Labels (`run_labels`): the identity fields (nested dicts flattened with dotted keys) whose values
differ between the runs of one kind, as "field value" joined by ", " -- "seed 1" / "seed 2",
"model sim:noisy:0.1" / "model sim:oracle". Runs with equal identities are told apart by their
folder names (made unique); a run alone is labelled by its folder name.
"""

from __future__ import annotations

import dataclasses
import json
from collections import Counter
import re
import os
from dataclasses import dataclass, field
from pathlib import Path

from widthbench.core.runfiles import load_summary, read_jsonl
from widthbench.core.runstore import flatten, latest_records  # the run store's: identities compared alike
from widthbench.core.schema import RUN_KINDS, migrate, migrate_record
from widthbench.subtasks.results.rows import all_rows
from widthbench.subtasks.score_run import read_records

KINDS = tuple(RUN_KINDS)
SUMMARY = "summary.json"
THINKING_PARTS = ("thinking-off", "thinking-on")
# config.json fields of a solve run that describe it without deciding an answer
_SOLVE_NOT_IDENTITY = ("kind", "simulated", "instances", "config", "source")
# summary.json "config" fields of a score run's grid, beside its identity
_SCORE_GRID = ("subtasks", "styles", "thinking", "prompt_extension", "reader", "request_seeds")


@dataclass(frozen=True)
class Run:
    """One run folder, loaded (see the module docstring)."""

    dir: str
    kind: str
    identity: dict
    summary: dict
    records: list = field(repr=False)
    tokens: dict | None = field(default=None, repr=False)
    config: dict | None = field(default=None, repr=False)
    label: str = ""

    @property
    def name(self) -> str:
        return Path(self.dir).name or self.dir

    @property
    def simulated(self) -> bool:
        return bool(self.summary.get("simulated"))

    def rows(self) -> list[dict]:
        """A score run's summary rows (every reader's), each with the run's label as ``run``."""
        return [{"run": self.label, **r} for r in all_rows(self.summary)]


def _read_json(path: Path) -> dict | None:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return None


def identity_of(kind: str, config: dict | None, summary: dict | None = None) -> dict:
    """What identifies a run: config.json's "identity"; a solve run without one: its model, its
    search configuration and where its instances came from (the configuration wins a clash). A
    score run adds the grid its summary was made with (sub-tasks, styles, thinking, prompt
    extension, reader, request seeds): a rerun may extend the grid, but two runs with other grids
    are told apart by it."""
    config = config or {}
    if isinstance(config.get("identity"), dict):
        grid = {}
        if kind == "score":
            made = (summary or {}).get("config") or {}
            grid = {k: made[k] for k in _SCORE_GRID if k in made and k not in config["identity"]}
        return {**config["identity"], **grid}
    if kind == "solve":
        rest = {k: v for k, v in config.items() if k not in _SOLVE_NOT_IDENTITY}
        return {**rest, **(config.get("source") or {}), **(config.get("config") or {})}
    return {}


def load_run(run_dir: str | os.PathLike, label: str | None = None) -> Run:
    """One run folder of any kind (`widthbench.core.schema.RUN_KINDS`), every file parsed once and
    read through the one migration (`widthbench.core.schema.migrate`: a folder of an earlier layout
    is read as this one, a layout this widthbench cannot read is refused in one line)."""
    run_dir = Path(run_dir)
    kind, config, summary = migrate(run_dir, _read_json(run_dir / "config.json"), load_summary(run_dir))
    # the latest record per key: per item and mode (score), per instance (solve: a resumed run may
    # ask again); a kind that lists its results apart (widths.jsonl) is read whole
    declared = RUN_KINDS[kind]
    where = run_dir / declared.shown
    if kind == "score":
        records = read_records(run_dir)
    elif declared.listed:
        records = [migrate_record(r, where) for r in read_jsonl(where)]
    else:
        records = latest_records(where, declared.key_of, check=declared.check)
    if kind == "score":  # decided here once; every writer reads summary["headline_reader"]
        summary = {**summary, "headline_reader": headline_reader(summary, records)}
    return Run(dir=str(run_dir), kind=kind, identity=identity_of(kind, config, summary), summary=summary,
               records=records, tokens=_read_json(run_dir / "tokens.json"), config=config,
               label=label if label is not None else (run_dir.name or str(run_dir)))


def headline_reader(summary: dict, records: list[dict]) -> str | None:
    """The reader whose rows a score run's tables show first, decided once per run: the one the
    summary names (``headline_reader``, or the ``reader`` of a run made before it), else the reader
    most of its records name, else flexible if its rows have it, else the first its rows name;
    None for rows that name no reader (a run made before there were two)."""
    readers = [r.get("reader") for r in summary.get("rows", []) if r.get("reader")]
    if not readers:
        return None
    named = summary.get("headline_reader") or summary.get("reader")
    if isinstance(named, str):
        return named
    from_records = Counter(r.get("reader") for r in records if r.get("reader"))
    if from_records:
        return from_records.most_common(1)[0][0]
    return "flexible" if "flexible" in readers else readers[0]


def run_folders(run_dir: str | os.PathLike) -> list[Path]:
    """The run folders ``run_dir`` stands for: itself, or the thinking-mode runs of a
    `solve --thinking both` folder."""
    run_dir = Path(run_dir)
    if not (run_dir / SUMMARY).is_file():
        parts = [run_dir / p for p in THINKING_PARTS if (run_dir / p / SUMMARY).is_file()]
        if parts:
            return parts
    return [run_dir]


def load_runs(run_dirs) -> list[Run]:
    """The runs of ``run_dirs`` (a `solve --thinking both` folder counts as its two runs), each
    labelled by how its identity differs from the other runs of its kind (`run_labels`)."""
    runs = [load_run(p) for d in run_dirs for p in run_folders(d)]
    return label_runs(runs)


def as_runs(runs_or_dirs) -> list[Run]:
    """Loaded runs as they are; run folders loaded (`load_runs`)."""
    if isinstance(runs_or_dirs, (str, os.PathLike, Run)):
        runs_or_dirs = [runs_or_dirs]
    items = list(runs_or_dirs)
    if all(isinstance(r, Run) for r in items):
        return items
    if any(isinstance(r, Run) for r in items):
        raise TypeError("give loaded runs or run folders, not both")
    return load_runs(items)


def label_runs(runs: list[Run]) -> list[Run]:
    labels = [""] * len(runs)
    for kind in KINDS:
        idx = [i for i, r in enumerate(runs) if r.kind == kind]
        mine = run_labels([runs[i].identity for i in idx], [runs[i].name for i in idx])
        for i, text in zip(idx, mine):
            labels[i] = text
    return [dataclasses.replace(r, label=text) for r, text in zip(runs, labels)]


def shown(value) -> str:
    if isinstance(value, bool):
        return "on" if value else "off"
    if value is None:
        return "none"
    if isinstance(value, (list, tuple)):
        return ",".join(shown(v) for v in value) if len(value) <= 6 else f"[{len(value)} values]"
    if isinstance(value, dict):
        return "{}" if not value else json.dumps(value, sort_keys=True)
    return str(value)


def differing_fields(identities: list[dict]) -> list[str]:
    """The flattened identity fields whose values are not the same in every identity (a field
    missing from some counts as differing), in the order they first appear."""
    flat = [flatten(i) for i in identities]
    keys = list(dict.fromkeys(k for f in flat for k in f))
    return [k for k in keys if len({json.dumps(f.get(k, "\0missing"), sort_keys=True, default=str)
                                    for f in flat}) > 1]


_DIGEST = re.compile(r"[0-9a-f]{16}")


def _is_digest(key: str, flat: list[dict]) -> bool:
    return all(isinstance(f.get(key), str) and _DIGEST.fullmatch(f[key]) for f in flat if key in f)


def _short_name(key: str, keys: list[str]) -> str:
    """The shortest dotted suffix of ``key`` that no other field ends with (``items.seed`` -> ``seed``)."""
    parts = key.split(".")
    for n in range(1, len(parts)):
        tail = ".".join(parts[-n:])
        if not any(k != key and (k == tail or k.endswith("." + tail)) for k in keys):
            return tail
    return key


def run_labels(identities: list[dict], names: list[str]) -> list[str]:
    """One label per run: the fields its identity differs in, with its values (see the module
    docstring); folder names where the identities do not tell the runs apart."""
    if len(identities) < 2:
        return list(names)
    fields = differing_fields(identities)
    flat = [flatten(i) for i in identities]
    # Digests of files (prompt templates, context, instances) follow from a setting that differs
    # (another domain has another context): they name the difference only where nothing else does.
    settings = [k for k in fields if not _is_digest(k, flat)]
    fields = settings or fields
    every = [k for k in dict.fromkeys(k for f in flat for k in f) if k in fields or not _is_digest(k, flat)]
    # one setting recorded twice (a solve run's seed seeds the instances and the search): named once
    shown_as: dict[str, str] = {}
    for k in fields:
        leaf = k.rsplit(".", 1)[-1]
        twin = next((o for o in shown_as if o.rsplit(".", 1)[-1] == leaf
                     and all(f.get(o) == f.get(k) for f in flat)), None)
        if twin is not None:
            shown_as[twin] = leaf
        else:
            shown_as[k] = _short_name(k, every)
    labels = [", ".join(f"{name} {shown(f.get(k))}" for k, name in shown_as.items()) for f in flat]
    if not fields or len(set(labels)) < len(labels):
        labels = [f"{text} ({n})" if text else n for text, n in zip(labels, names)]
    seen: dict[str, int] = {}
    out = []
    for text in labels:
        seen[text] = seen.get(text, 0) + 1
        out.append(text if seen[text] == 1 else f"{text} #{seen[text]}")
    return out
