"""Measure the trace verifier (docs/traces.md, "How far to trust it"): on generated traces and on the
development traces, the false first errors on clean traces, the injected errors found at their
injection per kind, and how many first errors are of kind "initial-state" with no action applied.

Generated traces: the shared trace writer in the property tests' wide words (tests/subtasks/traces_gen.py)
on random walks of every case of tests/subtasks/test_traces_property.py (Blocksworld, Logistics, a
renamed Blocksworld, the mystery and random obfuscations, PlanBench's Mystery Blocksworld; NL and
PDDL): --count clean traces per case, and --count per case and kind with one error injected after
0-3 actions (an inapplicable action after 1-3). Seeds are --seed + i: the traces are not the ones the
property tests draw.

Development traces: PlanBench's result files the verifier was developed on (DeepSeek-R1's thinking
and GPT-4's state-tracking answers on 3-block Blocksworld, GPT-4's on Mystery Blocksworld).

    .venv/bin/python scripts/measure_traces.py [--count 40] [--seed 100000] [--heldout 1|2|3|4|5|6]
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the property tests' writer and cases (tests/ is not installed)

DATA = ROOT.parent / "shared" / "data"
RESULTS = DATA / "planbench-responses/llm_planning_analysis/results"
FILES = (("DeepSeek-R1, Blocksworld (thinking)", RESULTS / "blocksworld_3/deepseek-r1-api/task_1_plan_generation_zero_shot.json", False),
         ("GPT-4, Blocksworld (state tracking)", RESULTS / "blocksworld_3/gpt-4_chat/task_1_plan_generation_state_tracking.json", True),
         ("GPT-4, Mystery Blocksworld (state tracking)",
          RESULTS / "mystery_blocksworld_3/gpt-4_chat/task_1_plan_generation_state_tracking.json", True))
KINDS = ("fact", "missing", "precondition")


def heldout_phrasing(which: int = 1):
    """Sentence frames none of which is in the property tests' words or the simulated models'. Sets
    1, 2 and 3 were each measured once and then the rules they showed missing were added
    (docs/traces.md); set 4 was written (and committed) before the rules set 3 showed missing, and
    measured once after them; set 5 was written (and committed) before the rules set 4 showed
    missing, and measured once after them; set 6 was written (and committed) before the rules set 5
    showed missing, and measured once after them; set 7 was written (and committed) before the rules
    set 6 showed missing, and measured once after them; set 8 was written (and committed) before the
    rules set 7 shows missing were committed, by the engineer who had drafted them, to be measured
    once after them."""
    from widthbench.pddl_domains.thinking import Phrasing

    if which == 8:
        return Phrasing(
            look=("Let me parse the initial state.", "Starting configuration:"),
            fact=("Right away I see {fact}.", "Clearly {fact}.", "We're told {fact}.", "{Fact} (given)."),
            denial=("We're told {denied}.", "Clearly {denied}."),
            goal=("The problem asks for {facts}.", "Desired outcome: {facts}."),
            aim=("We'll need {facts} by the end.", "Eventually, {facts} has to be true."),
            consider=("Possibly {action}.", "Option A: {action}.", "Let me test {action}.", "What about trying {action}?"),
            require=("For {action} to work, {facts}.", "{Action} needs all of: {facts}."),
            reject=("Can't do it: {denied}.", "Invalid because {denied}."),
            aside=("Skip that.",),
            check=("{Fact}? Yes it is.", "Confirm {fact}: yes."),
            confirm=("Valid.", "Good to go."),
            possible=("{Action} is valid here.",),
            take=("Executing {action} now.", "Doing {action}.", "{n}) {action}.", "Now let me {action}."),
            effect=("Result: {fact}.", "Thus {fact}.", "Following this move, {fact}."),
            lost=("Result: {denied}.", "Thus {denied}."),
            state=("Current configuration: {facts}.", "So now: {facts}."),
            only=("Solely {objects} {be} {predicate} now.",),
            only_facts=("All that holds now: {facts}.",),
            suppose=("Hypothetically doing {action} would give {fact}.", "If I went with {action}, {fact} would hold."),
            slip=("Let me fix that: {fact}.",),
            restart=("Back to square one.",),
            conclude=("That's everything.", "Plan complete."),
        )
    if which == 7:
        return Phrasing(
            look=("Let me restate the problem first.", "Initial conditions, then."),
            fact=("At the start, {fact}.", "The initial state includes {fact}.", "To begin with, {fact}.",
                  "Notably, {fact}."),
            denial=("At the start, {denied}.", "Notably, {denied}."),
            goal=("The goal conditions are {facts}.", "What has to hold at the end: {facts}."),
            aim=("I have to arrive at {facts}.", "The final configuration should have {facts}."),
            consider=("One approach: {action}.", "Should I try to {action}?", "Maybe it's better to {action}."),
            require=("{Action} is possible only when {facts}.", "The conditions for {action}: {facts}.",
                     "{Action} presupposes {facts}."),
            reject=("That's not allowed because {denied}.", "Blocked: {denied}."),
            aside=("Forget it.",),
            check=("Is {fact} true? Yes.", "{Fact} holds."),
            confirm=("So it's legal.", "Alright."),
            possible=("{Action} is feasible.",),
            take=("I'll now {action}.", "Step {n} - {action}.", "Let's go: {action}.", "I decide to {action}."),
            effect=("After that, {fact}.", "As a consequence, {fact}.", "That way, {fact}."),
            lost=("After that, {denied}.", "As a consequence, {denied}."),
            state=("State after this move: {facts}.", "Summary of the state: {facts}."),
            only=("Only {objects} {be} {predicate} at the moment.",),
            only_facts=("The facts that hold are exactly {facts}.",),
            suppose=("In the scenario where I {action}, {fact}.", "Picture that I {action}: {fact}."),
            slip=("I misspoke: {fact}.",),
            restart=("Let me reconsider everything from the initial state.",),
            conclude=("This should be the plan.", "I'm confident now."),
        )
    if which == 6:
        return Phrasing(
            look=("Okay, so the initial setup is as follows.", "Alright, let me figure out what we start with."),
            fact=("From the initial conditions, {fact}.", "First off, {fact}.", "I notice {fact}.",
                  "The setup has {fact}."),
            denial=("From the initial conditions, {denied}.", "I notice {denied}."),
            goal=("We need to end up in a state where {facts}.", "The required final state: {facts}."),
            aim=("Ultimately {facts}.", "My target is {facts}."),
            consider=("Hmm, maybe I should {action}.", "What happens if I {action}?", "Consider {action}."),
            require=("{Action} can only happen if {facts}.", "{Action} has preconditions {facts}."),
            reject=("Oh, but {denied}, so I can't.", "Nope, that fails since {denied}."),
            aside=("Let's not do that.",),
            check=("Checking {fact}: true.", "{Fact}, yes indeed."),
            confirm=("Yep.", "So that works."),
            possible=("{Action} is doable.",),
            take=("I'll {action}.", "Then, {action}.", "So I'll {action} first.", "Okay, I {action}."),
            effect=("Now that's done, {fact}.", "After doing that, {fact}.", "So {fact} now."),
            lost=("After doing that, {denied}.", "So {denied} now."),
            state=("So the state is: {facts}.", "Where we are now: {facts}."),
            only=("At this point just {objects} {be} {predicate}.",),
            only_facts=("The only facts now are {facts}.",),
            suppose=("If I did {action}, {fact}.", "Assume I {action}: then {fact}."),
            slip=("No wait, {fact}.",),
            restart=("Let me redo this carefully from the beginning.",),
            conclude=("I think this works.", "Alright, that's the plan."),
        )
    if which == 5:
        return Phrasing(
            look=("Let me write out the starting situation.", "Here is what the problem gives us."),
            fact=("The problem says {fact}.", "Given: {fact}.", "We know {fact}.", "Evidently {fact}."),
            denial=("The problem says {denied}.", "We know {denied}."),
            goal=("The end goal requires {facts}.", "What the goal asks for: {facts}."),
            aim=("By the end, {facts} must be true.", "We have to finish with {facts}."),
            consider=("Let me think about whether to {action}.", "A possibility is to {action}.",
                      "Could we {action} instead?"),
            require=("{Action} is only legal when {facts}.", "To be able to {action}, {facts} must be true."),
            reject=("That won't do, since {denied}.", "Ruled out: {denied}."),
            aside=("Scrap that.",),
            check=("{Fact}? Correct.", "Verify: {fact}. Yes."),
            confirm=("Then it's permitted.", "Okay."),
            possible=("{Action} is permitted now.",),
            take=("I now {action}.", "Move {n}: {action}.", "Performing {action}.", "Next I {action}."),
            effect=("Following that, {fact}.", "This means {fact}.", "With that done, {fact}."),
            lost=("Following that, {denied}.", "With that done, {denied}."),
            state=("Current facts: {facts}.", "The configuration is now: {facts}."),
            only=("None besides {objects} {be} {predicate} now.", "At present, only {objects} {be} {predicate}."),
            only_facts=("Nothing beyond {facts} holds now.",),
            suppose=("Supposing I {action}, {fact}.", "If I were to {action}, then {fact}."),
            slip=("Sorry, correction: {fact}.",),
            restart=("Let me start again from the initial configuration.",),
            conclude=("That's my reasoning.", "Good, done."),
        )
    if which == 4:
        return Phrasing(
            look=("Let me lay out the problem.", "What do we have here?"),
            fact=("As stated, {fact}.", "We see {fact}.", "{Fact}, that much is given.", "Per the problem, {fact}."),
            denial=("As stated, {denied}.", "Per the problem, {denied}."),
            goal=("The desired end state has {facts}.", "We must achieve {facts}."),
            aim=("At the end we should have {facts}.", "The plan has to lead to {facts}."),
            consider=("Perhaps we could {action}.", "Is it worth trying to {action}?", "Idea: {action}."),
            require=("{Action} is allowed only when {facts}.", "Before we {action}, we must have {facts}."),
            reject=("Impossible, because {denied}.", "No good: {denied}."),
            aside=("Moving on.",),
            check=("Do we have {fact}? We do.", "{Fact}, check."),
            confirm=("Allowed.", "Great."),
            possible=("{Action} is allowed here.",),
            take=("Action {n}: {action}.", "Now we {action}.", "Let us {action}.", "So, {action}."),
            effect=("Afterwards, {fact}.", "This leads to {fact}.", "Hence {fact}."),
            lost=("Afterwards, {denied}.", "Hence {denied}."),
            state=("Updated state: {facts}.", "The state is now {facts}."),
            only=("Exactly {objects} {be} {predicate} now.",),
            only_facts=("Exactly these hold now: {facts}.",),
            suppose=("Were we to {action}, {fact} then.", "Hypothetically, if I {action}, {fact}."),
            slip=("Correction: {fact}.",),
            restart=("Let me redo this from the start.",),
            conclude=("That completes the reasoning.",),
        )
    if which == 3:
        return Phrasing(
            look=("Let's start by writing down what we know.", "First, what's the current configuration?"),
            fact=("{Fact}, I believe.", "Right, {fact}.", "From the description, {fact}.", "It's the case that {fact}."),
            denial=("{Denied}, I believe.", "From the description, {denied}."),
            goal=("We're asked to reach a state where {facts}.", "The task wants {facts}."),
            aim=("So eventually {facts}.", "In the final state, {facts}."),
            consider=("What if I {action}?", "Another thought: {action}.", "Should we {action}?"),
            require=("Can I {action}? For that, {facts}.", "{Action} demands {facts}."),
            reject=("Unfortunately {denied}, so no.", "Not an option since {denied}."),
            aside=("Let me drop that idea.",),
            check=("Is it true that {fact}? It is.", "{Fact} - correct."),
            confirm=("Perfect.", "Then that's legal."),
            possible=("{Action} should be legal.",),
            take=("**Step {n}:** {action}.", "Next move: {action}.", "I {action}.", "We {action}."),
            effect=("This results in {fact}.", "Consequently, {fact}.", "Then {fact}."),
            lost=("Consequently, {denied}.", "This results in {denied}."),
            state=("The state becomes: {facts}.", "New state: {facts}."),
            only=("Nothing but {objects} {be} {predicate} now.",),
            only_facts=("Nothing else holds besides {facts}.",),
            suppose=("If we {action}, {fact} afterwards.", "Say I {action}; then {fact}."),
            slip=("Hold on, that's wrong: {fact}.",),
            restart=("OK, from the beginning once more.",),
            conclude=("So that's it.", "Finished."),
        )
    if which == 2:
        return Phrasing(
            look=("Okay, so here is the situation.",),
            fact=("We've got {fact}.", "{Fact} at the moment.", "Note: {fact}."),
            denial=("{Denied} at the moment.", "Note: {denied}."),
            goal=("The objective is {facts}.", "Our objective: {facts}."),
            aim=("I'm aiming for {facts}.", "We'd like {facts} eventually."),
            consider=("How about trying to {action}?", "Option: {action}.", "Could I {action}?"),
            require=("{Action} needs these: {facts}.", "In order to {action}, {facts} has to be true."),
            reject=("Can't, because {denied}.", "That doesn't work: {denied}."),
            aside=("Never mind that.",),
            check=("{Fact}? Yes.", "Confirmed: {fact}."),
            confirm=("Fine.", "OK, it's allowed."),
            possible=("{Action} looks possible.",),
            take=("Let's {action}.", "I'm going to {action}.", "So I {action}.", "First, {action}."),
            effect=("That gives {fact}.", "Which means {fact} now.", "Resulting in {fact}."),
            lost=("That means {denied}.", "Which means {denied} now."),
            state=("Current situation: {facts}.", "So we're at: {facts}."),
            only=("Now {objects} {be} the only ones {predicate}.",),
            only_facts=("Only these hold now: {facts}.",),
            suppose=("Imagine I {action}: then {fact}.", "Assuming I {action}, {fact}."),
            slip=("Oops, I mean {fact}.",),
            restart=("Starting again from scratch.",),
            conclude=("That's the plan.", "Done thinking."),
        )
    return Phrasing(
        look=("Alright, where are we?", "Let me get my bearings."),
        fact=("{Fact}, as far as I can see.", "Looking at it, {fact}.", "So far {fact}."),
        denial=("{Denied}, as far as I can see.", "Looking at it, {denied}."),
        goal=("Target state: {facts}.", "In the goal, {facts}."),
        aim=("Eventually we want {facts}.", "Ideally {facts} at the end."),
        consider=("One idea: {action}.", "Should I {action}?", "What would happen if I {action}?"),
        require=("{Action} is only possible if {facts}.", "For {action}, the conditions are {facts}."),
        reject=("That's ruled out since {denied}.", "Nope, {denied}."),
        aside=("Not useful right now.",),
        check=("And indeed {fact}.", "Checking: {fact}, true."),
        confirm=("Good.", "Alright, so it's doable."),
        possible=("{Action} seems fine.",),
        take=("I'll go with {action}.", "Doing it: {action}.", "Okay, {action}."),
        effect=("After this, {fact}.", "As a result, {fact}.", "Now we have {fact}."),
        lost=("As a result, {denied}.", "Now {denied}."),
        state=("State now: {facts}.", "Here is where things stand: {facts}."),
        only=("Just {objects} {be} {predicate} now.", "Only {objects} {be} {predicate} at this point."),
        only_facts=("Just {facts} hold now.",),
        suppose=("Were I to {action}, {fact}.", "In case I {action}, {fact}."),
        slip=("Hmm, scratch that: {fact}.",),
        restart=("Let me go over it again from the top.",),
        conclude=("OK.", "That should do it."),
    )


def generated(count: int, seed: int, heldout: int) -> None:
    import tests.subtasks.traces_gen as gen
    from tests.subtasks.test_traces_property import CASES, tasks
    from widthbench.subtasks.traces import verify_trace

    if heldout:
        gen.WIDE = heldout_phrasing(heldout)  # the words write_trace writes in
    write_trace = gen.write_trace

    clean = false = 0
    found: Counter = Counter()
    tried: Counter = Counter()
    first: Counter = Counter()
    at_start = with_error = 0
    for domain, style, templates in CASES:
        for i in range(count):
            task = tasks(domain)[i % 3]
            w = write_trace(task, style, templates, seed + i, steps=4)
            fe = verify_trace(task, w.text, style=style, templates=templates)["first_error"]
            clean += 1
            false += fe is not None
            for kind in KINDS:
                at = (i % 4) if kind != "precondition" else 1 + i % 3
                w = write_trace(task, style, templates, seed + i, steps=4, inject=kind, at=at)
                if w.injected is None:
                    continue  # the walk offers no such error (a dead end offers no inapplicable action)
                fe = verify_trace(task, w.text, style=style, templates=templates)["first_error"]
                tried[kind] += 1
                a, b = w.injected
                found[kind] += fe is not None and fe["kind"] == w.kind and a <= fe["span"][0] and fe["span"][1] <= b
                if fe is not None:
                    with_error += 1
                    first[fe["kind"]] += 1
                    at_start += fe["kind"] == "initial-state" and not fe["actions"]
    words = f"held-out words (set {heldout})" if heldout else "the property tests' wide words"
    print(f"generated traces in {words} ({len(CASES)} cases, {count} per case and kind, seeds {seed}..{seed + count - 1}):")
    print(f"  clean: {clean} traces, {false} with a first error")
    for kind in KINDS:
        print(f"  injected {kind}: found at the injection {found[kind]} of {tried[kind]} "
              f"({100 * found[kind] / max(1, tried[kind]):.1f}%)")
    print(f"  first errors on injected traces: {with_error} ({', '.join(f'{k} {v}' for k, v in sorted(first.items()))}); "
          f"initial-state with no action applied: {at_start} (the injections after 0 actions)")


def development() -> None:
    from widthbench.subtasks.traces import summarise_traces
    from widthbench.subtasks.traces.sources import planbench_traces

    for name, path, cot in FILES:
        if not path.is_file():
            print(f"{name}: {path} not found (the reference data), skipped")
            continue
        recs = planbench_traces(path, DATA / "planbench", chain_of_thought=cot)
        run = summarise_traces(recs)["run"]
        kinds = ", ".join(f"{k} {v}" for k, v in run["first_error_kinds"].items()) or "-"
        print(f"{name}: {run['traces']} traces, coverage {100 * run['coverage']:.1f}%, facts judged "
              f"{run['facts_judged']}, with a first error {run['with_error']} ({kinds}); initial-state with no "
              f"action applied {run['initial_state_no_action']}")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--count", type=int, default=40)
    p.add_argument("--seed", type=int, default=100_000)
    p.add_argument("--heldout", type=int, choices=(1, 2, 3, 4, 5, 6, 7, 8), help="write the generated traces in held-out words (set 1-8)")
    args = p.parse_args()
    generated(args.count, args.seed, args.heldout)
    if not args.heldout:
        development()


if __name__ == "__main__":
    main()
