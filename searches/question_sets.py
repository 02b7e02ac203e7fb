"""Question/answer sets (--tasks FILE) as search problems: MATH-style, the paper's Table 5.

What --tasks reads (the user brings the data; docs/searches.md, "Question sets"):
- a JSONL file, one JSON object per line;
- a JSON file holding one object or a list of objects (MATH ships one object per file);
- a folder: every ``*.json`` / ``*.jsonl`` file below it, in path order (MATH's ``test/`` folder,
  ``test/<type>/<n>.json``; an object's id is then its path without the suffix, e.g.
  ``algebra/1``).
Each object has ``question`` (or MATH's ``problem``), ``answer`` (or MATH's ``solution``, whose
last ``\\boxed{...}`` is the answer), optional ``id``, and MATH's ``level`` ("Level 1" ... "Level
5") and ``type`` (kept with the problem). ``--level 5`` or ``--level 4-5`` keeps those levels
(a row without a level is then dropped, and the count is said).

A state is the tuple of steps written so far (the root: no steps). Direct mapping asks for the next
step; ESA asks what the next step should do (the "action"), then asks the model to carry it out
(the "successor"). A step that reaches the answer ends with "Final answer: X". There is no engine
for actions, successors or novelty here: the engine verifier only checks that the last step states a
final answer (it never looks at the gold answer), and success is decided afterwards by
`answers_equal`: the same text after normalising LaTeX wrappers and spaces, else mathematical
equivalence as the math-verify library (Hugging Face) judges it (``1/2``, ``\\frac{1}{2}``,
``0.5`` and ``\\dfrac12`` are one answer; ``0.33`` and ``\\frac13`` are not). math-verify is an
optional dependency (``pip install 'widthbench[math]'``), imported only when --tasks is used.

`sim_question` makes the simulated models answer these prompts: they can only do arithmetic (the
oracle evaluates the arithmetic expression of a question like "What is 17 * 23 + 4?"; noisy models
are off by one; questions without an expression get no final answer).
"""

from __future__ import annotations

import json
import re
from fractions import Fraction
from pathlib import Path

from widthbench.core.errors import ParseError, UserError
from widthbench.searches import search_prompts
from widthbench.searches.replies import parse_score, parse_scores
from widthbench.searches.templated_problem import TemplatedProblem
from widthbench.subtasks.strict import reply_text
from widthbench.searches.game24_problem import evaluate

_ANSWER_LABEL = re.compile(r"(?im)^[\s>*#_`\-]*answer[\s*_`]*:[*_`]*")
_FINAL = re.compile(r"(?im)^[\s>*#_`\-]*final\s+answer[\s*_`]*(?:is)?[\s*_`]*[:=][*_`]*\s*(.+?)\s*$")


def section(text: str) -> str:
    """What follows the first "Answer:" label line (not "Final answer:"), else the whole reply."""
    t = reply_text(text)
    m = _ANSWER_LABEL.search(t)
    return (t[m.end():] if m else t).strip()


def final_answer(text: str) -> str | None:
    found = _FINAL.findall(text or "")
    if found:
        return found[-1].strip()
    boxed = _boxed(text or "")
    return boxed[-1] if boxed else None


def _boxed(text: str) -> list[str]:
    out = []
    for m in re.finditer(r"\\boxed\s*\{", text):
        depth, i = 1, m.end()
        while i < len(text) and depth:
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            i += 1
        if depth == 0:
            out.append(text[m.end():i - 1])
    return out


def normalise_answer(text: str) -> str:
    t = text.strip().strip("$").strip()
    boxed = _boxed(t)
    if boxed:
        t = boxed[-1]
    t = re.sub(r"\\text\{([^}]*)\}", r"\1", t)
    t = re.sub(r"\\[dt]frac", r"\\frac", t)
    for junk in ("\\left", "\\right", "\\!", "\\,", "\\;", "$"):
        t = t.replace(junk, "")
    t = t.rstrip(".").replace(" ", "").lower()
    return t


def _as_number(t: str) -> Fraction | None:
    m = re.fullmatch(r"(-?)\\frac\{(-?\d+)\}\{(\d+)\}", t)
    if m:
        t = f"{m.group(1)}{m.group(2)}/{m.group(3)}"
    t = t.replace(",", "")
    try:
        return Fraction(t)
    except (ValueError, ZeroDivisionError):
        return None


def answers_equal(given: str | None, gold: str) -> bool:
    """Whether a final answer equals the gold one: the same normalised text, else mathematically
    equivalent (math-verify; `require_math_verify` has checked it is installed)."""
    if given is None:
        return False
    a, b = normalise_answer(given), normalise_answer(gold)
    if a == b:
        return True
    x, y = _as_number(a), _as_number(b)
    if x is not None and y is not None:
        return x == y
    return _equivalent(given, gold)


def require_math_verify() -> None:
    """One UserError line when math-verify (the equivalence judge of --tasks) is missing."""
    try:
        import math_verify  # noqa: F401
    except ImportError:
        raise UserError("--tasks judges final answers by mathematical equivalence with math-verify, "
                        "which is not installed: pip install 'widthbench[math]'") from None


def _latex(text: str) -> str:
    t = text.strip()
    boxed = _boxed(t)
    if boxed:
        t = boxed[-1]
    return f"${t.strip('$').strip()}$"


def _equivalent(given: str, gold: str) -> bool:
    import threading

    from math_verify import parse, verify

    # math-verify's timeouts (5 s) are SIGALRM-based, which only the main thread may use; a check
    # on another thread runs without one.
    limit = 5 if threading.current_thread() is threading.main_thread() else None
    try:
        g = parse(_latex(gold), parsing_timeout=limit)
        p = parse(_latex(given), parsing_timeout=limit)
        return bool(g and p and verify(g, p, timeout_seconds=limit))
    except Exception:  # math-verify raises many types on exotic LaTeX: not equal, never a crash
        return False


def parse_levels(text: str | None) -> tuple[int, ...] | None:
    """--level 5 / 4-5 / 1,3 as a tuple of levels (None: every level)."""
    if text is None:
        return None
    out: list[int] = []
    for part in text.split(","):
        lo, sep, hi = part.strip().partition("-")
        try:
            a = int(lo)
            b = int(hi) if sep else a
        except ValueError:
            raise UserError(f"--level {text!r}: write N, LO-HI or N,M (MATH levels 1-5)") from None
        if not 1 <= a <= b:
            raise UserError(f"--level {text!r}: levels start at 1 and LO <= HI")
        out += range(a, b + 1)
    return tuple(sorted(set(out)))


def _level(value) -> int | None:
    m = re.fullmatch(r"\s*(?:level\s*)?(\d+)\s*", str(value), re.I) if value is not None else None
    return int(m.group(1)) if m else None


def _objects(path: Path) -> list[tuple[str, str | None, object]]:
    """(where, default id, JSON value) of every object of a --tasks file or folder."""
    if path.is_dir():
        files = sorted(p for p in path.rglob("*") if p.suffix in (".json", ".jsonl") and p.is_file())
        if not files:
            raise UserError(f"--tasks {path}: a folder without .json or .jsonl files")
        out = []
        for f in files:
            rel = f.relative_to(path).with_suffix("").as_posix()
            rows = _objects(f)
            out += [(w, rel if len(rows) == 1 else f"{rel}/{n}", v) for n, (w, _, v) in enumerate(rows, 1)]
        return out
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise UserError(f"cannot read --tasks {path}: {exc.strerror}") from None
    if path.suffix == ".json":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise UserError(f"{path}:{exc.lineno}: not JSON ({exc.msg})") from None
        rows = data if isinstance(data, list) else [data]
        return [(f"{path}[{n}]" if isinstance(data, list) else str(path), None, r) for n, r in enumerate(rows)]
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            out.append((f"{path}:{n}", None, json.loads(line)))
        except json.JSONDecodeError as exc:
            raise UserError(f"{path}:{n}: not JSON ({exc.msg})") from None
    return out


def read_tasks(path, level: str | None = None) -> list[dict]:
    """The questions of a --tasks file or folder (module docstring), filtered by ``level``."""
    p = Path(path)
    if not p.exists():
        raise UserError(f"--tasks {p}: not found")
    levels = parse_levels(level)
    out, dropped = [], 0
    for where, default_id, row in _objects(p):
        if not isinstance(row, dict):
            raise UserError(f"{where}: expected a JSON object")
        question = row.get("question", row.get("problem"))
        gold = row.get("answer")
        if gold is None and isinstance(row.get("solution"), str):
            boxed = _boxed(row["solution"])
            gold = boxed[-1] if boxed else None
        if not isinstance(question, str) or gold is None:
            raise UserError(f"{where}: needs 'question' (or 'problem') and 'answer' (or a 'solution' with \\boxed{{}})")
        lvl = _level(row.get("level"))
        if levels is not None and lvl not in levels:
            dropped += 1
            continue
        task = {"id": str(row.get("id", default_id or f"task-{len(out) + dropped + 1:04d}")), "question": question,
                "answer": str(gold)}
        if lvl is not None:
            task["level"] = lvl
        if isinstance(row.get("type"), str):
            task["type"] = row["type"]
        out.append(task)
    if not out:
        raise UserError(f"--tasks {p}: no questions" + (f" at --level {level} ({dropped} at other levels)" if dropped else ""))
    ids = [r["id"] for r in out]
    if len(set(ids)) != len(ids):
        raise UserError(f"--tasks {p}: duplicate ids")
    return out


class TaskProblem(TemplatedProblem):
    kind = "qa"
    has_engine = False
    domain = "tasks"
    STATE_NOUN, ITEM_BREAK, LIST_BREAK = "Partial solution", "\n", "\n\n"

    def __init__(self, row: dict, prompt_dir: str | None = None):
        self.id = row["id"]
        self.question = row["question"]
        self.gold = row["answer"]
        self.level = row.get("level")
        self.type = row.get("type")
        self.initial: tuple[str, ...] = ()
        self.optimal_length = None
        self.prompt_fields = {"question": self.question}
        self._load("tasks", prompt_dir)

    def key(self, state):
        return tuple(" ".join(s.split()) for s in state)

    def action_key(self, action):
        return " ".join(str(action).split()) if action is not None else None

    def show_state(self, state) -> str:
        if not state:
            return "(no steps yet)"
        return "\n".join(f"Step {i}: {s}" for i, s in enumerate(state, 1))

    def show_action(self, action) -> str:
        return str(action)

    def _no_engine(self, *_):
        raise UserError("--tasks has no engine for actions, successors or novelty: use the llm hooks")

    engine_ranked = engine_successor = novelty_mask = width = _no_engine

    def engine_is_goal(self, state) -> bool:
        return bool(state) and final_answer(state[-1]) is not None

    def check(self, plan, final_state=None) -> dict:
        text = plan if isinstance(plan, str) else (final_state[-1] if final_state else None)
        given = final_answer(text) if text else None
        solved = answers_equal(given, self.gold)
        return {"plan_valid": given is not None, "solved": solved, "answer": given, "gold": self.gold,
                "reason": "correct" if solved else ("no final answer" if given is None else "wrong answer")}

    # prompts
    def _step(self, text: str) -> str:
        body = section(text)
        if not body:
            raise ParseError("empty step")
        return body

    def parse_next_action(self, text, state):
        return self._step(text)

    def parse_successor(self, text, state, action):
        return tuple(state) + (self._step(text),)

    def parse_direct(self, text, state):
        step = self._step(text)
        return step, tuple(state) + (step,)

    def parse_action_list(self, text, state):
        out = [re.sub(r"^\s*(?:[-*•]|\d+[.)])\s*", "", x).strip() for x in section(text).splitlines()]
        out = [x for x in out if x]
        if not out:
            raise ParseError("no possibilities in the answer")
        return list(dict.fromkeys(out))

    def summary_text(self, text) -> str:
        return section(text)

    def judged_action(self, action) -> str:
        return " ".join(str(action).split())

    def parse_scores(self, text, count):
        return parse_scores(section(text), count)

    def parse_score(self, text):
        return parse_score(section(text))

    def naive_messages(self):
        return self._messages("naive")

    def parse_naive(self, text):
        t = reply_text(text)
        if final_answer(t) is None:
            raise ParseError("no 'Final answer:' line")
        return t


def load_problems(path, level: str | None = None, prompt_dir: str | None = None) -> list[TaskProblem]:
    rows = read_tasks(path, level)
    require_math_verify()
    return [TaskProblem(r, prompt_dir) for r in rows]


# ---- simulated answers -------------------------------------------------------------------------

_EXPR = re.compile(r"[-+*/()\d\s]*\d[-+*/()\d\s]*")


def _arithmetic(question: str) -> tuple[str, Fraction] | None:
    best = None
    for m in _EXPR.finditer(question):
        text = m.group(0).strip()
        if not re.search(r"\d\s*[-+*/]\s*[\d(]", text):
            continue
        try:
            value, _ = evaluate(text)
        except ParseError:
            continue
        if best is None or len(text) > len(best[0]):
            best = (text, value)
    return best


def _fmt(x: Fraction) -> str:
    return str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"


def sim_question(system: str, user: str, question_cls, prompt_dir: str | None = None):
    found = search_prompts.asked("tasks", system, user, prompt_dir)
    return None if found is None else question_cls(*found, _sim)


def _has_final(text: str) -> bool:
    return final_answer(text) is not None


def _sim(q, mode, corrupt, rng):
    kind, f = q.kind, q.fields
    found = _arithmetic(f["question"])
    if found is None or mode == "random":
        if kind in ("goal_check", "novelty", "novelty_summarised"):
            return rng.choice(("yes", "no")), "I guess."
        if kind in ("judge_post", "value"):
            return str(rng.randint(0, 10)), "I guess."
        if kind == "judge_pre":
            n = len(re.findall(r"(?m)^\d+\.", f["actions"]))
            return "\n".join(f"{i}: {rng.randint(0, 10)}" for i in range(1, n + 1)), "I guess."
        return "I need to think more about this question.", "I do not know how to solve this."
    expr, value = found
    answer = value + 1 if corrupt else value
    compute = f"Compute {expr}."
    work = f"{expr} = {_fmt(answer)}.\nFinal answer: {_fmt(answer)}"
    if kind in ("next_action",):
        return compute, "One computation is needed."
    if kind == "action_list":
        return f"{compute}\nRestate the question in my own words.", "Two ideas."
    if kind in ("successor", "direct", "naive"):
        return work, "I compute it."
    if kind == "goal_check":
        done = _has_final(f["state"])
        return ("yes" if done != corrupt else "no"), "I look for a final answer."
    if kind in ("novelty", "novelty_summarised"):
        listed = f["previous"]
        new = f["new_state"].strip()
        blocks = [b.split("\n", 1)[1].strip() for b in re.split(r"\n\n(?=Partial solution \d+:)", listed.strip())
                  if "\n" in b]
        novel = new not in blocks
        return ("yes" if novel != corrupt else "no"), "I look for a repeat."
    if kind == "novelty_summary":
        return "Computations of the expression in the question.", "Summary."
    if kind == "judge_pre":
        lines = re.findall(r"(?m)^(\d+)\.\s*(.*)$", f["actions"])
        scores = [10 if expr in text else 2 for _, text in lines]
        if corrupt and scores:
            i = rng.randrange(len(scores))
            scores[i] = 12 - scores[i]
        return "\n".join(f"{i}: {x}" for i, x in enumerate(scores, 1)), "I weigh the ideas."
    if kind in ("judge_post", "value"):
        text = f["new_state"] if kind == "judge_post" else f["state"]
        given = final_answer(text)
        score = 5 if given is None else (10 if answers_equal(given, _fmt(value)) else 0)
        if corrupt:
            score = 10 - score if score != 5 else 0
        return str(score), "I check the arithmetic."
    return "I cannot answer this.", "Unknown prompt."
