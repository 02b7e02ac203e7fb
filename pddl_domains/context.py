"""Domain contexts written from the PDDL: the system message for a domain nobody described by hand.

``generated_context(domain, templates="widthbench", include_domain_file=False) -> str`` describes a
typed STRIPS domain in two parts, as the hand-written contexts (``llm/prompts/context.*.txt``) do:

1. **The domain in PDDL**: the domain printed back from the engine's model (``domain_pddl``): types,
   constants, predicates with their typed parameters, and every action with its parameters,
   precondition and effect. Comments and layout of the original file are dropped; the semantics are
   the engine's (what it grounds is what the model reads).
2. **In words**: the kinds of objects (types, with their parents), each predicate as a fact form in
   PDDL and in words ("(at-robby ?r ?x), in words "robby r is at x""), split into facts that change
   and facts that never change, and each action with its parameters, its requirements and its effects
   in words. The words come from the NL templates the prompts use (a template file covering the
   domain, else the templates generated from the names, `render.generated_template_set`), so the
   context and the prompts always agree.

With ``include_domain_file`` the original domain file follows verbatim.

The PDDL block doubles as the contract with the simulated models: ``domain_from_context(text)`` finds
the ``(define (domain ...))`` in a system message and parses it back, so ``sim:oracle`` can rebuild the
task of any prompt whose context carries its domain (every generated context does; a hand-written one
does when it includes the domain). ``python -m widthbench.pddl_domains.context DOMAIN.pddl`` prints a
generated context: the starting point for writing a better one by hand (docs/domains.md).

Bottom layer: imports only ``planners.strips`` and ``pddl_domains``. Tests:
tests/test_domains_acpbench.py.
"""

from __future__ import annotations

import re
import sys

from widthbench.core.errors import UserError
from widthbench.planners.strips import Domain, Literal, Schema, parse_domain_text

from .render import templates_for
from widthbench.planners.strips import load_domain

MARK = "The domain in PDDL:"
_DEFINE = re.compile(r"\(\s*define\s*\(\s*domain\b", re.IGNORECASE)


# ---------------------------------------------------------------------------------------------
# PDDL printed back


def _lit(l: Literal) -> str:
    core = "(" + " ".join((l.predicate, *l.args)) + ")"
    return core if l.positive else f"(not {core})"


def _typed(pairs) -> str:
    """``[("?a", "t"), ("?b", "t"), ("?c", "object")]`` -> ``"?a ?b - t ?c"``; consecutive equal types
    are grouped; untyped (``object``) names are written with ``- object`` unless all are untyped."""
    pairs = list(pairs)
    if all(t == "object" for _, t in pairs):
        return " ".join(n for n, _ in pairs)
    out, group, current = [], [], None
    for n, t in pairs:
        if group and t != current:
            out.append(" ".join(group) + f" - {current}")
            group = []
        group.append(n)
        current = t
    if group:
        out.append(" ".join(group) + f" - {current}")
    return " ".join(out)


def _conj(parts: list[str]) -> str:
    if not parts:
        return "()"
    return parts[0] if len(parts) == 1 else "(and " + " ".join(parts) + ")"


def domain_pddl(domain: Domain) -> str:
    """The domain as PDDL text that `strips.parse_domain_text` reads back to the same domain."""
    reqs = sorted(domain.requirements)
    if any(s.pre_or for s in domain.schemas):
        reqs.append("disjunctive-preconditions")  # the pddl parser wants it for 'or' (tolerated)
    lines = [f"(define (domain {domain.name})", "  (:requirements " + " ".join(f":{r}" for r in reqs) + ")"]
    if domain.types:
        by_parent: dict[str, list[str]] = {}
        for t, parent in sorted(domain.types.items()):
            by_parent.setdefault(parent, []).append(t)
        parts = [" ".join(ts) + f" - {parent}" for parent, ts in sorted(by_parent.items())]
        lines.append("  (:types " + " ".join(parts) + ")")
    if domain.constants:
        lines.append("  (:constants " + _typed(domain.constants) + ")")
    preds = []
    for p, arity in domain.predicates.items():
        sig = domain.signatures.get(p) or tuple((f"?x{i}", "object") for i in range(arity))
        preds.append("(" + " ".join([p] + ([_typed(sig)] if sig else [])) + ")")
    lines.append("  (:predicates " + " ".join(preds) + ")")
    for s in domain.schemas:
        lines.append(f"  (:action {s.name}")
        lines.append("    :parameters (" + _typed(zip(s.params, s.param_types)) + ")")
        pre = [_lit(l) for l in s.pre] + ["(or " + " ".join(_lit(l) for l in alt) + ")" for alt in s.pre_or]
        lines.append("    :precondition " + _conj(pre))
        eff = [_lit(l) for l in s.add] + [f"(not {_lit(l)})" for l in s.dele]
        lines.append("    :effect " + _conj(eff) + ")")
    lines[-1] += ")"
    return "\n".join(lines)


def domain_from_context(text: str) -> Domain | None:
    """The domain whose ``(define (domain ...))`` a system message carries (the first), else None."""
    m = _DEFINE.search(text)
    if m is None:
        return None
    depth = 0
    for i in range(m.start(), len(text)):
        if text[i] == "(":
            depth += 1
        elif text[i] == ")":
            depth -= 1
            if depth == 0:
                return parse_domain_text(text[m.start():i + 1], source="<context>")
    raise UserError("the domain in the context is cut off (unbalanced parentheses)")


# ---------------------------------------------------------------------------------------------
# In words


def _fill(template: str, args) -> str:
    return re.sub(r"\{(\d+)\}", lambda m: args[int(m.group(1))], template)


def _var(v: str) -> str:
    return v.lstrip("?")


def _type_phrase(domain: Domain, t: str) -> str:
    if t.startswith("(either"):
        return " or ".join(t[len("(either"):-1].split())
    return t


class _Words:
    def __init__(self, domain: Domain, templates: str):
        self.domain = domain
        self.ts = templates_for(domain, templates)

    def fact(self, l: Literal, subst=None) -> str:
        args = [_var(a) for a in l.args] if subst is None else [subst.get(a, a) for a in l.args]
        if l.predicate == "=":
            core = f"{args[0]} and {args[1]} are the same object"
            return core if l.positive else f"{args[0]} and {args[1]} are different objects"
        forms = self.ts.predicates.get(l.predicate, ())
        form = next((f for f in forms if f), None)
        core = _fill(form, args) if form else "(" + " ".join((l.predicate, *args)) + ")"
        if l.positive:
            return core
        neg = self.ts.format.get("negation", "it is not the case that {}")
        return neg.replace("{}", core)

    def action(self, s: Schema) -> str:
        forms = self.ts.actions.get(s.name, ())
        form = next((f for f in forms if f), None)
        args = [_var(p) for p in s.params]
        return _fill(form, args) if form else "(" + " ".join((s.name, *args)) + ")"


def _join(items: list[str], word: str = "and") -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + f" {word} " + items[-1]


def generated_context(domain: Domain, templates: str = "widthbench", include_domain_file: bool = False) -> str:
    """The system message describing ``domain`` (module docstring)."""
    out = [f'You are solving problems in the planning domain "{domain.name}". The domain is given '
           "below in PDDL and then in words. Each problem names its objects, a state (a set of facts) "
           "and a goal.", "", MARK, domain_pddl(domain), "", "The same domain in words.",
           domain_in_words(domain, templates)]
    if include_domain_file:
        out += ["", "The domain file as given:", domain.text or domain_pddl(domain)]
    return "\n".join(out)


def domain_in_words(domain: Domain, templates: str = "widthbench") -> str:
    """The domain in words (the second part of a generated context, and the description a
    formalize-domain prompt gives): kinds of objects, constants, each predicate as a fact form in
    PDDL and in words, each action with its parameters, requirements and effects in words."""
    w = _Words(domain, templates)
    out = []
    if domain.types:
        kinds = []
        for t, parent in sorted(domain.types.items()):
            kinds.append(t if parent == "object" else f"{t} (a kind of {parent})")
        out.append("Kinds of objects: " + ", ".join(kinds) + ". The kind of each object is stated as a fact "
                   "that never changes, e.g. "
                   + _example_type_fact(domain, w) + ".")
    if domain.constants:
        out.append("Objects present in every problem: " + ", ".join(
            n if t == "object" else f"{n} ({_type_phrase(domain, t)})" for n, t in domain.constants) + ".")
    fluent = [p for p in domain.predicates if p not in domain.static_predicates]
    static = [p for p in domain.predicates if p in domain.static_predicates]
    for title, preds in (("Facts that describe a state (actions change them):", fluent),
                         ("Facts that never change (shown with every state):", static)):
        if not preds:
            continue
        out.append(title)
        for p in preds:
            sig = domain.signatures.get(p) or tuple((f"?x{i}", "object") for i in range(domain.predicates[p]))
            lit = Literal(True, p, tuple(v for v, _ in sig))
            typed = [f"{_var(v)} is {_a(_type_phrase(domain, t))}" for v, t in sig if t != "object"]
            where = f" ({'; '.join(typed)})" if typed else ""
            out.append(f'- {_lit(lit)}, in words "{w.fact(lit)}"{where}.')
    out.append("Actions and their rules:")
    for s in domain.schemas:
        params = [f"{_var(v)} ({_type_phrase(domain, t)})" if t != "object" else _var(v)
                  for v, t in zip(s.params, s.param_types)]
        head = "(" + " ".join((s.name, *s.params)) + ")"
        text = f'- {head}, in words "{w.action(s)}"'
        if params:
            text += f"; parameters {', '.join(params)}"
        reqs = [w.fact(l) for l in s.pre] + [" or ".join(w.fact(l) for l in alt) for alt in s.pre_or]
        text += ". Requires " + (_join(reqs) if reqs else "nothing") + "."
        if s.add:
            text += " Afterwards " + _join([w.fact(l) for l in s.add]) + "."
        if s.dele:
            text += " No longer true afterwards: " + _join([w.fact(l) for l in s.dele]) + "."
        out.append(text)
    out.append("An action can be taken only when everything it requires holds. Each action changes only "
               "the facts listed for it; every other fact stays as it was. Parameters of an action may "
               "name the same object unless the rules say they differ.")
    return "\n".join(out)


def _a(noun: str) -> str:
    return ("an " if noun[:1] in "aeiou" else "a ") + noun


def _example_type_fact(domain: Domain, w: _Words) -> str:
    t = sorted(domain.types)[0]
    types = w.ts.types or {}
    forms = types.get(t) or ()
    form = next((f for f in forms if f), None)
    from .render import generic_type_template

    nl = _fill(form or generic_type_template(t), ["x"])
    return f'"{nl}" (in PDDL: ({t} x))'


def main(argv=None) -> int:
    """``python -m widthbench.pddl_domains.context DOMAIN.pddl [--with-domain-file]``."""
    import argparse


    ap = argparse.ArgumentParser(prog="python -m widthbench.pddl_domains.context",
                                 description="print the context widthbench generates for a domain")
    ap.add_argument("domain")
    ap.add_argument("--templates", default="widthbench", help="template set or .toml file")
    ap.add_argument("--with-domain-file", action="store_true", help="append the domain file verbatim")
    args = ap.parse_args(argv)
    try:
        dom = load_domain(args.domain)
        print(generated_context(dom, args.templates, args.with_domain_file))
    except UserError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
