"""Traces rendered from engine runs, for the property tests of the trace verifier.

`write_trace` walks a task on the engine and writes what a model thinking aloud would write: the
initial facts, the goal, each action with facts of the state after it, in the renderer's sentences
(NL or PDDL) or in paraphrases, with hypotheticals ("If I ..., then ..."), a retraction ("Wait, no,
...") and a restart ("Let me start over") woven in. It records where each claim it wrote stands,
and can inject one wrong fact, one action whose preconditions fail, or a misstated goal.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field

from widthbench.pddl_domains.readers.grammar import paraphrase_tables, template_domain
from widthbench.pddl_domains.render import Renderer
from widthbench.planners.strips import Task, applicable_actions, state_atoms, successor
from widthbench.subtasks.traces.verify import NEAR_STEPS


@dataclass
class Written:
    text: str = ""
    checkable: int = 0  # claims the verifier must judge
    injected: tuple[int, int] | None = None  # span of the injected sentence
    kind: str | None = None

    def say(self, sentence: str, claims: int = 0) -> tuple[int, int]:
        if self.text:
            self.text += " " if random.random() < 0.7 else "\n"
        start = len(self.text)
        self.text += sentence
        self.checkable += claims
        return start, len(self.text)


def _cap(s: str) -> str:
    return s[:1].upper() + s[1:]


class Writer:
    def __init__(self, task: Task, style: str, templates: str, rng: random.Random):
        self.task, self.style, self.rng = task, style, rng
        self.r = Renderer(task, style, templates)
        ts = self.r.template_set
        self.para_actions, _ = paraphrase_tables(template_domain(ts.path) or "", templates)

    def fact(self, atom: str, negated: bool = False) -> str:
        if self.style == "pddl":
            return f"(not {atom}) holds" if negated else f"{atom} holds"
        return self.r.atom(f"(not {atom})" if negated else atom)

    def action(self, a) -> str:
        if self.style == "pddl":
            return str(a)
        texts = [self.r.action(a)]
        for t in self.para_actions.get(a.name, ()):
            slots = sorted(int(x) for x in re.findall(r"\{(\d+)\}", t))
            if slots == list(range(len(a.args))):
                texts.append(re.sub(r"\{(\d+)\}", lambda m: self.r.names[a.args[int(m.group(1))]], t))
        return self.rng.choice(texts)

    def fluent_atoms(self, state: int) -> list[str]:
        return state_atoms(self.task, state)

    def changed(self, before: int, after: int) -> tuple[list[str], list[str]]:
        added = [a for a in state_atoms(self.task, after & ~before)]
        deleted = [a for a in state_atoms(self.task, before & ~after)]
        return added, deleted


def write_trace(task: Task, style: str, templates: str, seed: int, steps: int = 4, inject: str | None = None,
                at: int = 1, weave: bool = True, hide_actions: bool = False) -> Written:
    rng = random.Random(seed)
    random.seed(seed)
    w = Writer(task, style, templates, rng)
    out = Written()
    init = task.init
    shown = w.fluent_atoms(init)
    rng.shuffle(shown)
    out.say("Let me look at the initial state.")
    for atom in shown[:3]:
        out.say(f"{_cap(w.fact(atom))}.", 1)
    goal = state_atoms(task, task.goal)
    out.say(f"My goal is to have that {w.fact(goal[0])}.", 1)
    if inject == "goal":
        wrong = [a for a in task.atoms if not task.goal >> task.atom_index[a] & 1]
        atom = rng.choice(wrong)
        out.injected, out.kind = out.say(f"My goal is to have that {w.fact(atom)}.", 1), "goal"
    # the walk
    state, line, befores = init, [], []
    walk = []
    imagined: set[str] = set()  # facts true in a hypothetical the trace may still be on
    s = init
    for _ in range(steps):
        acts = [a for a in applicable_actions(task, s) if successor(s, a) != s]
        if not acts:
            break
        a = rng.choice(acts)
        walk.append(a)
        s = successor(s, a)
    for i, a in enumerate(walk):
        if weave and i == 1:
            imagined = _hypothetical(w, out, state, rng)
        if inject == "precondition" and i == at:
            bad = _bad_action(task, state, befores, line)
            if bad is not None:
                out.injected, out.kind = out.say(f"Next I {w.action(bad)}.", 1), "precondition"
                inject = "done"
                break
        opener = rng.choice(["", "Next, ", "Then ", "Now I "]) if style == "nl" else rng.choice(["", "Next: ", "Then "])
        if hide_actions:
            out.say(rng.choice(["Then I make my next move.", "I do the obvious thing here.", "Let me do that."]))
        else:
            out.say(f"{opener}{w.action(a)}.", 1)
        befores.append(state)
        line.append(str(a))
        before, state = state, successor(state, a)
        added, deleted = w.changed(before, state)
        for atom in added[:2]:
            out.say(f"Now {w.fact(atom)}.", 1)
        for atom in deleted[:1]:
            if style == "pddl" or w.r.atom(f"(not {atom})"):
                out.say(f"Now {w.fact(atom, negated=True)}.", 1)
        if inject == "fact" and i + 1 == at:
            false = [x for x in task.atoms if not state >> task.atom_index[x] & 1
                     and not any(b >> task.atom_index[x] & 1 for b in befores[-NEAR_STEPS:]) and x not in imagined]
            atom = rng.choice(false)
            out.injected, out.kind = out.say(f"Now {w.fact(atom)}.", 1), "false-fact"
            inject = "done"
        stable = [x for x in w.fluent_atoms(state) if all(b >> task.atom_index[x] & 1 for b in befores[-NEAR_STEPS:])
                  and (style == "pddl" or w.r.atom(f"(not {x})"))]
        if weave and inject is None and i == 2 and stable:
            # a wrong fact withdrawn at once, and the correction (not next to an injected error: a
            # retraction withdraws the wrong claims just before it); a fact that held through the
            # last steps, so that its denial is wrong at every point near the line
            atom = rng.choice(stable)
            out.say(f"{_cap(w.fact(atom, negated=True))}.")
            out.say(f"Wait, no, {w.fact(atom)}.", 1)
    if weave and walk:
        out.say("Let me start over from the initial state.")
        st = init
        for a in walk[:2]:
            out.say(f"{_cap(w.action(a))}.", 1)
            before, st = st, successor(st, a)
            added, _ = w.changed(before, st)
            for atom in added[:1]:
                out.say(f"Now {w.fact(atom)}.", 1)
    return out


def _hypothetical(w: Writer, out: Written, state: int, rng: random.Random) -> set[str]:
    task = w.task
    options = []
    for b in applicable_actions(task, state):
        after = successor(state, b)
        new = [x for x in state_atoms(task, after & ~state)]
        if new:
            options.append((b, new))
    if not options:
        return set()
    b, new = rng.choice(options)
    # true only in the hypothetical state: judged against the main line it would be an error
    out.say(f"If I {w.action(b)}, then {w.fact(new[0])}.", 2)
    return set(new)


def _bad_action(task: Task, state: int, befores: list[int], line: list[str]):
    """An action inapplicable now, at the initial state, wherever it could be a restatement, and after
    any one action (the verifier reads one left-out step as skipped, not as an error)."""
    def ok(a, s):
        return s & a.pre == a.pre and not s & a.neg_pre

    one_step = [successor(state, b) for b in applicable_actions(task, state)]
    for a in task.actions:
        if ok(a, state) or ok(a, task.init) or any(ok(a, b) for b in befores) or any(ok(a, t) for t in one_step):
            continue
        return a
    return None
