"""Traces written from engine walks, for the property tests of the trace verifier.

The shared trace writer (`widthbench.pddl_domains.thinking`, which the simulated models think with)
in wider words than the simulated models use (`WIDE`): more sentence frames for each move, among them
the habits of real reasoning traces (requirement lists, "Pre:", "Need to get to:", "For example, X.
But ...", "So yes!", "Is X? Yes, X.", numbered steps, labelled states, enumerations said complete),
and actions in the domain's paraphrases, so that the verifier is not fitted to one writer. The walk
is a random one; the writer records where each injected error stands.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass

from widthbench.pddl_domains.readers.grammar import paraphrase_tables, template_domain
from widthbench.pddl_domains.thinking import DEFAULT, Phrasing, Writer, write_thinking
from widthbench.planners.strips import Task, applicable_actions, state_atoms, successor

WIDE = Phrasing(
    look=DEFAULT.look + ("Okay, let's see what we have.", "First, the situation as it is.", "Hmm, let me think about this.",
                         "Let me lay out the problem."),
    fact=DEFAULT.fact + ("I see that {fact}.", "We have that {fact}.", "- {Fact}", "Also, {fact}.", "Note that {fact}."),
    denial=DEFAULT.denial + ("Note that {denied}.", "- {Denied}", "Also, {denied}."),
    goal=DEFAULT.goal + ("Goal: {facts}.", "The goal is: {facts}.", "Our goal is that {facts}.",
                         "The goal is reached once {facts}."),
    aim=DEFAULT.aim + ("Need to get to: {facts}.", "What I want in the end: {facts}.",
                       "I need to reach a state where {facts}.", "The target is {facts}.",
                       "So by the final step, {facts} should all be true."),
    consider=DEFAULT.consider + ("Let's try to {action}.", "I could {action}.", "Alternatively, {action}.",
                                 "One option: {action}.", "How about {action}?", "Perhaps {action}.",
                                 "A possibility is to {action}.", "I wonder whether to {action}.",
                                 "Let me consider {action}.", "Perhaps it is better to {action}.",
                                 "Candidate step: {action}.", "I'm inclined to {action}.",
                                 "A thought: {action}.", "Action being weighed: {action}.",
                                 "One idea worth a look is to {action}.", "Alternatively, we might {action} instead.",
                                 "Option (not carried out): {action}.",
                                 "Or we could {action}.", "Hmm, {action}? Not sure.", "Wait, can we {action}?",
                                 "Thinking aloud, not committing: {action}.",
                                 "Opt. (unchecked): {action}", "Idea -> {action}, pending review.",
                                 "I'm wondering whether to {action}.",
                                 "Next comes the option of choosing to {action}.", "One might {action} instead.",
                                 "Another avenue would be to {action} - merely exploring.",
                                 "I wonder whether one ought to {action}.", "Something you might try: {action}.",
                                 "Candidate move (left for later): {action}."),
    require=DEFAULT.require + ("The preconditions of {action} are {facts}.", "For {action} we need {facts}.",
                               "Pre: {facts}.", "{Action} needs {facts}.", "Preconditions: {facts}.",
                               "To {action} I would need {facts}.", "To be able to {action}, {facts} must be true.",
                               "The requirements for {action}: {facts}.", "Prereqs for {action}: {facts}.",
                               "{Action} - preconds: {facts}.", "I can only {action} when {facts}.",
                               "Preconditions for the move \"{action}\" as things now stand: {facts}.",
                               "Pre({action}) = {facts}.",
                               "Before I get to {action}, the rules stipulate {facts}.",
                               "I am only permitted to {action} when {facts}, as the rules say.",
                               "Mind, {action} is a no-go unless {facts}.", "Allowed to {action} only w/ {facts}.",
                               "It is a prerequisite of {action} that {facts}.", "One may {action} as long as {facts}.",
                               "Necessary conditions for {action} are {facts}.", "{Action} rests on {facts}.",
                               "I may only {action} where {facts}.",
                               "To {action}, the rules say one needs {facts}.",
                               "In order to {action}: {facts}.",
                               "Under what conditions may one {action}? Only these: {facts}.",
                               "Not one of these may be missing if we are to {action}: {facts}.",
                               "{Action}, as in any domain, has its own preconditions, and these preconditions are {facts}.",
                               "Here is the rule for {action}, that is, it requires {facts}."),
    reject=DEFAULT.reject + ("But {denied}. So no.", "However, {denied}, so it won't work.",
                             "Not possible: {denied}.", "That fails because {denied}.",
                             "No - {denied}, so that is out.", "Sadly {denied}, so that option's out the window.",
                             "Alas, {denied}, which torpedoes it.", "That does not work: {denied}."),
    aside=DEFAULT.aside + ("Hmm, that doesn't get me closer.",),
    check=DEFAULT.check + ("Is {fact}? Yes, {fact}.", "Check: {fact}.", "{Fact}: yes."),
    confirm=DEFAULT.confirm + ("Yes!", "Great, that's allowed.", "OK, so it's possible."),
    possible=DEFAULT.possible + ("{Action} would be possible.", "It seems that would work."),
    take=DEFAULT.take + ("{n}. {Action}.", "Step {n}: {action}.", "So {action}.", "Let me {action}.",
                         "**{Action}**.", "Action: {action}.", "Performing {action}.", "Executing: {action}.",
                         "I will now {action}.", "[{n}] {Action}.", "Move #{n} = {action}.",
                         "In step {n}, I {action}.", "We proceed to {action}.", "I now go ahead and {action}.",
                         "Next I take care of {object}: {action}.", "» {Action} [done]", "({n}) {action} - exec'd.",
                         "Well then — I {action}.", "Let me actually {action}."),
    effect=DEFAULT.effect + ("{Fact} now.", "So now {fact}.", "At this point {fact}.", "Hence {fact}.",
                             "Consequently, {fact}.", "With that done, {fact}.", "After doing this, {fact}.",
                             "This way, {fact}.", "As a consequence, {fact}.", "Now that this is done, {fact}.",
                             "In the new state, {fact}.", "The direct result of this is that {fact}.",
                             "It is now the case that {fact}.", "{Fact} after this move.", "So {fact} atm.", "{Fact} in the updated state.", "True now: {fact}.", "And like that, {fact}.", "This puts us where {fact}.",
                             "{Fact} now, thanks to that.", "=> {fact} now.", "{Fact} as things are now.",
                             "Oh, and mind — {fact} at this moment.", "{Fact} in the fresh position.",
                             "{Fact} as matters now stand.", "{Fact} this second."),
    lost=DEFAULT.lost + ("{Denied} now.", "So now {denied}.", "At this point {denied}.", "Therefore {denied}.",
                         "{Denied} after this move."),
    state=DEFAULT.state + ("Resulting state: {facts}.", "The state is now: {facts}.",
                           "Let me list the facts true now: {facts}.", "Let me go through where we are now: {facts}."),
    only=DEFAULT.only + ("Now only {objects} {be} {predicate}.", "None besides {objects} {be} {predicate}.",
                         "As far as I can see, {objects} {be} {predicate}, and no others.",
                         "Counting: {objects} {be} {predicate} and nothing else.",
                         "It's only {objects} that {be} {predicate}.",
                         "So {objects} {be} {predicate} - that's the whole roster."),
    only_facts=DEFAULT.only_facts + ("Nothing but {facts} holds.", "The only facts that hold now are {facts}.",
                                     "The facts that hold now are only {facts}.", "Everything that is true now: {facts}.",
                                     "The facts that hold now are precisely {facts}.",
                                     "Listing them: {facts}, and that is the full list.",
                                     "The current state contains only {facts} for these predicates.",
                                     "Full list of those, as of now: {facts} (nothing else).",
                                     "Precisely {facts} hold right now, and no others.",
                                     "So {facts} - that's the complete set of facts of this kind."),
    suppose=DEFAULT.suppose + ("Suppose I {action}; then {fact}.", "If we {action}, {fact}.",
                               "What if I {action}? Then {fact}.", "Hypothetically, if I {action}, {fact}.",
                               "Theoretically, were I to {action}, {fact}.", "In the case where I {action}, {fact}.",
                               "Looking ahead (not yet taken): {action}, and {fact}.",
                               "Were the robot to {action}, {fact}.", "Wait, suppose I {action}: then {fact}.",
                               "Dry run, nothing applied ~ if I {action}, {fact}.",
                               "What would happen if I {action}? Then {fact}.",
                               "I wonder what happens if I {action}: {fact}.", "What follows if we {action}? {Fact}."),
    slip=DEFAULT.slip + ("Wait, no. {Fact}.", "Actually, {fact}.", "Hmm, no: {fact}.", "I was wrong there: {fact}.",
                         "The last statement was a mistake: {fact}.", "Hold on, I mixed that up - {fact}.",
                         "~~prev. line~~ (wrong): {fact}.", "Hmm, that cannot be correct; looking again, {fact}.",
                         "The preceding statement is erroneous: {fact}.", "I said that wrong; in fact {fact}.",
                         "Disregard the previous line: {fact}.", "Typo in the last line - {fact}.",
                         "Was that right, what I just said? No: {fact}.",
                         "No, that's not the case; {fact}.", "That isn't what we have: {fact}.",
                         "I take that back, it's wrong: {fact}.", "Let me retract that - {fact}."),
    restart=DEFAULT.restart + ("Let me start over.", "Let me retrace the steps from the start.",
                               "Let me roll it all back to how things began.", "Restart from the initial state.",
                               "I go back to the very beginning and think it through again."),
    conclude=DEFAULT.conclude + ("I think that's it.", "Done."),
)
#: Steps written in words no reader reads (the object named, the action not): the facts after them
#: cannot be placed.
HIDDEN = Phrasing(take=("Then I do something with {object}.", "I deal with {object} here.", "Let me handle {object}."),
                  require=("Let me think about what is needed.",), check=("Fine.",))
#: The same in PDDL, where an object is named inside a form ("c" alone is a word too).
HIDDEN_PDDL = Phrasing(take=("Then I do (something-with {object}).", "I do (whatever {object}) here."),
                       require=HIDDEN.require, check=HIDDEN.check)

INJECT = {"fact": "wrong-fact", "missing": "missing-fact", "precondition": "inapplicable-action"}


class WideWriter(Writer):
    """The shared writer, with actions in the domain's paraphrases as well as its templates."""

    def __init__(self, task: Task, style: str, templates: str, rng: random.Random, phrasing: Phrasing = WIDE):
        super().__init__(task, style, templates, rng, phrasing)
        self.para_actions, _ = paraphrase_tables(template_domain(self.r.template_set.path) or "", templates)

    def fact(self, atom: str, negated: bool = False) -> str:
        if negated:
            return self.denied(atom)
        return super().fact(atom)

    def denied(self, atom: str) -> str:
        """The shared writer's denials, and "no <fact>" (a fact with no verb: "no pain object c"),
        "<fact> is false"."""
        text = super().fact(atom)
        forms = [super().denied(atom), f"{text} is false"]
        if self.style == "pddl" or " is " not in text:
            forms.append(f"no {text}")
        return self.rng.choice(forms)

    def action(self, a) -> str:
        if self.style == "pddl":
            return str(a)
        texts = [self.r.action(a)]
        for t in self.para_actions.get(a.name, ()):
            slots = sorted(int(x) for x in re.findall(r"\{(\d+)\}", t))
            if slots == list(range(len(a.args))):
                texts.append(re.sub(r"\{(\d+)\}", lambda m: self.r.names[a.args[int(m.group(1))]], t))
        return self.rng.choice(texts)

    def changed(self, before: int, after: int) -> tuple[list[str], list[str]]:
        return state_atoms(self.task, after & ~before), state_atoms(self.task, before & ~after)


@dataclass
class Written:
    text: str = ""
    checkable: int = 0  # claims the verifier must judge
    injected: tuple[int, int] | None = None  # span of the injected sentences
    kind: str | None = None  # the first-error kind the injection is to be reported as


def _cap(s: str) -> str:
    return s[:1].upper() + s[1:]


def unread_step(w: Writer, a, style: str) -> str:
    """A step ``a`` written in words no reader reads, naming its first object and not its action."""
    return f"Then I deal with {w.object_of(a)} somehow." if style == "nl" else f"Then I do (something-with {a.args[0]})."


def said_and_done(w: Writer, a) -> str:
    """A step ``a`` named beside a would, with words no reader reads as taking it ("and now I do")."""
    return f"I said I would {w.action(a)}, and now I do."


def random_walk(task: Task, state: int, rng: random.Random, steps: int) -> list:
    walk = []
    for _ in range(steps):
        acts = [a for a in applicable_actions(task, state) if successor(state, a) != state]
        if not acts:
            break
        a = rng.choice(acts)
        walk.append(a)
        state = successor(state, a)
    return walk


def write_trace(task: Task, style: str, templates: str, seed: int, steps: int = 4, inject: str | None = None,
                at: int = 1, weave: bool = True, hide_actions: bool = False, phrasing: Phrasing | None = None) -> Written:
    """A trace of a random walk of ``steps`` actions from the initial state, in `WIDE` words.
    ``inject``: "fact" (a wrong fact), "missing" (a true fact denied or left out of a complete
    list), "precondition" (an action that does not apply) after action ``at``, or "goal" (the goal
    misstated); ``weave``: options, suppositions, slips and a restart woven in; ``hide_actions``:
    the steps in words no reader reads; ``phrasing``: other sentence frames than `WIDE`."""
    rng = random.Random(seed)
    words = phrasing or WIDE
    w = WideWriter(task, style, templates, rng, (HIDDEN_PDDL if style == "pddl" else HIDDEN) if hide_actions else words)
    walk = random_walk(task, task.init, rng, steps)
    t = write_thinking(w, task.init, walk, inject=INJECT.get(inject), at=at, options=weave and not hide_actions)
    out = Written(t.text, t.asserted)
    if t.injections:
        out.injected, out.kind = t.injections[0].span, t.injections[0].expect
    if inject == "goal":
        wrong = [a for a in task.atoms if not task.goal >> task.atom_index[a] & 1]
        sentence = f"My goal is to have that {w.fact(rng.choice(wrong))}."
        start = len(out.text) + 1
        out.text += " " + sentence
        out.injected, out.kind = (start, start + len(sentence)), "goal"
    return out


_SYLLABLES = ("bl", "qu", "zor", "vex", "mip", "trag", "snu", "dro", "plim", "gav", "yth", "kre", "fos", "wub")


def made_up_word(rng: random.Random) -> str:
    """A word of no language ("zorvexmip"), never one the verifier knows."""
    from widthbench.pddl_domains.readers.lexicon import Lexicon

    known = Lexicon()
    while True:
        w = "".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(2, 3)))
        if not known.known(w):
            return w


def with_made_up_words(phrasing: Phrasing, seed: int, share: float = 0.5) -> Phrasing:
    """``phrasing`` with a made-up word put between two words (or first) of about ``share`` of its
    frames: words the verifier does not know, at any place of any kind of sentence."""
    import dataclasses

    rng = random.Random(seed)
    out = {}
    for f in dataclasses.fields(phrasing):
        frames = []
        for frame in getattr(phrasing, f.name):
            if rng.random() < share:
                parts = frame.split(" ")
                i = rng.randint(0, len(parts))
                word = made_up_word(rng)
                parts.insert(i, _cap(word) if i == 0 else word)
                if i == 0 and len(parts) > 1 and not parts[1].startswith("{"):
                    parts[1] = parts[1][:1].lower() + parts[1][1:]
                frame = " ".join(parts)
            frames.append(frame)
        out[f.name] = tuple(frames)
    return Phrasing(**out)

