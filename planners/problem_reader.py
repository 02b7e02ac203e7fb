"""A fast reader for plain STRIPS problem files.

The `pddl` package (lark) takes about 55 ms per small problem; generation, scoring and the tests
load thousands. This reader handles the plain subset — typed or untyped objects, an init list of
atoms, a goal that is a conjunction of atoms and negated atoms — in well under a millisecond.
Anything else returns None and the caller falls back to the `pddl` package, which also produces
the precise error message for malformed files. Tests check both readers agree on every reference
file.
"""

from __future__ import annotations

import re

_TOKENS = re.compile(r"\(|\)|[^\s()]+")


def _sexpr(text: str):
    text = re.sub(r";[^\n]*", " ", text)
    stack: list[list] = [[]]
    for tok in _TOKENS.findall(text):
        if tok == "(":
            stack.append([])
        elif tok == ")":
            if len(stack) == 1:
                return None
            done = stack.pop()
            stack[-1].append(done)
        else:
            stack[-1].append(tok)
    if len(stack) != 1 or len(stack[0]) != 1:
        return None
    return stack[0][0]


_SPANNED = re.compile(r";[^\n]*|\(|\)|[^\s();]+")


def definitions(text: str, kind: str = "problem") -> list[tuple[int, int]]:
    """The (start, end) offsets in ``text`` of every complete ``(define (KIND NAME) ...)`` form, read
    as PDDL reads it: tokens are parentheses and the words between them, so whitespace around a
    parenthesis may be absent or any ("(define(problem p)"), case does not matter, and ``;`` starts
    a comment. Text around a form is not part of it: prose before it, an unclosed form, a stray
    ``)`` after it. ``kind`` is "problem" or "domain"."""
    tokens = [(m.group(), m.start(), m.end()) for m in _SPANNED.finditer(text) if not m.group().startswith(";")]
    out, opened = [], []
    for i, (tok, start, end) in enumerate(tokens):
        if tok == "(":
            opened.append(i)
        elif tok == ")" and opened:
            j = opened.pop()
            head = [t.lower() for t, _, _ in tokens[j + 1:j + 4]]
            if head == ["define", "(", kind]:
                out.append((tokens[j][1], end))
    return out


def _atom(x):
    if not isinstance(x, list) or not x or not all(isinstance(t, str) for t in x):
        return None
    if x[0] in ("and", "not", "or", "=", "forall", "exists", "when", "imply"):
        return None
    return x[0], tuple(x[1:])


def _goal(x, out_pos, out_neg) -> bool:
    if isinstance(x, list) and x and x[0] == "and":
        return all(_goal(y, out_pos, out_neg) for y in x[1:])
    if isinstance(x, list) and len(x) == 2 and x[0] == "not":
        a = _atom(x[1])
        if a is None:
            return False
        out_neg.append(a)
        return True
    a = _atom(x)
    if a is None:
        return False
    out_pos.append(a)
    return True


def read_problem(text: str):
    """Lower-cased problem text -> (name, domain, objects [(name, type)], init, goal, goal_neg) or None."""
    tree = _sexpr(text)
    if not (isinstance(tree, list) and len(tree) >= 2 and tree[0] == "define"):
        return None
    head = tree[1]
    if not (isinstance(head, list) and len(head) == 2 and head[0] == "problem" and isinstance(head[1], str)):
        return None
    name, domain, objects, init, goal, goal_neg = head[1], None, [], [], [], []
    seen = set()
    for sec in tree[2:]:
        if not (isinstance(sec, list) and sec and isinstance(sec[0], str)) or sec[0] in seen:
            return None
        key = sec[0]
        seen.add(key)
        if key == ":domain" and len(sec) == 2 and isinstance(sec[1], str):
            domain = sec[1]
        elif key == ":requirements":
            continue
        elif key == ":objects":
            pending: list[str] = []
            items = sec[1:]
            i = 0
            while i < len(items):
                tok = items[i]
                if not isinstance(tok, str):
                    return None
                if tok == "-":
                    if i + 1 >= len(items) or not isinstance(items[i + 1], str) or not pending:
                        return None
                    objects += [(o, items[i + 1]) for o in pending]
                    pending = []
                    i += 2
                    continue
                pending.append(tok)
                i += 1
            objects += [(o, "object") for o in pending]
        elif key == ":init":
            for x in sec[1:]:
                a = _atom(x)
                if a is None:
                    return None
                init.append(a)
        elif key == ":goal" and len(sec) == 2:
            if not _goal(sec[1], goal, goal_neg):
                return None
        else:
            return None
    if domain is None or ":goal" not in seen:
        return None
    return name, domain, objects, init, goal, goal_neg
