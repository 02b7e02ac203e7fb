"""Measure the trace verifier (docs/traces.md, "How far to trust it"): on generated traces and on the
development traces, the false first errors on clean traces, the injected errors found at their
injection per kind, and how many first errors are of kind "initial-state" with no action applied.

Generated traces: the shared trace writer in the property tests' wide words (tests/subtasks/traces_gen.py)
on random walks of every case of tests/subtasks/test_traces_property.py (Blocksworld, Logistics, a
renamed Blocksworld, the mystery and random obfuscations, PlanBench's Mystery Blocksworld; NL and
PDDL): --count clean traces per case, and --count per case and kind with one error injected after
0-3 actions (an inapplicable action after 1-3). Seeds are --seed + i: the traces are not the ones the
property tests draw.

Development traces: PlanBench's result files the verifier was developed on (DeepSeek-R1's thinking
and GPT-4's state-tracking answers on 3-block Blocksworld, GPT-4's on Mystery Blocksworld).

    .venv/bin/python scripts/measure_traces.py [--count 40] [--seed 100000] [--heldout N] [--made-up SHARE]
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the property tests' writer and cases (tests/ is not installed)

DATA = ROOT.parent / "shared" / "data"
RESULTS = DATA / "planbench-responses/llm_planning_analysis/results"
FILES = (("DeepSeek-R1, Blocksworld (thinking)", RESULTS / "blocksworld_3/deepseek-r1-api/task_1_plan_generation_zero_shot.json", False),
         ("GPT-4, Blocksworld (state tracking)", RESULTS / "blocksworld_3/gpt-4_chat/task_1_plan_generation_state_tracking.json", True),
         ("GPT-4, Mystery Blocksworld (state tracking)",
          RESULTS / "mystery_blocksworld_3/gpt-4_chat/task_1_plan_generation_state_tracking.json", True))
KINDS = ("fact", "missing", "precondition")


HELDOUT = Path(__file__).resolve().parent / "heldout_words.toml"


def heldout_sets() -> dict[int, dict]:
    """Set number -> its sentence frames (heldout_words.toml, which says how each set was used)."""
    import tomllib

    with open(HELDOUT, "rb") as f:
        return {int(name.removeprefix("set")): frames for name, frames in tomllib.load(f).items()}


def heldout_phrasing(which: int = 1):
    """The sentence frames of held-out set ``which``, as the trace writer's `Phrasing`."""
    from widthbench.pddl_domains.thinking import Phrasing

    return Phrasing(**{slot: tuple(frames) for slot, frames in heldout_sets()[which].items()})


def generated(count: int, seed: int, heldout: int, made_up: float = 0.0) -> None:
    import tests.subtasks.traces_gen as gen
    from tests.subtasks.test_traces_property import CASES, tasks
    from widthbench.subtasks.traces import verify_trace

    words = heldout_phrasing(heldout) if heldout else gen.WIDE

    def write_trace(*args, **kw):
        phrasing = gen.with_made_up_words(words, args[3], made_up) if made_up else words
        return gen.write_trace(*args, phrasing=phrasing, **kw)

    clean = false = concluded = 0
    found: Counter = Counter()
    tried: Counter = Counter()
    first: Counter = Counter()
    at_start = at_start_injected = with_error = 0
    early: Counter = Counter()  # a first error before the injection (where the trace is clean: false)
    later: Counter = Counter()  # another first error after it (the trace goes on from its error)
    for domain, style, templates in CASES:
        for i in range(count):
            task = tasks(domain)[i % 3]
            w = write_trace(task, style, templates, seed + i, steps=4)
            fe = verify_trace(task, w.text, style=style, templates=templates)["first_error"]
            clean += 1
            false += fe is not None
            concluded += fe is not None and said_reached(fe, w.text, words)
            for kind in KINDS:
                at = (i % 4) if kind != "precondition" else 1 + i % 3
                w = write_trace(task, style, templates, seed + i, steps=4, inject=kind, at=at)
                if w.injected is None:
                    continue  # the walk offers no such error (a dead end offers no inapplicable action)
                fe = verify_trace(task, w.text, style=style, templates=templates)["first_error"]
                tried[kind] += 1
                a, b = w.injected
                hit = fe is not None and fe["kind"] == w.kind and a <= fe["span"][0] and fe["span"][1] <= b
                found[kind] += hit
                early[kind] += fe is not None and not hit and fe["span"][0] < a
                later[kind] += fe is not None and not hit and fe["span"][0] >= a
                if fe is not None:
                    with_error += 1
                    first[fe["kind"]] += 1
                    if fe["kind"] == "initial-state" and not fe["actions"]:
                        at_start += 1
                        at_start_injected += hit and at == 0  # the trace misstates the state it starts from
    words = f"held-out words (set {heldout})" if heldout else "the property tests' wide words"
    if made_up:
        words += f", a made-up word in {100 * made_up:.0f}% of the frames"
    print(f"generated traces in {words} ({len(CASES)} cases, {count} per case and kind, seeds {seed}..{seed + count - 1}):")
    print(f"  clean: {clean} traces, {false} with a first error" + (
        f" ({concluded} of them at a closing sentence that says the goal is reached, which the walk does not "
        f"reach: the trace's error, not the verifier's; {false - concluded} false)" if concluded else ""))
    for kind in KINDS:
        print(f"  injected {kind}: found at the injection {found[kind]} of {tried[kind]} "
              f"({100 * found[kind] / max(1, tried[kind]):.1f}%); a first error before it {early[kind]}, "
              f"another one after it {later[kind]}")
    print(f"  first errors on injected traces: {with_error} ({', '.join(f'{k} {v}' for k, v in sorted(first.items()))}); "
          f"initial-state with no action applied: {at_start} ({at_start_injected} of them found at an injection made "
          f"before any action, {at_start - at_start_injected} elsewhere)")


def said_reached(fe: dict, text: str, words) -> bool:
    """Whether the first error ``fe`` of a trace written clean is a "goal reached" said by the trace's
    closing sentence (a frame of the ``conclude`` slot, which the writer puts last): a set of words
    may close with "goal reached", and a random walk seldom reaches the goal, so the trace says
    something false there that the verifier is right to report."""
    if fe["kind"] != "goal":
        return False
    closing = [f for f in words.conclude if text.rstrip().lower().endswith(f.strip().lower())]
    return bool(closing) and fe["span"][0] >= len(text.rstrip()) - len(closing[0].strip())


def development() -> None:
    from widthbench.subtasks.traces import summarise_traces
    from widthbench.subtasks.traces.sources import planbench_traces

    for name, path, cot in FILES:
        if not path.is_file():
            print(f"{name}: {path} not found (the reference data), skipped")
            continue
        recs = planbench_traces(path, DATA / "planbench", chain_of_thought=cot)
        run = summarise_traces(recs)["run"]
        kinds = ", ".join(f"{k} {v}" for k, v in run["first_error_kinds"].items()) or "-"
        print(f"{name}: {run['traces']} traces, coverage {100 * run['coverage']:.1f}%, facts judged "
              f"{run['facts_judged']}, with a first error {run['with_error']} ({kinds}); initial-state with no "
              f"action applied {run['initial_state_no_action']}")


def share(text: str) -> float:
    """A share of the frames, 0 to 1 (argparse names the option and the value when it is not)."""
    x = float(text)
    if not 0.0 <= x <= 1.0:
        raise ValueError(text)
    return x


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--count", type=int, default=40)
    p.add_argument("--seed", type=int, default=100_000)
    sets = sorted(heldout_sets())
    p.add_argument("--heldout", type=int, choices=sets,
                   help=f"write the generated traces in held-out words (set {sets[0]}-{sets[-1]}, scripts/heldout_words.toml)")
    p.add_argument("--made-up", type=share, default=0.0, metavar="SHARE",
                   help="put a made-up word (one the verifier cannot know) into this share of the frames")
    args = p.parse_args()
    generated(args.count, args.seed, args.heldout, args.made_up)
    if not args.heldout and not args.made_up:
        development()


if __name__ == "__main__":
    main()
