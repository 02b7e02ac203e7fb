"""An independent, deliberately naive STRIPS simulator for tests.

Atoms are strings in frozensets; actions are instantiated over every tuple of objects straight
from the `pddl` package's objects. It shares no code with widthbench.planners.strips.
"""

from __future__ import annotations

import functools
import itertools
from pathlib import Path

from pddl.logic.base import And, Not
from pddl.logic.predicates import Predicate
from pddl.logic.terms import Variable
from pddl.parser.domain import DomainTransformer
from pddl.parser.problem import ProblemTransformer


def _lits(f):
    if isinstance(f, And):
        out = []
        for op in f.operands:
            out += _lits(op)
        return out
    if isinstance(f, Not):
        return [(False, f.argument)]
    return [(True, f)]


def _text(pred: Predicate, binding) -> str:
    args = [binding[t.name] if isinstance(t, Variable) else t.name for t in pred.terms]
    return "(" + " ".join([pred.name] + args) + ")"


@functools.lru_cache(maxsize=None)
def _lark(start: str):
    """The `pddl` package's grammar as a lark LALR parser, built once (its DomainParser and
    ProblemParser build it anew on every construction, ~50 ms each)."""
    from lark import Lark
    from pddl.parser import GRAMMAR_FILE, PARSERS_DIRECTORY

    return Lark(GRAMMAR_FILE.read_text(), parser="lalr", import_paths=[PARSERS_DIRECTORY], start=start)


def parse_pddl(text: str, start: str):
    """What DomainParser()(text) (start "domain") or ProblemParser()(text) ("problem") returns: the
    same grammar's tree through a fresh transformer of the package's (they keep state per parse)."""
    transformer = DomainTransformer() if start == "domain" else ProblemTransformer()
    return transformer.transform(_lark(start).parse(text))


class RefTask:
    def __init__(self, domain_file, problem_file):
        self.domain = parse_pddl(Path(domain_file).read_text().lower(), "domain")
        self.problem = parse_pddl(Path(problem_file).read_text().lower(), "problem")
        self.objects = sorted(o.name for o in self.problem.objects)
        self.init = frozenset(_text(a, {}) for a in self.problem.init)
        self.goal = frozenset(_text(p, {}) for pos, p in _lits(self.problem.goal) if pos)
        self._ground = None

    def instantiate(self, name: str, args: tuple[str, ...]):
        action = next(a for a in self.domain.actions if a.name == name)
        b = {v.name: o for v, o in zip(action.parameters, args)}
        pre = [(pos, _text(p, b)) for pos, p in _lits(action.precondition)]
        eff = [(pos, _text(p, b)) for pos, p in _lits(action.effect)]
        return pre, {a for pos, a in eff if pos}, {a for pos, a in eff if not pos}

    def applicable(self, state: frozenset) -> set[str]:
        if self._ground is None:  # every action over every tuple of objects, instantiated once
            self._ground = [("(" + " ".join((action.name,) + args) + ")", self.instantiate(action.name, args)[0])
                            for action in self.domain.actions
                            for args in itertools.product(self.objects, repeat=len(action.parameters))]
        return {name for name, pre in self._ground if all((a in state) == pos for pos, a in pre)}

    def step(self, state: frozenset, action_text: str):
        """Successor, or None if inapplicable."""
        toks = action_text.strip("()").split()
        pre, add, dele = self.instantiate(toks[0], tuple(toks[1:]))
        if not all((a in state) == pos for pos, a in pre):
            return None
        return frozenset((state - dele) | add)

    def first_failure(self, plan):
        """(1-based failing step or None, final state or None)."""
        s = self.init
        for i, a in enumerate(plan, 1):
            nxt = self.step(s, a)
            if nxt is None:
                return i, None
            s = nxt
        return None, s
