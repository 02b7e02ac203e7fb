"""Write (or check) pddl_domains/readers/known_words.txt, the words the trace verifier stands behind
(pddl_domains/readers/lexicon.py; docs/traces.md, principle 6).

Three of its sections are computed here: ``[phrases]``, the words of the readers' phrases
(phrases.txt), and ``[frames]``, the words of the sentences the verifier is tested and measured on:
the trace writer's frames, the text the trace property tests and the simulated models write (the
string literals of `TESTS`, docstrings left out), the held-out sets that have been measured (scripts/heldout_words.toml
up to --sets), but for the sections only the plan reader reads (`PLAN_ONLY`); ``[answers]``, known
to the plan reader only (docs/subtasks.md, rule 11), the words of those sections and of the answers it
is tested and measured on (the answer writer's literals, the measured held-out answer sets of
scripts/heldout_answers.toml). ``[neutral]`` is kept by hand and left as it stands.

    .venv/bin/python scripts/known_words.py [--write] [--sets N]

Without --write it prints what would change and exits 1 when the file is not current.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import re
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the property tests' words (tests/ is not installed)

FILE = ROOT / "pddl_domains/readers/known_words.txt"
PHRASES = ROOT / "pddl_domains/readers/phrases.txt"
#: The held-out sets whose words are known: those measured once (scripts/heldout_words.toml says how
#: each set was used). Raise it only after a set is measured and the rules its words need are written
#: (with the words of sets 15 and 16 known and none of their rules, 243 and 343 of their 520 clean
#: traces had a first error, sets 17 and 18 129 and 316; with their rules, none; sets 19 and 20, known
#: after the rules their blind measurement showed missing, none; sets 21-26, known with their rules,
#: 181, 106, 91, 200, 0 and 102: not known).
MEASURED_SETS = 20
#: The held-out answer sets (scripts/heldout_answers.toml) whose words the plan reader knows: those
#: measured once (its header says how each set was used).
MEASURED_ANSWER_SETS = 4
#: The answer texts the plan reader is tested on: the property tests' answer writer.
ANSWER_TESTS = ("tests/pddl_domains/answer_gen.py",)
#: The texts the verifier is tested on: the trace property tests', and the simulated models' (their
#: thinking and the notes they add to it).
TESTS = ("tests/subtasks/traces_gen.py", "tests/subtasks/test_traces_property.py",
         "tests/subtasks/test_traces_principles.py", "tests/subtasks/test_traces_points.py",
         "widthbench/simulated/__init__.py", "widthbench/simulated/thoughts.py", "searches/sim_search_answers.py",
         "subtasks/sim_answers.py")
HEADER = """\
# The words the trace verifier stands behind (lexicon.py; docs/traces.md, principle 6): a claim is
# judged only when every word of its sentence is one of these, a word of its task, or one of these
# with an ending. [phrases] and [frames] are written by scripts/known_words.py (the readers' phrases,
# the sentence frames the verifier is tested and measured on); [neutral] is kept by hand: words of
# real traces that say nothing of a claim's mood or time, each with why. [answers], also written by
# the script, is known to the plan reader only (the words of the answers it is tested and measured
# on; docs/subtasks.md, rule 11), not to the trace verifier.
"""


#: The sections of phrases.txt only the plan reader reads: their words are known to it alone (``[answers]``).
PLAN_ONLY = ("plans",)


def phrase_words(text: str, sections: tuple[str, ...] | None = None, but: tuple[str, ...] = ()) -> set[str]:
    """The words of the patterns of phrases.txt (the letters of its regular expressions): of the
    ``sections`` named (every one when None), but those in ``but``."""
    from widthbench.pddl_domains.readers.lexicon import tokens

    out: set[str] = set()
    section = None
    for line in text.splitlines():
        head = re.match(r"^\[([a-z_]+)\]$", line)
        if head:
            section = head.group(1)
        if not line.startswith("    ") or section in but or (sections is not None and section not in sections):
            continue  # a section, a comment or a pattern's name, or a section not asked for
        # an escape ("\b"), a part's name ("{NOUN}"), a group's opening ("(?:", "(?=", "(?<!", "(?P<tail>",
        # "(?i)"): none is a word, and the word after it is
        body = re.sub(r"\\[A-Za-z]|\{[A-Za-z_.]+\}|\(\?(?:P<\w+>|<[=!]|[:=!]|[aiLmsux]+\))", " ", line)
        out.update(t for t in tokens(body) if len(t) > 1 or not t.isalpha())
        # a hyphen the pattern may leave out ("re-?check"): the word written without it ("recheck") too
        out.update(tokens(" ".join(re.findall(r"[A-Za-z]+-\?[A-Za-z]+", body)).replace("-?", "")))
    return out


#: Names whose strings are not words of a trace: a renamed domain's names (its own words are the task's),
#: the pieces of made-up words (words no lexicon may know) and English spelling (letters, endings).
NOT_TEXT = frozenset({"RENAME", "_SYLLABLES", "_SPELLING"})


def literals(path: Path) -> list[str]:
    """The string literals of a Python file (the constant parts of f-strings too), docstrings and the
    values of `NOT_TEXT` left out."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                skip.add(id(first.value))
        if isinstance(node, ast.Assign) and any(isinstance(x, ast.Name) and x.id in NOT_TEXT for x in node.targets):
            skip.update(id(n) for n in ast.walk(node.value))
    return [n.value for n in ast.walk(tree)
            if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in skip]


def held_out(name: str, sets: int) -> list[str]:
    """The texts of held-out sets 1..``sets`` of scripts/``name`` (every key's values)."""
    import tomllib

    with open(ROOT / "scripts" / name, "rb") as fh:
        held = tomllib.load(fh)
    return [v for n in range(1, sets + 1) for values in held[f"set{n}"].values() for v in values]


def words_of(texts: list[str]) -> set[str]:
    """The words of texts with slots ("{fact}") and escapes left out."""
    from widthbench.pddl_domains.readers.lexicon import tokens

    return {w for t in texts for w in tokens(re.sub(r"\{[A-Za-z]*\}|\\[A-Za-z]", " ", t))}


def frame_words(sets: int) -> set[str]:
    from widthbench.pddl_domains import thinking

    frames: list[str] = []
    for f in dataclasses.fields(thinking.DEFAULT):
        frames.extend(getattr(thinking.DEFAULT, f.name))
    for path in TESTS:
        frames.extend(literals(ROOT / path))
    return words_of(frames + held_out("heldout_words.toml", sets))


def answer_words(sets: int) -> set[str]:
    """The words of the answers the plan reader is tested and measured on: the answer writer's string
    literals and the measured held-out answer sets (`MEASURED_ANSWER_SETS`)."""
    texts = [t for path in ANSWER_TESTS for t in literals(ROOT / path)]
    return words_of(texts + held_out("heldout_answers.toml", sets))


def render(sections: dict[str, list[str]], neutral_text: str) -> str:
    parts = [HEADER]
    for name in ("phrases", "frames", "answers"):
        words = textwrap.fill(" ".join(sorted(sections[name])), 100, break_long_words=False, break_on_hyphens=False)
        parts.append(f"\n[{name}]\n{words}\n")
    parts.append("\n" + neutral_text.strip() + "\n")
    return "".join(parts)


def current(sets: int) -> str:
    old = FILE.read_text(encoding="utf-8") if FILE.exists() else ""
    found = re.search(r"^\[neutral\]$", old, re.M)
    neutral = old[found.start():] if found else "[neutral]\n"
    phrases_text = PHRASES.read_text(encoding="utf-8")
    return render({"phrases": phrase_words(phrases_text, but=PLAN_ONLY), "frames": frame_words(sets),
                   "answers": answer_words(MEASURED_ANSWER_SETS) | phrase_words(phrases_text, PLAN_ONLY)}, neutral)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--write", action="store_true", help="write the file (else check it)")
    p.add_argument("--sets", type=int, default=MEASURED_SETS, help="held-out sets whose words are known (1..N)")
    args = p.parse_args()
    want = current(args.sets)
    have = FILE.read_text(encoding="utf-8") if FILE.exists() else ""
    if args.write:
        FILE.write_text(want, encoding="utf-8")
        print(f"wrote {FILE}")
    elif want != have:
        print(f"{FILE} is not current: run scripts/known_words.py --write", file=sys.stderr)
        sys.exit(1)
    else:
        print(f"{FILE} is current")


if __name__ == "__main__":
    main()
