"""Thinking written the way reasoning models write it, from a walk on the engine.

`write_thinking(task, state, walk, ...)` writes what a model thinking aloud about ``walk`` (actions
applicable one after the other from ``state``) writes: it restates some facts of the state (true
ones, and denials of false ones), states the goal and what it aims at, considers options (an action
that does not apply, with its requirements and the unmet one that rules it out; an action that
applies, left aside), states the requirements of the action it takes and checks them, takes it and
says its effects, and now and then lists a fact completely ("only A and C are clear"), labels a
state, supposes ("if I ..., then ..."), withdraws a slip ("Wait, no, ...") or starts over. The
words are the task's own (its renderer, NL or PDDL) set in sentence frames (`Phrasing`).

It can inject one error and records where (`Injection`): a wrong fact, a missing fact (a true fact
denied, or left out of a list said to be complete), or an action that does not apply, taken plainly,
after checking it and finding it "possible", or considered and then built upon.

Used by the simulated models' thinking (`widthbench.simulated`) and by the trace verifier's
property tests, which pass a wider `Phrasing` than `DEFAULT` (docs/traces.md).
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field

from widthbench.pddl_domains.render import Renderer
from widthbench.planners.strips import Action, Task, applicable_actions, state_atoms, successor

KINDS = ("wrong-fact", "missing-fact", "inapplicable-action")
#: The first-error kind (docs/traces.md) an injection is reported as: before any action a fact
#: misstated is one of the state the trace starts from.
EXPECTED = {"wrong-fact": "false-fact", "missing-fact": "denied-fact", "inapplicable-action": "precondition"}


@dataclass(frozen=True, slots=True)
class Injection:
    kind: str  # `KINDS`
    span: tuple[int, int]  # the sentences written for it
    claimed: str  # the fact stated ("(not ...)" for a fact denied) or the action
    expect: str  # the first-error kind it is to be reported as

    def to_json(self) -> dict:
        return {"kind": self.kind, "span": list(self.span), "claimed": self.claimed, "expect": self.expect}


@dataclass(frozen=True, slots=True)
class Thought:
    text: str
    asserted: int  # facts asserted and actions taken: claims a verifier must judge
    injections: tuple[Injection, ...] = ()


@dataclass(frozen=True, slots=True)
class Phrasing:
    """Sentence frames, one picked at random per sentence. Slots: ``{fact}`` / ``{Fact}`` (a fact,
    capitalised), ``{denied}`` (a fact denied), ``{facts}`` (a list), ``{action}`` / ``{Action}``,
    ``{object}`` (the object an action moves), ``{n}`` (a step number), ``{objects}`` ``{be}``
    ``{predicate}`` (an enumeration in words)."""

    look: tuple[str, ...] = ("Let me look at the current state.", "Let me see what holds right now.")
    fact: tuple[str, ...] = ("{Fact}.", "Currently, {fact}.", "Right now {fact}.")
    denial: tuple[str, ...] = ("{Denied}.", "Currently, {denied}.")
    goal: tuple[str, ...] = ("The goal is to have {facts}.", "My goal is to have that {facts}.")
    aim: tuple[str, ...] = ("I want to end up with {facts}.", "So {facts} should hold in the end.")
    consider: tuple[str, ...] = ("What about {action}?", "Maybe {action}.", "For example, {action}.")
    require: tuple[str, ...] = ("{Action} requires {facts}.", "To {action}, we need {facts}.")
    reject: tuple[str, ...] = ("But {denied}, so that is not possible.", "No, {denied}, so I can't do that.")
    aside: tuple[str, ...] = ("That does not help, so I leave it.", "That leads nowhere, so not that one.")
    check: tuple[str, ...] = ("{Fact}, yes.", "{Fact} (yes).")
    confirm: tuple[str, ...] = ("So yes!", "That works.")
    possible: tuple[str, ...] = ("That would be possible.",)
    take: tuple[str, ...] = ("{Action}.", "Next, {action}.", "Now I {action}.")
    effect: tuple[str, ...] = ("Now {fact}.", "At this point, {fact}.")
    lost: tuple[str, ...] = ("Now {denied}.",)
    state: tuple[str, ...] = ("Current state: {facts}.", "So the state is now: {facts}.")
    only: tuple[str, ...] = ("Only {objects} {be} {predicate}.",)
    only_facts: tuple[str, ...] = ("Only {facts} hold.",)
    suppose: tuple[str, ...] = ("If I {action}, then {fact}.",)
    slip: tuple[str, ...] = ("Wait, no, {fact}.",)
    restart: tuple[str, ...] = ("Let me start over from the initial state.",)
    conclude: tuple[str, ...] = ("That settles it.", "So that is my answer.")


DEFAULT = Phrasing()


@dataclass
class _Text:
    rng: random.Random
    text: str = ""
    asserted: int = 0
    injections: list = field(default_factory=list)

    def say(self, sentence: str, claims: int = 0) -> tuple[int, int]:
        if self.text:
            # a list item, or a line that ends without a full stop, stands on a line of its own
            own_line = _ITEM.match(sentence) or not self.text.endswith((".", "!", "?", ":"))
            self.text += "\n" if own_line or self.rng.random() < 0.3 else " "
        start = len(self.text)
        self.text += sentence
        self.asserted += claims
        return start, len(self.text)


_ITEM = re.compile(r"[-*•]\s|\d+[.)]\s|step\s+\d+", re.I)


def _cap(s: str) -> str:
    return s[:1].upper() + s[1:]


def gerund(verb: str) -> str:
    """"unstack" -> "unstacking", "drive" -> "driving", "put" -> "putting"."""
    if verb.endswith("e") and not verb.endswith("ee"):
        return verb[:-1] + "ing"
    if len(verb) <= 4 and len(verb) >= 3 and verb[-1] not in "aeiouwxy" and verb[-2] in "aeiou" \
            and verb[-3] not in "aeiou":
        return verb + verb[-1] + "ing"
    return verb + "ing"


class Writer:
    """Writes thinking about one task in one style and template set."""

    def __init__(self, task: Task, style: str, templates: str, rng: random.Random, phrasing: Phrasing = DEFAULT):
        self.task, self.style, self.rng, self.p = task, style, rng, phrasing
        self.r = Renderer(task, style, templates)

    # ---------------------------------------------------------------- words

    def fact(self, atom: str) -> str:
        return atom if self.style == "pddl" else self.r.atom(atom)

    def denied(self, atom: str) -> str:
        """A fact denied: ``(not ...)``; in words the template's negation, or "is not" for "is"."""
        if self.style == "pddl":
            return f"(not {atom})"
        text = self.r.atom(atom)
        forms = [self.r.atom(f"(not {atom})")]
        if " is " in text:
            forms.append(text.replace(" is ", " is not ", 1))
        return self.rng.choice(forms)

    def facts(self, atoms: list[str]) -> str:
        words = [self.fact(x) for x in atoms]
        if self.style == "pddl" or len(words) == 1:
            return " ".join(words) if self.style == "pddl" else words[0]
        return ", ".join(words[:-1]) + " and " + words[-1]

    def action(self, a: Action) -> str:
        return str(a) if self.style == "pddl" else self.r.action(a)

    def object_of(self, a: Action) -> str:
        """The name of the object an action moves (its first argument), for "... with {object}"."""
        return (a.args[0] if self.style == "pddl" else self.r.names[a.args[0]]) if a.args else "it"

    def frame(self, frames: tuple[str, ...], **slots) -> str:
        f = self.rng.choice(frames)
        for key in ("fact", "denied", "action"):
            if key in slots:
                slots[_cap(key)] = _cap(slots[key])
        return f.format(**slots)

    def enumeration(self, state: int, leave_out: str | None = None) -> tuple[str, str] | None:
        """("Only A and C are clear." , the predicate) for a one-argument predicate that holds of at
        least one object (leaving out ``leave_out`` when given), else None."""
        by: dict[str, list[str]] = {}
        for atom in self.task.atoms:
            parts = atom.strip("()").split()
            if len(parts) == 2:
                by.setdefault(parts[0], []).append(atom)
        options = []
        for pred, atoms in sorted(by.items()):
            true = [x for x in atoms if state >> self.task.atom_index[x] & 1]
            if leave_out is not None:
                if leave_out not in true or len(true) < 2:
                    continue
                true = [x for x in true if x != leave_out]
            if true and len(true) < len(atoms):
                options.append((pred, true))
        if not options:
            return None
        pred, true = self.rng.choice(options)
        if self.style == "pddl":
            return self.frame(self.p.only_facts, facts=self.facts(true)), pred
        words = []
        for atom in true:
            obj = atom.strip("()").split()[1]
            text, name = self.r.atom(atom), self.r.names[obj]
            at = text.find(name)
            if at < 0 or not text[at + len(name):].startswith(" is "):
                return self.frame(self.p.only_facts, facts=self.facts(true)), pred
            subject, predicate = text[:at + len(name)], text[at + len(name) + 4:]
            words.append(subject)
        objects = words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]
        return self.frame(self.p.only, objects=objects, be="is" if len(words) == 1 else "are",
                          predicate=predicate), pred


#: How many actions taken after a supposition a reader may follow it along (the trace verifier's
#: candidate lines: docs/traces.md).
BRANCH_AGE = 2


def _applies(a: Action, state: int) -> bool:
    return state & a.pre == a.pre and not state & a.neg_pre


def _holds(task: Task, atom: str, state: int) -> bool:
    return bool(state >> task.atom_index[atom] & 1)


def write_thinking(w: Writer, state: int, walk, *, inject: str | None = None, at: int = 1,
                   options: bool = True) -> Thought:
    """The thinking ``w`` writes about taking ``walk`` from ``state`` (module docstring). ``inject``:
    one of `KINDS`, written after action ``at`` of the walk (0: while the state is restated, before
    any action); ``options``: weave in options considered, suppositions, slips and a restart."""
    task, rng, p = w.task, w.rng, w.p
    out = _Text(rng)
    walk = list(walk)
    near: list[int] = [state]  # states the trace spoke of: a wrong fact is false at each, a missing one true
    # the states a supposition reached, each carried along the actions taken after it that apply there
    # (at most BRANCH_AGE): a reader may take the trace to go on from what it imagined
    branches: list[tuple[int, int]] = []
    out.say(w.frame(p.look))
    shown = state_atoms(task, state)
    rng.shuffle(shown)
    false = [x for x in task.atoms if not _holds(task, x, state)]
    for atom in shown[:3]:
        out.say(w.frame(p.fact, fact=w.fact(atom)), 1)
    if false:
        out.say(w.frame(p.denial, denied=w.denied(rng.choice(false))), 1)
    if inject in ("wrong-fact", "missing-fact") and at == 0:
        _inject(w, out, inject, state, near, 0)
        inject = None
    goal = state_atoms(task, task.goal)
    if goal:
        out.say(w.frame(p.goal, facts=w.facts(goal)), len(goal))
        if options:
            out.say(w.frame(p.aim, facts=w.facts(goal)))
    line: list[int] = [state]
    for i, a in enumerate(walk):
        # no option left open in the two steps before an injection: the line it is in is then certain
        quiet = inject is not None and at - 2 <= i < at
        if options and not quiet:
            supposed = _consider(w, out, state, line, near)
            if supposed is not None:
                branches.append((supposed, 0))
        if inject == "inapplicable-action" and i + 1 == at:
            if _inject(w, out, inject, state, near + line, i):
                return Thought(out.text, out.asserted, tuple(out.injections))
            inject = None
        out.say(w.frame(p.require, action=w.action(a), facts=w.facts(state_atoms(task, a.pre))))
        met = state_atoms(task, a.pre)
        if met and rng.random() < 0.5:
            out.say(w.frame(p.check, fact=w.fact(rng.choice(met))), 1)
            out.say(w.frame(p.confirm))
        out.say(w.frame(p.take, action=w.action(a), n=i + 1, object=w.object_of(a)), 1)
        before, state = state, successor(state, a)
        line.append(state)
        near.append(state)
        branches = [(successor(b, a), age + 1) for b, age in branches if age < BRANCH_AGE and _applies(a, b)]
        near.extend(b for b, _ in branches)
        added = state_atoms(task, state & ~before)
        deleted = state_atoms(task, before & ~state)
        for atom in added[:2]:
            out.say(w.frame(p.effect, fact=w.fact(atom)), 1)
        if deleted:
            out.say(w.frame(p.lost, denied=w.denied(deleted[0])), 1)
        if options and rng.random() < 0.3:
            got = w.enumeration(state)
            if got is not None:
                out.say(got[0], 1)
        if options and rng.random() < 0.25:
            facts = state_atoms(task, state)
            rng.shuffle(facts)
            out.say(w.frame(p.state, facts=w.facts(facts[:4])), min(4, len(facts)))
        if inject in ("wrong-fact", "missing-fact") and i + 1 == at:
            if _inject(w, out, inject, state, line[-2:] + (line[:1] if i < 2 else []), i + 1):
                inject = None
        elif options and not quiet and i == 1 and rng.random() < 0.5:
            _slip(w, out, state, line)
    if options and walk and rng.random() < 0.5:
        out.say(w.frame(p.restart))
        st = line[0]
        for j, a in enumerate(walk[:2]):
            out.say(w.frame(p.take, action=w.action(a), n=j + 1, object=w.object_of(a)), 1)
            before, st = st, successor(st, a)
            added = state_atoms(task, st & ~before)
            if added:
                out.say(w.frame(p.effect, fact=w.fact(added[0])), 1)
    out.say(w.frame(p.conclude))
    return Thought(out.text, out.asserted, tuple(out.injections))


def _consider(w: Writer, out: _Text, state: int, line: list[int], near: list[int]) -> int | None:
    """An option considered: an action that does not apply, its requirements and the unmet one that
    rules it out; or one that applies, supposed or left aside. The state a supposition reaches, if any."""
    task, rng, p = w.task, w.rng, w.p
    roll = rng.random()
    if roll < 0.4:
        bad = [a for a in task.actions if not _applies(a, state) and state_atoms(task, a.pre & ~state)]
        if not bad:
            return
        a = rng.choice(bad)
        unmet = rng.choice(state_atoms(task, a.pre & ~state))
        out.say(w.frame(p.consider, action=w.action(a)))
        out.say(w.frame(p.require, action=w.action(a), facts=w.facts(state_atoms(task, a.pre))))
        out.say(w.frame(p.reject, denied=w.denied(unmet)), 1)
    elif roll < 0.6:
        good = [a for a in applicable_actions(task, state) if successor(state, a) != state]
        if not good:
            return
        a = rng.choice(good)
        after = successor(state, a)
        new = state_atoms(task, after & ~state)
        if new:
            out.say(w.frame(p.suppose, action=w.action(a), fact=w.fact(new[0])), 1)
            near.append(after)
            return after
    return None


def _slip(w: Writer, out: _Text, state: int, line: list[int]) -> None:
    """A fact that held through the last steps denied, and at once withdrawn ("Wait, no, ...")."""
    task = w.task
    stable = [x for x in state_atoms(task, state) if all(_holds(task, x, s) for s in line[-2:])]
    if stable:
        atom = w.rng.choice(stable)
        out.say(_cap(w.denied(atom)) + ".")
        out.say(w.frame(w.p.slip, fact=w.fact(atom)), 1)


def _inject(w: Writer, out: _Text, kind: str, state: int, near: list[int], step: int) -> bool:
    """Write one error of ``kind`` where the trace stands; False when the state offers none."""
    task, rng, p = w.task, w.rng, w.p
    if kind == "wrong-fact":
        # while the state is restated, not a fact of the goal: said with no word of time, it would
        # read as the goal stated as well
        false = [x for x in task.atoms if not any(_holds(task, x, s) for s in near)
                 and not (step == 0 and task.goal >> task.atom_index[x] & 1)]
        if not false:
            return False
        atom = rng.choice(false)
        frames = p.fact if step == 0 else p.effect
        span = out.say(w.frame(frames, fact=w.fact(atom)), 1)
        out.injections.append(Injection(kind, span, atom, "initial-state" if step == 0 else "false-fact"))
        return True
    if kind == "missing-fact":
        true = [x for x in state_atoms(task, state) if all(_holds(task, x, s) for s in near)]
        if not true:
            return False
        atom = rng.choice(true)
        listed = w.enumeration(state, leave_out=atom) if rng.random() < 0.5 else None
        if listed is not None:
            # said of the point the trace is at ("Now only ..."), so that no earlier point explains it
            span = out.say(listed[0] if step == 0 else "Now, " + listed[0][:1].lower() + listed[0][1:], 1)
        else:
            frames = p.denial if step == 0 else p.lost
            span = out.say(w.frame(frames, denied=w.denied(atom)), 1)
        out.injections.append(Injection(kind, span, f"(not {atom})", "initial-state" if step == 0 else "denied-fact"))
        return True
    bad = _inapplicable(task, state, near, rng)
    if bad is None:
        return False
    form = rng.random()
    effects = [x for x in state_atoms(task, bad.add) if not any(_holds(task, x, s) for s in near)]
    stated = tuple(f for f in p.consider if not f.endswith("?"))  # a question considers nothing taken
    if form < 0.7 or not (effects and stated):
        if form < 0.4 or form >= 0.7:
            span = out.say(w.frame(p.take, action=w.action(bad), n=step + 1, object=w.object_of(bad)), 1)
        else:
            # checked, found "possible" and taken: an error at the action taken
            first = out.say(w.frame(p.consider, action=w.action(bad)))
            out.say(w.frame(p.possible, action=w.action(bad)))
            out.say(w.frame(p.confirm))
            span = (first[0], out.say(w.frame(p.take, action=w.action(bad), n=step + 1, object=w.object_of(bad)), 1)[1])
        if effects:
            # and it goes on from the action's result ("I'll go with X. Now ...": taken)
            span = (span[0], out.say(w.frame(p.effect, fact=w.fact(rng.choice(effects))), 1)[1])
    else:
        # considered, then built upon: its effect said to hold
        first = out.say(w.frame(stated, action=w.action(bad)))
        span = (first[0], out.say(w.frame(p.effect, fact=w.fact(rng.choice(effects))), 1)[1])
    out.injections.append(Injection(kind, span, str(bad), "precondition"))
    return True


def _inapplicable(task: Task, state: int, near: list[int], rng: random.Random) -> Action | None:
    """An action that applies neither where the trace stands nor at any state it spoke of (nor at the
    initial state), and that no one action would make applicable (a step left out in words)."""
    one_step = [successor(state, b) for b in applicable_actions(task, state)]
    found = [a for a in task.actions if not (_applies(a, task.init) or any(_applies(a, s) for s in near)
                                             or any(_applies(a, t) for t in one_step))]
    return rng.choice(found) if found else None
