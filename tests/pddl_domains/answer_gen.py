"""Answer texts written as models write them, over true plans of random instances (issue 40).

A `Vocabulary` is a task as a model sees it: the task, the style (``nl`` / ``pddl``) and the template
set. `true_plan` gives a plan of the instance that reaches its goal on the engine. `Writer` writes
that plan in the habits real answers show (docs/subtasks.md, "Flexible reader"): preambles, markers,
numbering, bold titles, explanations and words about an action's effects after it, paraphrases, call
notation with any separators, objects in any spelling (initials, underscores, subscripts) where it
picks one object, the action word alone with its arguments after it, Unicode spaces, the plan written
twice (a detailed copy, read partly, and a summary), narration, checklists, lines that are no steps
(a final configuration, labels, the domain's rules restated), a completion that runs on past the
answer's end marker, withdrawn steps with their withdrawal, several attempts, an attempt rejected and
written again.

Every text says what a careful reader must get from it (`Answer`): the plan written, or no reading at
all (a parse error) when the text is genuinely ambiguous, and never a withdrawn step. The texts are
made here, from the task's own vocabulary, never quoted from real answers.
"""

from __future__ import annotations

import functools
import random
import re
from dataclasses import dataclass, field

from widthbench.planners import strips
from widthbench.planners.strips import Task
from widthbench.pddl_domains.render import Renderer

SUBSCRIPTS = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")
SPACES = ["\u00a0", "\u202f", "\u2009", "\u3000"]


class Vocabulary:
    """A task as the model sees it (``label`` names the domain for messages; a plain class, so that
    a failing example prints its name, not the whole task)."""

    def __init__(self, label: str, task: Task, style: str, templates: str):
        self.label, self.task, self.style, self.templates = label, task, style, templates

    @functools.cached_property
    def r(self) -> Renderer:
        return Renderer(self.task, self.style, self.templates)

    def __repr__(self) -> str:
        return f"Vocabulary({self.label!r}, {self.task.problem_name!r}, {self.style!r}, {self.templates!r})"


@dataclass(frozen=True)
class Answer:
    """A written answer: ``plan`` is what the reader must return (None: the text is genuinely
    ambiguous, a parse error); ``withdrawn`` are steps the text withdraws (never in a reading)."""

    text: str
    plan: tuple[str, ...] | None
    withdrawn: tuple[str, ...] = ()
    habits: tuple[str, ...] = field(default=())


# ---------------------------------------------------------------------------------------------
# Vocabularies and plans


@functools.lru_cache(maxsize=None)
def _generated(domain: str, k: int) -> Task:
    from widthbench.generators import generate

    return generate(domain, k + 1, 40 + k)[k].task()


@functools.lru_cache(maxsize=None)
def renamed(k: int, mode: str = "mystery") -> Task:
    """A Blocksworld task renamed by `pddl_domains.obfuscate` (its view: a plain task over the new names)."""
    from widthbench.pddl_domains import obfuscate

    return obfuscate.view(obfuscate.attach_task(_generated("blocksworld", k), mode, 5 + k)).task


def vocabularies(k: int, with_data: bool = False) -> list[Vocabulary]:
    """Blocksworld (both template sets), Logistics, a Mystery renaming, both styles; with
    ``with_data`` also PlanBench's Mystery config and ACPBench's typed ferry domain."""
    out = []
    for style in ("nl", "pddl"):
        for tpl in ("widthbench", "planbench"):
            out.append(Vocabulary("blocksworld", _generated("blocksworld", k), style, tpl))
        out.append(Vocabulary("logistics", _generated("logistics", k), style, "planbench"))
        out.append(Vocabulary("mystery", renamed(k), style, "widthbench"))
    if with_data:
        out.extend(data_vocabularies(k))
    return out


@functools.lru_cache(maxsize=None)
def data_vocabularies(k: int) -> tuple[Vocabulary, ...]:
    from tests.conftest import ACP, PLANBENCH, cached_task
    from widthbench.pddl_domains import planbench_configs

    v = planbench_configs.find_variant(PLANBENCH, ["mystery_blocksworld"])
    pb = cached_task(str(v.domain_file), str(v.instance_dir / f"instance-{3 + 7 * k}.pddl"))
    problems = sorted(p for p in (ACP / "ferry").glob("*.pddl") if p.name != "domain.pddl")
    ferry = cached_task(str(ACP / "ferry" / "domain.pddl"), str(problems[k % len(problems)]))
    return tuple(Vocabulary(label, task, style, tpl) for style in ("nl", "pddl")
                 for label, task, tpl in (("planbench-mystery", pb, str(v.config.path)), ("ferry", ferry, "widthbench")))


def true_plan(task: Task, rng: random.Random, max_len: int = 8) -> list[str]:
    """A plan of the task: its optimal plan when the goal is near (breadth-first), else a walk of
    applicable actions (a plan of the state it reaches); at least one step."""
    from widthbench.planners.bfs import shortest_plan

    key = ("answer-gen-plan",)
    plan = task.views.get(key)
    if plan is None:
        try:
            found = shortest_plan(task, max_states=20000)
            plan = [str(a) for a in found.plan] if found is not None and found.plan else None
        except Exception:  # noqa: BLE001 - no plan within the budget: walk instead
            plan = None
        task.views[key] = plan = plan or []
    if plan and len(plan) <= max_len and rng.random() < 0.7:
        return list(plan)
    state, out = task.init, []
    for _ in range(rng.randint(1, max_len)):
        acts = strips.applicable_actions(task, state)
        if not acts:
            break
        a = rng.choice(acts)
        out.append(str(a))
        state = strips.successor(state, a)
    return out or list(plan[:1])


def states_along(task: Task, plan: list[str]) -> list[int]:
    return strips.execute_plan(task, plan).states


# ---------------------------------------------------------------------------------------------
# Names of objects and actions


def _tokens(name: str) -> list[str]:
    return re.findall(r"[a-z]+|\d+", name.lower())


def abbreviation(name: str) -> str:
    """"red block" -> "rb", "package_0" -> "p0", "location_1_0" -> "l1-0": the first letter of each
    word, numbers kept (apart from each other)."""
    out = ""
    for t in _tokens(name):
        out += (("-" if out and out[-1].isdigit() else "") + t) if t.isdigit() else t[0]
    return out


class Writer:
    """Writes actions and plans of one vocabulary in model habits, drawing with ``rng``."""

    def __init__(self, v: Vocabulary, rng: random.Random):
        self.v, self.rng, self.r, self.task = v, rng, v.r, v.task
        self.objects = [o for o, _ in self.task.objects]
        self.names = {o: self.r.names.get(o, o) for o in self.objects}

    # ------------------------------------------------------------ objects

    def _initials(self, o: str) -> list[str]:
        """Short forms of the object's name that no other object shares: the first word's initial
        ("R" for the red block), the initials of all its words, with its digits ("p0", "P₀")."""
        name = self.names[o]
        toks = _tokens(name)
        if len(toks) < 2:
            return []
        forms = {toks[0][0], abbreviation(name)}
        if toks[-1].isdigit() and len(toks) == 2:
            forms.add(toks[0][0] + toks[1])
        out = []
        for f in forms:
            if f in ("a", "an", "i") or f in self.objects or f in self.r._objects_by_name:
                continue
            clash = [x for x in self.objects if x != o and f in (abbreviation(self.names[x]),
                                                                   _tokens(self.names[x])[0][0],
                                                                   "".join(_tokens(self.names[x])[:1])[:1]
                                                                   + "".join(t for t in _tokens(self.names[x]) if t.isdigit()))]
            if not clash:
                out.append(f)
        return out

    def object(self, o: str, *, notation: bool = False) -> str:
        """The object as a model writes it: its name, "the" + name; in a notation (call, the action
        word with its arguments) also initials, underscores for spaces, subscript digits, capitals."""
        rng = self.rng
        if self.v.style == "pddl":
            forms = [o, o.upper()] + ([o.translate(SUBSCRIPTS)] if re.search(r"[a-z]\d+$", o) else [])
            return rng.choice(forms)
        name = self.names[o]
        forms = [name]
        if not notation:
            return rng.choice([name, "the " + name]) if not name.startswith(("object", "location", "package")) else name
        forms += ["the " + name, name.title()]
        if " " in name:
            forms.append(name.replace(" ", "_"))
        if re.fullmatch(r"[a-z]+_\d+", name) or re.fullmatch(r"[a-z]+\d+", name):
            forms.append(re.sub(r"_?(\d+)$", lambda m: m.group(1).translate(SUBSCRIPTS), name))
            forms.append(name.replace("_", " ").title())
        for f in self._initials(o):
            forms.append(f.upper() if rng.random() < 0.7 else f)
        return rng.choice(forms)

    # ------------------------------------------------------------ actions

    def call_name(self, name: str) -> str:
        words = re.split(r"[-_]", name)
        return self.rng.choice(["".join(w.capitalize() for w in words), "_".join(words), "".join(words), name,
                                name.upper(), words[0] + "".join(w.capitalize() for w in words[1:])])

    def call(self, a: str) -> str:
        """Call notation, any separator between the arguments: "Unstack(red, blue)", "feast(b from c)",
        "STACK(A; B)", "board(c₀ → l₀)"."""
        name, args = strips.parse_atom_text(a)
        sep = self.rng.choice([", ", ",", "; ", " ", " from ", " on ", " -> ", " to ", " | "])
        inner = sep.join(self.object(x, notation=True) for x in args)
        return f"{self.call_name(name)}({inner})"

    def word_call(self, a: str) -> str:
        """The action word, then its arguments: "Feast b from c", "unstack: red, blue", "**Attack** object a"."""
        name, args = strips.parse_atom_text(a)
        word = self.rng.choice([name, name.replace("-", " "), name.capitalize(), name.upper()])
        sep = self.rng.choice([" ", ": ", " - ", " → ", "** ", " with "]) if args else ""
        if sep == "** ":
            word = f"**{word}"
        joint = self.rng.choice([", ", " and ", " from ", " to ", " on ", " "])
        objs = [self.object(x, notation=True) for x in args]
        return word + sep + joint.join(objs)

    def sentence(self, a: str) -> str:
        """The action in the vocabulary's own words: the template, or a paraphrase of the data file."""
        if self.v.style == "pddl":
            if self.rng.random() < 0.3:
                return "( " + "  ".join(a.strip("()").upper().split()) + " )"
            return a
        from widthbench.pddl_domains.readers import grammar

        name, args = strips.parse_atom_text(a)
        ts = self.r.template_set
        acts, _ = grammar.paraphrase_tables(grammar.template_domain(ts.path) or "", self.v.templates)
        options = [t for t in acts.get(name, []) if sorted(int(x) for x in re.findall(r"\{(\d+)\}", t))
                   == list(range(len(args)))]
        if options and self.rng.random() < 0.4:
            t = self.rng.choice(options)
            return re.sub(r"\{(\d+)\}", lambda m: self.names[args[int(m.group(1))]], t)
        return self.r.action(a)

    def action(self, a: str, how: str | None = None) -> str:
        how = how or self.rng.choice(["sentence", "sentence", "sentence", "call", "word"])
        if how == "call":
            return self.call(a)
        if how == "word" and self.v.style == "nl":
            return self.word_call(a)
        return self.sentence(a)

    # ------------------------------------------------------------ words about states and effects

    def fact(self, atom: str) -> str:
        return self.r.atom(atom)

    def effects(self, a: str, state: int) -> str:
        """Words about what the action does in ``state``: restores, adds, removes, undoes facts."""
        act = strips.parse_action(self.task, a)
        added = [self.task.atoms[i] for i in range(len(self.task.atoms)) if act.add >> i & 1 and not state >> i & 1]
        deleted = [self.task.atoms[i] for i in range(len(self.task.atoms)) if act.dele >> i & 1 and state >> i & 1]
        rng = self.rng
        plus = self.fact(rng.choice(added)) if added else "the next step possible"
        minus = self.fact(rng.choice(deleted)) if deleted else "nothing else"
        return rng.choice([
            f"restores {plus}, removing {minus}",
            f"this makes {plus} true and removes {minus}",
            f"removing {minus} and adding {plus}",
            f"which undoes {minus}",
            f"so {minus} no longer holds",
            f"deleting {minus}; now {plus}",
            f"{minus} is removed, {plus} is added",
            f"dropping {minus} from the state",
            f"clearing away {minus}",
            f"({minus} is no longer true, rather than staying)",
            f"after this, {minus} is not the case anymore",
        ])

    def requirement(self, a: str) -> str:
        """What one action needs, said of it: "feast object b from object c requires craves b c"."""
        act = strips.parse_action(self.task, a)
        pre = [self.fact(self.task.atoms[i]) for i in range(len(self.task.atoms)) if act.pre >> i & 1]
        verb = self.rng.choice(["requires", "needs"])
        return f"{self.sentence(a)} {verb} {', '.join(pre) or 'nothing'}."

    def rule(self) -> str:
        """One of the domain's rules, restated in general words (no object of the task)."""
        schema = self.rng.choice(self.task.domain.schemas)
        nouns = ["object", "another object", "a third object", "a fourth object", "a fifth object"]
        ts = self.r.template_set
        templates = ts.actions.get(schema.name) if ts is not None and self.v.style == "nl" else None
        if templates:
            generic = re.sub(r"\{(\d+)\}", lambda m: nouns[int(m.group(1))], templates[0])
            generic = re.sub(r"\bthe (object|another|a )", r"\1", generic)
        else:
            generic = schema.name + " " + " ".join(nouns[:len(schema.params)])
        pre = ", ".join(sorted({lit.predicate for lit in schema.pre if lit.positive})) or "nothing"
        return self.rng.choice([
            f"To perform {schema.name.capitalize()} action, the following facts need to be true: {pre}.",
            f"{generic[:1].upper() + generic[1:]} requires {pre}.",
            f"You can only {generic} if {pre} hold.",
            f"Once {schema.name.capitalize()} action is performed the following facts will be true: {pre}.",
            f"- {generic.capitalize()}: needs {pre}",
        ])


# ---------------------------------------------------------------------------------------------
# Whole answers

PREAMBLES = ["", "Here is the plan to achieve your goal:", "Sure! Let me work through this carefully.",
             "Based on the initial conditions, the plan is as follows:", "### Plan", "Okay.",
             "To solve this, I will move one object at a time."]
EPILOGUES = ["", "This sequence reaches the goal.", "I hope this helps!", "**Goal achieved!**",
             "All goal conditions are now satisfied."]
NUMBERING = ["{i}. ", "{i}) ", "Step {i}: ", "- ", "* ", "", "**Step {i}:** ", "{i}. "]
EXPLANATIONS = [". You can do this because it is allowed here.", " (this makes progress)",
                " - this frees the way.", ", which brings us closer to the goal.", ": this is allowed here."]
SUMMARY_HEADS = ["**Summary:**", "In short:", "Plan recap:", "So the plan is:", "### Final plan", "Summary of actions:",
                 "Putting it together:", "**Plan:**"]
TITLED_LINE = "{n}**{title}**"


def steps_text(w: Writer, plan: list[str], *, numbering: str | None = None, how: str | None = None,
               explain: float = 0.3, effects: float = 0.0, titles: float = 0.0) -> list[str]:
    """The plan's step lines: one numbering style, each action in one notation, some explained
    (fixed phrases, or words about the action's effects), some under a bold title."""
    rng = w.rng
    numbering = numbering if numbering is not None else rng.choice(NUMBERING)
    states = states_along(w.task, plan) if effects else []
    lines = []
    for i, a in enumerate(plan, 1):
        text = w.action(a, how)
        if w.v.style == "nl" and rng.random() < 0.5:
            text = text[:1].upper() + text[1:]
        n = numbering.format(i=i)
        if titles and rng.random() < titles:
            title = w.action(a, how)
            body = rng.choice(["This is allowed now.", "The hand is empty, so this works.", text + "."])
            if effects and rng.random() < effects:
                body = w.effects(a, states[i - 1]).capitalize() + "."
            lines.append(f"{n}**{title}**")
            lines.append(f"   - {body}")
            continue
        if effects and rng.random() < effects and i - 1 < len(states):
            text += rng.choice([": ", ", ", " - ", " — ", ". This "]) + w.effects(a, states[i - 1])
        elif rng.random() < explain:
            text += rng.choice(EXPLANATIONS)
        lines.append(n + text)
    return lines


def wrap(rng: random.Random, body: str) -> str:
    kind = rng.randrange(6)
    if kind == 1:
        return f"[PLAN]\n{body}\n[PLAN END]"
    if kind == 2:
        return f"```\n{body}\n```"
    if kind == 3:
        return f"**Answer:**\n{body}"
    if kind == 4:
        return f"Answer: {body}" if "\n" not in body else f"Answer:\n{body}"
    return body


def plain_answer(w: Writer, plan: list[str]) -> Answer:
    """Preamble, the steps in one notation with explanations, an epilogue."""
    rng = w.rng
    how = rng.choice([None, "call", "word", "sentence"])
    one_line = rng.random() < 0.1  # "1) feast b from c 2) succumb b"
    lines = steps_text(w, plan, how=how, explain=0.0 if one_line else 0.3,
                       numbering=rng.choice(["{i}) ", "{i}. "]) if one_line else None,
                       titles=0.15 if w.v.style == "nl" and not one_line else 0)
    text = wrap(rng, (" " if one_line else "\n").join(lines))
    pre, post = rng.choice(PREAMBLES), rng.choice(EPILOGUES)
    return Answer("\n\n".join(x for x in (pre, text, post) if x), tuple(plan), habits=("plain", how or "mixed"))


def unicode_spaced(w: Writer, answer: Answer) -> Answer:
    """Unicode spaces between words (no-break, narrow no-break, thin, ideographic)."""
    t = "".join(w.rng.choice(SPACES) if c == " " and w.rng.random() < 0.4 else c for c in answer.text)
    return Answer(t, answer.plan, answer.withdrawn, answer.habits + ("unicode",))


def effects_answer(w: Writer, plan: list[str]) -> Answer:
    """Each step followed by words about its effects ("restores its province, removing its pain"):
    no withdrawal, whatever words they use."""
    lines = steps_text(w, plan, effects=0.8, explain=0.0, titles=0.3 if w.v.style == "nl" else 0)
    return Answer(w.rng.choice(PREAMBLES) + "\n\n" + "\n".join(lines), tuple(plan), habits=("effects",))


def _compact(w: Writer, plan: list[str]) -> str:
    rng = w.rng
    how = rng.choice(["sentence", "call", None])
    kind = rng.randrange(4)
    acts = [w.action(a, how) for a in plan]
    if kind == 0:
        return "\n".join(f"{i}. {x}" for i, x in enumerate(acts, 1))
    if kind == 1:
        return "\n".join(f"- {x}" for x in acts)
    if kind == 2 and w.v.style == "pddl":
        return "\n".join(acts)
    return "\n".join(acts)


def twice_answer(w: Writer, plan: list[str]) -> Answer:
    """The plan written twice: detailed steps (titles, explanations, words about effects; some steps
    written so that they read as no action at all), then a summary that lists every step."""
    rng = w.rng
    detailed = steps_text(w, plan, numbering=rng.choice(["{i}. ", "Step {i}: ", "**Step {i}:** ", "### Step {i}: "]),
                          effects=0.4, explain=0.3, titles=0.3 if w.v.style == "nl" else 0)
    if w.v.style == "nl" and rng.random() < 0.5 and len(plan) > 1:  # one step told only by its purpose
        k = rng.randrange(len(plan))
        idx = [i for i, ln in enumerate(detailed) if re.match(rf"^(?:\*\*|### )?(?:Step )?{k + 1}[.:)]", ln)
               or ln.startswith(f"{k + 1}. ")]
        if idx:
            j = idx[0]
            prefix = re.match(r"^(?:\*\*|### )?(?:Step )?\d+[.:)]\*?\*?\s*", detailed[j]).group(0)
            detailed[j] = prefix + rng.choice(["Now get the next object ready for the goal.",
                                               "Make the goal condition true for the next object.",
                                               "Continue with the next object, as planned."])
            if j + 1 < len(detailed) and detailed[j + 1].startswith("   "):
                detailed[j + 1] = "   - It is the natural next move."
    head = rng.choice(SUMMARY_HEADS)
    summary = _compact(w, plan)
    text = (rng.choice(PREAMBLES) + "\n\n" + "\n".join(detailed) + f"\n\n{head}\n" + summary
            + "\n\n" + rng.choice(EPILOGUES))
    return Answer(text.strip(), tuple(plan), habits=("twice",))


def block_then_copy_answer(w: Writer, plan: list[str]) -> Answer:
    """A marked plan block, then the same plan again: a narrative ("First we ..., then ..."), a
    checklist ("- [x] ..."), or an explained list."""
    rng = w.rng
    block = "[PLAN]\n" + "\n".join(w.sentence(a) for a in plan) + "\n[PLAN END]"
    kind = rng.choice(["narrative", "checklist", "explained"])
    if kind == "narrative" and w.v.style == "nl":
        links = ["First, we "] + [rng.choice(["Then we ", "Next, we ", "After that, we ", "We then "]) for _ in plan[1:]]
        copy = " ".join(f"{lk}{w.sentence(a)}." for lk, a in zip(links, plan))
    elif kind == "checklist":
        mark = rng.choice(["- [x] ", "✅ ", "✓ ", "- ✔ "])
        copy = "Checklist:\n" + "\n".join(f"{mark}{w.action(a)}" + rng.choice(["", " (done)", " — done"]) for a in plan)
    else:
        copy = "Explanation:\n" + "\n".join(steps_text(w, plan, numbering="{i}. ", effects=0.5, explain=0.5))
    return Answer(f"{rng.choice(PREAMBLES)}\n\n{block}\n\n{copy}".strip(), tuple(plan), habits=("block-copy", kind))


def list_then_copy_answer(w: Writer, plan: list[str]) -> Answer:
    """A numbered list, then the same plan again in other forms: a narrative paragraph ("First, we
    ..., then ..."), a checklist, a one-line chain ("a → b → c"), a table, or a JSON list."""
    rng = w.rng
    listed = "\n".join(steps_text(w, plan, numbering=rng.choice(["{i}. ", "**{i}.** ", "Step {i} — "]), explain=0.3))
    kind = rng.choice(["narrative", "checklist", "chain", "table", "json"])
    if kind == "narrative" and w.v.style == "nl":
        links = ["First, we "] + [rng.choice(["then we ", "next, we ", "after that, we ", "and finally we "])
                                  for _ in plan[1:]]
        told = [f"{lk}{w.sentence(a)}" for lk, a in zip(links, plan)]
        if len(told) > 1 and rng.random() < 0.5:  # one step told by its purpose only: a copy read partly
            k = rng.randrange(1, len(told))
            told[k] = links[k] + rng.choice(["get the next object ready", "make room for the goal", "free the way"])
        copy = "In words: " + ", ".join(told) + "."
    elif kind == "checklist":
        mark = rng.choice(["- [x] ", "✅ ", "✓ "])
        copy = "Checklist:\n" + "\n".join(f"{mark}{w.action(a)}" for a in plan)
    elif kind == "chain":
        copy = rng.choice(["Plan: ", "In short: ", "Sequence: "]) + rng.choice([" → ", " -> "]).join(
            w.action(a, "call" if rng.random() < 0.5 else "sentence") for a in plan)
    elif kind == "table":
        copy = "| Step | Action |\n|---|---|\n" + "\n".join(f"| {i} | {w.sentence(a)} |" for i, a in enumerate(plan, 1))
    else:
        copy = "```json\n[" + ", ".join(f'"{w.sentence(a)}"' for a in plan) + "]\n```"
    return Answer(f"{rng.choice(PREAMBLES)}\n\n{listed}\n\n{copy}".strip(), tuple(plan), habits=("list-copy", kind))


def verbose_answer(w: Writer, plan: list[str]) -> Answer:
    """Everything a verbose model writes at once: the rules restated, a bold plan heading, detailed
    steps (titles, effects below them as bullets, a step told by its subject: "Object b succumbs"),
    a summary in another notation, the final configuration, an epilogue."""
    rng = w.rng
    states = states_along(w.task, plan)
    rules = "\n".join("- " + w.rule() for _ in range(rng.randint(0, 2)))
    lines = []
    for i, a in enumerate(plan, 1):
        act = strips.parse_action(w.task, a)
        added = [w.fact(w.task.atoms[j]) for j in range(len(w.task.atoms)) if act.add >> j & 1 and not states[i - 1] >> j & 1]
        deleted = [w.fact(w.task.atoms[j]) for j in range(len(w.task.atoms)) if act.dele >> j & 1 and states[i - 1] >> j & 1]
        head = rng.choice(["### Step {i}: **{x}**", "{i}. **{x}**", "**Step {i}:** {x}"]).format(i=i, x=w.action(a))
        lines.append(head)
        if added or deleted:
            lines.append(f"   - Removes: {', '.join(deleted) or 'nothing'}")
            lines.append(f"   - Adds: {', '.join(added) or 'nothing'}")
        if rng.random() < 0.3:
            lines.append(f"   - {rng.choice(['This undoes', 'This drops', 'We no longer need'])} "
                         f"{deleted[0] if deleted else 'anything'}.")
    summary = "\n".join(f"{i}. {w.action(a, 'call' if rng.random() < 0.5 else None)}" for i, a in enumerate(plan, 1))
    facts = [w.fact(x) for x in strips.state_atoms(w.task, states[-1])][:5]
    text = (f"{rng.choice(PREAMBLES)}\n\n" + (f"Rules:\n{rules}\n\n" if rules else "") + "## Plan\n\n" + "\n".join(lines)
            + f"\n\n{rng.choice(SUMMARY_HEADS)}\n{summary}\n\n**Final configuration:**\n"
            + "\n".join(f"- {f}" for f in facts) + f"\n\n{rng.choice(EPILOGUES)}")
    return Answer(text.strip(), tuple(plan), habits=("verbose",))


def two_complete_copies_answer(w: Writer, plan: list[str], other: list[str]) -> Answer:
    """Two copies that each read completely and differ: two plans (a parse error)."""
    rng = w.rng
    first = "\n".join(f"{i}. {w.sentence(a)}" for i, a in enumerate(plan, 1))
    second = "\n".join(f"- {w.sentence(a)}" for a in other)
    head = rng.choice([h for h in SUMMARY_HEADS if "final" not in h.lower()])  # a final plan is the answer
    return Answer(f"Plan:\n{first}\n\n{head}\n{second}", None, habits=("two-plans",))


def not_steps_answer(w: Writer, plan: list[str]) -> Answer:
    """The plan among lines that are no steps: the domain's rules restated before it, labels, and
    the final configuration after it."""
    rng = w.rng
    final = states_along(w.task, plan)[-1]
    facts = [w.fact(a) for a in strips.state_atoms(w.task, final)]
    rng.shuffle(facts)
    rules = "\n".join(w.rule() for _ in range(rng.randint(1, 3)))
    if rng.random() < 0.5:  # what some steps need, said before the plan
        rules += "\n" + "\n".join("- " + w.requirement(a) for a in rng.sample(plan, min(len(plan), 2)))
    labels = rng.choice(["**Phase 1: clearing**", "**Plan**", "## Solution", "**Moves:**"])
    steps = "\n".join(steps_text(w, plan, explain=0.2))
    conf = rng.choice(["Final configuration:", "**Final state:**", "Resulting state:", "After these steps:"])
    facts_text = "\n".join(rng.choice(["- ", "* ", ""]) + f for f in facts[:6])
    parts = [rng.choice(["Rules:", "Recall the rules:", ""]), rules, "", labels, steps, "", conf, facts_text,
             rng.choice(EPILOGUES)]
    return Answer("\n".join(parts).strip(), tuple(plan), habits=("not-steps",))


def run_on_answer(w: Writer, plan: list[str], other: list[str]) -> Answer:
    """The prompt opened the plan block; the completion closes it and runs on: a new problem in the
    prompt's words, the example again, or more plan-like lines. What follows the end marker is not
    the answer."""
    rng = w.rng
    body = "\n".join(w.sentence(a) for a in plan)
    kind = rng.randrange(3)
    if kind == 0 and w.v.style == "nl":
        tail = (f"As initial conditions I have that, {w.r.state(w.task.init).replace(chr(10), ', ')}.\n"
                f"My goal is to have that {w.r.goal()}.\n\nMy plan is as follows:\n\n[PLAN]\n"
                + "\n".join(w.sentence(a) for a in other) + "\n[PLAN END]")
    elif kind == 1:
        tail = "\n".join(w.sentence(a) for a in other)
    else:
        tail = "[PLAN]\n" + "\n".join(w.sentence(a) for a in other) + "\n[PLAN END]"
    return Answer(f"{body}\n[PLAN END]\n\n{tail}\n", tuple(plan), habits=("run-on", str(kind)))


WITHDRAWALS = [
    "{w} is not correct, instead {r}",
    "{w} (wait, no, that is wrong)",
    "{w} -- this step is not necessary",
    "{w}. Wait, that is a mistake.",
    "{w} (oops, scratch that)",
    "{w}, which would be incorrect here",
]
WITHDRAWING_LINES = ["Wait, that step is wrong.", "Actually, the previous step is not needed.",
                     "Hmm, step {k} is not correct.", "Oops, ignore that.", "Scratch that last step.",
                     "Step {k} is unnecessary, skip it."]


def withdrawn_answer(w: Writer, plan: list[str]) -> Answer:
    """A step written and withdrawn, by its own line's words or by a line after it naming it."""
    rng = w.rng
    extra = next((str(a) for a in rng.sample(w.task.actions, len(w.task.actions)) if str(a) not in plan), None)
    at = rng.randrange(0, len(plan) + 1)
    lines = [f"{i}. {w.sentence(a)}" for i, a in enumerate(plan, 1)]
    if extra is None:
        return plain_answer(w, plan)
    if rng.random() < 0.5:
        line = rng.choice(WITHDRAWALS).format(w=w.sentence(extra), r=w.sentence(plan[min(at, len(plan) - 1)]))
        lines.insert(at, f"{at + 1}. {line}")
    else:
        lines[at:at] = [f"{at + 1}. {w.sentence(extra)}", rng.choice(WITHDRAWING_LINES).format(k=at + 1)]
    return Answer("Here is the plan:\n" + "\n".join(lines), None, withdrawn=(extra,), habits=("withdrawn",))


REMOVALS = ["Step {k} is unnecessary, skip it.", "Remove step {k}.", "Skip step {k}.", "Step {k} should be omitted.",
            "Actually, step {k} is not needed.", "Please delete step {k}!"]


def removed_answer(w: Writer, plan: list[str]) -> Answer:
    """The plan with one step too many, and a line after it that removes that step by its number:
    the plan without it."""
    rng = w.rng
    extra = rng.choice(w.task.actions)
    at = rng.randrange(0, len(plan) + 1)
    written = plan[:at] + [str(extra)] + plan[at:]
    lines = steps_text(w, written, numbering=rng.choice(["{i}. ", "Step {i}: ", "{i}) "]), explain=0.2)
    text = "\n".join(lines) + "\n\n" + rng.choice(REMOVALS).format(k=at + 1)
    return Answer(text, tuple(plan), habits=("removed",))


CONCESSIONS = ["(this step is not necessary, but I keep it so that the plan is easy to follow)",
               "-- not needed, though it does no harm",
               "(this action is not required, but it is a legal move and keeps the hand free)",
               "(this one is unnecessary, yet it is here to show that {f})",
               "(not strictly necessary, but it follows the rules of the problem)"]
OTHER_WAYS = ["(this step is not necessary, but the plan would also work without it)",
              "(this action is not needed, but you could start from the next step)",
              "(this step is unnecessary, but instead we can go straight to the next one)"]


def conceded_answer(w: Writer, plan: list[str]) -> Answer:
    """A step of the plan said to be not needed and kept ("..., but I keep it ..."): the plan as
    written. Kept but with another way offered ("... would also work without it"): a parse error."""
    rng = w.rng
    at = rng.randrange(len(plan))
    lines = [f"{i}. {w.sentence(a)}" for i, a in enumerate(plan, 1)]
    other = rng.random() < 0.3
    remark = rng.choice(OTHER_WAYS if other else CONCESSIONS)
    fact = w.fact(sorted(strips.state_atoms(w.task, w.task.init))[0]) if "{f}" in remark else ""
    lines[at] += " " + remark.format(f=fact)
    return Answer("Here is the plan:\n" + "\n".join(lines), None if other else tuple(plan), habits=("conceded",))


ATTEMPT_INTROS = ["However, a revised plan:", "But wait, a simpler plan:", "Let me reconsider. New plan:",
                  "On second thought, here is a better plan:"]


def attempts_answer(w: Writer, plan: list[str], other: list[str]) -> Answer:
    """Two attempts: ambiguous unless the last is marked final."""
    rng = w.rng
    final = rng.random() < 0.5
    block = lambda p: "\n".join(f"{i}. {w.sentence(a)}" for i, a in enumerate(p, 1))  # noqa: E731
    intro = "Final plan:" if final else rng.choice(ATTEMPT_INTROS)
    return Answer(f"Plan:\n{block(other)}\n\n{intro}\n{block(plan)}", tuple(plan) if final else None,
                  habits=("attempts",))


#: Words between a first attempt and a second (development words; scripts/heldout_answers.toml holds
#: held-out ones in the same keys): ``reject`` rejects the first attempt as a whole; ``keep`` leaves it
#: standing (another way, a doubt, a check that finds it right); ``intro`` introduces the second;
#: ``close`` ends the answer and changes nothing; ``undo`` (after the second) takes it back or reopens
#: the choice. Slots: {n} a step's number, {action} that step.
SELF_CORRECTIONS = {
    "reject": ["But wait, this plan won't work: step {n} cannot be done.", "Oops, that's wrong.",
               "Hmm, step {n} is not possible there ({action} needs other conditions), so the plan fails.",
               "Checking it again, the plan does not reach the goal. My mistake.",
               "Wait, no - step {n} is illegal.", "I made an error in step {n}.",
               "That sequence doesn't work, because {action} is not applicable at step {n}.",
               "There is a problem with this plan: step {n} breaks the rules."],
    "keep": ["Another plan that also works:", "Alternatively, one could do it this way:",
             "Is this plan right? Let me write another version:", "Or, equivalently:",
             "Let me double-check step {n}: it is fine. A shorter variant:",
             "I'm not sure which one is better, so here is a second plan:"],
    "intro": ["Corrected plan:", "Here is the fixed plan:", "Let me redo it:", "**Revised plan:**", ""],
    "close": ["", "This reaches the goal.", "Each step is applicable in order.", "Hope this helps!"],
    "undo": ["Hmm, this one fails too at step {n}.", "Actually, the first plan was right after all.",
             "Wait, I'm not sure which of the two plans works.", "Oops, step {n} is wrong here as well.",
             "Weighing both again, I cannot settle on one.", "This one still falls short of the goal.",
             "Ran it once more: the goal is still not reached."],
}


def corrected_answer(w: Writer, plan: list[str], other: list[str], kind: str,
                     words: dict[str, list[str]] = SELF_CORRECTIONS) -> Answer:
    """A first attempt (``other``), words between, a second attempt (``plan``), words after.
    ``kind`` "reject": the words between reject the first attempt, the answer is ``plan``; "keep":
    they leave it standing, the answer is unreadable; "undo": the words after take the second back
    or reopen the choice, the answer is unreadable."""
    rng = w.rng
    numbering = rng.choice(["{i}. ", "{i}) ", "Step {i}: ", "**Step {i}:** "])

    def block(p: list[str]) -> str:
        return "\n".join(steps_text(w, p, numbering=numbering, explain=0.2))

    def fill(text: str, p: list[str]) -> str:
        k = rng.randrange(len(p))
        return text.format(n=k + 1, action=w.sentence(p[k]))

    between = fill(rng.choice(words["keep" if kind == "keep" else "reject"]), other)
    intro = rng.choice(words["intro"]) if kind != "keep" and rng.random() < 0.6 else ""
    after = fill(rng.choice(words["undo"]), plan) if kind == "undo" else rng.choice(words["close"])
    head = rng.choice(["Plan:", "Here is a plan:", "Let me solve it step by step.", ""])
    parts = [head, block(other), "", between] + ([intro] if intro else []) + [block(plan)]
    text = "\n".join(x for x in parts[:3] if x) + "\n\n" + "\n".join(parts[3:]) + (f"\n\n{after}" if after else "")
    return Answer(text.strip(), tuple(plan) if kind == "reject" else None, habits=("corrected", kind))


def word_alone_answer(w: Writer, plan: list[str]) -> Answer:
    """The action word alone (a bold title), its arguments on the line below: "**Feast**" /
    "   - object b from object c"."""
    rng = w.rng
    lines = []
    for i, a in enumerate(plan, 1):
        name, args = strips.parse_atom_text(a)
        word = rng.choice([name, name.capitalize(), name.replace("-", " ").title()])
        lines.append(f"{i}. **{word}**")
        objs = [w.object(x, notation=True) for x in args]
        joint = rng.choice([", ", " and ", " from ", " on "])
        lines.append("   - " + rng.choice(["", "Objects: ", "Arguments: "]) + joint.join(objs))
    return Answer("\n".join(lines), tuple(plan), habits=("word-alone",))


WRITERS = {
    "plain": plain_answer, "effects": effects_answer, "twice": twice_answer, "block-copy": block_then_copy_answer,
    "not-steps": not_steps_answer, "word-alone": word_alone_answer, "removed": removed_answer,
    "list-copy": list_then_copy_answer, "verbose": verbose_answer, "conceded": conceded_answer,
}
PAIRED = {"two-plans": two_complete_copies_answer, "run-on": run_on_answer, "attempts": attempts_answer,
          "rejected": lambda w, plan, other: corrected_answer(w, plan, other, "reject"),
          "kept": lambda w, plan, other: corrected_answer(w, plan, other, "keep"),
          "undone": lambda w, plan, other: corrected_answer(w, plan, other, "undo")}


def write(v: Vocabulary, rng: random.Random, habit: str | None = None) -> Answer:
    """A true plan of ``v``'s task written in one habit (drawn when not given); sometimes with Unicode
    spaces on top."""
    w = Writer(v, rng)
    plan = true_plan(v.task, rng)
    habit = habit or rng.choice(sorted(WRITERS) + sorted(PAIRED) + ["withdrawn"])
    if habit in PAIRED:
        other = true_plan(v.task, rng)
        if other == plan:
            other = plan + [plan[-1]] if habit != "run-on" else plan[:-1] or plan + plan
        if other == plan:
            return plain_answer(w, plan)
        answer = PAIRED[habit](w, plan, other)
    elif habit == "withdrawn":
        answer = withdrawn_answer(w, plan)
    else:
        answer = WRITERS[habit](w, plan)
    if answer.plan is not None and rng.random() < 0.2:
        answer = unicode_spaced(w, answer)
    return answer
