#!/usr/bin/env python
"""Benchmark the LLM layer against the sim-server: throughput at bounded concurrency, and resume.

    python scripts/bench_llm.py [--n 500] [--concurrency 32] [--latency 0.05] [--repeat 3]
                                [--fail-rate 0.3]
    python scripts/bench_llm.py --real [--base-url URL] [--model smollm2] [--count 1]
                                [--concurrency 8] [--output-len 32] [--repeat 2]

--real: against a real vLLM server (`scripts/vllm_cpu_server.sh start --model smollm2`), the
prompts of a small paper grid (`score --subtask paper --style both --count N`, built with a
simulated model; system and user message joined into one user message, the form vLLM's benchmark
sends) go once through widthbench's client (cache off) and once through vLLM's own serving
benchmark (`vllm.benchmarks.serve` in the vLLM venv, `--dataset-name custom` fed the same prompts,
`--backend openai-chat`, same concurrency). Both greedy with `ignore_eos` and the same output
length, so both generate the same number of tokens; a warm-up pass fills vLLM's prefix cache first
and the timed passes alternate. Prints requests/s and output tokens/s of both and their ratio
(target >= 0.9).

Starts `widthbench sim-server --latency L` on a free loopback port (its own process), sends N
requests through `openai:sim:echo` with a fresh cache, and prints the wall time against the ideal
N·L/C (target ≤ 1.1×; note that ceil(N/C)·L is the true floor with C fixed slots). Then reruns the
same requests with the same cache and shows the server received 0 requests. With --fail-rate F a
third pass runs against a second server injecting faults at rate F and checks that every request
is answered exactly once and the results equal the clean run's. Each timed run is paired with a
bare asyncio socket client sending the same bodies to the same server: on a shared machine its wall
time shows how much of a miss is the machine's load rather than the layer. The client's CPU per
request is printed for both: the layer runs in one event loop, so N times its CPU per request is a
floor on its wall time whatever the server's latency (the `openai` client's cost; docs/llm.md).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import statistics
import subprocess
import sys
import tempfile
import time

from widthbench.llm import Request, open_model
from widthbench.llm.online import request_body
from widthbench.llm.sim_server import fetch_stats


def _runqueue_wait() -> float | None:
    """Seconds this process has spent runnable but waiting for a CPU (Linux schedstat), or None."""
    try:
        with open("/proc/self/schedstat") as f:
            return int(f.read().split()[1]) / 1e9
    except (OSError, IndexError, ValueError):
        return None


def start_server(*args: str) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen([sys.executable, "-m", "widthbench", "sim-server", "--port", "0", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    return proc, proc.stdout.readline().strip()


async def _bare_client(url: str, bodies: list[bytes], concurrency: int) -> tuple[float, float]:
    """The same requests from a bare asyncio socket client (no parsing, cache or retries): the
    floor this machine allows right now, to tell machine load apart from the layer's overhead."""
    host, port = url.split("//")[1].split("/")[0].split(":")
    sem, idle = asyncio.Semaphore(concurrency), []

    async def one(body: bytes) -> None:
        async with sem:
            reader, writer = idle.pop() if idle else await asyncio.open_connection(host, int(port))
            writer.write(b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: "
                         b"application/json\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body))
            await writer.drain()
            head = await reader.readuntil(b"\r\n\r\n")
            length = int(head.lower().split(b"content-length:")[1].split(b"\r\n")[0])
            await reader.readexactly(length)
            idle.append((reader, writer))

    t0, c0 = time.perf_counter(), time.process_time()
    await asyncio.gather(*(one(b) for b in bodies))
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    for _, writer in idle:
        writer.close()
    return wall, cpu


def grid_prompts(count: int) -> list[str]:
    """The prompts of `score --subtask paper --style both --thinking off --count N`, each as one
    user message text (system + user joined)."""
    import os
    import pathlib

    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, "-m", "widthbench", "score", "--subtask", "paper", "--count",
                        str(count), "--style", "both", "--thinking", "off", "--model", "sim:const:x",
                        "--no-cache", "--quiet", "--out", os.path.join(tmp, "run")],
                       check=True, stdout=subprocess.DEVNULL)
        lines = pathlib.Path(tmp, "run", "items.jsonl").read_text().splitlines()
    prompts = []
    for line in lines:
        rec = json.loads(line)
        chats = rec["prompt"] if rec["prompt"] and isinstance(rec["prompt"][0], list) else [rec["prompt"]]
        prompts += ["\n\n".join(m["content"] for m in chat) for chat in chats]
    return prompts


def _widthbench_pass(url: str, model: str, prompts: list[str], c: int, out_len: int) -> dict:
    m = open_model(f"openai:{model}", base_urls=url, use_cache=False, concurrency=c, preset="none",
                   params={"temperature": 0.0, "ignore_eos": True, "max_tokens": out_len})
    requests = [Request.user(p, purpose="bench") for p in prompts]
    t0 = time.perf_counter()
    replies = m.run(requests, progress=False)
    wall = time.perf_counter() - t0
    bad = [r.error or r.skipped for r in replies if not r.answered]
    assert not bad, bad[:3]
    out = sum(r.completion_tokens for r in replies)
    return {"requests": len(replies), "wall": wall, "output_tokens": out,
            "req_s": len(replies) / wall, "tok_s": out / wall}


def _vllm_pass(url: str, model: str, tokenizer: str, dataset: str, n: int, c: int,
               out_len: int, workdir: str) -> dict:
    import os

    vllm_python = subprocess.run(["bash", "scripts/vllm_cpu_server.sh", "python"], capture_output=True,
                                 text=True, check=True).stdout.strip()
    result = os.path.join(workdir, f"vllm-{time.monotonic_ns()}.json")
    code = ("import sys; from vllm.benchmarks.serve import add_cli_args, main; "
            "from vllm.utils.argparse_utils import FlexibleArgumentParser; "
            "p = FlexibleArgumentParser(); add_cli_args(p); main(p.parse_args(sys.argv[1:]))")
    root = url.rstrip("/").removesuffix("/v1")
    argv = [vllm_python, "-c", code, "--backend", "openai-chat", "--endpoint", "/v1/chat/completions",
            "--base-url", root, "--model", model, "--tokenizer", tokenizer, "--dataset-name", "custom",
            "--dataset-path", dataset, "--skip-chat-template", "--disable-shuffle",
            "--custom-output-len", str(out_len), "--num-prompts", str(n), "--max-concurrency", str(c),
            "--request-rate", "inf", "--ignore-eos", "--temperature", "0", "--save-result",
            "--result-dir", workdir, "--result-filename", os.path.basename(result)]
    done = subprocess.run(argv, capture_output=True, text=True, env={**os.environ, "HF_HUB_OFFLINE": "1"})
    if done.returncode != 0:
        raise SystemExit(f"vllm.benchmarks.serve failed:\n{done.stderr[-2000:]}")
    data = json.loads(open(result).read())
    return {"requests": data["completed"], "wall": data["duration"],
            "output_tokens": data["total_output_tokens"], "req_s": data["request_throughput"],
            "tok_s": data["output_throughput"], "failed": data.get("failed", 0)}


def real(args) -> int:
    import os

    url = args.base_url or os.environ.get("WIDTHBENCH_BASE_URL") or "http://127.0.0.1:8000/v1"
    tokenizer = os.path.expanduser(os.environ.get("WIDTHBENCH_SMOLLM2_DIR",
                                                  "~/.cache/widthbench/models/smollm2"))
    prompts = grid_prompts(args.count)
    n, c, out_len = len(prompts), args.concurrency, args.output_len
    print(f"{n} prompts of the paper grid (count {args.count}, both styles) against {url} "
          f"({args.model}); concurrency {c}, {out_len} output tokens each (greedy, ignore_eos)")
    with tempfile.TemporaryDirectory() as work:
        dataset = os.path.join(work, "prompts.jsonl")
        with open(dataset, "w") as f:
            for p in prompts:
                f.write(json.dumps({"prompt": p, "output_tokens": out_len}) + "\n")
        warm = _widthbench_pass(url, args.model, prompts, c, out_len)
        print(f"warm-up (widthbench, fills the prefix cache): {warm['wall']:.1f} s")
        ours, theirs = [], []
        for _ in range(args.repeat):
            theirs.append(_vllm_pass(url, args.model, tokenizer, dataset, n, c, out_len, work))
            ours.append(_widthbench_pass(url, args.model, prompts, c, out_len))
            print(f"  vllm bench serve: {theirs[-1]['req_s']:.3f} req/s, {theirs[-1]['tok_s']:.1f} "
                  f"output tok/s ({theirs[-1]['output_tokens']} tokens in {theirs[-1]['wall']:.1f} s); "
                  f"widthbench: {ours[-1]['req_s']:.3f} req/s, {ours[-1]['tok_s']:.1f} output tok/s "
                  f"({ours[-1]['output_tokens']} tokens in {ours[-1]['wall']:.1f} s)")
    best_o = max(ours, key=lambda r: r["tok_s"])
    best_t = max(theirs, key=lambda r: r["tok_s"])
    print(f"best of {args.repeat}: widthbench {best_o['req_s']:.3f} req/s, {best_o['tok_s']:.1f} tok/s; "
          f"vllm bench serve {best_t['req_s']:.3f} req/s, {best_t['tok_s']:.1f} tok/s")
    ratio_req, ratio_tok = best_o["req_s"] / best_t["req_s"], best_o["tok_s"] / best_t["tok_s"]
    print(f"ratio widthbench / vLLM's client: requests/s {ratio_req:.3f}, output tokens/s "
          f"{ratio_tok:.3f} (target >= 0.9: {'met' if min(ratio_req, ratio_tok) >= 0.9 else 'missed'})")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--real", action="store_true", help="against a real vLLM server (see above)")
    ap.add_argument("--base-url", default=None, help="--real: the server (default $WIDTHBENCH_BASE_URL)")
    ap.add_argument("--model", default="smollm2", help="--real: served model name (default smollm2)")
    ap.add_argument("--count", type=int, default=1, help="--real: paper grid items per sub-task")
    ap.add_argument("--output-len", type=int, default=32, help="--real: tokens generated per request")
    ap.add_argument("--n", type=int, default=500)
    ap.add_argument("--concurrency", type=int, default=None, help="default 32 (sim), 8 (--real)")
    ap.add_argument("--latency", type=float, default=0.05)
    ap.add_argument("--repeat", type=int, default=None, help="timed runs (default 3 sim, 2 --real)")
    ap.add_argument("--fail-rate", type=float, default=0.0)
    args = ap.parse_args()
    if args.real:
        args.concurrency = args.concurrency or 8
        args.repeat = args.repeat or 2
        return real(args)
    args.concurrency = args.concurrency or 32
    args.repeat = args.repeat or 3

    n, c, lat = args.n, args.concurrency, args.latency
    ideal = n * lat / c
    floor = math.ceil(n / c) * lat
    requests = [Request.user(f"bench item {i}: is (on b{i} a) true?", thinking=i % 2 == 0,
                             purpose="bench", seed=i) for i in range(n)]
    proc, url = start_server("--model", "sim:echo", "--latency", str(lat))
    try:
        walls, bare, cpu, bare_cpu, waits = [], [], [], [], []
        probe = open_model("openai:sim:echo", use_cache=False)
        bodies = [json.dumps(request_body("sim:echo", probe.pending_item(r))).encode()
                  for r in requests]
        for k in range(args.repeat):
            wall, used = asyncio.run(_bare_client(url, bodies, c))
            bare.append(wall)
            bare_cpu.append(used)
            with tempfile.TemporaryDirectory() as cache:
                model = open_model("openai:sim:echo", base_urls=url, cache_dir=cache, concurrency=c)
                t0, c0, q0 = time.perf_counter(), time.process_time(), _runqueue_wait()
                replies = model.run(requests, progress=False)
                walls.append(time.perf_counter() - t0)
                cpu.append(time.process_time() - c0)
                q1 = _runqueue_wait()
                waits.append(None if q0 is None or q1 is None else q1 - q0)
                assert all(r.ok for r in replies), [r.error for r in replies if not r.ok][:3]
                if k == args.repeat - 1:
                    before = fetch_stats(url)["chat_requests"]
                    rerun = open_model("openai:sim:echo", base_urls=url, cache_dir=cache,
                                       concurrency=c)
                    t1 = time.perf_counter()
                    again = rerun.run(requests, progress=False)
                    rerun_wall = time.perf_counter() - t1
                    rerun_sent = fetch_stats(url)["chat_requests"] - before
                    same = [r.text for r in again] == [r.text for r in replies]
                    ledger = model.ledger.to_dict()["total"]
        best, med = min(walls), statistics.median(walls)
        print(f"sim-server latency {lat:g} s, {n} requests, concurrency {c}")
        print(f"ideal N*L/C = {ideal:.3f} s (slot floor ceil(N/C)*L = {floor:.3f} s)")
        print("wall: " + ", ".join(f"{w:.3f}" for w in walls)
              + f" s; best {best:.3f} s = {best / ideal:.2f}x ideal, median {med:.3f} s = "
              f"{med / ideal:.2f}x ideal (target <= 1.1x: {'met' if best <= 1.1 * ideal else 'missed'})")
        print("bare-socket control on the same server: " + ", ".join(f"{w:.3f}" for w in bare)
              + f" s; best {min(bare) / ideal:.2f}x ideal (what this machine allows right now)")
        print(f"client CPU: {1000 * min(cpu) / n:.2f} ms per request (openai client, parsing, cache "
              f"writes), {min(cpu):.2f} s per run = {min(cpu) / ideal:.2f}x ideal on one core; "
              f"bare-socket control {1000 * min(bare_cpu) / n:.2f} ms per request")
        if all(w is not None for w in waits):
            print("client waited for a CPU (runnable, not running; other jobs' load): "
                  + ", ".join(f"{w:.2f}" for w in waits) + " s of the walls above")
            net = min(w - q for w, q in zip(walls, waits))
            print(f"best wall less that wait: {net:.3f} s = {net / ideal:.2f}x ideal (an estimate of "
                  "the layer on a machine of its own, not a measurement)")
        print(f"tokens: prompt {ledger['prompt']}, completion {ledger['completion']}, "
              f"thinking {ledger['thinking']}")
        print(f"rerun with the same cache: {rerun_sent} requests sent, {rerun_wall:.3f} s, "
              f"all {sum(r.cached for r in again)} replies cached, results identical: {same}")
    finally:
        proc.terminate()
        proc.wait(10)

    if args.fail_rate > 0:
        proc, url = start_server("--model", "sim:echo", "--latency", str(lat), "--fail-rate",
                                 str(args.fail_rate), "--faults", "500,timeout,truncated,429",
                                 "--hang", "5")
        try:
            with tempfile.TemporaryDirectory() as cache:
                model = open_model("openai:sim:echo", base_urls=url, cache_dir=cache, concurrency=c,
                                   timeout=2.0, max_retries=12, backoff=0.05, max_backoff=1.0)
                t0 = time.perf_counter()
                faulty = model.run(requests, progress=False)
                wall = time.perf_counter() - t0
                s = fetch_stats(url)
                print(f"fault run, fail rate {args.fail_rate:g}: {sum(s['faults'].values())} faults "
                      f"injected {dict(s['faults'])}; {model.counters['attempts']} attempts; "
                      f"{s['answered']} answers for {s['distinct_answered']} distinct requests "
                      f"(max {s['max_answers_per_request']} per request); errors "
                      f"{sum(not r.ok for r in faulty)}; identical to clean run: "
                      f"{[r.text for r in faulty] == [r.text for r in replies]}; {wall:.2f} s")
        finally:
            proc.terminate()
            proc.wait(10)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
