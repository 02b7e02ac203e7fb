#!/usr/bin/env python
"""Cross-check our ground truth against independent implementations; print every disagreement.

    python scripts/crosscheck.py --cases 10000 [--seed 0] [--workers 2] [--executor ray [--ray-address ADDR]]

Random instances come from ``widthbench.generators.generate`` (Blocksworld 3-6 blocks; Logistics
with 1-2 cities, 1-3 locations per city, 1-3 packages), one instance seed per instance. For each
instance the cases are:

- ``bfs-vs-fd``: optimal length by our breadth-first search = Fast Downward ``astar(lmcut())`` h*.
- ``astar-lmcut-vs-fd`` / ``astar-blocksworld-vs-fd``: our A* with LM-cut / with the Blocksworld
  heuristic (Blocksworld instances only) = FD's h*.
- ``generator-vs-fd``: the optimal length the generator recorded (manifest ``optimal_length``) = FD's.
- ``truth-enumerated-vs-search``: ``GroundTruth`` h* and optimal-next-action set computed from the
  enumerated state space = the same computed per state by exact search (``max_space=0``), on the
  initial state and two random-walk states.
- ``next-action-vs-fd`` (every 10th instance): for each applicable action of the initial state,
  "a is an optimal next action" = (FD's h* of its successor = FD's h* - 1); and
  ``truth-enumerated-vs-fd``: the initial state's h* and next-action set from the enumerated space
  = those of ``GroundTruth(planner="fd", max_space=0)`` (FD's bounded searches).
- ``validate:<plan kind>``: our engine's verdict = unified-planning's ``sequential_plan_validator``
  verdict on the same plan: valid or not, the failure kind (inapplicable action vs unmet goal),
  the 1-based failing step, the set of unmet preconditions, and the last state reached. Plans: our
  optimal plan, FD's optimal plan, random walks (``invalid-goal``), one-step mutations of the
  optimal plan (``invalid-precondition``), truncated optimal plans, and random sequences of
  ground actions, a few with ill-typed or never-applicable steps parsed from text.

A case is one comparison. The exit status is 1 if any case disagrees.
"""

from __future__ import annotations

import argparse
import random
import sys
import time

CASES_PER_INSTANCE = 17  # about: 4 planner comparisons, 3 next-action sets, 10 validations


def instance_for(seed: int, index: int):
    from widthbench.generators import generate

    rng = random.Random(seed * 1_000_003 + index)
    if rng.random() < 0.6:
        return generate("blocksworld", 1, rng.randrange(1 << 31), blocks="3-6")[0]
    return generate("logistics", 1, rng.randrange(1 << 31), cities="1-2", locations="1-3",
                    airplanes="1", packages="1-3")[0]


def check_instance(seed: int, index: int) -> list[tuple[str, bool, str]]:
    """All cases of one random instance: (case kind, agrees, detail)."""
    from widthbench.planners.astar import astar, is_blocksworld
    from widthbench.planners.bfs import shortest_plan
    from widthbench.planners.fd import up_problem
    from widthbench.planners.optimal import optimal_plan
    from widthbench.planners.strips import applicable_actions, successor
    from widthbench.planners.ground_truth import GroundTruth
    from widthbench.subtasks.exact import precondition_violation_plan, random_walk_plan

    inst = instance_for(seed, index)
    task = inst.task()
    where = f"{inst.id} (instance seed {inst.seed}, case seed {seed}/{index})"
    out = []
    fd = optimal_plan(task, planner="fd", timeout=120)
    bfs = shortest_plan(task).plan
    out.append(("bfs-vs-fd", len(bfs) == fd.length, f"{where}: bfs {len(bfs)} vs fd {fd.length}"))
    ast = astar(task, heuristic="lmcut").plan
    out.append(("astar-lmcut-vs-fd", len(ast) == fd.length, f"{where}: astar/lmcut {len(ast)} vs fd {fd.length}"))
    if is_blocksworld(task):
        ast = astar(task, heuristic="blocksworld").plan
        out.append(("astar-blocksworld-vs-fd", len(ast) == fd.length,
                    f"{where}: astar/blocksworld {len(ast)} vs fd {fd.length}"))
    out.append(("generator-vs-fd", inst.optimal_length == fd.length,
                f"{where}: generator {inst.optimal_length} vs fd {fd.length}"))

    rng = random.Random(seed * 7_919 + index)
    # optimal next actions: all distances at once vs per-state exact search, on the initial state
    # and two random-walk states
    enum, search = GroundTruth(task), GroundTruth(task, max_space=0, planner="exact")
    states = [task.init]
    for _ in range(2):
        s = task.init
        for _ in range(rng.randint(1, 6)):
            s = successor(s, rng.choice(applicable_actions(task, s)))
        states.append(s)
    for s in states:
        a = (enum.h_star(s), [str(x) for x in enum.optimal_next_actions(s)])
        b = (search.h_star(s), [str(x) for x in search.optimal_next_actions(s)])
        out.append(("truth-enumerated-vs-search", a == b, f"{where}: state {s}: enumerated {a} vs search {b}"))
    if index % 10 == 0:  # optimal next actions of the initial state against FD, one FD call per action
        via_fd = GroundTruth(task, max_space=0, planner="fd")  # FD's bounded searches inside GroundTruth
        a = (enum.h_star(), [str(x) for x in enum.optimal_next_actions()])
        b = (via_fd.h_star(), [str(x) for x in via_fd.optimal_next_actions()])
        out.append(("truth-enumerated-vs-fd", a == b, f"{where}: enumerated {a} vs via FD {b}"))
        h = fd.length
        best = {str(x) for x in enum.optimal_next_actions(task.init)}
        for act in applicable_actions(task, task.init):
            t = successor(task.init, act)
            h_t = 0 if t == task.init and h == 0 else optimal_plan(task, "fd", 120, state=t).length
            out.append(("next-action-vs-fd", (h_t == h - 1) == (str(act) in best),
                        f"{where}: {act}: fd h*(succ) {h_t}, h* {h}, ours optimal {str(act) in best}"))

    opt = tuple(str(a) for a in bfs)
    plans = [("optimal", opt), ("fd-optimal", fd.plan)]
    for _ in range(2):
        plans.append(("random-walk", random_walk_plan(task, rng, len(opt)).plan))
    for _ in range(2):
        plans.append(("mutation", precondition_violation_plan(task, rng, opt).plan))
    plans.append(("truncated", opt[:rng.randrange(len(opt))] if opt else ()))
    plans.append(("random-actions", _random_actions(task, rng, len(opt) + 2, p_applicable=0.8)))
    plans.append(("random-actions", _random_actions(task, rng, len(opt) + 2, p_applicable=0.95)))
    plans.append(("random-text", _random_text_actions(task, rng, len(opt))))
    problem = up_problem(task)
    for kind, plan in plans:
        ok, detail = compare_validators(task, plan, problem)
        out.append((f"validate:{kind}", ok, f"{where}: plan {list(plan)}: {detail}"))
    return out


def _random_actions(task, rng: random.Random, n: int, p_applicable: float) -> tuple[str, ...]:
    from widthbench.planners.strips import applicable_actions, successor

    s = task.init
    steps = []
    for _ in range(rng.randint(1, max(1, n))):
        app = applicable_actions(task, s)
        a = rng.choice(app) if app and rng.random() < p_applicable else rng.choice(task.actions)
        steps.append(str(a))
        s = successor(s, a)  # the state after an inapplicable step no longer matters
    return tuple(steps)


def _random_text_actions(task, rng: random.Random, n: int) -> tuple[str, ...]:
    """A valid prefix, then one action written as text over arbitrary objects (possibly outside
    the grounded set, e.g. ill-typed for Logistics' type predicates)."""
    from widthbench.planners.strips import applicable_actions, successor

    s = task.init
    steps = []
    for _ in range(rng.randint(0, n)):
        app = applicable_actions(task, s)
        if not app:
            break
        a = rng.choice(app)
        steps.append(str(a))
        s = successor(s, a)
    schema = rng.choice(task.domain.schemas)
    objs = [o for o, _ in task.objects]
    steps.append("(" + " ".join([schema.name] + [rng.choice(objs) for _ in schema.params]) + ")")
    return tuple(steps)


def compare_validators(task, plan, problem) -> tuple[bool, str]:
    """(agree, detail): our ``execute_plan`` against UP's ``sequential_plan_validator``.

    Compared: the verdict kind, the failing step, the unmet preconditions, and the last state
    reached (all fluent atoms; for valid and goal-failing plans the final state, whose unmet goal
    atoms then agree too). UP's "Invalid Action" (static preconditions false, nothing listed) must
    match a step whose static preconditions our engine reports as never satisfiable.
    """
    from widthbench.planners.fd import up_validate
    from widthbench.planners.strips import execute_plan, parse_action, state_atoms

    ours = execute_plan(task, plan)
    up = up_validate(task, plan, problem)
    mine = "valid" if ours.valid else "invalid-precondition" if ours.failed_step else "invalid-goal"
    last = frozenset(state_atoms(task, ours.states[-1]))
    static = {a for a in up.last_state if a in set(task.static_atoms)}
    agree = up.last_state - static == last
    if up.kind == "invalid-action":
        failed = parse_action(task, plan[ours.failed_step - 1]) if ours.failed_step else None
        static_preds = task.domain.static_predicates
        agree &= (mine == "invalid-precondition" and ours.failed_step == up.failed_step
                  and failed is not None and failed.id == -1
                  and any(u.strip("()").split()[0] in static_preds for u in failed.impossible))
    else:
        agree &= mine == up.kind and ours.failed_step == up.failed_step
        if up.unmet is not None:
            agree &= frozenset(ours.unmet_preconditions) == up.unmet
    return agree, (f"ours {mine} step {ours.failed_step} unmet {list(ours.unmet_preconditions or ours.unmet_goals)}; "
                   f"UP {up.kind} step {up.failed_step}: {up.message}")


def run(cases: int, seed: int, workers: int, progress: bool = True, executor_spec=None) -> dict:
    """Run at least ``cases`` cases (whole instances); returns counts per kind and disagreements.
    Instances are checked by the executor (``--workers N`` local processes, or ``executor_spec``)."""
    from widthbench.planners.executor import ExecutorSpec, open_executor

    counts: dict[str, int] = {}
    disagreements: list[str] = []
    errors: list[str] = []
    done = 0
    instances = 0
    t0 = time.monotonic()
    with open_executor(executor_spec or ExecutorSpec(jobs=workers)) as executor:
        while done < cases:
            # rounds of whole instances, until the cases suffice (an instance gives about 17)
            n = max(1, -(-(cases - done) // CASES_PER_INSTANCE))
            batch = [(seed, i) for i in range(instances, instances + n)]
            instances += n
            for results, error in executor.map(_safe_check_job, batch, desc="crosscheck", unit="inst",
                                               quiet=not progress):
                if error:
                    errors.append(error)
                for kind, ok, detail in results:
                    counts[kind] = counts.get(kind, 0) + 1
                    if not ok:
                        disagreements.append(f"{kind}: {detail}")
                done += len(results)
                if not results and not error:
                    done += 1  # an instance with no case still moves the count on
    if progress:
        print(f"  {done} cases, {instances} instances, {len(disagreements)} disagreements, "
              f"{len(errors)} errors, {time.monotonic() - t0:.0f} s", file=sys.stderr, flush=True)
    return {"cases": done, "instances": instances, "counts": counts, "disagreements": disagreements,
            "errors": errors, "seconds": time.monotonic() - t0}


def _safe_check_job(job):
    return _safe_check(*job)


def _safe_check(seed: int, index: int):
    import traceback

    try:
        return check_instance(seed, index), None
    except Exception:  # a crash is reported as an error, never as agreement
        return [], f"instance {index}: {traceback.format_exc(limit=3)}"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--cases", type=int, required=True, help="number of cases to run (at least)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--workers", type=int, default=2, help="local worker processes (the executor's --jobs)")
    p.add_argument("--quiet", action="store_true")
    p.add_argument("--executor", choices=("local", "ray"), default="local")
    p.add_argument("--ray-address", default=None, metavar="ADDR")
    args = p.parse_args(argv)
    if args.cases < 1:
        p.error("--cases must be positive")
    from widthbench.planners.executor import ExecutorSpec

    spec = ExecutorSpec(backend=args.executor, jobs=args.workers, address=args.ray_address)
    r = run(args.cases, args.seed, args.workers, progress=not args.quiet, executor_spec=spec)
    for line in r["disagreements"]:
        print("DISAGREE", line)
    for line in r["errors"]:
        print("ERROR", line)
    kinds = ", ".join(f"{k} {v}" for k, v in sorted(r["counts"].items()))
    print(f"{r['cases']} cases on {r['instances']} random instances (seed {args.seed}, {args.workers} workers) "
          f"in {r['seconds']:.1f} s: {len(r['disagreements'])} disagreements, {len(r['errors'])} errors")
    print(f"cases by kind: {kinds}")
    return 1 if r["disagreements"] or r["errors"] else 0


if __name__ == "__main__":
    sys.exit(main())
