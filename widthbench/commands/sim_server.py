"""`widthbench sim-server`: serve a simulated model over a real OpenAI-compatible HTTP endpoint."""

from __future__ import annotations

import argparse

HELP = "serve a simulated model (sim:...) over an OpenAI-compatible HTTP endpoint on 127.0.0.1"
DESCRIPTION = """Serve a simulated model on 127.0.0.1 at /v1/chat/completions, /v1/models and /tokenize
(plus /health, GET /stats, POST /stats/reset), in one of the response shapes real servers send, with
injected faults (HTTP 500, 429, timeouts, truncated replies) at a given rate. Every reply is labelled
simulated."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from widthbench.llm.sim_server import FAULTS, SHAPES

    parser.add_argument("--model", required=True, help="sim:oracle, sim:noisy:P, sim:random, "
                        "sim:const:TEXT, sim:gibberish or sim:echo (also the served model name)")
    parser.add_argument("--port", type=int, default=8000, help="port on 127.0.0.1 (0: any free "
                        "port; default 8000)")
    parser.add_argument("--latency", type=float, default=0.0, metavar="S",
                        help="seconds each completion takes (default 0)")
    parser.add_argument("--fail-rate", type=float, default=0.0, metavar="F",
                        help="probability that a completion request meets an injected fault")
    parser.add_argument("--faults", default="500,timeout,truncated",
                        help=f"comma-separated fault kinds to draw from ({','.join(FAULTS)}; "
                        "default 500,timeout,truncated)")
    parser.add_argument("--hang", type=float, default=30.0, metavar="S",
                        help="an injected timeout holds the request S seconds, then closes (default 30)")
    parser.add_argument("--shape", choices=SHAPES, default="vllm",
                        help="response shape: vllm (message.reasoning + reasoning_tokens), vllm-old "
                        "(reasoning_content), raw-think (<think> in content), llamacpp")
    parser.add_argument("--seed", type=int, default=0, help="seed of the fault draws (default 0)")


def run(args: argparse.Namespace) -> int:
    import asyncio
    import sys

    from widthbench.core.errors import UserError
    from widthbench.llm.sim_server import SimServerConfig, serve
    from widthbench.simulated import simulator_for

    if not 0.0 <= args.fail_rate <= 1.0:
        raise UserError(f"--fail-rate must be in [0, 1], got {args.fail_rate}")
    if args.latency < 0 or args.hang < 0:
        raise UserError("--latency and --hang must be non-negative")
    faults = tuple(f.strip() for f in args.faults.split(",") if f.strip())
    config = SimServerConfig(model=args.model, port=args.port, latency=args.latency,
                             fail_rate=args.fail_rate, faults=faults, hang=args.hang,
                             shape=args.shape, seed=args.seed, simulator=simulator_for(args.model))

    def started(server) -> None:
        print(f"sim-server: {config.model} (simulated, shape {config.shape}) at {server.base_url}",
              file=sys.stderr, flush=True)
        # The base URL alone on stdout, for scripts that start the server on port 0.
        print(server.base_url, flush=True)

    try:
        asyncio.run(serve(config, on_start=started))
    except ValueError as exc:
        raise UserError(str(exc)) from None
    except OSError as exc:
        raise UserError(f"cannot listen on 127.0.0.1:{args.port}: {exc.strerror or exc}") from None
    return 0
