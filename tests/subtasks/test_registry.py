"""The sub-task registry: one record per sub-task; adding a sub-task is adding one module."""

from __future__ import annotations

import json
import random
import re
import textwrap
from pathlib import Path

import pytest

from widthbench.core.errors import ParseError, UserError
from widthbench.generators import generate
from widthbench.subtasks import answers
from widthbench.subtasks.items import ItemOptions, Pool, build_items
from widthbench.subtasks.registry import Registry
from widthbench.subtasks.score_run import ScoreConfig, run_score
from widthbench.subtasks.scoring import Mode

TOY = '''
"""A toy sub-task: how many objects does the task have? (answer kind: integer)"""
from widthbench.core.errors import ParseError
from widthbench.subtasks import answers
from widthbench.subtasks.registry import Metric, SubTask


def build(pool, i, index, count, options):
    from widthbench.subtasks.items import base_item
    return base_item("object-count", pool, i, index, state=pool.task(i).init,
                     truth=len(pool.task(i).object_names))


def prompts(item, mode):
    return [[{"role": "user", "content": f"How many objects? {' '.join(sorted(item.task.object_names))}"}]]


def score(item, mode, outcomes):
    o = outcomes[0]
    if isinstance(o, ParseError):
        return {"parsed": None, "truth": item.truth, "correct": False, "metrics": {"exact": 0},
                "parse_error": str(o)}
    ok = o.value == item.truth
    return {"parsed": o.value, "truth": item.truth, "correct": ok, "metrics": {"exact": int(ok)},
            "parse_error": None}


SUBTASKS = (SubTask(name="object-count", build=build, prompts=prompts, answer=answers.INTEGER,
                    score=score, metrics=(Metric("exact", "Object Count", 500),)),)
'''


def test_default_registry_lists_every_builtin_subtask_once():
    reg = Registry.default()
    assert reg.names[:7] == reg.paper == ("action-generation", "action-single", "successor-mapping",
                                           "successor-separate", "plan-verification", "novelty",
                                           "novelty-hard")
    assert {"novelty-balanced", "novelty-estimate", "width-estimate", "plan-generation"} <= set(reg.names)
    assert len(set(reg.names)) == len(reg.names)
    assert reg.expand("all") == reg.names and "plan-generation" in reg.expand("all")
    assert reg.expand("paper,plan-generation")[-1] == "plan-generation"
    with pytest.raises(UserError, match="unknown --subtask 'nope'"):
        reg.expand("nope")


def test_labels_come_from_records_in_table_order():
    reg = Registry.default()
    rows = [{"subtask": "plan-generation", "metric": "valid"}, {"subtask": "action-generation", "metric": "exact"},
            {"subtask": "action-single", "metric": "optimal", "extension": True}]
    assert [reg.label(r) for r in sorted(rows, key=reg.label_order)] == [
        "Action Generation", "Action Generation Single Optimal + extension (Table 2)", "Plan Generation Valid"]


def test_a_toy_subtask_is_one_module(tmp_path):
    path = tmp_path / "object_count.py"
    path.write_text(textwrap.dedent(TOY))
    reg = Registry.from_modules([path])
    assert "object-count" in reg and reg.names[-1] == "object-count"
    assert "object-count" not in Registry.default()  # the default registry is untouched

    class Counting:  # a model that counts the objects in the prompt (no simulator needed)
        spec, simulated, concurrency = "toy:counter", True, 1

        def run(self, requests, progress=False, tag=None):
            from widthbench.llm.types import Reply
            return [Reply(text=str(len(r.messages[-1]["content"].split("?")[1].split())), reasoning=None,
                          prompt_tokens=1, completion_tokens=1, thinking_tokens=0, finish_reason="stop",
                          latency=0.0, model=self.spec, simulated=True) for r in requests]

    config = ScoreConfig(subtasks=("object-count",), styles=("pddl",), thinking=(False,), count=3, seed=1)
    summary = run_score(config, Counting(), tmp_path / "run", quiet=True, registry=reg)
    rows = [r for r in summary["rows"] + summary["reader_rows"]["strict"] if r["subtask"] == "object-count"]
    assert [r["reader"] for r in rows] == ["flexible", "strict"]
    assert all(r["correct"] == r["n"] == 3 for r in rows)
    recs = [json.loads(x) for x in (tmp_path / "run" / "items.jsonl").read_text().splitlines()]
    assert len(recs) == 3 and all(r["truth"] == r["parsed"] for r in recs)


def test_a_subtask_defined_twice_is_refused():
    reg = Registry.default()
    with pytest.raises(ValueError, match="defined twice"):
        reg.with_subtasks(reg.get("novelty"))


# ---------------------------------------------------------------------------------------------
# Constrained decoding: every string of a constraint's language is read by the strict reader


def _items(domain: str):
    pool = Pool(domain, 5, initial=3)
    out = {}
    for sub in Registry.default().names:
        if sub.startswith("novelty") or sub == "width-estimate":
            continue
        out[sub] = build_items(sub, pool, 2, ItemOptions())
    return out


def _sample(constraint: dict, item, style: str, rng: random.Random) -> str:
    """A random string of the constraint's language, built from the same parts it is built from."""
    if "choice" in constraint:
        return rng.choice(constraint["choice"])
    kind = answers_kind(item)
    acts = answers._action_texts(item, style)
    facts = answers._atom_texts(item, style)
    if kind == "plan-or-none" and rng.random() < 0.2:
        return "no plan exists"
    if kind in ("action-list", "plan", "plan-or-none"):
        return "none" if rng.random() < 0.1 else "\n".join(rng.choices(acts, k=rng.randint(1, 4)))
    if kind == "action":
        return rng.choice(acts)
    if kind == "state":
        return "\n".join(rng.sample(facts, rng.randint(1, min(5, len(facts)))))
    if kind == "mapping":
        from widthbench.subtasks import api
        r = api.renderer(item.task, style)
        blocks = [f"Action: {r.action(a)}\nResulting state:\n" + "\n".join(rng.sample(facts, 3))
                  for a in item.actions]
        return "\n\n".join(blocks)
    return str(rng.randint(0, 999))


def answers_kind(item) -> str:
    return Registry.default().get(item.subtask).answer.name


@pytest.mark.parametrize("domain", ["blocksworld", "logistics"])
@pytest.mark.parametrize("style", ["pddl", "nl"])
def test_constraint_languages_are_read_by_the_strict_reader(domain, style):
    rng = random.Random(7)
    reg = Registry.default()
    for sub, items in _items(domain).items():
        kind = reg.get(sub).answer
        for item in items:
            constraint = kind.constraint(item, style)
            if constraint is None:  # PDDL files (formalization) have no regular language
                assert kind.name.startswith("pddl-"), sub
                continue
            assert set(constraint) <= {"choice", "regex"}
            for _ in range(15):
                text = _sample(constraint, item, style, rng)
                if "regex" in constraint:
                    assert re.fullmatch(constraint["regex"], text), (sub, text)
                kind.read("strict", item, text, style)  # raises ParseError if unreadable
            if kind.name == "mapping":  # an action mapped twice, or one left out, is outside the language
                blocks = _sample(constraint, item, style, rng).split("\n\n")
                assert not re.fullmatch(constraint["regex"], "\n\n".join(blocks + blocks[:1]))
                if len(blocks) > 1:
                    assert not re.fullmatch(constraint["regex"], "\n\n".join(blocks[1:]))


def test_constraints_exclude_what_is_not_an_action_of_the_task():
    item = _items("blocksworld")["action-single"][0]
    regex = answers.ACTION.constraint(item, "pddl")["regex"]
    assert re.fullmatch(regex, "(pick-up a)") or re.fullmatch(regex, "(unstack a b)")
    assert not re.fullmatch(regex, "(pick-up zz)")
    assert not re.fullmatch(regex, "Answer: (pick-up a)")


def test_constrained_requests_carry_the_constraint_and_enter_the_cache_key():
    from widthbench.subtasks.scoring import requests_for
    item = _items("blocksworld")["plan-verification"][0]
    plain = requests_for(item, Mode("pddl", False), None)[0]
    constrained = requests_for(item, Mode("pddl", False), None, constrained=True)[0]
    assert dict(constrained.constraint) == {"choice": ["yes", "no"]}
    assert plain.constraint is None
    from widthbench.llm.types import cache_key
    assert cache_key("m", "m", plain, {})[0] != cache_key("m", "m", constrained, {})[0]


# ---------------------------------------------------------------------------------------------
# A toy sub-task with a new answer kind, built in: one module under subtasks/definitions/


TOY_BUILTIN = '''
"""A toy sub-task: how many objects does the task have? Its answer kind, a count of objects
("5 objects"), is new: its two readers and its constraint are here too."""
import re

from widthbench.core.errors import ParseError
from widthbench.subtasks.answers import AnswerKind, Reading
from widthbench.subtasks.registry import COUNTS, Metric, SubTask


def strict(item, text, style):
    if not re.fullmatch(r"\\d+ objects", text.strip()):
        raise ParseError(f"not 'N objects': {text.strip()[:40]!r}")
    return int(text.split()[0])


def flexible(item, text, style):
    found = re.findall(r"(\\d+) objects", text)
    if len(set(found)) != 1:
        raise ParseError("no single 'N objects' in the answer")
    return Reading(int(found[0]), found[0], "count")


OBJECT_COUNT = AnswerKind("object-count", strict=strict, flexible=flexible,
                          constraint=lambda item, style: {"regex": r"\\d+ objects"})


def build(pool, i, index, count, options):
    from widthbench.subtasks.items import base_item
    return base_item("toy-object-count", pool, i, index, state=pool.task(i).init,
                     truth=len(pool.task(i).object_names))


def prompts(item, mode):
    return [[{"role": "system", "content": "You count the objects of planning tasks."},
             {"role": "user", "content": "How many objects? " + " ".join(sorted(item.task.object_names))}]]


def score(item, mode, outcomes):
    o = outcomes[0]
    if isinstance(o, ParseError):
        return {"parsed": None, "truth": item.truth, "correct": False,
                "metrics": {"exact": 0, "close": [0, 1]}, "parse_error": str(o)}
    ok = o.value == item.truth
    return {"parsed": o.value, "truth": item.truth, "correct": ok,
            "metrics": {"exact": int(ok), "close": [int(abs(o.value - item.truth) <= 1), 1]}, "parse_error": None}


SUBTASKS = (SubTask(name="toy-object-count", build=build, prompts=prompts, answer=OBJECT_COUNT, score=score,
                    metrics=(Metric("exact", "Toy Object Count", 900),
                             Metric("close", "Toy Object Count (within one)", 901, aggregate=COUNTS))),)
'''


DEFINITIONS_DIR = Path(__file__).resolve().parents[2] / "subtasks" / "definitions"


def test_a_builtin_toy_subtask_with_a_new_answer_kind_is_one_module(toy_files, fresh_cli, tmp_path):
    """One file (the module) is the whole sub-task: score, its two metrics' rows, report, both
    harness exports and the registered inspect task pick it up."""
    toy_files({DEFINITIONS_DIR / "toy_object_count.py": TOY_BUILTIN})
    common = ("--subtask", "toy-object-count", "--style", "pddl", "--thinking", "off", "--count", "4",
              "--seed", "1", "--blocks", "4-5")
    scored = fresh_cli("score", "--model", "sim:const:I count 4 objects.", *common, "--out", "run", "--no-cache",
                  cwd=tmp_path)
    assert scored.returncode == 0, scored.stderr
    recs = [json.loads(x) for x in (tmp_path / "run" / "items.jsonl").read_text().splitlines()]
    assert len(recs) == 4 and {r["truth"] for r in recs} == {4, 5}
    assert all(r["parsed"] == 4 and r["correct"] == (r["truth"] == 4) for r in recs)
    assert all(r["readings"]["strict"]["parse_error"] for r in recs)  # the strict reader wants "N objects" alone
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    rows = {r["metric"]: r for r in summary["rows"] if r["subtask"] == "toy-object-count"}
    fours = sum(r["truth"] == 4 for r in recs)
    assert rows["exact"]["correct"] == fours and rows["exact"]["n"] == 4
    assert rows["close"]["correct"] == 4 and rows["close"]["n"] == 4  # 4 is within one of 4 and of 5
    report = fresh_cli("report", "run", "--out", "rep", cwd=tmp_path)
    assert report.returncode == 0, report.stderr
    assert "Toy Object Count (within one)" in report.stdout + "".join(
        p.read_text(errors="replace") for p in (tmp_path / "rep").rglob("*.md"))

    lm = fresh_cli("export", "lm-eval", *common, "--out", "lm", cwd=tmp_path)
    assert lm.returncode == 0, lm.stderr
    assert (tmp_path / "lm" / "widthbench_blocksworld_toy_object_count_pddl_nothink.yaml").is_file()
    ins = fresh_cli("export", "inspect", *common, "--out", "ins", cwd=tmp_path)
    assert ins.returncode == 0, ins.stderr
    assert "widthbench_blocksworld_toy_object_count_pddl_nothink" in (tmp_path / "ins" / "widthbench_tasks.py").read_text()
    listed = subprocess_tasks(tmp_path)
    assert "toy_object_count" in listed and "plan_verification" in listed


def test_the_design_card_lists_the_toy_subtasks_file(extension_files):
    toy = str((DEFINITIONS_DIR / "toy_object_count.py").relative_to(DEFINITIONS_DIR.parents[1]))
    assert toy in extension_files("sub-task with a new answer kind", "toy_object_count")
    assert extension_files("metric", "toy_object_count") == set()  # a metric is a line in the sub-task's module


ENTRY_POINT_TASKS = """
from importlib.metadata import entry_points
from inspect_ai._util.registry import registry_find, registry_info
(point,) = [e for e in entry_points(group="inspect_ai") if e.name == "widthbench"]
point.load()
print(" ".join(sorted(registry_info(f).name.split("/")[-1] for f in registry_find(lambda i: i.type == "task"))))
"""


def subprocess_tasks(cwd) -> list[str]:
    """The inspect tasks the installed entry point registers, read in a fresh interpreter."""
    import subprocess
    import sys

    pytest.importorskip("inspect_ai", reason="inspect-ai is not installed (pip install -e '.[inspect]')")
    done = subprocess.run([sys.executable, "-c", ENTRY_POINT_TASKS], cwd=cwd, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout.split()
