"""Fixtures for the LLM layer: sim-servers on free loopback ports, a private cache folder."""

from __future__ import annotations

import pytest

from widthbench.llm.sim_server import ServerThread, SimServerConfig


@pytest.fixture
def sim_server():
    """start(**SimServerConfig fields) -> a running ServerThread (stopped after the test);
    `.base_url`, `.stats(keys=False, bodies=False)`, `.reset_stats()`."""
    started: list[ServerThread] = []

    def start(**config) -> ServerThread:
        from widthbench.simulated import simulator_for

        config.setdefault("simulator", simulator_for(config.get("model", "sim:echo")))
        server = ServerThread(SimServerConfig(**config)).start()
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    """A fresh cache directory, also set as WIDTHBENCH_CACHE_DIR so nothing touches ~/.cache."""
    path = tmp_path / "cache"
    monkeypatch.setenv("WIDTHBENCH_CACHE_DIR", str(path))
    return path
