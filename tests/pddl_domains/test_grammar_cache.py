"""The reader's compiled tables are built once per template set and set of object names: tasks
with the same objects share them, and reading is the same as with tables built afresh."""

from __future__ import annotations

from tests.conftest import BW_DIR, need_data
from widthbench.pddl_domains.readers import grammar
from widthbench.pddl_domains.readers.grammar import TaskGrammar
from widthbench.planners.strips import load_task


def _task(i):
    return load_task(BW_DIR.parent / "generated_domain.pddl", BW_DIR / f"instance-{i}.pddl")


def test_tasks_with_the_same_objects_share_the_compiled_tables():
    need_data()
    a, b = _task(2), _task(3)
    assert a.objects == b.objects and a.init != b.init
    ga, gb = TaskGrammar(a, "nl", "planbench"), TaskGrammar(b, "nl", "planbench")
    assert ga.matchers and ga.matchers is gb.matchers
    five = next(t for t in map(_task, range(2, 502)) if len(t.objects) == 5)
    assert TaskGrammar(five, "nl", "planbench").matchers is not ga.matchers
    text = "unstack the orange block from on top of the blue block"
    grammar._compile_matchers.cache_clear()  # tables built afresh read the same
    fresh = TaskGrammar(a, "nl", "planbench")
    assert fresh.matchers is not ga.matchers and fresh.matchers == ga.matchers
    assert fresh.lead(text) == ga.lead(text) is not None
