"""Novelty: is a state novel for IW(w)? Four variants sharing one construction (the paper, Table 1
rows 7-8, plus ours).

IW(w) with w the instance's effective width, traced, stopped at a seeded random point: the new
state is the state generated there, the previous states are the distinct states generated before
it. Only stop points whose prompt fits the prompt budget (both styles) are drawn, so no list is
ever cut. ``novelty``: any generated state; ``novelty-hard``: non-duplicates pruned for novelty > w
(the paper's NDAP); ``novelty-balanced``: even items kept non-duplicates, odd items novelty-pruned
non-duplicates; ``novelty-estimate``: non-duplicates, truth the exact novelty (any size).
"""

from __future__ import annotations

from widthbench.pddl_domains import obfuscate
from widthbench.subtasks import answers, api
from widthbench.subtasks.registry import Metric, SubTask
from widthbench.subtasks.definitions.shared import mean, simulated, token_estimate
from widthbench.subtasks.definitions.plan_verification import score_verdict
from widthbench.subtasks.definitions.width_estimate import errors_integer, row_extras_integer, score_integer
from widthbench.subtasks.definitions.width_estimate import no_item as no_width_item
from widthbench.planners.iw import DUPLICATE, KEPT, PRUNED
from widthbench.subtasks.exact import novelty_of
from widthbench.subtasks.items import base_item, rng_for


def candidates(pool, i: int, budget: int):
    """[(j, previous states, entry)] for the trace entries whose prompt fits ``budget`` in both styles.

    A prompt's estimate is the fixed part plus, per listed state, its header and its atoms: the
    word-piece count of text joined by white space is the sum of the counts of its parts.
    """
    d = pool.data(i)
    key = ("novelty_candidates", budget)
    if key in d:
        return d[key]
    # sizes are those of the plain prompts, so that an obfuscated run (--obfuscate) has the same items
    task = obfuscate.plain(pool.task(i))
    out = []
    renderers = [api.renderer(task, st) for st in ("pddl", "nl")]
    atom_cost = [[token_estimate(r.atom(a)) for a in task.atoms] for r in renderers]
    # The prompt without a listed state (its one-digit width does not change the estimate) and the
    # smallest with one: an instance whose smallest prompt is over the budget needs no IW run.
    fixed = []
    for st in ("pddl", "nl"):
        msgs = api.novelty_prompt(task, [], task.init, st, width=1)
        fixed.append(sum(token_estimate(m["content"]) for m in msgs))
    first = token_estimate("State 1:")
    d["novelty_smallest_prompt"] = max(f + first + sum(ac[b] for b in range(task.n_atoms) if task.init >> b & 1)
                                       for f, ac in zip(fixed, atom_cost))
    trace = pool.trace(i) if d["novelty_smallest_prompt"] <= budget else None
    if trace:
        used = list(fixed)
        previous: list[int] = []
        seen: set[int] = set()
        for j, entry in enumerate(trace):
            if j > 0:
                out.append((j, tuple(previous), entry))
            if entry.state in seen:
                continue
            # The state joins the list of the next stop points: does it still fit?
            header = token_estimate(f"State {len(previous) + 1}:")
            bits = [b for b in range(task.n_atoms) if entry.state >> b & 1]
            cost = [header + sum(ac[b] for b in bits) for ac in atom_cost]
            if any(u + c > budget for u, c in zip(used, cost)):
                break
            used = [u + c for u, c in zip(used, cost)]
            seen.add(entry.state)
            previous.append(entry.state)
    d[key] = out
    return out


def _build(subtask):
    def build(pool, i, index, count, options):
        cands = candidates(pool, i, options.prompt_budget)
        if subtask == "novelty":
            pick = cands
        elif subtask == "novelty-hard":
            pick = [c for c in cands if c[2].verdict == PRUNED]
        elif subtask == "novelty-balanced":
            want = KEPT if index % 2 == 0 else PRUNED
            pick = [c for c in cands if c[2].verdict == want]
        else:  # novelty-estimate
            pick = [c for c in cands if c[2].verdict != DUPLICATE and novelty_of(c[2].state, c[1]) is not None]
        if not pick:
            return None
        rng = rng_for(pool.seed, subtask, index, i, pool.instance(i).id)
        j, previous, entry = rng.choice(pick)
        info = {"stop_index": j, "trace_length": len(pool.trace(i)), "list_length": len(previous),
                "verdict": entry.verdict, "iw_novelty": entry.novelty, "depth": entry.depth,
                "generated_by": str(entry.label)}
        truth = novelty_of(entry.state, previous) if subtask == "novelty-estimate" else entry.verdict == KEPT
        return base_item(subtask, pool, i, index, state=entry.state, previous=previous, width=pool.width(i),
                         truth=truth, info=info)

    return build


def verdict_prompts(item, mode):
    return [api.novelty_prompt(item.task, item.previous, item.state, mode.style, width=item.width)]


def estimate_prompts(item, mode):
    return [api.novelty_estimate_prompt(item.task, item.previous, item.state, mode.style)]


def row_extras(records, metric):
    return {"mean_list_length": mean(r["info"].get("list_length") for r in records)}


def errors(record, bump):
    if not record["correct"]:
        said = "keep (novel)" if record["parsed"] else "prune"
        bump("wrong verdicts", f"said {said}; IW: {record['info'].get('verdict', '?')}")


NO_ITEM = ("{width} and a state of its IW trace that {what} and whose prompt, listing every state "
           "generated before it, fits the novelty prompt budget (--prompt-budget {budget}){smallest}")


def no_item(what: str):
    def text(pool, options) -> str:
        sizes = pool.computed("novelty_smallest_prompt")
        smallest = ""
        if sizes and min(sizes) > options.prompt_budget:
            smallest = (f"; the smallest prompt, listing one state, is over it on every instance tried "
                        f"(from {min(sizes):,.0f} estimated tokens)")
        return NO_ITEM.format(width=no_width_item(pool, options), what=what, budget=options.prompt_budget,
                              smallest=smallest)
    return text


def _verdict_subtask(name, order, label, paper, what="IW generates"):
    return SubTask(name=name, build=_build(name), prompts=verdict_prompts, answer=answers.NOVELTY,
                   no_item=no_item(what),
                   score=score_verdict(("accuracy",)), metrics=(Metric("accuracy", label, order),), paper=paper,
                   row_extras=row_extras, errors=errors,
                   simulate={"novelty": simulated("novelty")})


def _estimate_extras(records, metric):
    return {**row_extras(records, metric), **row_extras_integer(records, metric)}


SUBTASKS = (
    _verdict_subtask("novelty", 70, "Novelty Pruning", True),
    _verdict_subtask("novelty-hard", 80, "Novelty Pruning NDAP", True, "IW prunes for novelty (not a duplicate)"),
    _verdict_subtask("novelty-balanced", 140, "Novelty Pruning Balanced", False,
                     "IW keeps (even items) or prunes for novelty (odd items)"),
    SubTask(name="novelty-estimate", build=_build("novelty-estimate"), prompts=estimate_prompts,
            answer=answers.INTEGER, score=score_integer, metrics=(Metric("exact", "Novelty Estimate (integer)", 150),),
            row_extras=_estimate_extras, errors=errors_integer,
            no_item=no_item("is not a duplicate"),
            simulate={"novelty_estimate": simulated("novelty_estimate")}),
)
