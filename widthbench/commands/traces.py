"""`widthbench traces RUN | FILE.json`: verify the reasoning traces of a run or of a PlanBench result file."""

from __future__ import annotations

HELP = "verify the thinking of a run (items.jsonl) or of a PlanBench result file against the engine"
DESCRIPTION = HELP + """. Every trace (a record's 'reasoning', a PlanBench entry's 'reasoning_content')
is read into claims (actions, facts, the goal) that are judged on the engine; prints per trace the
claims checked, the coverage and the first error, and per cell (sub-task x mode) the state-tracking
accuracy, the share of traces with an error, where errors start and how the first error relates to the
final answer. --out DIR writes traces.jsonl and summary.json (docs/traces.md)."""


def add_arguments(p) -> None:
    p.add_argument("source", metavar="RUN|FILE.json",
                   help="a run folder (its items.jsonl) or a PlanBench result file (.json)")
    p.add_argument("--instances", metavar="DIR",
                   help="PlanBench file: PlanBench's data root (each file read in its variant's words, as "
                        "rescore planbench does), or the folder of its instance-N.pddl files")
    p.add_argument("--domain", metavar="NAME|FILE",
                   help="PlanBench file: the domain (default: the domain file beside the instances, else the "
                        "built-in domain the file names)")
    p.add_argument("--chain-of-thought", action="store_true",
                   help="also verify answers that hold no thinking (a chain-of-thought answer)")
    p.add_argument("--out", metavar="DIR", help="write traces.jsonl and summary.json here")
    p.add_argument("--quiet", action="store_true", help="print the summary only, not one line per trace")


def run(args) -> int:
    from pathlib import Path

    from widthbench.core.errors import UserError
    from widthbench.core.runfiles import check_output_dir
    from widthbench.subtasks.traces import summarise_traces
    from widthbench.subtasks.traces.lines import summary_lines, trace_line
    from widthbench.subtasks.traces.sources import planbench_traces

    if args.out:
        check_output_dir(args.out, "--out")
    src = Path(args.source)
    if src.is_dir():
        records = run_traces(src, chain_of_thought=args.chain_of_thought)
    elif src.exists():  # a file, or what reads like one (/dev/null): the reader says what it holds
        if not args.instances:
            raise UserError(f"{src}: a PlanBench result file needs --instances DIR")
        records = planbench_traces(src, args.instances, args.domain, args.chain_of_thought)
    else:
        raise UserError(f"not found: {src} (a run folder or a PlanBench result file)")
    summary = summarise_traces(records)
    if any(r.get("simulated") for r in records):
        summary["simulated"] = True
    if not args.quiet:
        for rec in records:
            print(trace_line(rec))
    for line in summary_lines(summary):
        print(line)
    if args.out:
        from widthbench.subtasks.traces.aggregate import write_traces

        out = write_traces(args.out, records, summary, traces_identity(args))
        print(f"wrote {out}/traces.jsonl and {out}/summary.json")
    return 0


def traces_identity(args) -> dict:
    """What decides a `traces --out` folder's records: the source (by its path), where its tasks
    come from and whether answers without thinking are verified."""
    from pathlib import Path

    return {"source": str(Path(args.source).resolve()), "instances": args.instances, "domain": args.domain,
            "chain_of_thought": bool(args.chain_of_thought)}


def run_traces(run_dir, chain_of_thought: bool = False) -> list[dict]:
    """One record per thinking trace of a run: the run record's identity fields and its ``trace``.

    The task of each record is rebuilt from its prompt (the prompt reader of the simulated models,
    which reads every widthbench prompt back into its task and state); a record holding several
    replies gives one trace per reply that thinks."""
    import json
    from pathlib import Path

    from widthbench.core.errors import ParseError, UserError
    from widthbench.simulated import Simulator
    from widthbench.subtasks.score_run import read_records
    from widthbench.subtasks.traces import verify_trace

    items = Path(run_dir) / "items.jsonl"
    if not items.is_file():
        raise UserError(f"{run_dir}: no items.jsonl (not a run folder)")
    config_file = Path(run_dir) / "config.json"
    config = json.loads(config_file.read_text(encoding="utf-8")) if config_file.is_file() else {}
    if config.get("kind") == "solve":
        return solve_traces(run_dir, bool(config.get("identity", {}).get("search", {}).get("thinking")))
    reader = Simulator().reader
    out = []
    for rec in read_records(run_dir):
        prompts = rec.get("prompt")
        texts = rec.get("reasoning")
        answers = rec.get("raw_answer")
        if isinstance(prompts, list) and prompts and isinstance(prompts[0], dict):
            prompts, texts, answers = [prompts], [texts], [answers]
        for k, (messages, text) in enumerate(zip(prompts or [], texts or [None] * len(prompts or []))):
            thought = bool(text)
            if not text and chain_of_thought:
                text = (answers or [None] * (k + 1))[k]
            if not isinstance(text, str) or not text.strip():
                continue
            try:
                q = reader.read(list(messages))
                task = q.task if q is not None and q.family == "subtask" else None
            except (ValueError, ParseError, UserError):
                task = None
            keys = {key: rec.get(key) for key in ("subtask", "item_id", "mode", "style", "thinking", "model",
                                                   "simulated", "correct")}
            if "sample" in rec:  # score --samples N: one record per sample
                keys["sample"] = rec["sample"]
            injected = rec.get("injected") if thought else None
            if len(prompts) > 1:
                keys["reply"] = k
                injected = injected[k] if isinstance(injected, list) else None
            if injected is not None:
                keys["injected"] = injected  # what the simulated model put into its thinking on purpose
            if task is None:
                out.append({**keys, "trace": None, "trace_error": "the prompt could not be read back into a task"})
                continue
            out.append({**keys, "trace": verify_trace(task, text, style=q.style, templates=q.renderer.templates,
                                                      final_answer_correct=rec.get("correct"))})
    return out


def solve_traces(run_dir, thinking: bool) -> list[dict]:
    """One record per checked reasoning trace of a solve run: the checks `solve` recorded with each
    instance (a call's thinking, or with ``thinking`` off a chain of thought before its answer, is
    checked from the state its question was about, which only the search knew), with the instance,
    call, purpose and the run's mode; a trace not checked (a question about several states) is left
    out."""
    from widthbench.llm.types import mode_name
    from widthbench.searches.solve_run import read_items

    out = []
    for it in read_items(run_dir):
        for t in it.get("trace") or ():
            if t is not None:
                out.append({"subtask": t["purpose"], "item_id": f"{it['id']}#call{t['call'] + 1}",
                            "mode": mode_name(thinking), "simulated": it.get("simulated"), "trace": t})
    return out
