"""Report layout and the error analysis (what the paper had to find by hand)."""

from __future__ import annotations

from widthbench.subtasks.results.tables import error_analysis, format_table


def _rec(sub, parsed, truth, correct, metrics=None, info=None, parse_error=None):
    return {"subtask": sub, "parsed": parsed, "truth": truth, "correct": correct, "metrics": metrics or {},
            "info": info or {}, "parse_error": parse_error, "request_error": None}


def test_error_analysis_counts_confusions_missing_and_wrong_facts():
    recs = [
        _rec("action-generation", ["(pick-up a)"], ["(unstack a b)"], False,
             {"wrong": ["(pick-up a)"], "missing": ["(unstack a b)"]}),
        _rec("action-single", "(pick-up c)", {"applicable": ["(unstack c d)"], "optimal": ["(unstack c d)"]}, False),
        _rec("successor-separate", {"(unstack a b)": ["(holding a)"]},
             {"(unstack a b)": ["(holding a)", "(clear b)"]}, False),
        _rec("plan-verification", True, False, False, info={"plan_kind": "non-goal"}),
        _rec("novelty-hard", True, False, False, info={"verdict": "novelty"}),
        _rec("width-estimate", 3, 2, False),
        _rec("novelty", None, True, False, parse_error="cannot read 'blah'"),
    ]
    a = error_analysis(recs)
    conf = "said pick-up where unstack was applicable"
    assert dict(a["action-generation"]["pick-up/unstack and put-down/stack confusions"]) == {conf: 1}
    assert dict(a["action-generation"]["missing actions (applicable, not listed)"]) == {"unstack": 1}
    assert dict(a["action-single"]["pick-up/unstack and put-down/stack confusions"]) == {conf: 1}
    assert dict(a["successor-separate"]["missing facts after action"]) == {"(unstack ?1 ?2): (clear ?2)": 1}
    assert dict(a["plan-verification"]["wrong verdicts"]) == {"said yes to a non-goal plan": 1}
    assert dict(a["novelty-hard"]["wrong verdicts"]) == {"said keep (novel); IW: novelty": 1}
    assert dict(a["width-estimate"]["wrong numbers (truth -> answer)"]) == {"2 -> 3": 1}
    assert list(dict(a["novelty"]["parse errors"])) == ["cannot read '…'"]


def test_table_layout_has_the_four_seed_columns_and_k_over_n_cells():
    rows = [{"subtask": "novelty-hard", "metric": "accuracy", "style": st, "thinking": th, "extension": False,
             "domain": "blocksworld", "model": "openai:qwen", "simulated": False, "n": 50, "correct": c}
            for (st, th), c in zip([("pddl", "off"), ("pddl", "on"), ("nl", "off"), ("nl", "on")], [0, 0, 0, 1])]
    text = format_table({"rows": rows})
    assert "SIMULATED" not in text
    assert "| Sub-task | Standard Normal | Standard Thinking | Natural Language Normal | Natural Language Thinking |" in text
    assert "| Novelty Pruning NDAP | 0/50 | 0/50 | 0/50 | 1/50 |" in text


def test_error_analysis_counts_answers_only_the_flexible_reader_read_by_rule():
    strict_error = {"parsed": None, "correct": False, "metrics": {}, "parse_error": "cannot read 'Here'"}
    one = _rec("plan-verification", True, True, True)
    one.update(reader="flexible", readings={"strict": strict_error, "flexible": {"rule": "answer-label"}})
    # successor-separate asks one request per action: one rule per reply
    many = _rec("successor-separate", {"(unstack a b)": ["(holding a)"]}, {"(unstack a b)": ["(holding a)"]}, True)
    many.update(reader="flexible", readings={"strict": strict_error,
                                             "flexible": {"rule": ["fact-lines", None, "fact-lines", "answer-label"]}})
    both = _rec("plan-verification", True, True, True)
    both.update(reader="flexible", readings={"strict": {**strict_error, "parse_error": None}, "flexible": {}})
    a = error_analysis([one, many, both])
    assert dict(a["plan-verification"]["read only by the flexible reader (rule)"]) == {"answer-label": 1}
    assert dict(a["successor-separate"]["read only by the flexible reader (rule)"]) == {"fact-lines, answer-label": 1}
