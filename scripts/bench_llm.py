#!/usr/bin/env python
"""Benchmark the LLM layer against the sim-server: throughput at bounded concurrency, and resume.

    python scripts/bench_llm.py [--n 500] [--concurrency 32] [--latency 0.05] [--repeat 3]
                                [--fail-rate 0.3]

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


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=500)
    ap.add_argument("--concurrency", type=int, default=32)
    ap.add_argument("--latency", type=float, default=0.05)
    ap.add_argument("--repeat", type=int, default=3, help="timed runs, each with a fresh cache")
    ap.add_argument("--fail-rate", type=float, default=0.0)
    args = ap.parse_args()

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
