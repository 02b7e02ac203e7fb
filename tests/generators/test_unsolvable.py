"""generate --unsolvable: every instance is certified unsolvable by a search of our own here (not the
generator's), each goal atom is reachable on its own, the certificate is recorded in the manifest and
read back, and the same seed gives the same set."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from widthbench.generators import generate, read_instance_set, write_instance_set
from widthbench.planners import strips
from widthbench.planners.bfs import reachable_states, shortest_plan


def _check_certified(inst):
    task = inst.task()
    states = reachable_states(task)
    assert not any(s & task.goal == task.goal for s in states)  # no reachable state is a goal state
    assert shortest_plan(task).plan is None
    union = 0
    for s in states:
        union |= s
    assert task.goal & ~union == 0  # every goal atom holds in some reachable state
    assert task.goal.bit_count() >= 2
    assert inst.solvable is False and inst.optimal_plan is None
    assert inst.certificate == {"method": "exhaustive-search", "states_explored": len(states)}


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 10_000), domain=st.sampled_from(["blocksworld", "logistics"]))
def test_every_generated_instance_is_certified(seed, domain):
    opts = {"blocks": "3-5"} if domain == "blocksworld" else {"packages": "1-2"}
    for inst in generate(domain, 3, seed, unsolvable=True, **opts):
        _check_certified(inst)


def test_blocksworld_prefers_goals_without_a_contradictory_pair():
    # with three or more blocks a cycle (on a b) (on b c) (on c a) is pairwise reachable
    insts = generate("blocksworld", 6, 2, unsolvable=True, blocks="4")
    pairwise = 0
    for inst in insts:
        task = inst.task()
        states = list(reachable_states(task))
        bits = [i for i in range(task.n_atoms) if task.goal >> i & 1]
        if all(any(s >> a & 1 and s >> b & 1 for s in states) for a in bits for b in bits):
            pairwise += 1
    assert pairwise == len(insts)


def test_manifest_records_and_reads_back_the_certificate(tmp_path):
    insts = generate("logistics", 3, 5, unsolvable=True)
    write_instance_set(tmp_path, "logistics", insts)
    rows = [json.loads(x) for x in (tmp_path / "manifest.jsonl").read_text().splitlines()]
    assert all(r["solvable"] is False and r["certificate"]["method"] == "exhaustive-search" for r in rows)
    back = read_instance_set(tmp_path)
    assert [b.certificate for b in back] == [i.certificate for i in insts]
    for b in back:
        _check_certified(b)
    again = generate("logistics", 3, 5, unsolvable=True)
    assert [i.problem_pddl for i in again] == [i.problem_pddl for i in insts]


def test_solvable_sets_keep_their_manifest_keys(tmp_path):
    write_instance_set(tmp_path, "blocksworld", generate("blocksworld", 2, 1, blocks=3))
    row = json.loads((tmp_path / "manifest.jsonl").read_text().splitlines()[0])
    assert "certificate" not in row and "solvable" not in row


def test_plan_filters_do_not_apply():
    from widthbench.core.errors import UserError

    with pytest.raises(UserError, match="--max-plan-length"):
        generate("blocksworld", 2, 1, unsolvable=True, max_plan_length=4)
    assert strips  # the engine is what certifies


def test_cli_generate_unsolvable(tmp_path, capsys):
    from widthbench.cli import main

    out = tmp_path / "u"
    assert main(["generate", "blocksworld", "--count", "3", "--blocks", "4", "--seed", "2", "--unsolvable",
                 "--out", str(out), "--quiet"]) == 0
    assert "unsolvable, each certified by exhaustive search" in capsys.readouterr().out
    for inst in read_instance_set(out):
        _check_certified(inst)
    assert main(["generate", "blocksworld", "--count", "3", "--seed", "2", "--unsolvable", "--plan-length", "4",
                 "--out", str(tmp_path / "v"), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "--unsolvable" in err and len(err.strip().splitlines()) == 1
