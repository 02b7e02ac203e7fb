"""Measure the flexible plan reader on self-corrected answers (docs/subtasks.md, "Flexible reader", rule
11): a first attempt, words between, a second attempt, words after, written by the property tests'
answer writer (tests/pddl_domains/answer_gen.py, `corrected_answer`) over true plans of random
instances of every vocabulary it has (Blocksworld in both template sets, Logistics, a Mystery renaming,
and with the reference data PlanBench's Mystery config and ACPBench's ferry; NL and PDDL).

Three kinds of answer, --count per vocabulary and kind:

- reject: the words between reject the first attempt; a careful reader reads the second. Counted: read
  as the second (the target), read as the first (false credit: the attempt the answer withdrew), a
  parse error (refused: no guess, but no reading either);
- keep: the words between leave the first attempt standing (another way, a doubt); a careful reader
  cannot tell which plan is meant: any single plan read is a guess;
- undo: the words after the second attempt take it back or reopen the choice: any plan read is a guess.

The words are the development words (`answer_gen.SELF_CORRECTIONS`) or, with --heldout N, set N of
scripts/heldout_answers.toml (written by someone who read nothing of the reader; its header says how
each set was used).

    .venv/bin/python scripts/measure_answers.py [--heldout N] [--count 40] [--seed 200000]
"""

from __future__ import annotations

import argparse
import random
import sys
import tomllib
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the property tests' answer writer (tests/ is not installed)

HELDOUT = Path(__file__).resolve().parent / "heldout_answers.toml"
KINDS = ("reject", "keep", "undo")


def heldout_sets() -> dict[int, dict]:
    with open(HELDOUT, "rb") as fh:
        return {int(k.removeprefix("set")): v for k, v in tomllib.load(fh).items()}


def measure(words: dict, count: int, seed: int) -> dict:
    from tests.pddl_domains import answer_gen as gen
    from widthbench.core.errors import ParseError
    from widthbench.subtasks import flexible

    vocabularies = gen.vocabularies(0) + list(gen.data_vocabularies(0))
    out = {kind: Counter() for kind in KINDS}
    for v in vocabularies:
        for kind in KINDS:
            for i in range(count):
                rng = random.Random(f"{seed + i}/{v.label}/{v.style}/{v.templates}/{kind}")
                plan = gen.true_plan(v.task, rng)
                other = gen.true_plan(v.task, rng)
                if other == plan:
                    other = plan + [plan[-1]]
                answer = gen.corrected_answer(gen.Writer(v, rng), plan, other, kind, words)
                try:
                    got = tuple(flexible.read_plan(v.task, answer.text, v.style, v.templates).value)
                except ParseError:
                    out[kind]["refused"] += 1
                    continue
                out[kind]["second" if got == tuple(plan) else "first" if got == tuple(other) else "other"] += 1
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--heldout", type=int, metavar="N", help="set N of scripts/heldout_answers.toml")
    p.add_argument("--count", type=int, default=40)
    p.add_argument("--seed", type=int, default=200_000)
    args = p.parse_args()
    if args.heldout is not None:
        sets = heldout_sets()
        if args.heldout not in sets:
            p.error(f"--heldout {args.heldout}: scripts/heldout_answers.toml has sets {sorted(sets)}")
        words, name = sets[args.heldout], f"held-out words (set {args.heldout})"
    else:
        from tests.pddl_domains import answer_gen as gen

        words, name = gen.SELF_CORRECTIONS, "development words"
    got = measure(words, args.count, args.seed)
    n = sum(got["reject"].values())
    print(f"self-corrected answers in {name} ({n} per kind, seeds {args.seed}..{args.seed + args.count - 1}):")
    r = got["reject"]
    print(f"  reject: read as the second attempt {r['second']} of {n} ({100 * r['second'] / n:.1f}%); "
          f"as the first (false credit) {r['first']}; another plan {r['other']}; refused {r['refused']}")
    for kind, what in (("keep", "the first attempt left standing"), ("undo", "the second taken back or doubted")):
        c = got[kind]
        read = c["first"] + c["second"] + c["other"]
        print(f"  {kind} ({what}): a plan read (a guess) {read} of {n} "
              f"(first {c['first']}, second {c['second']}, other {c['other']}); refused {c['refused']}")


if __name__ == "__main__":
    main()
