"""The `vllm-batch:NAME` backend: vLLM's offline batch runner, in its own environment.

All pending requests of a run are written as an OpenAI batch file (one JSON line per request:
custom_id = cache key, method, url, body — the same body the online backend sends), the runner is
started as a subprocess, and its output lines are read back into the same cache as online replies,
so a grid of thousands of prompts runs at offline throughput without importing vllm here.

The command is a template with {input}, {output}, {model} (NAME, the served model name every
request carries) and {model_dir} (the weights: the `model_dir` argument, else
$WIDTHBENCH_VLLM_MODEL_DIR, else NAME itself): the `command` argument, else
$WIDTHBENCH_VLLM_BATCH_CMD, else `bash scripts/vllm_cpu_server.sh batch -i {input} -o {output}
--model {model_dir} --served-model-name {model}`, run from the repository root. vLLM's run_batch
answers 404 (body null) to a request whose `model` is not a served name, so the served name must be
NAME. Requests go in chunks of `batch_size`; each chunk's folder is named by its content, so after a
crash the output lines already written are read back instead of recomputed. A request with no output
line, or any error line (an `error`, a status other than 200, no body), comes back with `error` set:
the runner exits 0 even when every line failed, so its exit code proves nothing.
Thinking tokens come from usage when the runner reports them (`--reasoning-parser qwen3` on recent
vLLM); otherwise they are left uncounted (None), never guessed.
"""

from __future__ import annotations

import hashlib
import json
import os
import shlex
import subprocess
import time
from pathlib import Path

from widthbench.llm.backend import Pending
from widthbench.llm.online import request_body
from widthbench.llm.completions import BadResponse, parse_completion
from widthbench.llm.types import Reply

DEFAULT_COMMAND = ("bash scripts/vllm_cpu_server.sh batch -i {input} -o {output} --model {model_dir} "
                   "--served-model-name {model}")
REPO_ROOT = Path(__file__).resolve().parents[1]


def batch_line(model: str, item: Pending) -> dict:
    return {"custom_id": item.key, "method": "POST", "url": "/v1/chat/completions",
            "body": request_body(model, item)}


class VLLMBatchBackend:
    simulated = False

    def __init__(self, name: str, *, command: str | None = None, batch_size: int = 2000,
                 work_dir: str | os.PathLike[str] | None = None,
                 model_dir: str | os.PathLike[str] | None = None, reuse_output: bool = True):
        self.name = name
        # reuse_output=False (--no-cache): a batch's leftover output from an earlier process is not
        # read back; the batch runs again from the start
        self.reuse_output = reuse_output
        self.simulated = name.startswith("sim:")
        self.command = command or os.environ.get("WIDTHBENCH_VLLM_BATCH_CMD") or DEFAULT_COMMAND
        self.model_dir = str(model_dir or os.environ.get("WIDTHBENCH_VLLM_MODEL_DIR") or name)
        self.batch_size = max(1, batch_size)
        if work_dir is None:
            from widthbench.llm.cache import default_cache_dir

            work_dir = default_cache_dir()
        self.work_dir = Path(work_dir) / "batches"

    def argv(self, input_path: Path, output_path: Path) -> list[str]:
        values = {"input": str(input_path), "output": str(output_path), "model": self.name,
                  "model_dir": self.model_dir}
        return [part.format(**values) for part in shlex.split(self.command)]

    def run_batch(self, items: list[Pending], on_reply) -> None:
        for i in range(0, len(items), self.batch_size):
            self._run_chunk(items[i : i + self.batch_size], on_reply)

    def _run_chunk(self, items: list[Pending], on_reply) -> None:
        lines = [json.dumps(batch_line(self.name, item), sort_keys=True) for item in items]
        text = "\n".join(lines) + "\n"
        folder = self.work_dir / hashlib.sha256(text.encode()).hexdigest()[:16]
        folder.mkdir(parents=True, exist_ok=True)
        inp, out, log = folder / "in.jsonl", folder / "out.jsonl", folder / "runner.log"
        by_key = {item.key: item for item in items}
        start = time.perf_counter()
        if out.exists() and not self.reuse_output:
            out.unlink()
        done = self._read(out, by_key, on_reply, 0.0, final=False) if out.exists() else set()
        problem = None
        if len(done) < len(items):
            # after a crash, only what the leftover output lacks goes to the runner again
            inp.write_text("".join(line + "\n" for item, line in zip(items, lines, strict=True)
                                   if item.key not in done))
            with open(log, "w") as log_file:
                try:
                    proc = subprocess.run(self.argv(inp, out), cwd=REPO_ROOT, stdout=log_file,
                                          stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
                    if proc.returncode != 0:
                        problem = f"batch runner exited with {proc.returncode}: {_tail(log)}"
                except OSError as exc:
                    problem = f"batch runner could not start ({self.command!r}): {exc}"
            share = (time.perf_counter() - start) / max(1, len(items) - len(done))
            done |= self._read(out, {k: v for k, v in by_key.items() if k not in done},
                               on_reply, share, final=True) if out.exists() else set()
        for key, item in by_key.items():
            if key not in done:
                on_reply(item, self._error(problem or "no result line in the batch output"))

    def _read(self, path: Path, by_key: dict[str, Pending], on_reply, latency: float,
              final: bool) -> set[str]:
        """Feed each usable output line to on_reply; return the keys answered. Error lines are
        reported only on the final read (a leftover file from a crash may hold stale errors)."""
        done: set[str] = set()
        with open(path) as f:
            for raw in f:
                try:
                    line = json.loads(raw)
                except json.JSONDecodeError:
                    continue  # a line cut by a crash
                if not isinstance(line, dict):
                    continue
                item = by_key.get(line.get("custom_id"))
                if item is None or item.key in done:
                    continue
                reply = self._reply(line, latency)
                if reply.error is not None and not final:
                    continue
                on_reply(item, reply)
                done.add(item.key)
        return done

    def _reply(self, line: dict, latency: float) -> Reply:
        response = line.get("response")
        response = response if isinstance(response, dict) else {}
        status, body = response.get("status_code", 200), response.get("body")
        if line.get("error") or status != 200 or not isinstance(body, dict):
            detail = line.get("error") or body
            detail = "no response body" if detail is None else json.dumps(detail)[:300]
            hint = ""
            if status == 404:
                hint = (f" (the runner does not serve {self.name!r}: pass --served-model-name "
                        "{model} in the batch command)")
            return self._error(f"batch runner error (status {status}): {detail}{hint}")
        try:
            parsed = parse_completion(body)
        except BadResponse as exc:
            return self._error(str(exc))
        return Reply(
            text=parsed.text, reasoning=parsed.reasoning, prompt_tokens=parsed.prompt_tokens,
            completion_tokens=parsed.completion_tokens, thinking_tokens=parsed.thinking_tokens,
            finish_reason=parsed.finish_reason, latency=latency, model=self.name,
            simulated=self.simulated or parsed.simulated,
            thinking_tokens_from=("usage" if parsed.thinking_tokens is not None and parsed.reasoning
                                  else None), tool_calls=parsed.tool_calls,
        )

    def _error(self, message: str) -> Reply:
        return Reply(text="", error=message, model=self.name, simulated=self.simulated)


def _tail(path: Path, lines: int = 5) -> str:
    try:
        return " | ".join(path.read_text(errors="replace").strip().splitlines()[-lines:])[-600:]
    except OSError:
        return ""
