"""The Game of 24 as a search problem (the ToT and CaT benchmark; rows 901-1000 by default).

State = the multiset of remaining numbers, exact rationals (`widthbench.planners.game24_model`: a sorted
tuple of (numerator, denominator) pairs). Action = ``(x, op, y)`` on two remaining numbers; the
successor replaces them by ``x op y``. Goal = the multiset {24}. Novelty atoms and the instance width
come from `planners.game24.Game24Model` (IW on the puzzle); solvability and solutions from its
`StateSpace` (one per run, held by the problems; one per simulated question).

Prompts are llm/prompts/search/game24.toml with the system message context.game24.txt. The direct
step is Tree of Thoughts' line ``4 + 8 = 12 (left: 6 12)``; the resulting state is read from the
"left" list. Everything the model writes is read exactly (fractions as a/b); anything else is a
ParseError, i.e. a dead node.

`sim_question` makes the simulated models answer these prompts (see searches/sim_search_answers.py).
"""

from __future__ import annotations

import functools
import re
from fractions import Fraction

from widthbench.core.errors import ParseError
from widthbench.generators.game24 import Puzzle, load_puzzles
from widthbench.planners import game24_model as g24
from widthbench.searches import search_prompts
from widthbench.searches.replies import parse_score, parse_scores
from widthbench.searches.templated_problem import TemplatedProblem
from widthbench.subtasks.strict import answer_section
from widthbench.planners.iw import iterated_width

DEFAULT_ROWS = "901-1000"
GOAL = ((24, 1),)
_NUM = r"\(?\s*-?\d+(?:\.\d+)?(?:\s*/\s*\d+)?\s*\)?"
_OP = r"[+\-*/×x÷−–]"
_STEP = re.compile(rf"^\s*(?:step\s*\d*\s*[:.)-]\s*)?({_NUM})\s*({_OP})\s*({_NUM})\s*(?:=\s*({_NUM}))?\s*(.*)$", re.I)
_OPS = {"+": "+", "-": "-", "−": "-", "–": "-", "*": "*", "×": "*", "x": "*", "X": "*", "/": "/", "÷": "/"}


# ---- numbers ----------------------------------------------------------------------------------

def number(text: str) -> g24.Number:
    t = text.strip().strip("()").replace(" ", "")
    try:
        f = Fraction(t)
    except (ValueError, ZeroDivisionError):
        raise ParseError(f"not a number: {text.strip()!r}") from None
    return (f.numerator, f.denominator)


def numbers(text: str) -> tuple:
    t = text.strip().rstrip(".")
    if not t:
        raise ParseError("no numbers in the answer")
    parts = [p for p in re.split(r"[\s,]+", t) if p]
    return g24.make_state([number(p) for p in parts])


def apply(state: tuple, action) -> tuple | None:
    """The successor, or None if a number is missing or the step divides by zero."""
    x, op, y = action
    rest = list(state)
    for v in (x, y):
        if v not in rest:
            return None
        rest.remove(v)
    fx, fy = Fraction(*x), Fraction(*y)
    if op == "+":
        r = fx + fy
    elif op == "-":
        r = fx - fy
    elif op == "*":
        r = fx * fy
    else:
        if fy == 0:
            return None
        r = fx / fy
    return g24.make_state(rest + [(r.numerator, r.denominator)])


def action_text(action) -> str:
    x, op, y = action
    return f"{g24.operand_text(x)} {op} {g24.operand_text(y)}"


def parse_step(line: str) -> tuple[tuple, str | None, str]:
    """(action, claimed result text or None, the rest of the line)."""
    m = _STEP.match(line.strip().strip("*`"))
    if not m:
        raise ParseError(f"cannot read a step in {line.strip()[:60]!r} (expected e.g. 'a + b')")
    result = m.group(4).strip() if m.group(4) else None
    return (number(m.group(1)), _OPS[m.group(2)], number(m.group(3))), result, m.group(5)


def one_line(text: str, what: str) -> str:
    """The answer section's one non-blank line; ParseError "expected ``what``, found N lines" otherwise."""
    lines = [x for x in answer_section(text).strip().splitlines() if x.strip()]
    if len(lines) != 1:
        raise ParseError(f"expected {what}, found {len(lines)} lines")
    return lines[0]


def successors(state: tuple, space: g24.StateSpace) -> list[tuple[tuple, tuple]]:
    """[((x, op, y), child)] of a state (a sorted tuple of (numerator, denominator) pairs), in the
    engine's fixed order; ``space`` memoises them."""
    return [((step.x, step.op, step.y), child.numbers)
            for step, child in space.successors(space.state(state))]


def solvable(state: tuple, space: g24.StateSpace) -> bool:
    return space.solvable(space.state(state))


def solution_expression(state: tuple, space: g24.StateSpace | None = None) -> str | None:
    """An expression over the numbers of ``state`` equal to 24 (the first solution of
    `StateSpace.solution`, written out), or None."""
    space = space if space is not None else g24.StateSpace()
    steps = space.solution(space.state(state))
    if steps is None:
        return None
    exprs = [(x, g24.operand_text(x)) for x in state]
    for step in steps:
        ex = exprs.pop(next(i for i, (v, _) in enumerate(exprs) if v == step.x))[1]
        ey = exprs.pop(next(i for i, (v, _) in enumerate(exprs) if v == step.y))[1]
        exprs.append((step.result, f"({ex} {step.op} {ey})"))
    return exprs[0][1]


def evaluate(expr: str) -> tuple[Fraction, list[Fraction]]:
    """Exact value of an arithmetic expression and the numbers it uses (ParseError otherwise)."""
    import ast

    text = expr.strip().rstrip(".").replace("×", "*").replace("÷", "/").replace("−", "-")
    text = re.sub(r"=\s*24\s*$", "", text).strip()
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError:
        raise ParseError(f"not an arithmetic expression: {expr.strip()[:60]!r}") from None
    used: list[Fraction] = []

    def ev(node):
        if isinstance(node, ast.BinOp) and type(node.op) in (ast.Add, ast.Sub, ast.Mult, ast.Div):
            a, b = ev(node.left), ev(node.right)
            if isinstance(node.op, ast.Add):
                return a + b
            if isinstance(node.op, ast.Sub):
                return a - b
            if isinstance(node.op, ast.Mult):
                return a * b
            if b == 0:
                raise ParseError("division by zero")
            return a / b
        if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
            used.append(Fraction(node.value))
            return Fraction(node.value)
        raise ParseError(f"only numbers, + - * / and parentheses are allowed: {expr.strip()[:60]!r}")

    return ev(tree.body), used


# ---- the problem -----------------------------------------------------------------------------

class Game24Problem(TemplatedProblem):
    kind = "game24"
    has_engine = True
    domain = "game24"

    def __init__(self, puzzle: Puzzle, space: g24.StateSpace | None = None, prompt_dir: str | None = None):
        self.puzzle = puzzle
        self.id = puzzle.id
        self.initial = g24.make_state(puzzle.numbers)
        # the memo of states, successors and solvability (one per run: load_problems shares it)
        self.space = space if space is not None else g24.StateSpace()
        self.model = g24.Game24Model(puzzle.numbers, space=self.space)
        self.optimal_length = len(puzzle.numbers) - 1 if solvable(self.initial, self.space) else None
        self._load("game24", prompt_dir)

    def key(self, state):
        return state

    def action_key(self, action):
        return action

    def show_state(self, state) -> str:
        return g24.state_text(state)

    def show_action(self, action) -> str:
        return action_text(action)

    # engine
    def engine_ranked(self, state):
        return sorted(successors(state, self.space), key=lambda x: not solvable(x[1], self.space))

    def engine_successor(self, state, action):
        return apply(state, action)

    def engine_is_goal(self, state) -> bool:
        return state == GOAL

    def novelty_mask(self, state) -> int:
        return self.model.atom_mask(self.model.state(state))

    def width(self) -> int:
        return self._width

    @functools.cached_property
    def _width(self) -> int:
        res = iterated_width(g24.Game24Model(self.puzzle.numbers, space=self.space), 3)
        return res.width if res.width is not None else 3

    def check(self, plan, final_state=None) -> dict:
        if plan is None:
            return {"plan_valid": False, "solved": False, "reason": "no answer"}
        if isinstance(plan, str):  # naive: an expression
            try:
                value, used = evaluate(plan)
            except ParseError as exc:
                return {"plan_valid": False, "solved": False, "reason": str(exc)}
            ok_numbers = sorted(used) == sorted(Fraction(n) for n in self.puzzle.numbers)
            solved = ok_numbers and value == 24
            reason = "the expression equals 24" if solved else (
                "the expression does not use each number exactly once" if not ok_numbers else f"the expression equals {value}")
            return {"plan_valid": solved, "solved": solved, "reason": reason}
        s = self.initial
        for i, a in enumerate(plan, 1):
            t = apply(s, a)
            if t is None:
                return {"plan_valid": False, "solved": False, "executable": False,
                        "reason": f"step {i} {action_text(a)} cannot be taken from {g24.state_text(s)}"}
            s = t
        solved = s == GOAL
        return {"plan_valid": solved, "solved": solved, "executable": True,
                "reason": "reaches 24" if solved else f"ends with {g24.state_text(s)}"}

    # prompts
    def parse_next_action(self, text, state):
        return parse_step(one_line(text, "one step"))[0]

    def parse_successor(self, text, state, action):
        return numbers(answer_section(text))

    def parse_direct(self, text, state):
        line = one_line(text, "one step line")
        action, _, rest = parse_step(line)
        m = re.fullmatch(r"\(\s*left\s*:\s*(.*?)\s*\)\s*\.?", rest.strip(), re.I)
        if not m:
            raise ParseError(f"no '(left: ...)' list after the step in {line.strip()[:60]!r}")
        return action, numbers(m.group(1))

    def parse_action_list(self, text, state):
        out = []
        for line in answer_section(text).strip().splitlines():
            line = re.sub(r"^\s*(?:[-*•]|\d+[.)])\s*", "", line).strip()
            if line:
                out.append(parse_step(line)[0])
        if not out:
            raise ParseError("no steps in the answer")
        return list(dict.fromkeys(out))

    def summary_text(self, text) -> str:
        return answer_section(text).strip()

    def parse_scores(self, text, count):
        return parse_scores(text, count)

    def parse_score(self, text):
        return parse_score(text)

    def naive_messages(self):
        return self._messages("naive", numbers=self.puzzle.text)

    def parse_naive(self, text):
        section = answer_section(text).strip()
        lines = [x for x in section.splitlines() if x.strip()]
        if len(lines) != 1:
            raise ParseError(f"expected one expression, found {len(lines)} lines")
        evaluate(lines[0])  # readable?
        return lines[0].strip()


def load_problems(rows: str | None, path=None, prompt_dir: str | None = None) -> list[Game24Problem]:
    space = g24.StateSpace()  # shared by the run's puzzles: a state's successors do not depend on the puzzle
    return [Game24Problem(p, space, prompt_dir) for p in load_puzzles(rows or DEFAULT_ROWS, path)]


# ---- simulated answers -------------------------------------------------------------------------

def sim_question(system: str, user: str, question_cls, prompt_dir: str | None = None):
    found = search_prompts.asked("game24", system, user, prompt_dir)
    if found is None:
        return None
    kind, fields = found
    # the question holds its own memo of the arithmetic (problem = a StateSpace)
    return question_cls(kind, fields, _SIM[kind], g24.StateSpace())


def _pick(q, state, rng, good: bool):
    steps = successors(state, q.problem)
    pool = [x for x in steps if solvable(x[1], q.problem) == good] or steps
    return rng.choice(pool) if pool else None


def _result(action) -> g24.Number:
    x, _, y = action
    return apply(g24.make_state([x, y]), action)[0]


def _slip(result: g24.Number, rng) -> g24.Number:
    n, d = result
    return (n + rng.choice((-d, d)), d)


def _sim_next_action(q, mode, corrupt, rng):
    s = numbers(q.fields["state"])
    pick = _pick(q, s, rng, good=not (corrupt or mode == "random" and rng.random() < 0.5))
    return (action_text(pick[0]) if pick else "none"), "I look for a step that keeps 24 reachable."


def _sim_successor(q, mode, corrupt, rng):
    s = numbers(q.fields["state"])
    action, _, _ = parse_step(q.fields["action"])
    t = apply(s, action)
    if t is None:
        return g24.state_text(s), "That step cannot be taken; nothing changes."
    if corrupt or mode == "random":
        x, op, y = action
        rest = list(s)
        rest.remove(x)
        rest.remove(y)
        t = g24.make_state(rest + [_slip(_result(action), rng)])
    return g24.state_text(t), "I replace the two numbers by the result."


def _sim_direct(q, mode, corrupt, rng):
    s = numbers(q.fields["state"])
    bad = corrupt and rng.random() < 0.4
    pick = _pick(q, s, rng, good=not bad and not (mode == "random" and rng.random() < 0.5))
    if pick is None:
        return "none", "No step is possible."
    action, child = pick
    x, op, y = action
    result = _result(action)
    left = g24.state_text(child)
    if corrupt and not bad:
        if rng.random() < 2 / 3:
            slipped = _slip(result, rng)
            rest = list(s)
            rest.remove(x)
            rest.remove(y)
            result, left = slipped, g24.state_text(g24.make_state(rest + [slipped]))
        else:
            left = "the other numbers"
    return f"{action_text(action)} = {g24.number_text(result)} (left: {left})", "One step."


def _sim_action_list(q, mode, corrupt, rng):
    s = numbers(q.fields["state"])
    steps = successors(s, q.problem)
    if mode == "random":
        rng.shuffle(steps)
    else:
        steps.sort(key=lambda x: not solvable(x[1], q.problem))
    steps = steps[:8]
    lines = [action_text(a) for a, _ in steps]
    if corrupt and lines:
        lines[rng.randrange(len(lines))] = f"{g24.number_text(s[0])} + 99"
    return "\n".join(lines) if lines else "none", "I list promising steps."


def _sim_goal(q, mode, corrupt, rng):
    s = numbers(q.fields["state"])
    if mode == "random":
        return rng.choice(("yes", "no")), "I guess."
    return ("yes" if (s == GOAL) != corrupt else "no"), "I look at what is left."


def _listed_states(text: str):
    out = []
    for line in text.strip().splitlines():
        m = re.match(r"^State \d+:\s*(.*)$", line.strip())
        if m:
            out.append(numbers(m.group(1)))
    return out


def _sim_novelty(q, mode, corrupt, rng):
    if mode == "random":
        return rng.choice(("yes", "no")), "I guess."
    new = numbers(q.fields["new_state"])
    novel = new not in _listed_states(q.fields["previous"])
    return ("yes" if novel != corrupt else "no"), "I look for a repeat."


def _sim_summary(q, mode, corrupt, rng):
    seen = []
    for s in _listed_states(q.fields["previous"]):
        for x in s:
            if x not in seen:
                seen.append(x)
    return " ".join(g24.number_text(x) for x in seen) or "none", "Numbers seen."


def _score_step(q, s, action) -> int:
    t = apply(s, action)
    if t is None:
        return 0
    return 10 if solvable(t, q.problem) else 2


def _sim_judge_pre(q, mode, corrupt, rng):
    s = numbers(q.fields["state"])
    scores = []
    for line in q.fields["actions"].strip().splitlines():
        m = re.match(r"^\s*\d+\.\s*(.*)$", line)
        if not m:
            continue
        if mode == "random":
            scores.append(rng.choice((0, 2, 10)))
            continue
        try:
            scores.append(_score_step(q, s, parse_step(m.group(1))[0]))
        except ParseError:
            scores.append(0)
    if corrupt and scores:
        i = rng.randrange(len(scores))
        scores[i] = rng.choice([x for x in (0, 2, 10) if x != scores[i]])
    return "\n".join(f"{i}: {x}" for i, x in enumerate(scores, 1)), "I check each step."


def _sim_judge_post(q, mode, corrupt, rng):
    if mode == "random":
        return str(rng.choice((0, 2, 10))), "I guess."
    s = numbers(q.fields["state"])
    action = parse_step(q.fields["action"])[0]
    new = numbers(q.fields["new_state"])
    t = apply(s, action)
    score = 0 if t is None or t != new else (10 if solvable(t, q.problem) else 2)
    if corrupt:
        score = rng.choice([x for x in (0, 2, 10) if x != score])
    return str(score), "I check the arithmetic."


def _sim_value(q, mode, corrupt, rng):
    if mode == "random":
        return str(rng.randint(0, 10)), "I guess."
    s = numbers(q.fields["state"])
    v = 10 - (len(s) - 1) if solvable(s, q.problem) else 0
    if corrupt:
        v = min(10, max(0, v + rng.choice((-3, -2, 2, 3))))
    return str(v), "I try a few combinations."


def _sim_naive(q, mode, corrupt, rng):
    s = numbers(q.fields["numbers"])
    expr = None if mode == "random" else solution_expression(s, q.problem)
    if expr is None:
        parts = [g24.operand_text(x) for x in s]
        return " + ".join(parts), "I add them up."
    if corrupt:
        ops = [m.start() for m in re.finditer(r" [+\-*/] ", expr)]
        i = rng.choice(ops)
        new = rng.choice([o for o in "+-*/" if o != expr[i + 1]])
        expr = expr[:i + 1] + new + expr[i + 2:]
    return expr, "I found an expression."


_SIM = {"next_action": _sim_next_action, "successor": _sim_successor, "direct": _sim_direct,
        "action_list": _sim_action_list, "goal_check": _sim_goal, "novelty": _sim_novelty,
        "novelty_summary": _sim_summary, "novelty_summarised": _sim_novelty,
        "judge_pre": _sim_judge_pre, "judge_post": _sim_judge_post, "value": _sim_value,
        "naive": _sim_naive}
