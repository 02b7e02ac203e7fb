"""`widthbench rescore planbench`: every answer of the result files judged (in chunks on the
executor), the counts and rounds summarised, and the outputs written through the run store."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable

from widthbench.core.errors import UserError
from widthbench.core.runstore import RunStore
from widthbench.subtasks import flexible
from widthbench.subtasks.identity import READER_VERSION, path_digest
from widthbench.subtasks.planbench.files import ResultFile, load_result_file
from widthbench.subtasks.planbench.judge import READERS, AnswerResult, counts, disagreement, judge
from widthbench.subtasks.planbench.problems import Instances
from widthbench.subtasks.traces import summarise_traces

RESCORE_CHUNK = 50  # answers judged per executor call (each worker grounds the problems it meets)


def rounds_summary(rf: ResultFile, results: list[AnswerResult]) -> dict:
    """A back-prompting file's rounds ({} for other files): its settings, the rounds judged, the
    distribution of the first round whose plan is read and valid on the engine (flexible reader;
    "none": no round is) beside PlanBench's, and the agreement with PlanBench's verdict per round
    and on the first success round."""
    multi = [a for a in results if a.rounds]
    if not multi:
        return {}
    rounds = [x for a in multi for x in a.rounds]
    judged = [x for x in rounds if x["planbench_valid"] is not None]

    def distribution(rounds_of_answers) -> dict[str, int]:
        got: dict[str, int] = {}
        for k in sorted(rounds_of_answers, key=lambda k: (k is None, k or 0)):
            got[str(k) if k is not None else "none"] = got.get(str(k) if k is not None else "none", 0) + 1
        return got

    agree = sum(1 for x in judged if bool(x["read"] and x["valid"]) == x["planbench_valid"])
    same_first = sum(1 for a in multi if a.first_success_round == a.planbench_first_success_round)
    return {"settings": rf.settings or {}, "rounds": {
        "answers": len(multi), "rounds": len(rounds), "read": sum(1 for x in rounds if x["read"]),
        "valid": sum(1 for x in rounds if x["read"] and x["valid"]),
        "solved": sum(1 for a in multi if a.first_success_round is not None),
        "first_success_round": distribution([a.first_success_round for a in multi]),
        "planbench_first_success_round": distribution([a.planbench_first_success_round for a in multi]),
        "planbench_judged_rounds": len(judged), "round_agreement": agree,
        "round_agreement_rate": round(agree / len(judged), 4) if judged else None,
        "first_success_agreement": same_first}}


def rescore(paths, instance_dirs, executor=None,
            declares_impossible: Callable[[str], bool] | None = None) -> tuple[list[tuple[ResultFile, list[AnswerResult]]], dict]:
    """Judge every answer of every file: ([(file, results)], summary). ``executor``
    (`widthbench.planners.executor`): chunks of answers are judged by its workers.
    ``declares_impossible``: see `judge` (answers on unsolvable tasks).

    A file that cannot be read (not a PlanBench result file, or an answer that cannot be judged: its
    instance missing, its query stating no problem) is left out with the reason, in the summary's
    ``unreadable`` ({file: reason}); the other files are judged. A single file that cannot be read
    raises its UserError, as does a batch none of whose files can be."""
    paths = list(paths)
    instances = Instances(instance_dirs)
    files, unreadable = [], {}
    for p in paths:  # every file checked before any work
        try:
            files.append(load_result_file(p))
        except UserError as exc:
            unreadable[str(p)] = str(exc)
    jobs = [(ResultFile(rf.path, rf.task, rf.domain, rf.instances[k:k + RESCORE_CHUNK], rf.variant), instances,
             declares_impossible)
            for rf in files for k in range(0, len(rf.instances), RESCORE_CHUNK)]
    if executor is not None and executor.parallel:
        chunks = executor.map(_judge_chunk, jobs, desc="rescore", unit="chunk")
    else:
        chunks = [_judge_chunk(job) for job in jobs]  # one process: one cache of grounded problems
    by_file: dict[str, list[AnswerResult]] = {rf.path: [] for rf in files}
    for (chunk, _, _), results in zip(jobs, chunks):
        if isinstance(results, str):
            unreadable.setdefault(chunk.path, results)
        else:
            by_file[chunk.path].extend(results)
    if unreadable and len(unreadable) == len(paths):
        reasons = list(unreadable.values())
        raise UserError(reasons[0] if len(reasons) == 1 else
                        f"none of the {len(reasons)} result files could be read (the first: {reasons[0]})")
    out = [(rf, by_file[rf.path]) for rf in files if rf.path not in unreadable]
    summary = {"kind": "rescore-planbench",
               "files": {rf.path: {"task": rf.task, "domain": rf.domain, "variant": rf.variant,
                                   "unanswered": rf.unanswered, **counts(rs), **rounds_summary(rf, rs)}
                         for rf, rs in out},
               "overall": counts([a for _, rs in out for a in rs])}
    if unreadable:
        summary["unreadable"] = unreadable
    traced = [a.record() for _, rs in out for a in rs if a.trace is not None]
    if traced:  # entries that hold thinking (`reasoning_content`): the checks per cell (docs/traces.md)
        summary["traces"] = summarise_traces(traced)
    return out, summary


def _judge_chunk(job) -> list[AnswerResult] | str:
    """The chunk's results, or why one of its answers cannot be judged (the file is then left out)."""
    rf, instances, declares_impossible = job
    try:
        return [judge(rf, inst, instances, declares_impossible) for inst in rf.instances]
    except UserError as exc:
        return str(exc)


def rescore_identity(files, instances) -> dict:
    """What decides a rescore's verdicts: the result files and instance folder (by their text) and
    the readers' version (docs/design.md, "The run store")."""
    return {"files": {str(f): path_digest(f) for f in files},
            "instances": [str(Path(d).resolve()) for d in ([instances] if isinstance(instances, (str, Path))
                                                           else instances or [])],
            "reader_version": READER_VERSION}


def write_outputs(out_dir: str | Path, judged, summary: dict, identity: dict | None = None) -> None:
    """The rescore's folder through the run store: answers.jsonl (one record per answer) and
    summary.json; a folder holding a rescore of other files or readers is replaced (a rescore is
    made whole each time: its records are recomputed, never resumed)."""
    try:
        store = RunStore.open(out_dir, kind="rescore", identity=identity or {}, replace=True,
                              key=lambda r: (r["file"], r["instance_id"], r["task"]), records="answers.jsonl")
        store.clear()
        store.append(a.record() for _, rs in judged for a in rs)
        store.write_json("summary.json", summary)
    except OSError as exc:
        raise UserError(f"cannot write to {out_dir}: {exc.strerror}") from None


def report_lines(judged, summary: dict, readers=READERS) -> list[str]:
    """The printed report: per file, the counts of both readers and every disagreement of the
    ``readers`` listed (flexible first); then the overall counts."""
    lines = []
    for rf, rs in judged:
        c = summary["files"][rf.path]
        skipped = f" ({rf.unanswered} instances without an answer skipped)" if rf.unanswered else ""
        variant = f", variant {rf.variant}" if rf.variant and rf.variant != rf.domain else ""
        lines.append(f"{rf.path} ({rf.task}, {rf.domain}{variant}): {c['answers']} answers, PlanBench correct "
                     f"{c['planbench_correct']}{skipped}")
        lines.extend(_count_lines(c))
        lines.extend(_round_lines(c))
        for name in sorted(readers, key=lambda n: n != "flexible"):
            for a in rs:
                why = disagreement(a, name)
                if why:
                    lines.append(f"    {name} disagrees on instance {a.instance_id}: {why}")
    lines.append(f"overall: {summary['overall']['answers']} answers in {len(judged)} file(s), PlanBench correct "
                 f"{summary['overall']['planbench_correct']}")
    lines.extend(_count_lines(summary["overall"]))
    if summary.get("traces"):
        t = summary["traces"]["run"]
        lines.append(f"thinking checked: {t['traces']} traces, {t['with_error']} with a first error "
                     f"(carried into a wrong answer {t['carried']}, recovered {t['recovered']}), "
                     f"coverage {t['coverage']:.1%}")
    return lines


def _round_lines(c: dict) -> list[str]:
    """A back-prompting file's rounds (`rounds_summary`), on two lines; none for other files."""
    x = c.get("rounds")
    if not x:
        return []
    dist = lambda d: ", ".join(f"{k}: {v}" for k, v in d.items())  # noqa: E731
    rate = f" ({x['round_agreement_rate']:.1%})" if x["round_agreement_rate"] is not None else ""
    return [f"  rounds  : {x['rounds']} rounds of {x['answers']} conversations judged, {x['read']} read, "
            f"{x['valid']} valid; solved {x['solved']}/{x['answers']}; first success round {dist(x['first_success_round'])} "
            f"(PlanBench: {dist(x['planbench_first_success_round'])})",
            f"            agrees with PlanBench on {x['round_agreement']}/{x['planbench_judged_rounds']} rounds{rate} "
            f"and on the first success round of {x['first_success_agreement']}/{x['answers']} conversations"]


def _count_lines(c: dict) -> list[str]:
    out = []
    for name in READERS:
        x = c[name]
        pb = c["planbench_correct"]
        share = f" ({x['planbench_correct_read_valid_rate']:.1%})" if pb else ""
        agreement = f" ({x['agreement']:.1%})" if c["answers"] else ""
        out.append(f"  {name:8s}: read {x['read']}/{c['answers']}, valid {x['valid']}, agrees with PlanBench "
                   f"{x['agree']}/{c['answers']}{agreement}, PlanBench-correct read and valid "
                   f"{x['planbench_correct_read_valid']}/{pb}{share}")
        if x["disagreements"]:
            out.append("            disagreements: " + ", ".join(f"{k} {v}" for k, v in x["disagreement_classes"].items()))
    return out
