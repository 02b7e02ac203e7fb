"""The Ray back-end of the executor end to end: the same outputs as the local executor, a Ray worker
killed mid-run (its task is redone), a lost cluster (one line, exit 3, the rerun resumes).

One local Ray instance with 2 CPUs is started for the module (several seconds); its own
authentication token is made here, so that other Ray users of the machine do not interfere.
"""

from __future__ import annotations

import json
import os
import secrets
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from widthbench.cli import main
from widthbench.subtasks.registry import Registry

ROOT = Path(__file__).resolve().parent.parent
# Fields that measure how a run was made, not what it found: they differ between any two runs.
# what differs between two runs that compute the same: times, how they were run, and the run ids
# each run folder draws (a summary's run_id, a call's made_by)
MEASURED = {"wall_time", "latency", "run_wall_time", "wall_time_items", "timing", "timing_history",
            "wall_time_s", "jobs", "executor", "run_id", "made_by"}
SLOW_WIDTHS = ["blocksworld", "--count", "8", "--blocks", "7", "--seed", "3", "--max-k", "3"]  # ~1 s each


def _drop_measured(x):
    if isinstance(x, dict):
        return {k: _drop_measured(v) for k, v in x.items() if k not in MEASURED}
    if isinstance(x, list):
        return [_drop_measured(v) for v in x]
    return x


def _lines(path: Path) -> list[str]:
    """A JSON-lines file as sorted, normalised lines (records land in the order they finish)."""
    return sorted(json.dumps(_drop_measured(json.loads(x)), sort_keys=True)
                  for x in path.read_text(encoding="utf-8").splitlines())


def _summary(run: Path) -> dict:
    return _drop_measured(json.loads((run / "summary.json").read_text(encoding="utf-8")))


@pytest.fixture(scope="module")
def ray_cluster(tmp_path_factory):
    import logging

    token = tmp_path_factory.mktemp("ray") / "auth_token"
    token.write_text(secrets.token_hex(32))
    mp = pytest.MonkeyPatch()
    mp.setenv("RAY_AUTH_MODE", "token")
    mp.setenv("RAY_AUTH_TOKEN_PATH", str(token))
    import ray  # after the token is set: Ray reads it once

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level=logging.WARNING)
    try:
        yield ray.get_runtime_context().gcs_address
    finally:
        ray.shutdown()
        mp.undo()


@pytest.fixture(scope="module")
def slow_reference(tmp_path_factory):
    out = tmp_path_factory.mktemp("ref") / "w"
    assert main(["widths", *SLOW_WIDTHS, "--out", str(out), "--quiet"]) == 0
    return out


def test_widths_on_20_instances_are_the_same_on_ray_and_local(ray_cluster, tmp_path):
    runs = {}
    for name, extra in (("one", ["--jobs", "1"]), ("two", ["--jobs", "2"]), ("ray", ["--executor", "ray"])):
        runs[name] = tmp_path / name
        assert main(["widths", "blocksworld", "--count", "20", "--blocks", "4-7", "--seed", "5", "--max-k", "3",
                     "--out", str(runs[name]), "--quiet", *extra]) == 0
    for name in ("two", "ray"):
        for f in ("widths.csv", "widths.jsonl"):
            assert (runs[name] / f).read_bytes() == (runs["one"] / f).read_bytes(), (name, f)
        assert _summary(runs[name]) == _summary(runs["one"])
    assert json.loads((runs["ray"] / "summary.json").read_text())["executor"].startswith("ray")
    assert len((runs["one"] / "widths.csv").read_text().splitlines()) == 21


def test_score_all_on_10_items_is_the_same_on_ray_and_local(ray_cluster, tmp_path):
    runs = {}
    for name, extra in (("one", []), ("two", ["--jobs", "2"]), ("ray", ["--executor", "ray"])):
        runs[name] = tmp_path / name
        assert main(["score", "--subtask", "all", "--count", "10", "--model", "sim:noisy:0.3", "--no-cache",
                     "--out", str(runs[name]), "--quiet", *extra]) == 0
    items = _lines(runs["one"] / "items.jsonl")
    assert {json.loads(x)["subtask"] for x in items} == set(Registry.default().names)
    for name in ("two", "ray"):
        assert _lines(runs[name] / "items.jsonl") == items, name
        assert _summary(runs[name]) == _summary(runs["one"]), name


def test_solve_is_the_same_on_ray_and_local(ray_cluster, tmp_path):
    runs = {}
    for name, extra in (("one", []), ("ray", ["--executor", "ray"])):
        runs[name] = tmp_path / name
        assert main(["solve", "--method", "tot-dfs", "--domain", "blocksworld", "--count", "6",
                     "--model", "sim:noisy:0.2", "--no-cache", "--out", str(runs[name]), "--quiet", *extra]) == 0
    assert _lines(runs["ray"] / "items.jsonl") == _lines(runs["one"] / "items.jsonl")
    assert _summary(runs["ray"]) == _summary(runs["one"])
    assert sorted(p.name for p in (runs["ray"] / "trees").iterdir()) == \
        sorted(p.name for p in (runs["one"] / "trees").iterdir())


def _widthbench(*argv: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "widthbench", *argv], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def _ray_workers_running(task: str) -> list[int]:
    """PIDs of Ray worker processes running ``task`` (Ray titles them ``ray::<task name>``)."""
    out = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                cmd = (d / "cmdline").read_bytes().split(b"\0")[0].decode(errors="replace")
            except OSError:
                continue
            if cmd.startswith(f"ray::{task}"):
                out.append(int(d.name))
    return out


def test_a_killed_ray_worker_is_redone_and_the_results_are_the_same(ray_cluster, slow_reference, tmp_path):
    proc = _widthbench("widths", *SLOW_WIDTHS, "--out", str(tmp_path / "w"), "--quiet",
                       "--executor", "ray", "--ray-address", ray_cluster)
    killed = None
    deadline = time.monotonic() + 600  # generous: a loaded machine starts Ray slowly
    while killed is None and proc.poll() is None and time.monotonic() < deadline:
        pids = _ray_workers_running("width_job")
        if pids:
            time.sleep(0.3)  # into its IW run
            try:
                os.kill(pids[0], signal.SIGKILL)
                killed = pids[0]
            except ProcessLookupError:
                continue
        time.sleep(0.05)
    _, err = proc.communicate(timeout=300)
    assert killed is not None, "no Ray worker was seen running a widths job"
    assert proc.returncode == 0, err
    for f in ("widths.csv", "widths.jsonl"):
        assert (tmp_path / "w" / f).read_bytes() == (slow_reference / f).read_bytes()


HOST = """
import logging, sys, time
import ray
ray.init(num_cpus=1, include_dashboard=False, logging_level=logging.WARNING)
print(ray.get_runtime_context().gcs_address, flush=True)
time.sleep(600)
"""


def test_a_lost_cluster_is_one_line_exit_3_and_the_rerun_resumes(ray_cluster, slow_reference, tmp_path):
    # a second cluster, in its own process group: killing the group is the head machine going away
    host = subprocess.Popen([sys.executable, "-c", HOST], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            text=True, start_new_session=True)
    try:
        address = host.stdout.readline().strip()
        assert address, "the second Ray cluster did not start"
        out = tmp_path / "w"
        proc = _widthbench("widths", *SLOW_WIDTHS, "--out", str(out), "--quiet", "--executor", "ray",
                           "--ray-address", address)
        partial = out / "widths.jobs.jsonl"
        deadline = time.monotonic() + 600  # generous: a loaded machine starts Ray slowly
        while proc.poll() is None and time.monotonic() < deadline:
            if partial.is_file() and partial.read_text().count("\n") >= 1:
                break
            time.sleep(0.1)
        os.killpg(host.pid, signal.SIGKILL)
        _, err = proc.communicate(timeout=180)
    finally:
        if host.poll() is None:
            os.killpg(host.pid, signal.SIGKILL)
        host.wait()
    assert proc.returncode == 3, err
    ours = [line for line in err.splitlines() if line.startswith("widthbench widths:")]
    assert len(ours) == 1 and "Ray cluster" in ours[0] and "rerun" in ours[0], err
    done_before = partial.read_text().count("\n")
    assert 1 <= done_before < 8
    rerun = _widthbench("widths", *SLOW_WIDTHS, "--out", str(out))
    _, err2 = rerun.communicate(timeout=300)
    assert rerun.returncode == 0, err2
    assert f"{done_before} of 8 jobs done by an earlier run" in err2
    assert partial.read_text().count("\n") == 8  # every job's rows, kept: a rerun recomputes nothing
    for f in ("widths.csv", "widths.jsonl"):
        assert (out / f).read_bytes() == (slow_reference / f).read_bytes()


@pytest.fixture
def two_endpoints():
    """Two sim-servers: two vLLM endpoints (several GPUs' servers), or with one of them alone, one
    endpoint that spreads requests over its engines itself (vLLM's --data-parallel-size)."""
    from widthbench.llm.sim_server import ServerThread, SimServerConfig
    from widthbench.simulated import simulator_for

    servers = [ServerThread(SimServerConfig(model="sim:noisy:0.2", simulator=simulator_for("sim:noisy:0.2"))).start()
               for _ in range(2)]
    yield servers
    for s in servers:
        s.stop()


@pytest.mark.parametrize("executor", [["--jobs", "2"], ["--executor", "ray"]], ids=["local", "ray"])
def test_solve_workers_send_their_requests_to_every_endpoint(ray_cluster, two_endpoints, tmp_path, executor):
    base = ["solve", "--method", "tot-bfs", "--domain", "blocksworld", "--count", "6", "--model",
            "openai:sim:noisy:0.2", "--no-cache", "--quiet"]
    one, both = two_endpoints
    assert main([*base, "--base-url", one.base_url, "--out", str(tmp_path / "one")]) == 0
    sent_to_one = one.stats()["chat_requests"]
    one.reset_stats()
    assert main([*base, "--base-url", one.base_url, "--base-url", both.base_url, *executor,
                 "--out", str(tmp_path / "two")]) == 0
    split = [s.stats()["chat_requests"] for s in two_endpoints]
    assert min(split) > 0 and sum(split) == sent_to_one  # every request once, over both endpoints
    assert _lines(tmp_path / "two" / "items.jsonl") == _lines(tmp_path / "one" / "items.jsonl")
