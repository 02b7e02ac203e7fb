"""Text lines for `widthbench traces`: one line per trace and the per-cell table."""

from __future__ import annotations

from widthbench.subtasks.traces import injections


def trace_line(rec: dict) -> str:
    t = rec["trace"]
    if t is None:
        return f"{rec.get('subtask', '')} {rec.get('item_id', '')}: not verified ({rec.get('trace_error')})"
    who = rec.get("item_id") or f"instance {rec.get('instance_id')}"
    head = f"{rec.get('subtask') or rec.get('task', '')} {rec.get('mode', '')} {who}".split()
    fe = t.get("first_error")
    verdict = {True: "answer right", False: "answer wrong", None: "answer not judged"}[t.get("final_answer_correct")]
    if fe is None:
        err = "no error found"
    else:
        err = (f"first error {fe['kind']} at {fe['span'][0]}-{fe['span'][1]} after {len(fe['actions'])} action(s): "
               f"{fe['quote']!r} claims {fe['claimed']}; {fe['truth']}")
    sim = " [simulated]" if rec.get("simulated") else ""
    got = injections.outcome(t, t.get("injected", rec.get("injected")))
    scored = "" if got is None else "; nothing injected" + (" (an error reported anyway)" if got["outcome"] != "clean" else "") \
        if got["kind"] is None else f"; injected {got['kind']} at {got['span'][0]}-{got['span'][1]}: {got['outcome']}"
    unknown = t.get("unknown_words") or []
    unread = "" if not unknown else f"; words it does not know: {', '.join(unknown[:5])}" + (" ..." if len(unknown) > 5 else "")
    return (f"{' '.join(head)}{sim}: {t['checked']} of {len(t['claims'])} claims checked, coverage "
            f"{t['coverage']:.2f}; {err}; {verdict}{scored}{unread}")


def _pct(x) -> str:
    return "-" if x is None else f"{100 * x:.1f}%"


def summary_lines(summary: dict) -> list[str]:
    sim = " (simulated)" if summary.get("simulated") else ""
    lines = [f"Traces{sim}: cell | traces | coverage | state-tracking accuracy | with an error | "
             "recovered | carried into the answer | first-error kinds | error start by step"]
    rows = list(summary["cells"].items()) + [("all", summary["run"])]
    for name, s in rows:
        kinds = ", ".join(f"{k} {v}" for k, v in s["first_error_kinds"].items()) or "-"
        steps = ", ".join(f"{k}: {v}" for k, v in s["error_start_by_step"].items()) or "-"
        lines.append(f"  {name} | {s['traces']} | {_pct(s['coverage'])} | {_pct(s['state_tracking_accuracy'])} "
                     f"({s['facts_judged']} facts) | {s['with_error']} ({_pct(s['share_with_error'])}) | "
                     f"{s['recovered']} | {s['carried']} | {kinds} | {steps}")
    run = summary["run"]
    if run.get("unknown_words"):
        words = ", ".join(f"{w} {n}" for w, n in run["unknown_words"].items())
        lines.append(f"Not judged for words the verifier does not know (docs/traces.md, principle 6): "
                     f"{run['unjudged_unknown_words']} claims; the words, by traces: {words}")
    inj = summary["run"].get("injections")
    if inj:
        kinds = ", ".join(f"{k} {f}/{n}" for k, (f, n) in inj["by_kind"].items()) or "-"
        lines.append(f"Injected errors (the simulated model's, on purpose): found at the injection {inj['found']} of "
                     f"{inj['injected']} ({_pct(inj['found_share'])}; {kinds}); an error before the injection "
                     f"{inj['early']}, missed {inj['missed']}, elsewhere {inj['elsewhere']}; traces with nothing "
                     f"injected {inj['clean']}, with an error reported {inj['false_on_clean']}")
    return lines
