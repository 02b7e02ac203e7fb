"""Fast Downward without unified-planning: translate a task once, then search from many states.

    sas = SasTask.translate(task, state)        # FD's translator, once (~0.1-0.5 s)
    sas.optimal_plan(t, timeout)                # FD's search binary from any state t reachable from ``state``

One optimal-planning call through unified-planning (``planners.fd``) re-reads the PDDL, runs FD's
driver, its translator and its search: 0.3-1 s of fixed cost per call on small tasks, paid again for
every successor whose h* the ground truth needs. The translator's output (a finite-domain "SAS"
task) is valid for every state reachable from the state it was translated from: its reachability
analysis keeps every fact and operator such a state can use, and its invariants (the mutex groups
that become variables) hold in all of them. So the task is translated once per queried state and
only the ``downward`` search binary runs per successor, with the initial-state section of the SAS
text rewritten (a few milliseconds to start, then the search itself).

The search configuration is a parameter (``SEARCHES``); ``astar(lmcut())`` is the default, chosen by
measurement on ACPBench's sample problems (scripts/bench_truth.py --fd-configs, docs/ground-truth.md).
Every plan is re-validated on our engine by the callers (``planners.optimal``, ``planners.ground_truth``).
"""

from __future__ import annotations

import os
import re
import resource
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from widthbench.planners.planning_errors import PlannerFailure, PlanningError, PlanningTimeout, Unsolvable
from widthbench.planners.problem_writer import task_problem_text
from widthbench.planners.strips import Task

SEARCHES = {  # admissible A* configurations of FD's search binary, by name
    "lmcut": "astar(lmcut())",
    "blind": "astar(blind())",
    "hmax": "astar(hmax())",
    "ipdb": "astar(ipdb())",
    "ms": "astar(merge_and_shrink(shrink_strategy=shrink_bisimulation(greedy=false),"
          "merge_strategy=merge_sccs(order_of_sccs=topological,merge_selector=score_based_filtering("
          "scoring_functions=[goal_relevance(),dfp(),total_order()])),label_reduction=exact("
          "before_shrinking=true,before_merging=false),max_states=50000,threshold_before_merge=1))",
}
DEFAULT_SEARCH = "lmcut"
MEMORY_BYTES = 4 << 30  # address-space limit of each FD process
_UNSOLVABLE = (10, 11)  # FD exit codes: translator / search proved the task unsolvable
_OUT_OF_MEMORY = (22,)
_OUT_OF_TIME = (23,)
_ATOM = re.compile(r"^(Atom|NegatedAtom) ([^(]+)\((.*)\)$")


@lru_cache(maxsize=1)
def _bin_dir() -> Path:
    import importlib.util

    # found without importing the package, which imports all of unified-planning (~1 s)
    spec = importlib.util.find_spec("up_fast_downward")
    if spec is None or not spec.submodule_search_locations:
        raise PlannerFailure("up-fast-downward is not installed (pip install up-fast-downward==1.0.0)")
    return Path(list(spec.submodule_search_locations)[0]) / "downward" / "builds" / "release" / "bin"


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_BYTES, MEMORY_BYTES))


@dataclass(frozen=True, slots=True)
class SasTask:
    """FD's translation of ``task`` from one state; ``values[v]`` lists, per value of SAS variable
    v, (atom index or -1, positive): the fact the value stands for (-1: "none of those")."""

    task: Task
    head: str  # the SAS text up to and including "begin_state"
    tail: str  # from "end_state" on
    values: tuple[tuple[tuple[int, bool], ...], ...]
    unsolvable: bool  # the translator proved that no plan exists from the translated state

    @classmethod
    def translate(cls, task: Task, state: int, timeout: float = 300.0) -> "SasTask":
        """Run FD's translator on the task with ``state`` as its initial state."""
        with tempfile.TemporaryDirectory(prefix="wb-fd-") as tmp:
            d, p, out = (os.path.join(tmp, n) for n in ("domain.pddl", "problem.pddl", "output.sas"))
            Path(d).write_text(task.domain.text)
            Path(p).write_text(task_problem_text(task, state))
            env = dict(os.environ, PYTHONPATH=str(_bin_dir()) + os.pathsep + os.environ.get("PYTHONPATH", ""))
            try:
                r = subprocess.run([sys.executable, "-m", "fast_downward.translate", d, p, "--sas-file", out],
                                   cwd=tmp, env=env, capture_output=True, text=True, timeout=timeout,
                                   preexec_fn=_limit_memory)
            except subprocess.TimeoutExpired:
                raise PlanningTimeout(f"Fast Downward's translator timed out after {timeout:g} s on "
                                      f"{task.problem_name}") from None
            if r.returncode not in (0, *_UNSOLVABLE):
                raise PlannerFailure(f"Fast Downward's translator failed on {task.problem_name} "
                                     f"(exit {r.returncode}): {(r.stderr or r.stdout)[-400:]}")
            text = Path(out).read_text()
        return cls._parse(task, text, unsolvable=r.returncode in _UNSOLVABLE)

    @classmethod
    def _parse(cls, task: Task, text: str, unsolvable: bool) -> "SasTask":
        index = {a: i for i, a in enumerate(task.atoms)}
        lines = text.split("\n")
        values = []
        i = 0
        while i < len(lines) and lines[i] != "begin_state":
            if lines[i] == "begin_variable":
                n = int(lines[i + 3])
                vals = []
                for line in lines[i + 4:i + 4 + n]:
                    m = _ATOM.match(line)
                    if m is None:  # "<none of those>"
                        vals.append((-1, True))
                        continue
                    args = [x.strip() for x in m.group(3).split(",") if x.strip()]
                    atom = "(" + " ".join([m.group(2)] + args) + ")"
                    if atom not in index:
                        raise PlannerFailure(f"Fast Downward's translation of {task.problem_name} names a "
                                             f"fact the engine does not know: {atom}")
                    vals.append((index[atom], m.group(1) == "Atom"))
                values.append(tuple(vals))
                i += 4 + n
            else:
                i += 1
        if i == len(lines):
            raise PlannerFailure(f"no initial state in Fast Downward's translation of {task.problem_name}")
        j = lines.index("end_state", i)
        if j - i - 1 != len(values):
            raise PlannerFailure(f"Fast Downward's translation of {task.problem_name}: {len(values)} "
                                 f"variables, {j - i - 1} initial values")
        return cls(task, "\n".join(lines[:i + 1]) + "\n", "\n".join(lines[j:]), tuple(values), unsolvable)

    def state_section(self, state: int) -> str:
        """The initial values of the SAS variables in ``state`` (one per line)."""
        out = []
        for v, vals in enumerate(self.values):
            true_atoms = [k for k, (atom, pos) in enumerate(vals) if pos and atom >= 0 and state >> atom & 1]
            if len(true_atoms) > 1:
                raise PlannerFailure(f"state breaks Fast Downward's mutex group {v} of {self.task.problem_name}")
            if not true_atoms:  # a negated atom whose atom is false, else "none of those"
                true_atoms = [k for k, (atom, pos) in enumerate(vals) if not pos and not state >> atom & 1]
                true_atoms += [k for k, (atom, _) in enumerate(vals) if atom == -1]
            if not true_atoms:
                raise PlannerFailure(f"state gives Fast Downward's variable {v} of {self.task.problem_name} "
                                     "no value")
            out.append(str(true_atoms[0]))
        return "\n".join(out) + "\n"

    def first_step_task(self, state: int, candidates) -> str:
        """The SAS text of the task from ``state`` in which the first step must be one of
        ``candidates`` (operator names, "move a b"): a new variable "moved" (0 at first) is a
        prevail condition (= 1) of every operator, and each candidate gets a copy, named
        "wbfirst NAME", that also sets it from 0 to 1. A plan of it is a candidate followed by a
        plan of the original task, so its optimal length is 1 + min over the candidates of h*."""
        head = self.head.split("\n")
        k = next(i for i, line in enumerate(head) if line == "end_metric") + 1
        n = int(head[k])
        last = max(i for i, line in enumerate(head) if line == "end_variable")
        head = (head[:k] + [str(n + 1)] + head[k + 1:last + 1]
                + ["begin_variable", "wb-moved", "-1", "2", "Atom wb-moved-no()", "Atom wb-moved-yes()",
                   "end_variable"] + head[last + 1:])
        tail = self.tail.split("\n")
        g = tail.index("end_goal")
        wanted = set(candidates)
        ops, copies = [], []
        i = g + 2
        while i < len(tail) and tail[i] == "begin_operator":
            j = tail.index("end_operator", i)
            name, prevail = tail[i + 1], int(tail[i + 2])
            effects_at = i + 3 + prevail
            body = tail[i + 3:effects_at]
            effects = tail[effects_at + 1:j - 1]
            cost = tail[j - 1]
            ops.append(["begin_operator", name, str(prevail + 1)] + body + [f"{n} 1", str(len(effects))]
                       + effects + [cost, "end_operator"])
            if name in wanted:
                copies.append(["begin_operator", "wbfirst " + name, str(prevail)] + body
                              + [str(len(effects) + 1)] + effects + [f"0 {n} 0 1", cost, "end_operator"])
            i = j + 1
        out = tail[:g + 1] + [str(len(ops) + len(copies))] + [x for op in ops + copies for x in op] + tail[i:]
        return "\n".join(head) + self.state_section(state) + "0\n" + "\n".join(out)

    def optimal_first_actions(self, state: int, candidates, h_star: int, timeout: float = 300.0,
                              search: str = DEFAULT_SEARCH) -> list[tuple[str, tuple[str, ...]]]:
        """The candidates (PDDL action texts applicable in ``state``) that start a plan of length
        ``h_star`` = h*(state), each with such a plan: optimal first-step tasks
        (``first_step_task``) solved one after another, each without the first steps found so far,
        until the best remaining plan is longer than ``h_star`` or none exists. Calls FD's search
        once per optimal first step, plus once. (Candidates with the same successor must be given
        together by the caller: FD sees each as its own first step.)"""
        left = {c.strip("()").lower(): c for c in candidates}
        out = []
        while left:
            try:
                plan = self._run(self.first_step_task(state, left), timeout, search)
            except Unsolvable:
                break
            if len(plan) > h_star:
                break
            if len(plan) < h_star or not plan[0].startswith("(wbfirst "):
                raise PlannerFailure(f"Fast Downward's first-step task of {self.task.problem_name} gave a plan "
                                     f"of length {len(plan)} for h* = {h_star}")
            name = plan[0][len("(wbfirst "):-1]
            out.append((left.pop(name), ("(" + name + ")",) + plan[1:]))
        return out

    def optimal_plan(self, state: int, timeout: float = 300.0, search: str = DEFAULT_SEARCH) -> tuple[str, ...]:
        """An optimal plan (PDDL action texts) from ``state`` by FD's search binary. Raises
        ``Unsolvable``, ``PlanningTimeout``, ``PlanningError`` (out of memory) or ``PlannerFailure``."""
        return self._run(self.head + self.state_section(state) + self.tail, timeout, search)

    def _run(self, sas: str, timeout: float, search: str) -> tuple[str, ...]:
        name = self.task.problem_name
        if self.unsolvable:
            raise Unsolvable(f"{name}: no plan exists (proved by Fast Downward's translator)")
        with tempfile.TemporaryDirectory(prefix="wb-fd-") as tmp:
            plan_file = os.path.join(tmp, "sas_plan")
            try:
                r = subprocess.run([str(_bin_dir() / "downward"), "--search", SEARCHES[search],
                                    "--internal-plan-file", plan_file], input=sas, cwd=tmp,
                                   capture_output=True, text=True, timeout=timeout, preexec_fn=_limit_memory)
            except subprocess.TimeoutExpired:
                raise PlanningTimeout(f"Fast Downward timed out after {timeout:g} s on {name}") from None
            if r.returncode in _UNSOLVABLE:
                raise Unsolvable(f"{name}: no plan exists (proved by Fast Downward)")
            if r.returncode in _OUT_OF_MEMORY or (r.returncode != 0 and "memory" in r.stderr.lower()):
                raise PlanningError(f"Fast Downward ran out of memory on {name}")
            if r.returncode in _OUT_OF_TIME:
                raise PlanningTimeout(f"Fast Downward ran out of time on {name}")
            if r.returncode != 0 or not os.path.exists(plan_file):
                raise PlannerFailure(f"Fast Downward's search failed on {name} (exit {r.returncode}): "
                                     f"{(r.stderr or r.stdout)[-400:]}")
            lines = Path(plan_file).read_text().splitlines()
        return tuple(line.strip().lower() for line in lines if line.strip() and not line.startswith(";"))
