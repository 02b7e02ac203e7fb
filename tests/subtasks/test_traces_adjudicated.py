"""The verifier against first errors adjudicated by hand (docs/traces.md, "First errors checked by
hand"), on PlanBench's real result files: DeepSeek-R1's thinking on 3-block Blocksworld (the
development traces), GPT-4's step-by-step state-tracking answers on 3-block Blocksworld and on Mystery
Blocksworld (the obfuscated variant, read in its own words from the data root).

Each adjudicated trace is pinned: a real first error must be reported as that kind at that offset of
the trace; a trace whose reported first error was found false by hand must report none there.
"""

from __future__ import annotations

import pytest

from tests.conftest import DATA, PLANBENCH, need_data
from widthbench.subtasks.traces.sources import planbench_traces

RESULTS = DATA / "planbench-responses/llm_planning_analysis/results"
R1 = RESULTS / "blocksworld_3/deepseek-r1-api/task_1_plan_generation_zero_shot.json"
GPT4 = RESULTS / "blocksworld_3/gpt-4_chat/task_1_plan_generation_state_tracking.json"
MYSTERY = RESULTS / "mystery_blocksworld_3/gpt-4_chat/task_1_plan_generation_state_tracking.json"

# instance -> (kind, start offset) of a real first error; None: no error may be reported before
# the point the hand check found false (a false first error, listed in docs/traces.md)
R1_REAL = {3: ("precondition", 7498), 35: ("precondition", 3518), 57: ("precondition", 7073),
           66: ("precondition", 4687), 68: ("precondition", 1082)}
R1_FALSE = {6: 0, 15: 776, 16: 6629, 18: 3675, 27: 1950, 32: 3147, 40: 5544, 46: 0, 51: 1910, 54: 0, 60: 4377,
            62: 2501, 75: 2887, 79: 0, 81: 2890, 83: 5020, 90: 689, 94: 1259, 95: 4412}
GPT4_REAL = {2: ("false-fact", 1747), 3: ("precondition", 3189), 5: ("false-fact", 1043), 6: ("false-fact", 2282),
             7: ("precondition", 209), 8: ("false-fact", 467), 10: ("precondition", 780),
             13: ("precondition", 210), 15: ("precondition", 1737), 16: ("false-fact", 2960),
             18: ("precondition", 4496), 20: ("precondition", 210), 21: ("false-fact", 1048),
             22: ("false-fact", 2321), 24: ("precondition", 1487), 25: ("precondition", 209),
             27: ("false-fact", 1042), 30: ("precondition", 210), 31: ("precondition", 209),
             32: ("false-fact", 1015)}
# GPT-4 names an action and rejects it in its reason ("This action is not applicable because the hand
# is currently holding the orange block", "one of the preconditions; the hand is empty, is not
# satisfied"): a rejected option, not an action taken (false first errors of an earlier version)
GPT4_FALSE = {42: 783, 58: 795, 88: 917}
MYSTERY_REAL = {2: ("false-fact", 871), 3: ("precondition", 495), 4: ("precondition", 973),
                9: ("precondition", 137), 11: ("precondition", 127), 12: ("false-fact", 1656)}


def _first_errors(path, chain_of_thought):
    need_data()
    recs = planbench_traces(path, PLANBENCH, chain_of_thought=chain_of_thought)
    return {r["instance_id"]: r["trace"]["first_error"] for r in recs}, recs


@pytest.mark.parametrize("path,cot,real,false", [(R1, False, R1_REAL, R1_FALSE), (GPT4, True, GPT4_REAL, GPT4_FALSE),
                                                 (MYSTERY, True, MYSTERY_REAL, {})],
                         ids=["r1-blocksworld", "gpt4-blocksworld", "gpt4-mystery"])
def test_hand_adjudicated_first_errors(path, cot, real, false):
    got, recs = _first_errors(path, cot)
    assert len(recs) == 100
    for iid, (kind, start) in real.items():
        fe = got[iid]
        assert fe is not None and (fe["kind"], fe["span"][0]) == (kind, start), (iid, fe)
    for iid, start in false.items():
        fe = got[iid]
        assert fe is None or fe["span"][0] > start, (iid, fe)


def test_mystery_answers_read_in_their_own_words():
    """Mystery Blocksworld's state-tracking answers ("attack object a", "object b craves object c") are
    read through the variant's words: most sentences yield claims, and every answer whose plan is
    wrong holds a first error."""
    got, recs = _first_errors(MYSTERY, True)
    coverage = sum(r["trace"]["coverage"] for r in recs) / len(recs)
    assert coverage > 0.8
    wrong = [r for r in recs if r["final_answer_correct"] is False]
    assert wrong and all(got[r["instance_id"]] is not None for r in wrong)
