"""Formalization of the domain (issue 44, ``formalize-domain``): from the domain described in words
(kinds of objects, facts, and each action's parameters, requirements and effects:
`pddl_domains.context.domain_in_words`, in the run's NL templates) and one problem of it, the model
writes the domain file (docs/formalization.md).

Truth: the domain, and the instances it is judged on: the item's instance and the next
`JUDGED_ON` - 1 instances of the pool (their problem texts are kept in the item, so a frozen item set
is judged on the same ones). The answer (a ``(define (domain ...))`` form) is judged by
`planners.domain_equivalence.domain_equivalence`: equivalent when, on every one of those instances,
the reachable state graph under the model's domain is isomorphic to the true one, with the actions
matched by one bijection (names kept first) and goal states to goal states. Metrics, headline first:
``equivalent`` (one [right, n] per item; an undecided verdict, past the bounds or PDDL beyond the
engine's fragment, is [0, 0] and counted in the row's ``undecided``) and ``parses`` (the engine
reads the model's domain). The record keeps the verdict: its class, the predicate and action
bijections, and a transition on which the domains differ (instance, state, path, action, both
successors).
"""

from __future__ import annotations

from widthbench.core.errors import ParseError
from widthbench.pddl_domains import obfuscate
from widthbench.planners.domain_equivalence import DEFAULT_MAX_CHECKS, domain_equivalence
from widthbench.planners.problem_writer import task_problem_text
from widthbench.planners.strips import FAULTS
from widthbench.subtasks import answers, api
from widthbench.subtasks.definitions.shared import result, simulated, text_tokens
from widthbench.subtasks.items import NotEnoughItems, base_item
from widthbench.subtasks.registry import COUNTS, PER_ITEM, Metric, SubTask

JUDGED_ON = 3  # instances per item
MAX_STATES = 100_000  # paired states walked per instance, at most
UNDECIDED = ("unknown", "unsupported")


def build(pool, i, index, count, options):
    task = pool.task(i)
    if obfuscate.is_obfuscated(task):
        # a grouped run (--subtask all) leaves it out with this reason; asked by name, one line
        raise NotEnoughItems("formalize-domain describes the domain, which --obfuscate would have to rename as "
                             "well; leave --obfuscate out of formalization runs")
    judged = [i]
    j = i + 1
    while len(judged) < JUDGED_ON and (not pool.fixed or j < len(pool)):
        judged.append(j)
        j += 1
    instances = [[pool.instance(k).id, task_problem_text(pool.task(k))] for k in judged]
    return base_item("formalize-domain", pool, i, index, state=task.init,
                     truth={"domain": task.domain.name, "instances": instances},
                     info={"schemas": len(task.domain.schemas), "predicates": len(task.domain.predicates),
                           "judged_on": [x[0] for x in instances]})


def prompts(item, mode):
    return [api.formalize_domain_prompt(item.task, mode.style)]


def score(item, mode, outcomes):
    o = outcomes[0]
    if isinstance(o, ParseError):
        return result(None, item.truth, False, {"equivalent": [0, 1], "parses": 0, "reason": None}, str(o))
    verdict = domain_equivalence(item.task.domain, o.value, [tuple(x) for x in item.truth["instances"]],
                                 max_states=MAX_STATES, max_checks=DEFAULT_MAX_CHECKS)
    shown = verdict.to_json()
    shown["verdict"] = shown.pop("equivalent")
    metrics = {**shown, "equivalent": [int(bool(verdict.equivalent)), int(verdict.equivalent is not None)],
               "parses": int(verdict.reason not in FAULTS)}
    return result(o.value, item.truth, bool(verdict.equivalent), metrics)


def row_extras(records, metric):
    if metric != "equivalent":
        return {}
    return {"undecided": sum(1 for r in records if r["metrics"].get("reason") in UNDECIDED)}


def errors(record, bump):
    m = record["metrics"]
    reason = m.get("reason")
    if reason in (None, "equivalent"):
        return
    bump("undecided (class)" if reason in UNDECIDED else "not equivalent (class)", reason)
    t = m.get("transition")
    if t:
        bump("first differing transition (true action)", t["action"].strip("()").split()[0])


SUBTASKS = (SubTask(
    name="formalize-domain", build=build, prompts=prompts, answer=answers.PDDL_DOMAIN, score=score,
    metrics=(Metric("equivalent", "Formalize Domain Equivalent", 320, COUNTS),
             Metric("parses", "Formalize Domain Parses", 321, PER_ITEM)),
    row_extras=row_extras, errors=errors,
    simulate={"formalize_domain": simulated("formalize_domain")},
    answer_tokens=lambda item, style: 2 * text_tokens(item.task.domain.text)),)
