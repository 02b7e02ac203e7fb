"""`widthbench chat`: one message to a model; prints the reply, the reasoning and a usage line."""

from __future__ import annotations

import argparse

HELP = "send one message to a model and print the reply (and reasoning) with token usage"

# A chat reply, not a sub-task answer: the sub-tasks' defaults (2048 normal, 16384 thinking) let a model
# that rambles fill the server's context (SmolLM2 on CPU: 8,155 tokens, 16 minutes). At SmolLM2's ~15
# tokens/s on 2 busy cores, 256 tokens are a reply cut after ~20 s; 512 took 34 s.
CHAT_MAX_TOKENS = 256


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from widthbench.llm.cli_args import add_model_arguments

    parser.add_argument("message", metavar="MESSAGE", help="the user message")
    parser.add_argument("--thinking", choices=("on", "off"), default="off",
                        help="Qwen3 thinking mode (chat_template_kwargs.enable_thinking; default off)")
    parser.add_argument("--system", default=None, help="an optional system message")
    parser.add_argument("--max-tokens", type=int, default=CHAT_MAX_TOKENS, metavar="N",
                        help=f"longest reply in tokens, thinking included (default {CHAT_MAX_TOKENS}: a chat "
                        "reply; a thinking model may need more, e.g. 4096)")
    parser.add_argument("--temperature", type=float, default=None)
    parser.add_argument("--top-p", type=float, default=None)
    parser.add_argument("--top-k", type=int, default=None)
    parser.add_argument("--seed", type=int, default=None)
    add_model_arguments(parser, concurrency=1, retries=3)


def run(args: argparse.Namespace) -> int:
    import sys

    from widthbench.core.errors import UserError
    from widthbench.llm import Request
    from widthbench.llm.cli_args import open_model_from_args
    from widthbench.llm.types import thinking_modes

    if args.max_tokens < 1:
        raise UserError(f"--max-tokens must be at least 1, got {args.max_tokens}")
    params = {k: v for k, v in (("temperature", args.temperature), ("top_p", args.top_p),
                                 ("top_k", args.top_k)) if v is not None}
    messages = [{"role": "system", "content": args.system}] if args.system else []
    messages.append({"role": "user", "content": args.message})
    from widthbench.simulated import simulator_for

    model = open_model_from_args(args, simulator=simulator_for(args.model))
    request = Request(messages=messages, thinking=thinking_modes(args.thinking)[0], purpose="chat",
                      params=params, seed=args.seed, max_tokens=args.max_tokens)
    reply = model.run([request], progress=False)[0]
    model.close()
    if reply.error is not None:
        print(f"widthbench chat: error: {reply.error}", file=sys.stderr)
        return 1
    if reply.skipped is not None:
        print(f"widthbench chat: not sent: {reply.skipped}", file=sys.stderr)
        return 1
    if request.thinking and reply.reasoning:
        print("[reasoning]")
        print(reply.reasoning)
        print("[answer]")
    elif request.thinking and not reply.thinking_tokens:
        print("[thinking requested, none produced]")
    print(reply.text)
    thinking = "?" if reply.thinking_tokens is None else reply.thinking_tokens
    print(
        f"[usage] model={reply.model} prompt={reply.prompt_tokens} completion={reply.completion_tokens} "
        f"thinking={thinking} max_tokens={reply.max_tokens} finish={reply.finish_reason} "
        f"latency={reply.latency:.2f}s "
        f"cached={'yes' if reply.cached else 'no'}" + (" simulated" if reply.simulated else "")
    )
    if reply.finish_reason == "length":
        print(f"[cut at max_tokens={reply.max_tokens}; --max-tokens N allows a longer reply]")
    return 0
