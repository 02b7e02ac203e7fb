"""The executor's local back-end and its flags (planners/executor.py); Ray: tests/test_executor_ray.py."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from widthbench.cli import main
from widthbench.core.errors import UserError
from widthbench.planners.executor import ClusterLost, ExecutorSpec, open_executor
from widthbench.planners.widths import compute_rows, strips_job

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture(scope="module")
def two_workers():
    with open_executor(ExecutorSpec(jobs=2)) as ex:
        yield ex


@settings(max_examples=15, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=60), max_size=12))
def test_map_returns_the_results_in_the_order_of_the_items(two_workers, xs):
    seen = []
    assert two_workers.map(math.factorial, xs, on_result=lambda i, r: seen.append(i), quiet=True) == \
        [math.factorial(x) for x in xs]
    assert sorted(seen) == list(range(len(xs)))  # every call reported once, as it finished


def _problem(blocks: int, seed: int):
    from widthbench.generators import generate

    inst = generate("blocksworld", 1, seed, optimal=False, blocks=str(blocks))[0]
    common = dict(max_k=3, goal_test="after-prune", single_goals=False, complete=False)
    return (strips_job, ((inst.id + f"-{blocks}", inst.domain, inst.problem_pddl), common,
                         dict(reachable_limit=1000, tree_limit=1000)))


def test_a_first_job_that_finishes_last_still_comes_first(two_workers, tmp_path):
    # The finish order is made by the test, not by timing: the first job waits for a file that the
    # test writes only once the other two have been reported.
    gate = tmp_path / "gate"
    jobs = [["sh", "-c", f'until [ -e "{gate}" ]; do sleep 0.01; done; echo first'], ["echo", "second"],
            ["echo", "third"]]
    order = []

    def on_result(i, result):
        order.append(i)
        if sorted(order) == [1, 2]:
            gate.touch()

    assert two_workers.map(subprocess.check_output, jobs, on_result=on_result, quiet=True) == \
        [b"first\n", b"second\n", b"third\n"]
    assert sorted(order[:2]) == [1, 2] and order[2] == 0  # the first job did finish last


def test_width_rows_come_in_job_order_with_workers_as_alone(two_workers):
    jobs = [_problem(7, 3), _problem(3, 1), _problem(3, 2)]
    rows = compute_rows(jobs, two_workers, quiet=True)
    assert [r["instance"] for r in rows] == [j[1][0][0] for j in jobs]
    assert rows == compute_rows(jobs, None, quiet=True)  # this process alone: the same rows


def test_an_error_in_a_worker_is_raised_as_itself(two_workers):
    from widthbench.planners.strips import load_domain

    with pytest.raises(UserError):
        two_workers.map(load_domain, ["blocksworld", "/no/such/domain.pddl"], quiet=True)
    with pytest.raises(ValueError):
        two_workers.map(int, ["1", "x"], quiet=True)


def test_a_worker_that_dies_is_a_lost_cluster_and_the_executor_recovers():
    with open_executor(ExecutorSpec(jobs=2)) as ex:
        with pytest.raises(ClusterLost, match="worker process died"):
            ex.map(os._exit, [3, 3], quiet=True)
        assert ex.map(abs, [-2, 5], quiet=True) == [2, 5]  # a new pool for the next map


def test_one_job_runs_in_this_process():
    with open_executor(ExecutorSpec()) as ex:
        assert not ex.parallel
        assert ex.map(lambda x: x + 1, [1, 2], quiet=True) == [2, 3]  # a lambda: never pickled


@pytest.mark.parametrize("argv, needle", [
    (["--jobs", "0"], "--jobs must be >= 1"),
    (["--ray-address", "auto"], "--ray-address needs --executor ray"),
])
def test_bad_executor_flags_are_one_line(tmp_path, capsys, argv, needle):
    assert main(["widths", "blocksworld", "--count", "1", "--max-k", "1", "--out", str(tmp_path), *argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and needle in err[0]


def _python(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)


def test_ray_is_never_imported_unless_asked_for(tmp_path):
    code = f"""
import sys
from widthbench.cli import main
assert main(["widths", "blocksworld", "--count", "3", "--max-k", "2", "--jobs", "2", "--quiet",
             "--out", {str(tmp_path / 'w')!r}]) == 0
assert main(["score", "--subtask", "action-generation,novelty", "--count", "2", "--model", "sim:oracle",
             "--no-cache", "--jobs", "2", "--quiet", "--out", {str(tmp_path / 's')!r}]) == 0
assert main(["solve", "--domain", "blocksworld", "--count", "2", "--model", "sim:oracle", "--no-cache",
             "--jobs", "2", "--quiet", "--out", {str(tmp_path / 'v')!r}]) == 0
print(json.dumps(sorted(m for m in sys.modules if m == "ray" or m.startswith("ray."))))
""".replace("print(json", "import json; print(json")
    res = _python(code)
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout.strip().splitlines()[-1]) == []


def test_without_ray_installed_executor_ray_is_one_line(tmp_path):
    res = _python("import sys; sys.modules['ray'] = None\nfrom widthbench.cli import main\n"
                  f"sys.exit(main(['widths', 'blocksworld', '--count', '2', '--max-k', '1', '--executor', 'ray', "
                  f"'--quiet', '--out', {str(tmp_path)!r}]))")
    assert res.returncode == 2
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and "pip install -e '.[ray]'" in lines[0]
