"""The reader package on what real answers do (issue: readers that hold on unseen models).

Each phenomenon is a general rule with a property test over rendered plans decorated with it, in both
styles (nl / pddl) and both template sets (widthbench / planbench): Unicode spacing, call notation,
phrasings written here independently of the paraphrase tables, withdrawn steps (never read as the
action: no false credit), several attempts, restated problems, narration around a plan block. The
ambiguous forms are parse errors that say why.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from tests.subtasks.test_flexible import CASES, SETTINGS, TASKS, _decorate_actions
from widthbench.errors import ParseError
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
    domain, k, style, templates = case
    task = TASKS[domain][k]
    r = Renderer(task, style, templates)
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
    domain, k, style, templates = case
    task = TASKS[domain][k]
    r = Renderer(task, style, templates)
    plan = _plan(task, rng, n)
    withdrawn = next(str(a) for a in rng.sample(task.actions, len(task.actions)) if str(a) not in plan)
    at = rng.randrange(1, n)
    lines = [f"{i}. {r.action(a)}" for i, a in enumerate(plan, 1)]
    if inline:
        line = rng.choice(WITHDRAWALS).format(w=r.action(withdrawn), r=r.action(plan[at]))
        lines.insert(at, f"{at + 1}. {line}")
    else:
        lines[at:at] = [f"{at + 1}. {r.action(withdrawn)}", rng.choice(WITHDRAWING_LINES).format(k=at + 1)]
    text = "Here is the plan:\n" + "\n".join(lines)
    try:
        got = flexible.read_plan(task, text, style, templates)
    except ParseError as exc:
        assert re.search(r"withdrawn|negated|two different plans|cannot read", str(exc)), exc
        return
    assert withdrawn not in got.value, text  # read at all, the withdrawn step is not in the plan


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
    domain, k, style, templates = case
    task = TASKS[domain][k]
    r = Renderer(task, style, templates)
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
    domain, k, style, templates = case
    task = TASKS[domain][k]
    r = Renderer(task, style, templates)
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
