"""The reader package on what real answers do (issue: readers that hold on unseen models).

Each phenomenon is a general rule with a property test over rendered plans decorated with it, in both
styles (nl / pddl) and both template sets (widthbench / planbench): Unicode spacing, call notation,
phrasings written here independently of the paraphrase tables, withdrawn steps (never read as the
action: no false credit), several attempts, restated problems, narration around a plan block. The
ambiguous forms are parse errors that say why.
"""

from __future__ import annotations

import random
import re

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from tests.conftest import PLANBENCH, need_data
from tests.subtasks.test_flexible import CASES, SETTINGS, TASKS, _decorate_actions
from widthbench.core.errors import ParseError
from widthbench.pddl_domains.readers.reply import plain
from widthbench.pddl_domains.render import Renderer
from widthbench.subtasks import flexible

SPACES = ["\u00a0", "\u202f", "\u2009", "\u2007", "\u3000"]


def _plan(task, rng, n):
    return [str(rng.choice(task.actions)) for _ in range(n)]


# ---------------------------------------------------------------------------------------------
# Unicode spacing and punctuation


@SETTINGS
@given(case=st.sampled_from(CASES), rng=st.randoms(use_true_random=False), n=st.integers(1, 5))
def test_unicode_spaces_quotes_dashes_and_full_width_digits_read_as_ascii(case, rng, n):
    domain, k, style, templates = case
    task = TASKS[domain][k]
    plan = _plan(task, rng, n)
    text = _decorate_actions(rng, task, style, templates, plan)
    fancy = "".join(rng.choice(SPACES) if c == " " and rng.random() < 0.5 else
                    chr(ord(c) + 0xFEE0) if c.isdigit() and rng.random() < 0.3 else c for c in text)
    fancy = fancy.replace("'", "\u2019").replace(" - ", " \u2014 ")
    assume(fancy != text)
    got = flexible.read_plan(task, fancy, style, templates)
    assert got.value == plan, fancy
    assert len(plain(fancy)) == len(fancy) and 0 <= got.span[0] <= got.span[1] <= len(fancy)


# ---------------------------------------------------------------------------------------------
# Call notation: Unstack(red, orange), unstack(red block, orange block), **PickUp(Blue)**, in code spans


def _call_name(rng, name: str) -> str:
    words = re.split(r"[-_]", name)
    return rng.choice(["".join(w.capitalize() for w in words), "_".join(words), "".join(words), name.upper(),
                       name, words[0].capitalize() + "".join(w.capitalize() for w in words[1:])])


def _drawn(case):
    """The task, its renderer, the style and the template set of a drawn case."""
    domain, k, style, templates = case
    task = TASKS[domain][k]
    return task, Renderer(task, style, templates), style, templates


def _call_arg(rng, r: Renderer, obj: str, style: str) -> str:
    if style == "pddl" or rng.random() < 0.3:
        return obj.upper() if rng.random() < 0.3 else obj
    words = r.names[obj]
    first = words.split()[0]
    unique = sum(1 for n in r.names.values() if n.split()[0] == first) == 1
    options = [words, "the " + words] + ([first, first.capitalize()] if unique and " " in words else [])
    return rng.choice(options)


@SETTINGS
@given(case=st.sampled_from(CASES), rng=st.randoms(use_true_random=False), n=st.integers(1, 5))
def test_call_notation_reads_back_exactly(case, rng, n):
    task, r, style, templates = _drawn(case)
    plan = [rng.choice(task.actions) for _ in range(n)]
    wrap = rng.choice(["{}", "`{}`", "**{}**", "**`{}`**"])
    numbering = rng.choice(["{i}. ", "- ", "Step {i}: "])  # one numbering style per answer, as models write
    lines = []
    for i, a in enumerate(plan, 1):
        call = f"{_call_name(rng, a.name)}({', '.join(_call_arg(rng, r, x, style) for x in a.args)})"
        lines.append(numbering.format(i=i) + wrap.format(call))
    text = rng.choice(["", "Here is the plan:\n\n"]) + "\n".join(lines)
    assert flexible.read_plan(task, text, style, templates).value == [str(a) for a in plan], text


# ---------------------------------------------------------------------------------------------
# Phrasings written here, not drawn from the paraphrase tables (lines as real answers write them)

BLOCKS_PHRASINGS = {
    "unstack": ["Unstack {xw} from {yw}", "Unstack the {x} from on top of the {y}", "Take the {x} off the {y}",
                "Remove the {x} from the {y}", "Unstack the {x} off of the {y}"],
    "put-down": ["Put down {xw}", "Put the {x} down on the table", "Place the {x} on the table",
                 "Place the {x} back on the table", "Set the {x} down"],
    "pick-up": ["Pick up {xw}", "Pick up the {x} from the table", "Grab the {x}", "Lift the {x}"],
    "stack": ["Stack {xw} on {yw}", "Stack the {x} on top of the {y}", "Place the {x} on top of the {y}",
              "Put the {x} on the {y}", "Stack the {x} onto the {y}"],
}


@SETTINGS
@given(templates=st.sampled_from(["widthbench", "planbench"]), k=st.integers(0, 1),
       rng=st.randoms(use_true_random=False), n=st.integers(1, 5))
def test_phrasings_written_independently_of_the_tables_read_back(templates, k, rng, n):
    task = TASKS["blocksworld"][k]
    r = Renderer(task, "nl", templates)
    plan = _plan(task, rng, n)
    lines = []
    for i, a in enumerate(plan, 1):
        name, *args = a.strip("()").split()
        values = {slot: r.names[x] for slot, x in zip("xy", args)}
        values.update({slot + "w": r.names[x].split()[0] for slot, x in zip("xy", args)})
        lines.append(f"{i}. " + rng.choice(BLOCKS_PHRASINGS[name]).format(**values) + rng.choice(["", "."]))
    text = "\n".join(lines)
    assert flexible.read_plan(task, text, "nl", templates).value == plan, text


# ---------------------------------------------------------------------------------------------
# Withdrawn and negated steps: never read as the action (no false credit)

#: Ways to withdraw the step {w} (written in the plan's own words); {r} is the step meant instead.
WITHDRAWALS = [
    "{w} is not correct, instead {r}",
    "{w} (wait, no, that is wrong)",
    "{w} -- this step is not necessary",
    "{w} is not possible, so {r}",
    "{w}. Wait, that is a mistake.",
    "{w} (oops, scratch that)",
    "{w}, which would be incorrect here",
    "{w}? No wait, that isn't possible",
]
#: Lines after the withdrawn step {w} that withdraw it.
WITHDRAWING_LINES = [
    "Wait, that step is wrong.", "Actually, the previous step is not needed.", "Hmm, step {k} is not correct.",
    "Oops, ignore that.", "No, that move is not allowed.", "Scratch that last step.",
]


@SETTINGS
@given(case=st.sampled_from(CASES), rng=st.randoms(use_true_random=False), n=st.integers(2, 5),
       inline=st.booleans())
def test_a_withdrawn_step_is_never_read_as_the_action(case, rng, n, inline):
    task, r, style, templates = _drawn(case)
    plan = _plan(task, rng, n)
    withdrawn = next(str(a) for a in rng.sample(task.actions, len(task.actions)) if str(a) not in plan)
    at = rng.randrange(1, n)
    steps, after = [r.action(a) for a in plan], None
    if inline:
        steps.insert(at, rng.choice(WITHDRAWALS).format(w=r.action(withdrawn), r=r.action(plan[at])))
    else:
        steps.insert(at, r.action(withdrawn))
        after = rng.choice(WITHDRAWING_LINES).format(k=at + 1)
    lines = [f"{i}. {x}" for i, x in enumerate(steps, 1)]  # numbered on: a number said twice reads as two plans
    if after is not None:
        lines.insert(at + 1, after)
    _withdrawn_never_read(task, "Here is the plan:\n" + "\n".join(lines), style, templates, withdrawn,
                          r"withdrawn|negated|two different plans|cannot read")


def _withdrawn_never_read(task, text: str, style: str, templates: str, withdrawn: str, reasons: str) -> None:
    """The answer is a parse error whose message names one of ``reasons``, or, read at all, a plan
    without the ``withdrawn`` step."""
    try:
        got = flexible.read_plan(task, text, style, templates)
    except ParseError as exc:
        assert re.search(reasons, str(exc)), exc
        return
    assert withdrawn not in got.value, text


#: Words after a step's action, on its line, that say it cannot be taken there.
CANNOT_BE_TAKEN = ("{w} is blocked at this point", "({w}) is inapplicable here", "{w} is not permitted now",
                   "{w} - which is infeasible")


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("said", CANNOT_BE_TAKEN)
def test_a_step_said_not_to_apply_is_never_read_as_the_action(case, said):
    """A step line whose words after the action say it cannot be taken there ("X is blocked at this
    point", "(X) is inapplicable here", a bracket closed around the action or not) withdraws it: never
    a plan with X (a parse error, or the plan without that line)."""
    task, r, style, templates = _drawn(case)
    rng = random.Random(7)
    plan = _plan(task, rng, 3)
    withdrawn = next(str(a) for a in task.actions if str(a) not in plan)
    steps = [r.action(a) for a in plan]
    steps.insert(2, said.format(w=r.action(withdrawn)))
    lines = [f"{i}. {x}" for i, x in enumerate(steps, 1)]
    _withdrawn_never_read(task, "Here is the plan:\n" + "\n".join(lines), style, templates, withdrawn,
                          r"withdrawn|negated|cannot read")


#: Words that only modify the action before them (where, when, how): a verdict after them is still
#: said of the step.
MODIFIERS = ("right now", "at this point", "in this state", "here", "first of all", "immediately")


@SETTINGS
@given(case=st.sampled_from(CASES), rng=st.randoms(use_true_random=False), n=st.integers(2, 4),
       modifier=st.sampled_from(MODIFIERS), verdict=st.sampled_from(["is not correct", "is blocked",
                                                                    "would be wrong", "should be skipped"]))
def test_a_verdict_after_words_that_modify_the_action_withdraws_it(case, rng, n, modifier, verdict):
    """"<X> right now is not correct, instead <Y>": the words between the action and the verdict
    open no clause of their own, so the verdict is said of X, and X is never read."""
    task, r, style, templates = _drawn(case)
    plan = _plan(task, rng, n)
    withdrawn = next(str(a) for a in rng.sample(task.actions, len(task.actions)) if str(a) not in plan)
    at = rng.randrange(1, n)
    lines = [r.action(a) for a in plan]
    lines.insert(at, f"{r.action(withdrawn)} {modifier} {verdict}, instead {r.action(plan[at])}")
    lines = [f"{i}. {line}" for i, line in enumerate(lines, 1)]
    _withdrawn_never_read(task, "Here is the plan:\n" + "\n".join(lines), style, templates, withdrawn,
                          r"withdrawn|negated|two different plans|cannot read")


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("opener", ["because", "since", "as otherwise", "so that later", "while"])
def test_a_verdict_in_a_clause_of_its_own_leaves_the_step_read(case, opener):
    """"<X> because <Y> is not possible": the verdict's subject is Y, in a clause of its own; the step
    X is read (a reader that withdrew every step with a verdict on its line would lose it)."""
    task, r, style, templates = _drawn(case)
    rng = random.Random(11)
    plan = _plan(task, rng, 3)
    other = next(str(a) for a in task.actions if str(a) not in plan)
    lines = [f"{i}. {r.action(a)}" for i, a in enumerate(plan, 1)]
    lines[1] += f" {opener} a direct move is not possible"
    text = "Here is the plan:\n" + "\n".join(lines)
    assert flexible.read_plan(task, text, style, templates).value == plan, (text, other)


RETRACTION_CORPUS = [
    # (text, the withdrawn action); colours of Blocksworld instance 1 of seed 7 (test_flexible's bw)
    "1. Unstack the {t} from the {b}\n2. Stack the {t} on the {o} is not correct, instead put down the {t}",
    "1. Unstack the {t} from the {b}\n2. Stack the {t} on the {o} (wait, no -- the {o} is not clear)\n"
    "3. Put down the {t}",
    "1. Unstack the {t} from the {b}\n2. Stack the {t} on the {o}. This step is not necessary.\n3. Put down the {t}",
    "1. Unstack the {t} from the {b}\n2. Stack the {t} on the {o}\nWait, that is wrong: the {o} is not clear.\n"
    "3. Put down the {t}",
    "1. Unstack the {t} from the {b}\n2. Stack the {t} on the {o} is not possible, so put down the {t}",
    "- unstack the {t} from the {b}\n- stack the {t} on the {o} (oops, my mistake)\n- put down the {t}",
    "First unstack the {t} from the {b}. Then stack the {t} on the {o}, but actually that is not allowed.",
]


def test_retraction_corpus_gives_no_false_credit():
    from tests.subtasks.test_flexible import _names
    from widthbench.generators import generate

    bw = generate("blocksworld", 1, 7)[0].task()
    r, on = _names(bw)
    top, below = on[0]
    other = next(o for o, _ in bw.objects if o not in (top, below))
    names = {"t": r.names[top], "b": r.names[below], "o": r.names[other]}
    withdrawn = f"(stack {top} {other})"
    for text in RETRACTION_CORPUS:
        text = text.format(**names)
        for templates in ("planbench", "widthbench"):
            try:
                got = flexible.read_plan(bw, text, "nl", templates)
            except ParseError:
                continue
            assert withdrawn not in got.value, (text, got.value)
        with pytest.raises(ParseError, match="withdrawn|negated"):
            flexible.read_plan(bw, text, "nl", "planbench")


# ---------------------------------------------------------------------------------------------
# Several attempts: ambiguous unless one is marked final

ATTEMPT_INTROS = ["However, a revised plan:", "But wait, a simpler plan:", "Let me reconsider. New plan:",
                  "On second thought, here is a better plan:", "Correction, the plan should be:"]


@SETTINGS
@given(case=st.sampled_from(CASES), rng=st.randoms(use_true_random=False), n=st.integers(1, 4),
       final=st.booleans())
def test_several_attempts_are_ambiguous_unless_one_is_final(case, rng, n, final):
    task, r, style, templates = _drawn(case)
    first, second = _plan(task, rng, n), _plan(task, rng, n)
    assume(first != second)
    block = lambda plan: "\n".join(f"{i}. {r.action(a)}" for i, a in enumerate(plan, 1))  # noqa: E731
    intro = "Final plan:" if final else rng.choice(ATTEMPT_INTROS)
    text = f"Plan:\n{block(first)}\n\n{intro}\n{block(second)}"
    if final:
        assert flexible.read_plan(task, text, style, templates).value == second, text
    else:
        with pytest.raises(ParseError, match="two different plans"):
            flexible.read_plan(task, text, style, templates)


# ---------------------------------------------------------------------------------------------
# Restated problems: the plan for the problem asked, never a copied example's


def _statement(task, style, templates) -> str:
    r = Renderer(task, style, templates)
    if style == "pddl":
        return f"[STATEMENT]\n(define (problem p) (:init {r.state(task.init)}) (:goal (and {r.goal()})))\n"
    return (f"[STATEMENT]\nAs initial conditions I have that, {r.state(task.init)}.\n"
            f"My goal is to have that {r.goal()}.\n\nMy plan is as follows:\n\n")


def _solution(task, style, templates, plan) -> str:
    r = Renderer(task, style, templates)
    return "[PLAN]\n" + "\n".join(r.action(a) for a in plan) + "\n[PLAN END]\n"


@SETTINGS
@given(case=st.sampled_from(CASES), rng=st.randoms(use_true_random=False), n=st.integers(1, 4),
       lead=st.sampled_from(["", "Sure, let me restate the problem first.\n\n"]))
def test_a_copied_example_then_the_problem_asked_reads_the_plan_for_the_problem_asked(case, rng, n, lead):
    domain, k, style, templates = case
    task, example = TASKS[domain][k], TASKS[domain][1 - k]
    ours, theirs = _plan(task, rng, n), _plan(example, rng, n)
    text = (lead + _statement(example, style, templates) + _solution(example, style, templates, theirs) + "\n"
            + _statement(task, style, templates) + _solution(task, style, templates, ours))
    assert flexible.read_plan(task, text, style, templates).value == ours, text
    # The example alone (another problem, nothing for the problem asked) is no answer.
    only_example = _statement(example, style, templates) + _solution(example, style, templates, theirs)
    with pytest.raises(ParseError, match="another problem"):
        flexible.read_plan(task, only_example, style, templates)


def test_an_answer_then_a_new_problem_posed_reads_the_answer():
    task, other = TASKS["blocksworld"]
    r = Renderer(task, "nl", "planbench")
    a = str(task.actions[0])
    text = (r.action(a) + "\n[PLAN END]\n" + _statement(other, "nl", "planbench")
            + _solution(other, "nl", "planbench", [str(other.actions[1])]))
    assert flexible.read_plan(task, text, "nl", "planbench").value == [a]


# ---------------------------------------------------------------------------------------------
# Narration around a marked plan block restates it; after it, a list or a step the plan lacks is a second plan

NARRATION = ["We then {s}, as it is now clear.", "*Reasoning*: now you need to {s}.", "Next, we {s} to make progress.",
             "Now we {s}.", "Then you {s}, which frees it."]


@SETTINGS
@given(case=st.sampled_from([c for c in CASES if c[2] == "nl"]), rng=st.randoms(use_true_random=False),
       n=st.integers(2, 5), wrong=st.booleans())
def test_narration_around_a_plan_block_is_not_a_second_plan(case, rng, n, wrong):
    task, r, style, templates = _drawn(case)
    plan = _plan(task, rng, n)
    told = sorted(rng.sample(range(n), rng.randint(1, n)))
    steps = [plan[i] for i in told]
    if wrong:
        steps.append(next(str(a) for a in task.actions if str(a) not in plan))
    narration = "\n".join(rng.choice(NARRATION).format(s=r.action(a)) for a in steps)
    block = "[PLAN]\n" + "\n".join(r.action(a) for a in plan) + "\n[PLAN END]"
    before = rng.random() < 0.5
    text = f"{narration}\n\n{block}" if before else f"{block}\n\n{narration}"
    if wrong and not before:  # after the answer block, a step the plan lacks is a second plan
        with pytest.raises(ParseError, match="two different plans"):
            flexible.read_plan(task, text, style, templates)
    else:  # before it, reasoning (a draft) the block answers, like text before an "Answer:" label
        assert flexible.read_plan(task, text, style, templates).value == plan, text
    if len(told) < n:  # a summary list that differs from the plan is a second plan, not narration
        summary = "\n".join(f"- {r.action(plan[i])}" for i in told)
        with pytest.raises(ParseError, match="two different plans"):
            flexible.read_plan(task, f"{block}\n\nIn short:\n{summary}", style, templates)


# ---------------------------------------------------------------------------------------------
# States: two facts with one predicate said at once ("both the red block and the blue block are clear")


@SETTINGS
@given(templates=st.sampled_from(["widthbench", "planbench"]), k=st.integers(0, 1),
       rng=st.randoms(use_true_random=False), steps=st.integers(0, 5))
def test_two_subjects_of_one_predicate_read_as_two_facts(templates, k, rng, steps):
    from tests.subtasks.test_flexible import _walk

    task = TASKS["blocksworld"][k]
    r = Renderer(task, "nl", templates)
    s = _walk(task, rng, steps)
    facts = [x for x in re.split(r"\n|, | and ", r.state(s)) if x]
    by_predicate: dict[str, list[str]] = {}
    for f in facts:
        m = re.match(r"^the (\w+ block) is (.+)$", f)
        if m:
            by_predicate.setdefault(m.group(2), []).append(m.group(1))
    pairs = [(p, subj) for p, subj in by_predicate.items() if len(subj) >= 2]
    assume(pairs)
    p, (x, y, *_) = rng.choice(pairs)
    rest = [f for f in facts if f not in (f"the {x} is {p}", f"the {y} is {p}")]
    text = ", ".join(rest + [f"both the {x} and the {y} are {p}"]) + "."
    assert flexible.read_state(task, text, "nl", templates).value == s, text


# ---------------------------------------------------------------------------------------------
# Issue 29, readers that hold: the rules below are general principles, each with made-up answers


@pytest.fixture(scope="module")
def bw():
    from widthbench.generators import generate

    return generate("blocksworld", 1, 7)[0].task()


def _walked(task, rng, n):
    """A plan of up to ``n`` applicable steps from the initial state (PDDL texts)."""
    from widthbench.planners import strips

    state, plan = task.init, []
    for _ in range(n):
        acts = strips.applicable_actions(task, state)
        if not acts:
            break
        a = rng.choice(acts)
        plan.append(str(a))
        state = strips.successor(state, a)
    return plan


def _spelling(rng, name: str) -> str:
    return rng.choice([name, name.replace("-", ""), name.replace("-", "_"), name.replace("-", " "),
                       name.replace("-", "").capitalize(), name.upper()])


NL_CASES = [c for c in CASES if c[2] == "nl"]


@SETTINGS
@given(case=st.sampled_from(NL_CASES), rng=st.randoms(use_true_random=False), n=st.integers(1, 5))
def test_an_action_written_as_its_pddl_name_and_objects_reads_in_words(case, rng, n):
    """"putdown orange", "Pickup the red block", "overcome object a using object b": the PDDL name in
    any spelling, then its objects by name, small words between."""
    task, r, style, templates = _drawn(case)
    plan = [rng.choice(task.actions) for _ in range(n)]
    lines = []
    for i, a in enumerate(plan, 1):
        words = [_spelling(rng, a.name)]
        for j, x in enumerate(a.args):
            if j:
                words.append(rng.choice(["", "using", "with", "from", "to", "onto", "at"]))
            words.append(rng.choice(["", "the "]) + r.names[x])
        lines.append(f"{i}. " + " ".join(w for w in words if w))
    text = "\n".join(lines)
    assert flexible.read_plan(task, text, style, templates).value == [str(a) for a in plan], text


def test_a_pddl_name_call_that_names_other_objects_too_is_not_read_as_the_call():
    from tests.subtasks.test_flexible import _names
    from widthbench.generators import generate

    bw = generate("blocksworld", 1, 7)[0].task()
    r, on = _names(bw)
    (top, below), names = on[0], [r.names[o] for o, _ in bw.objects]
    other = next(r.names[o] for o, _ in bw.objects if o not in (top, below))
    text = f"1. stack the {r.names[top]} with the {r.names[below]} on top of the {other}"
    with pytest.raises(ParseError, match="reads as no action"):
        got = flexible.read_plan(bw, text, "nl", "planbench")
        pytest.fail(f"read {got.value} (objects {names})")


@SETTINGS
@given(case=st.sampled_from(NL_CASES), rng=st.randoms(use_true_random=False), n=st.integers(1, 4))
def test_an_action_performed_on_its_objects_reads_as_the_call(case, rng, n):
    """"Perform `unstack` on `a` and `b`", "Execute the load-truck action on p0, t0 and l0-0"."""
    task, r, style, templates = _drawn(case)
    plan = [rng.choice(task.actions) for _ in range(n)]
    lines = []
    for i, a in enumerate(plan, 1):
        names = [f"`{r.names[x]}`" if rng.random() < 0.5 else r.names[x] for x in a.args]
        args = names[0] if len(names) == 1 else ", ".join(names[:-1]) + rng.choice([" and ", ", and ", ", "]) + names[-1]
        verb = rng.choice(["Perform", "Execute", "Apply", "Do"])
        name = rng.choice([f"`{a.name}`", a.name, f"the {a.name} action"])
        lines.append(f"{i}. **{verb} {name} {rng.choice(['on', 'with'])} {args}.**")
    text = "\n".join(lines)
    assert flexible.read_plan(task, text, style, templates).value == [str(a) for a in plan], text


@SETTINGS
@given(case=st.sampled_from(NL_CASES), rng=st.randoms(use_true_random=False), n=st.integers(1, 4))
def test_words_in_brackets_below_a_step_title_explain_it(case, rng, n):
    """"1. **Unstack(blue, orange)**\n   *(Stack red onto orange, which is clear.)*": a bracket holding
    a sentence (commas, a full stop) is words, not a PDDL form; "(unstack b)" stays an error."""
    task, r, style, templates = _drawn(case)
    plan = [rng.choice(task.actions) for _ in range(n)]
    lines = []
    for i, a in enumerate(plan, 1):
        other = rng.choice(task.actions)
        lines.append(f"{i}. **{r.action(str(a))}**")
        lines.append(f"   *({r.action(str(other)).capitalize()}, {rng.choice(['which is clear', 'since it is free', 'as planned'])}.)*")
    text = "\n".join(lines)
    assert flexible.read_plan(task, text, style, templates).value == [str(a) for a in plan], text
    a = plan[0]
    if len(a.args) > 1:
        with pytest.raises(ParseError):
            flexible.read_plan(task, f"1. ({a.name} {a.args[0]})", style, templates)


COMMENTARY_LEADS = ["The key steps are:", "Explanation:", "Why this works:", "", "In detail:"]
EXPLAINED = ["{s} to free the other block.", "First, {s}, because it is clear.", "{s}: this makes progress.",
             "Then {s} so that the goal holds."]


@SETTINGS
@given(case=st.sampled_from(NL_CASES), rng=st.randoms(use_true_random=False), n=st.integers(2, 5),
       lead=st.sampled_from(COMMENTARY_LEADS), kind=st.sampled_from(["explains", "extra-step", "correction", "bare"]))
def test_text_that_explains_a_marked_plan_is_commentary_never_a_second_plan(case, rng, n, lead, kind):
    """After a [PLAN] block, a list that explains steps of the plan in its order, with lines that read
    as no action, is commentary; a step the plan lacks or a correction makes a second plan (a parse
    error), and so does a bare list of some of its steps unless a commentary heading
    ("Explanation:") says it is commentary."""
    task, r, style, templates = _drawn(case)
    plan = _plan(task, rng, n)
    told = [plan[i] for i in sorted(rng.sample(range(n), rng.randint(1, n - 1)))]
    items = [rng.choice(EXPLAINED).format(s=r.action(a)) for a in told]
    items.insert(rng.randrange(len(items) + 1), "Use the " + rng.choice(["first", "initial", "free"]) + " block wisely.")
    if kind == "extra-step":
        items.append(rng.choice(EXPLAINED).format(s=r.action(next(str(a) for a in task.actions if str(a) not in plan))))
    elif kind == "correction":
        items.append(rng.choice(["Actually, the correct plan is shorter.", "Wait, step 2 is wrong.",
                                 "Instead, we could skip a step.", "Alternatively, do it the other way."]))
    elif kind == "bare":
        items = [r.action(a) for a in told]
    block = "[PLAN]\n" + "\n".join(r.action(a) for a in plan) + "\n[PLAN END]"
    text = f"Here is the plan:\n\n{block}\n\n{lead}\n" + "\n".join(f"{i}. {x}" for i, x in enumerate(items, 1))
    if kind == "explains" or (kind == "bare" and lead in ("Explanation:", "Why this works:")):
        assert flexible.read_plan(task, text, style, templates).value == plan, text
    else:
        with pytest.raises(ParseError):
            got = flexible.read_plan(task, text, style, templates)
            pytest.fail(f"read {got.value} from {text!r}")


@SETTINGS
@given(case=st.sampled_from(CASES), rng=st.randoms(use_true_random=False), n=st.integers(1, 4))
def test_a_draft_before_the_answer_block_is_reasoning(case, rng, n):
    """A plan drafted before the [PLAN] block that answers is not a second plan (as text before an
    "Answer:" label is not the answer); a plan after the block that differs still is."""
    task, r, style, templates = _drawn(case)
    draft, plan = _plan(task, rng, n), _plan(task, rng, n)
    assume(draft != plan)
    listed = lambda p: "\n".join(f"{i}. {r.action(a)}" for i, a in enumerate(p, 1))  # noqa: E731
    block = "[PLAN]\n" + "\n".join(r.action(a) for a in plan) + "\n[PLAN END]"
    text = f"A first idea:\n{listed(draft)}\n\nHere is the detailed plan:\n{block}\nThis reaches the goal."
    assert flexible.read_plan(task, text, style, templates).value == plan, text
    with pytest.raises(ParseError, match="two different plans"):
        flexible.read_plan(task, f"{block}\n\nSo the plan is:\n{listed(draft)}", style, templates)


COMMENTARY_HEADINGS_QUALIFIED = ["**Plan Explanation**:", "Explanation of the Steps:", "### Step-by-step reasoning",
                                 "Brief notes:", "**Reasoning for each step:**"]


@SETTINGS
@given(case=st.sampled_from(NL_CASES), rng=st.randoms(use_true_random=False), n=st.integers(1, 4),
       heading=st.sampled_from(COMMENTARY_HEADINGS_QUALIFIED), again=st.sampled_from(["same", "other", "none"]))
def test_commentary_ends_where_a_plan_is_introduced_again(case, rng, n, heading, again):
    """Commentary under a heading (with qualifiers: "Plan explanation") is set aside up to a line that
    introduces a plan again ("**Plan:**"); what follows is read, so a different plan there is a
    second plan, never dropped with the commentary."""
    task, r, style, templates = _drawn(case)
    plan = _plan(task, rng, n)
    listed = lambda p: "\n".join(f"{i}. {r.action(a)}" for i, a in enumerate(p, 1))  # noqa: E731
    text = f"{listed(plan)}\n\n{heading}\n- The {rng.choice(['first', 'last'])} move frees a block.\n"
    text += f"- {r.action(plan[0]).capitalize()} as the hand is empty, now clear.\n"
    if again == "same":
        text += f"\n**Plan:**\n{listed(plan)}"
    elif again == "other":
        other = _plan(task, rng, n + 1)
        text += f"\n**Plan:**\n{listed(other)}"
    if again == "other":
        with pytest.raises(ParseError, match="two different plans"):
            flexible.read_plan(task, text, style, templates)
    else:
        assert flexible.read_plan(task, text, style, templates).value == plan, text


def test_numbered_steps_that_go_on_below_a_commentary_heading_are_not_set_aside(bw):
    r = Renderer(bw, "nl", "planbench")
    plan = _walked(bw, __import__("random").Random(3), 3)
    text = (f"1. {r.action(plan[0])}\n\nReasoning:\n2. {r.action(plan[1])}\n3. {r.action(plan[2])}")
    assert flexible.read_plan(bw, text, "nl", "planbench").value == plan


WITHDRAW = {  # (the step's line, its number, rng) -> (the line as written, a line after the plan or None)
    "markdown strike": lambda line, k, rng: (f"{k}. ~~{line.split('. ', 1)[1]}~~", None),
    "html strike": lambda line, k, rng: (f"{k}. <s>{line.split('. ', 1)[1]}</s>", None),
    "del": lambda line, k, rng: (f"~~{line}~~" if rng.random() < 0.5 else f"{k}. <del>{line.split('. ', 1)[1]}</del>", None),
    "skip this": lambda line, k, rng: (line + rng.choice(["  (skip this step)", " - skip this.", " (remove this step)",
                                                          " [ignore this one]"]), None),
    "remove step": lambda line, k, rng: (line, rng.choice([f"Remove step {k}.", f"Skip step {k}", f"Step {k} should be omitted.",
                                                           f"- Actually, remove step {k}.", f"Please delete step {k}!"])),
}
KEEP = [" (this step is optional)", " - this is not strictly necessary", " (optional, but harmless)"]


@SETTINGS
@given(case=st.sampled_from(NL_CASES), rng=st.randoms(use_true_random=False), n=st.integers(2, 5),
       how=st.sampled_from(sorted(WITHDRAW)), block=st.booleans())
def test_a_step_struck_through_or_removed_by_number_is_withdrawn(case, rng, n, how, block):
    """"~~3. Stack ...~~", "<del>", "(skip this step)", "Remove step 3.": the plan without that step."""
    task, r, style, templates = _drawn(case)
    plan = _plan(task, rng, n)
    at = rng.randrange(n)
    lines = [f"{i}. {r.action(a)}" for i, a in enumerate(plan, 1)]
    lines[at], after = WITHDRAW[how](lines[at], at + 1, rng)
    body = "\n".join(lines)
    text = f"[PLAN]\n{body}\n[PLAN END]" if block else body
    if after:
        text += f"\n\n{after}"
    assert flexible.read_plan(task, text, style, templates).value == plan[:at] + plan[at + 1:], text


@SETTINGS
@given(case=st.sampled_from(NL_CASES), rng=st.randoms(use_true_random=False), n=st.integers(2, 5),
       keep=st.sampled_from(KEEP))
def test_a_remark_that_a_step_is_optional_keeps_it(case, rng, n, keep):
    task, r, style, templates = _drawn(case)
    plan = _plan(task, rng, n)
    at = rng.randrange(n)
    lines = [f"{i}. {r.action(a)}" + (keep if i == at + 1 else "") for i, a in enumerate(plan, 1)]
    assert flexible.read_plan(task, "\n".join(lines), style, templates).value == plan


def test_withdrawals_that_do_not_say_which_step_are_parse_errors(bw):
    r = Renderer(bw, "nl", "planbench")
    plan = _walked(bw, __import__("random").Random(5), 3)
    lines = [f"{i}. {r.action(a)}" for i, a in enumerate(plan, 1)]
    for text in ("\n".join(lines[:1] + [f"2. ~~{r.action(plan[1])}"] + lines[2:]),  # a strike never closed
                 "\n".join(lines[:1] + [lines[1] + " (skip this if the hand is full)"] + lines[2:]),
                 "\n".join(lines) + "\n\nRemove step 7."):
        with pytest.raises(ParseError):
            got = flexible.read_plan(bw, text, "nl", "planbench")
            pytest.fail(f"read {got.value} from {text!r}")


@SETTINGS
@given(case=st.sampled_from(CASES), rng=st.randoms(use_true_random=False), n=st.integers(1, 4),
       tail=st.sampled_from(["same-step", "both-valid", "other-step"]))
def test_readings_that_get_the_same_verdict_are_judged_and_the_ambiguity_recorded(case, rng, n, tail):
    """Two different plans in one reply: judged when both are valid, or both fail at the same first
    step (`readers.judged_alike` with rescore's `plan_verdict`); the other reading is recorded;
    otherwise a parse error."""
    from widthbench.pddl_domains.readers import Ambiguous, judged_alike
    from widthbench.planners import strips
    from widthbench.subtasks.planbench.judge import plan_verdict

    task, r, style, templates = _drawn(case)
    first = _walked(task, rng, n)
    assume(first)
    second = list(first)
    if tail == "same-step":  # both fail at step len+1: one inapplicable step after the common prefix
        state = strips.execute_plan(task, first).states[-1]
        bad = [str(a) for a in task.actions if a not in strips.applicable_actions(task, state)]
        assume(len(bad) >= 2)
        first, second = first + [bad[0]], first + [bad[1]]
    elif tail == "both-valid":  # a plan, and the same plan after a step and its undoing
        from widthbench.planners.bfs import shortest_plan

        first = [str(a) for a in shortest_plan(task).plan]
        undo = [(a, b) for a in strips.applicable_actions(task, task.init)
                for b in strips.applicable_actions(task, strips.successor(task.init, a))
                if strips.successor(strips.successor(task.init, a), b) == task.init]
        assume(undo)
        second = [str(x) for x in rng.choice(undo)] + first
        assert strips.execute_plan(task, second).valid
    else:
        second = first[:-1]
    assume(first != second and second)
    listed = lambda p: "\n".join(f"{i}. {r.action(a)}" for i, a in enumerate(p, 1))  # noqa: E731
    text = f"Plan:\n{listed(first)}\n\nSo the plan is:\n{listed(second)}"
    read = lambda: flexible.read_plan(task, text, style, templates)  # noqa: E731
    with pytest.raises(Ambiguous):
        read()
    verdict = lambda plan: plan_verdict(task, plan)  # noqa: E731
    if verdict(first) == verdict(second):
        got = judged_alike(read, verdict)
        assert got.value == first and got.ambiguous == (second,)
    else:
        with pytest.raises(Ambiguous):
            judged_alike(read, verdict)


# ---------------------------------------------------------------------------------------------
# A connective that is a name of the vocabulary ("next a b": PlanBench's deceptive Logistics for "at")

#: Connectives a clause may open with ("and" and "then" also separate clauses: never names here)
CONNECTIVE_NAMES = ["next", "first", "finally", "also", "lastly", "afterwards"]


def _connective_domain(pred: str, act: str):
    from widthbench.planners.strips import ground, parse_domain_text

    dom = parse_domain_text(
        f"(define (domain d) (:predicates ({pred} ?x ?y) (free ?x)) "
        f"(:action {act} :parameters (?x ?y ?z) :precondition (and ({pred} ?x ?y) (free ?z)) "
        f":effect (and ({pred} ?x ?z) (not ({pred} ?x ?y)))))")
    objs = [(f"object_{i}", "object") for i in range(4)]
    return ground(dom, objs, [(pred, ("object_0", "object_1")), (pred, ("object_2", "object_3")), ("free", ("object_3",)),
                             ("free", ("object_1",))], [(pred, ("object_0", "object_3"))])


@SETTINGS
@given(pred=st.sampled_from(CONNECTIVE_NAMES), act=st.sampled_from(CONNECTIVE_NAMES),
       rng=st.randoms(use_true_random=False), layout_=st.sampled_from(["sentence", "lines", "bullets"]))
def test_a_connective_that_names_a_predicate_or_action_reads_as_that_name(pred, act, rng, layout_):
    """Made-up vocabularies whose predicate or action is a connective ("next", "then"): facts and steps
    read through the templates (here PlanBench's random-name wording), the connective kept."""
    from widthbench.pddl_domains.render import PDDL_WORDS
    from widthbench.planners import strips

    assume(pred != act)
    task = _connective_domain(pred, act)
    r = Renderer(task, "nl", PDDL_WORDS)
    facts = [f for f in re.split(r", | and ", r.state(task.init)) if f]
    rng.shuffle(facts)
    text = {"sentence": ", ".join(facts[:-1]) + " and " + facts[-1] + ".",
            "lines": "\n".join(f[:1].upper() + f[1:] for f in facts),
            "bullets": "\n".join(f"- {f}" for f in facts)}[layout_]
    assert flexible.read_state(task, text, "nl", PDDL_WORDS).value == task.init, text
    plan = [str(a) for a in strips.applicable_actions(task, task.init)][:2]
    steps = "\n".join(f"{i}. {r.action(a)}" for i, a in enumerate(plan, 1))
    assert flexible.read_plan(task, steps, "nl", PDDL_WORDS).value == plan, steps


@settings(max_examples=25, deadline=None)
@given(k=st.integers(1, 30), rng=st.randoms(use_true_random=False), bullets=st.booleans())
def test_deceptive_logistics_states_read_through_the_config(k, rng, bullets):
    """PlanBench's deceptive Logistics writes "at" as "next" ("next object_0 object_7"): states of its
    instances, one fact a line or as PlanBench writes them, read back exactly."""
    need_data()
    from widthbench.pddl_domains import planbench_configs
    from widthbench.planners.strips import load_task
    from widthbench.subtasks.planbench.problems import load_planbench_domain

    v = planbench_configs.find_variant(PLANBENCH, ["obfuscated_deceptive_logistics"])
    prob = v.instance_dir / f"instance-{k}.pddl"
    assume(prob.is_file())
    task = load_task(load_planbench_domain(v.domain_file), prob)
    state = task.init
    from widthbench.planners import strips

    for _ in range(rng.randint(0, 4)):
        acts = strips.applicable_actions(task, state)
        state = strips.successor(state, rng.choice(acts)) if acts else state
    r = Renderer(task, "nl", v.config.path)
    text = r.state(state)
    if bullets:
        text = "\n".join(("- " if rng.random() < 0.5 else "") + f for f in re.split(r", | and ", text) if f)
    assert flexible.read_state(task, text, "nl", v.config.path).value == state, text
