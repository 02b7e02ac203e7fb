"""Harness logs read back as widthbench score runs (`widthbench report LOGS [RUN ...]`, docs/inspect.md).

A log of the tasks widthbench exports holds, per sample, which item was asked, in which mode, and
the reply text. `import_log(path)` turns one into a run folder the way `widthbench score` would have
recorded the same replies: each item's replies are read again by the current readers and judged on
the engine (`score.score_item`, through `run`'s own record builder), the summary rows are
`run.summarise`'s, and the folder (items.jsonl, summary.json) is written beside the log, as
``<log>.widthbench``. A log made with an older widthbench is thus judged by the readers of this one;
the verdicts the harness logged are not read.

lm-eval: the ``--output_path`` folder of ``lm_eval ... --log_samples`` (``samples_<task>_<time>.jsonl``
and ``results_<time>.json``, in a folder per model) of a `widthbench export lm-eval` folder. A
sample's ``doc`` is the exported row (the item as JSON, its style, which request of the item it is);
the thinking mode is the one its request carried (``chat_template_kwargs``); the reply is ``resps``.
The problems the items ask about are read from the export folder, which lm-eval records in the
task's ``custom_dataset``. lm-eval logs no reasoning and no token counts: those fields stay empty.

inspect_ai: a log file (``.eval`` or ``.json``) or a folder of them, of the `widthbench/<sub_task>`
tasks or of a `widthbench export inspect` folder. The replies (text, reasoning, stop reason, token
usage) are in each sample's store; the items are read from the export folder the task's metadata
names, or built again from the task's arguments as `score` builds them (same seeds, same truth),
and a sample whose logged truth differs from the item's is refused.

Several runs in one log folder become one run; they must be of one model. A later log of the same
task and item replaces an earlier one.
"""

from __future__ import annotations

import json
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from widthbench.core.errors import UserError, listed
from widthbench.generators.domains import DomainRegistry
from widthbench.llm.types import Reply
from widthbench.core.runfiles import read_jsonl
from widthbench.subtasks.items import item_to_json
from widthbench.subtasks import item_ids
from widthbench.subtasks.harness import frozen
from widthbench.subtasks.registry import Registry
from widthbench.core.runstore import RunStore
from widthbench.subtasks.results.rows import summarise
from widthbench.subtasks.score_run import SUMMARY, TOKENS, ScoreConfig, answer_record, build_all_items, record_key, run_ledger
from widthbench.subtasks.scoring import Mode, requests_for

SUFFIX = ".widthbench"  # the imported run folder: <log><SUFFIX>
LM_EVAL, INSPECT = "lm-eval", "inspect"
_PATH_IN_REPR = re.compile(r"PosixPath\('([^']*)'\)|WindowsPath\('([^']*)'\)")


@dataclass(frozen=True)
class Asked:
    """One item asked in one mode, as a log recorded it: its requests' messages and replies."""
    item: object  # subtasks.items.Item
    mode: Mode
    messages: list  # per request: the chat messages sent
    replies: list  # per request: Reply
    max_tokens: int | None


@dataclass(frozen=True)
class _Model:
    """What `score_run.answer_record` reads of a model: its name and whether it is simulated."""
    spec: str
    simulated: bool


def harness_of(path: str | Path) -> str | None:
    """"lm-eval" or "inspect" when ``path`` is such a log (file or folder), None otherwise (a run
    folder of widthbench's own, or anything else, is left to the report)."""
    p = Path(path)
    if p.is_dir():
        if (p / SUMMARY).is_file():
            return None
        if any(p.rglob("samples_*.jsonl")) and any(p.rglob("results_*.json")):
            return LM_EVAL
        if any(_inspect_files(p)):
            return INSPECT
        return None
    if p.is_file() and _is_inspect_file(p):
        return INSPECT
    return None


def _is_inspect_file(p: Path) -> bool:
    if p.suffix == ".eval":
        return True
    if p.suffix != ".json":
        return False
    try:
        with open(p, encoding="utf-8") as f:
            head = f.read(4096)
    except (OSError, UnicodeDecodeError):
        return False
    return head.lstrip().startswith("{") and '"eval"' in head and '"version"' in head


def _inspect_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.is_file() and not _inside_import(p, folder)
                  and (p.suffix == ".eval" or (p.suffix == ".json" and re.match(r"^\d{4}-\d{2}-\d{2}T", p.name)
                                                and _is_inspect_file(p))))


def _inside_import(p: Path, root: Path) -> bool:
    return any(part.endswith(SUFFIX) for part in p.relative_to(root).parts[:-1])


def imported_folder(path: str | Path) -> Path:
    p = Path(path)
    return p.parent / (p.name + SUFFIX)


def import_runs(paths, registry: Registry | None = None) -> list[str]:
    """``paths`` with each harness log replaced by its imported run folder (`import_log`), in order."""
    out = []
    for path in paths:
        harness = harness_of(path)
        out.append(str(path) if harness is None else str(import_log(path, harness, registry=registry)))
    return out


def import_log(path, harness: str | None = None, *, out=None, registry: Registry | None = None) -> Path:
    """Re-judge the replies of a harness log and write them as a score run folder (default
    ``<log>.widthbench``); returns the folder."""
    registry = registry or Registry.default()
    harness = harness or harness_of(path)
    if harness == LM_EVAL:
        model, asked, source = _lm_eval(Path(path), registry)
    elif harness == INSPECT:
        model, asked, source = _inspect(Path(path), registry)
    else:
        raise UserError(f"{path}: not an lm-eval --log_samples folder nor an inspect log")
    if not asked:
        raise UserError(f"{path}: the {harness} log holds no sample of a widthbench task")
    records = [_as_record(a, model, registry) for a in asked]
    summary = summarise(records, model_spec=model.spec, simulated=model.simulated, registry=registry)
    subtasks = list(dict.fromkeys(r["subtask"] for r in records))
    summary.update({"config": {"model": model.spec, "harness": harness, "log": str(Path(path).resolve()),
                               "subtasks": subtasks, **source,
                               "styles": sorted({r["style"] for r in records}),
                               "thinking": sorted({"on" if r["thinking"] else "off" for r in records})},
                    "not_built": {}, "imported": {"harness": harness, "log": str(Path(path).resolve()),
                                                  "items": len(records)}})
    dest = Path(out) if out is not None else imported_folder(path)
    if dest.exists() and (not dest.is_dir() or any(dest.iterdir())):
        if not _is_import(dest):
            raise UserError(f"{dest} exists and is not a run imported from a harness log; move it away")
        shutil.rmtree(dest)
    # the run store, like a score run: identity (the log's harness, model and settings), records,
    # summary and the ledger of the logged calls
    store = RunStore.open(dest, kind="score", identity={"model": model.spec, "harness": harness, **source},
                          described={"log": str(Path(path).resolve())}, key=record_key,
                          what="imported run folder")
    store.append(records)
    store.finish(summary, run_ledger(records, store.run_id))
    return store.path


def _is_import(folder: Path) -> bool:
    try:
        return "imported" in json.loads((folder / SUMMARY).read_text(encoding="utf-8"))
    except (OSError, ValueError, TypeError):
        return False


def _as_record(a: Asked, model: _Model, registry) -> dict:
    """The record `score` writes for these replies (`score_run.answer_record`), with the messages the harness sent."""
    requests = requests_for(a.item, a.mode, None, a.max_tokens, registry=registry)
    if len(requests) != len(a.replies):
        raise UserError(f"{a.item.id} ({a.mode.label}): the log holds {len(a.replies)} replies, "
                        f"the item asks {len(requests)} requests")
    rec = answer_record(a.item, a.mode, requests, a.replies, model, registry=registry)
    rec["prompt"] = a.messages[0] if len(a.messages) == 1 else a.messages
    if a.mode.thinking and all(r.reasoning is None and r.thinking_tokens is None for r in a.replies):
        rec.pop("thinking_produced", None)  # the harness did not log it (lm-eval reads content only)
    return rec


def _simulated(name: str) -> bool:
    """A model served by `widthbench sim-server` (its names are sim:...)."""
    return name.startswith("sim:")


# ---------------------------------------------------------------------------------------------
# lm-eval


def _lm_eval(folder: Path, registry) -> tuple[_Model, list[Asked], dict]:
    results = sorted(folder.rglob("results_*.json"), key=lambda p: p.name)
    models: set[str] = set()
    samples: dict[tuple, list[dict]] = {}  # (task, item id) -> its rows, latest run last
    exports: dict[str, Path] = {}
    for res in results:
        try:
            meta = json.loads(res.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise UserError(f"{res}: not an lm-eval results file ({exc})") from None
        args = (meta.get("config") or {}).get("model_args") or {}
        if isinstance(args, str):
            args = dict(kv.split("=", 1) for kv in args.split(",") if "=" in kv)
        stamp = res.stem.removeprefix("results_")
        for task, conf in (meta.get("configs") or {}).items():
            if not task.startswith("widthbench_"):
                continue
            models.add(str(args.get("model") or meta.get("model_name") or "unknown"))
            exports[task] = _export_folder(conf, res, task)
            for path in res.parent.glob(f"samples_{task}_{stamp}.jsonl"):
                by_item: dict[str, list[dict]] = {}
                for row in read_jsonl(path):
                    by_item.setdefault(row["doc"]["item_id"], []).append(row)
                for item_id, rows in by_item.items():
                    samples[(task, item_id)] = sorted(rows, key=lambda r: r["doc"]["part"])
    if len(models) > 1:
        raise UserError(f"{folder}: lm-eval runs of several models ({listed(sorted(models))}); "
                        "give each model's folder as its own LOG")
    model = next(iter(models), "unknown")
    asked = []
    for (task, _), rows in sorted(samples.items()):
        doc = rows[0]["doc"]
        item = frozen.item_of_row(exports[task], doc)
        gen = _gen_kwargs(rows[0])
        thinking = (gen.get("chat_template_kwargs") or {}).get("enable_thinking")
        thinking = task.endswith("_think") if thinking is None else bool(thinking)
        max_tokens = gen.get("max_gen_toks")
        replies = [Reply(text=_lm_eval_reply(r), thinking_tokens=None, model=model, simulated=_simulated(model),
                         max_tokens=max_tokens) for r in rows]
        asked.append(Asked(item, Mode(doc["style"], thinking), [_lm_eval_messages(r) for r in rows], replies,
                           max_tokens))
    folders = sorted({str(p.resolve()) for p in exports.values()})
    return _Model(f"lm-eval:{model}", _simulated(model)), asked, {"items": folders}


def _export_folder(conf: dict, res: Path, task: str) -> Path:
    """The export folder of an lm-eval task: the path in its custom_dataset (utils.py's partial)."""
    m = _PATH_IN_REPR.search(str(conf.get("custom_dataset") or ""))
    candidates = [Path(m.group(1) or m.group(2))] if m else []
    source = (conf.get("metadata") or {}).get("config_source")
    if source:
        candidates.append(Path(source).parent)
    for c in candidates:
        if (c / frozen.EXPORT_FILE).is_file():
            return c
    raise UserError(f"{res}: task {task} was run from an export folder that is not here "
                    f"({listed(candidates, 100) or 'none recorded'}); its problems are needed "
                    "to judge the replies")


def _gen_kwargs(row: dict) -> dict:
    args = (row.get("arguments") or {}).get("gen_args_0") or {}
    kwargs = args.get("arg_1")
    return kwargs if isinstance(kwargs, dict) else {}


def _lm_eval_messages(row: dict) -> list:
    args = (row.get("arguments") or {}).get("gen_args_0") or {}
    prompt = args.get("arg_0")
    prompt = prompt[0] if isinstance(prompt, list) else prompt
    try:
        messages = json.loads(prompt)
    except (TypeError, json.JSONDecodeError):
        return [{"role": "user", "content": str(prompt)}]
    return messages if isinstance(messages, list) else [{"role": "user", "content": str(prompt)}]


def _lm_eval_reply(row: dict) -> str:
    resps = row.get("resps")
    if resps and isinstance(resps[0], list) and resps[0]:
        return resps[0][0] or ""
    filtered = row.get("filtered_resps")
    return (filtered[0] if filtered else "") or ""


# ---------------------------------------------------------------------------------------------
# inspect_ai


def _inspect(path: Path, registry) -> tuple[_Model, list[Asked], dict]:
    try:
        from inspect_ai.log import read_eval_log
    except ImportError:
        raise UserError(f"{path}: reading an inspect log needs inspect-ai "
                        "(pip install 'widthbench[inspect]')") from None
    files = [path] if path.is_file() else _inspect_files(path)
    models: set[str] = set()
    latest: dict[tuple, Asked] = {}
    folders: set[str] = set()
    for f in files:
        try:
            log = read_eval_log(str(f))
        except Exception as exc:  # inspect raises many kinds on a file that is not its log
            raise UserError(f"{f}: not a readable inspect log ({type(exc).__name__}: {exc})") from None
        info = (log.eval.metadata or {}).get("widthbench")
        if not info:
            continue
        models.add(log.eval.model)
        items = _inspect_items(info, f, registry)
        if info.get("items"):
            folders.add(info["items"])
        name = log.eval.model.split("/", 2)[-1]
        for sample in log.samples or []:
            asked = _inspect_sample(sample, info, items, name, f)
            if asked is not None:
                latest[(log.eval.task, asked.item.id)] = asked
    if len(models) > 1:
        raise UserError(f"{path}: inspect logs of several models ({listed(sorted(models))}); "
                        "give each model's logs as their own LOG")
    model = next(iter(models), "unknown")
    return (_Model(f"inspect:{model}", _simulated(model.split("/", 2)[-1])), list(latest.values()),
            {"items": sorted(folders)})


def _inspect_items(info: dict, f: Path, registry) -> dict:
    """Item id -> item of a logged widthbench task: its frozen set, or built again from its settings."""
    sub = info["subtask"]
    if info.get("items"):
        folder = Path(info["items"])
        if not (folder / frozen.EXPORT_FILE).is_file():
            raise UserError(f"{f}: its items were read from {folder}, which is not here; "
                            "their problems are needed to judge the replies")
        if frozen.read_export(folder).get("items_digest") != info.get("items_digest"):
            raise UserError(f"{f}: the items of {folder} differ from those the log asked (items_digest)")
        return _by_id(frozen.read_items(folder, [sub])[sub])
    s = info.get("settings") or {}
    builtin = s.get("domain") in DomainRegistry.default()
    config = ScoreConfig(subtasks=(sub,), count=int(s["count"]), seed=int(s["seed"]),
                         domain=s["domain"] if builtin else "blocksworld", instances=s.get("instances"),
                         domain_file=None if builtin else s.get("domain"),
                         invalid_kind=s.get("invalid_kind", "non-goal"))
    return _by_id(build_all_items(config, registry)[sub])


def _by_id(items: list) -> dict:
    """Item id -> item, by the stable id and by the id by place a log made before it holds
    (`item_ids.positional_id`)."""
    return {**{item_ids.positional_id(i.subtask, i.index): i for i in items}, **{i.id: i for i in items}}


def _inspect_sample(sample, info: dict, items: dict, model: str, f: Path) -> Asked | None:
    meta = sample.metadata or {}
    replies = (sample.store or {}).get("widthbench_replies")
    if not replies or "item_id" not in meta:
        return None  # a sample that failed before its replies came (an error, not an answer)
    item = items.get(meta["item_id"])
    if item is None:
        raise UserError(f"{f}: sample {sample.id} asks item {meta['item_id']}, which the items do not hold")
    truth = json.dumps(item_to_json(item)["truth"], sort_keys=True)
    if sample.target != truth:
        raise UserError(f"{f}: sample {sample.id}: the logged truth differs from item {item.id}'s")
    out = []
    for r in replies:
        usage = r.get("usage") or {}
        out.append(Reply(text=r.get("text") or "", reasoning=r.get("reasoning"),
                         prompt_tokens=int(usage.get("input_tokens") or 0),
                         completion_tokens=int(usage.get("output_tokens") or 0),
                         thinking_tokens=usage.get("reasoning_tokens"),
                         finish_reason=_FINISH.get(r.get("stop_reason"), r.get("stop_reason")),
                         model=model, simulated=_simulated(model), max_tokens=meta.get("max_tokens")))
    messages = [[{"role": "system", "content": s}, {"role": "user", "content": u}] for s, u in meta["requests"]]
    return Asked(item, Mode(meta["style"], bool(meta["thinking"])), messages, out, meta.get("max_tokens"))


# inspect's stop reasons in the OpenAI finish_reason words score records
_FINISH = {"max_tokens": "length", "model_length": "length"}
