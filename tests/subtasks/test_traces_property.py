"""Property tests of the trace verifier (docs/traces.md, "Property tests").

Traces written from engine walks by the shared trace writer in wide words (tests/subtasks/traces_gen.py:
requirements, goals and aims, options considered and rejected, checks, suppositions, enumerations,
slips and restarts woven in), NL and PDDL, on Blocksworld and Logistics (both template sets), a
Blocksworld whose names are all renamed (generated templates: any domain's words), Blocksworld under
`--obfuscate mystery` and `--obfuscate random` (the task its prompts show) and PlanBench's Mystery
Blocksworld read in its own words (with the reference data) verify with no error and every assertion
written judged; the same traces with one injected wrong fact, missing fact (a true fact denied, or
left out of a list said to be complete), action that does not apply (taken plainly, checked and found
"possible" then taken, or considered and built upon), or misstated goal report exactly that error
kind, inside the injected sentences.
"""

from __future__ import annotations

import functools
import re

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from widthbench.generators import generate
from widthbench.planners.strips import DOMAINS_DIR, load_task
from widthbench.subtasks.traces import verify_trace

from tests.subtasks.traces_gen import write_trace

RENAME = {"on": "glim", "ontable": "vosh-floor", "clear": "nubby", "handempty": "palm-free", "holding": "grasping",
          "pick-up": "hoist", "put-down": "lay", "stack": "perch", "unstack": "unperch"}


def _renamed(text: str) -> str:
    text = re.sub(r"\(\s*([a-z][\w-]*)", lambda m: "(" + RENAME.get(m.group(1), m.group(1)), text)
    text = re.sub(r"(:action\s+)([a-z][\w-]*)", lambda m: m.group(1) + RENAME.get(m.group(2), m.group(2)), text)
    return re.sub(r"\b([a-h])\b(?=[\s)])", r"rock\1", text).replace("(define (domain blocksworld)",
                                                                      "(define (domain rockpile)")


@functools.lru_cache(maxsize=None)
def tasks(domain: str) -> tuple:
    if domain == "renamed":
        import tempfile
        from pathlib import Path

        d = Path(tempfile.mkdtemp(prefix="wb-renamed-"))
        dom = _renamed((DOMAINS_DIR / "blocksworld.pddl").read_text())
        (d / "domain.pddl").write_text(dom)
        out = []
        for i, inst in enumerate(generate("blocksworld", 3, 5, blocks=4, optimal=False)):
            prob = _renamed(inst.problem_pddl).replace("(:domain blocksworld)", "(:domain rockpile)")
            (d / f"p{i}.pddl").write_text(prob)
            out.append(load_task(d / "domain.pddl", d / f"p{i}.pddl"))
        return tuple(out)
    if domain in ("mystery", "random"):  # the real --obfuscate renaming: the task as its prompts show it
        import dataclasses

        from widthbench.pddl_domains import obfuscate

        out = []
        for inst in generate("blocksworld", 3, 4, blocks=4, optimal=False):
            task = inst.task()
            attached = dataclasses.replace(task, domain=obfuscate.attach(task.domain, domain, 7))
            out.append(obfuscate.shown(attached))
        return tuple(out)
    if domain == "planbench-mystery":  # PlanBench's variant, in its own words ("attack object a")
        from tests.conftest import PLANBENCH, need_data
        from widthbench.pddl_domains import planbench_configs

        need_data()
        v = planbench_configs.find_variant(PLANBENCH, ["mystery_blocksworld_3"])
        return tuple(load_task(v.domain_file, v.instance_dir / f"instance-{i}.pddl") for i in (2, 5, 9))
    opts = {"blocks": 4} if domain == "blocksworld" else {}
    return tuple(inst.task() for inst in generate(domain, 3, 3, optimal=False, **opts))


def _mystery_config() -> str:
    from tests.conftest import PLANBENCH

    return str(PLANBENCH / "llm_planning_analysis/configs/mystery_blocksworld_3.yaml")


CASES = [("blocksworld", "nl", "widthbench"), ("blocksworld", "nl", "planbench"), ("blocksworld", "pddl", "widthbench"),
         ("logistics", "nl", "widthbench"), ("logistics", "nl", "planbench"), ("logistics", "pddl", "widthbench"),
         ("renamed", "nl", "widthbench"), ("renamed", "pddl", "widthbench"),
         ("mystery", "nl", "widthbench"), ("mystery", "pddl", "widthbench"),
         ("random", "nl", "widthbench"), ("random", "pddl", "widthbench"),
         ("planbench-mystery", "nl", _mystery_config())]
PROPS = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


def test_renamed_domain_uses_generated_templates():
    from widthbench.pddl_domains.render import Renderer

    r = Renderer(tasks("renamed")[0], "nl", "widthbench")
    assert r.generated and "glim" in r.atom("(glim rocka rockb)")


@pytest.mark.parametrize("domain,style,templates", CASES)
@given(k=st.integers(0, 2), seed=st.integers(0, 10_000))
@PROPS
def test_trace_from_engine_run_has_no_error(domain, style, templates, k, seed):
    task = tasks(domain)[k]
    w = write_trace(task, style, templates, seed, steps=4)
    got = verify_trace(task, w.text, style=style, templates=templates)
    assert got["first_error"] is None, (w.text, got["first_error"])
    assert got["errors"] == 0
    # every assertion written was read and judged (none skipped as unreadable)
    assert got["checked"] >= w.checkable, (w.text, got["checked"], w.checkable)
    retracted = [c for c in got["claims"] if c["verdict"] == "retracted"]
    assert len(retracted) <= 1


@pytest.mark.parametrize("domain,style,templates", CASES)
@pytest.mark.parametrize("inject", ["fact", "missing", "precondition", "goal"])
@given(k=st.integers(0, 2), seed=st.integers(0, 10_000), at=st.integers(0, 3))
@PROPS
def test_injected_error_is_reported_at_its_span(domain, style, templates, inject, k, seed, at):
    """At 0 the fact is misstated while the trace restates the state it starts from (an
    initial-state error); at 1-3 after that many actions."""
    task = tasks(domain)[k]
    assume(at > 0 or inject in ("fact", "missing"))
    w = write_trace(task, style, templates, seed, steps=4, inject=inject, at=at)
    assume(w.injected is not None)  # the walk offers such an error (a dead end offers no inapplicable one)
    got = verify_trace(task, w.text, style=style, templates=templates)
    fe = got["first_error"]
    assert fe is not None, w.text
    assert fe["kind"] == w.kind, (w.text, fe)
    a, b = w.injected
    assert a <= fe["span"][0] and fe["span"][1] <= b, (w.text, fe, w.injected)
    assert fe["quote"] == w.text[fe["span"][0]:fe["span"][1]].strip()


@pytest.mark.parametrize("domain,style,templates", CASES)
@given(k=st.integers(0, 2), seed=st.integers(0, 10_000))
@PROPS
def test_trace_that_cannot_be_followed_has_low_coverage_not_errors(domain, style, templates, k, seed):
    """The steps written in words no reader reads ("Then I make my next move."): the facts after
    them cannot be placed; they are left unjudged, never reported as errors."""
    task = tasks(domain)[k]
    full = write_trace(task, style, templates, seed, steps=4, weave=False)
    hidden = write_trace(task, style, templates, seed, steps=4, weave=False, hide_actions=True)
    got = verify_trace(task, hidden.text, style=style, templates=templates)
    assert got["first_error"] is None, (hidden.text, got["first_error"])
    assert got["coverage"] < verify_trace(task, full.text, style=style, templates=templates)["coverage"]


@pytest.mark.parametrize("domain,style,templates", CASES)
@given(k=st.integers(0, 2), seed=st.integers(0, 10_000), steps=st.integers(1, 4))
@PROPS
def test_a_reason_given_after_the_action_is_about_the_state_before_it(domain, style, templates, k, seed, steps):
    """A precondition the action just taken deleted, stated on the next line ("Pick up red.\\nRed
    was on the table."), is not judged against the state after it; a fact false at every point the
    walk passed, stated there, is still an error."""
    import random

    from tests.subtasks.traces_gen import WideWriter as Writer, _cap
    from widthbench.planners.strips import applicable_actions, successor

    task = tasks(domain)[k]
    rng = random.Random(seed)
    w = Writer(task, style, templates, rng)
    state, lines, wrong = task.init, [], None
    passed = [task.init]
    for _ in range(steps):
        acts = [a for a in applicable_actions(task, state) if successor(state, a) != state]
        if not acts:
            break
        a = rng.choice(acts)
        after = successor(state, a)
        _, deleted = w.changed(state, after)
        lines.append(f"{_cap(w.action(a))}.")
        if deleted:
            lines.append(f"{_cap(w.fact(rng.choice(deleted)))}.")
        passed.append(after)
        # (not a fact of the goal: said with no word of time it could be the goal stated)
        never = [x for x in task.atoms if not any(p >> task.atom_index[x] & 1 for p in passed)
                 and not task.goal >> task.atom_index[x] & 1]
        wrong = rng.choice(never) if never else None
        state = after
    text = "\n".join(lines)
    got = verify_trace(task, text, style=style, templates=templates)
    assert got["first_error"] is None, (text, got["first_error"])
    if wrong is not None:
        bad = text + "\n" + f"{_cap(w.fact(wrong))}."
        got = verify_trace(task, bad, style=style, templates=templates)
        assert got["first_error"] is not None and got["first_error"]["span"][0] > len(text), (bad, got["first_error"])


@pytest.mark.parametrize("domain,style,templates", [c for c in CASES if c[1] == "nl"])
@given(k=st.integers(0, 2), seed=st.integers(0, 10_000), steps=st.integers(1, 4))
@PROPS
def test_actions_in_call_notation_are_taken(domain, style, templates, k, seed, steps):
    """"1. Unstack(blue, orange)" is the action, in any spelling of its name and with its objects by
    their PDDL names or words; an aside in brackets after a space ("(nothing on it)") is dropped.
    A fact after the calls that held at no point they passed is an error."""
    import random

    from tests.subtasks.traces_gen import WideWriter as Writer, _cap
    from widthbench.planners.strips import applicable_actions, successor

    task = tasks(domain)[k]
    rng = random.Random(seed)
    w = Writer(task, style, templates, rng)
    state = task.init
    lines, passed = [], [task.init]
    for i in range(steps):
        acts = [a for a in applicable_actions(task, state) if successor(state, a) != state]
        if not acts:
            break
        a = rng.choice(acts)
        name = rng.choice([a.name, a.name.replace("-", ""), _cap(a.name.replace("-", "_"))])
        args = ", ".join(x if rng.random() < 0.5 else w.r.names[x] for x in a.args)
        lines.append(f"{i + 1}. {name}({args}) (this one is needed)")
        state = successor(state, a)
        passed.append(state)
    got = verify_trace(task, "\n".join(lines), style=style, templates=templates)
    taken = [c for c in got["claims"] if c["kind"] == "action"]
    assert len(taken) == len(lines) and all(c["verdict"] == "right" for c in taken), (lines, got["claims"])
    wrong = [x for x in task.atoms if not any(p >> task.atom_index[x] & 1 for p in passed)
             and not task.goal >> task.atom_index[x] & 1]  # (a goal fact, said plainly, could be the goal stated)
    if not wrong:
        return
    bad = "\n".join(lines) + "\n" + f"{_cap(w.fact(rng.choice(wrong)))}."
    got = verify_trace(task, bad, style=style, templates=templates)
    assert got["first_error"] is not None and got["first_error"]["kind"] == "false-fact", (bad, got["first_error"])


@pytest.mark.parametrize("templates", ["widthbench", "planbench"])
@given(k=st.integers(0, 2), seed=st.integers(0, 10_000))
@PROPS
def test_it_is_never_an_object_its_own_clause_names(templates, k, seed):
    """"Stack red on it" after an action on red: "it" would make red both objects; it is not read
    (no action, no error), while "put it down" after picking red up is red."""
    import random

    from tests.subtasks.traces_gen import WideWriter as Writer, _cap
    from widthbench.planners.strips import applicable_actions

    task = tasks("blocksworld")[k]
    rng = random.Random(seed)
    w = Writer(task, "nl", templates, rng)
    a = rng.choice([x for x in applicable_actions(task, task.init) if x.name in ("pick-up", "unstack")])
    block = w.r.names[a.args[0]]
    text = f"{_cap(w.r.action(a))}. Then stack the {block.removeprefix('the ')} on it."
    got = verify_trace(task, text, style="nl", templates=templates)
    assert got["first_error"] is None and [c["claimed"] for c in got["claims"] if c["kind"] == "action"] == [str(a)], (text, got["claims"])
    text = f"{_cap(w.r.action(a))}. Then put it down."
    got = verify_trace(task, text, style="nl", templates=templates)
    assert [c["claimed"] for c in got["claims"] if c["kind"] == "action"] == [str(a), f"(put-down {a.args[0]})"], (text, got["claims"])
