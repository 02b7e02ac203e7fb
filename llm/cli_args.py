"""The model options every command shares: `add_model_arguments(parser)` then
`open_model_from_args(args)`, so --model, --base-url, --concurrency, ... mean the same everywhere."""

from __future__ import annotations

import argparse
from widthbench.llm.backends import BackendRegistry
from widthbench.llm.model import open_model
from widthbench.llm.types import SAMPLING_OPTIONS, merge_sampling, parse_per_mode
from widthbench.core.runfiles import check_output_dir


def add_model_arguments(parser: argparse.ArgumentParser, *, required: bool = True,
                        concurrency: int = 8, retries: int = 8) -> None:
    g = parser.add_argument_group("model")
    g.add_argument("--model", required=required, metavar="SPEC",
                   help=f"{BackendRegistry.default().usage()}; see docs/llm.md")
    g.add_argument("--base-url", action="append", default=None, metavar="URL",
                   help="OpenAI-compatible server, e.g. http://127.0.0.1:8000/v1; repeat or "
                   "comma-separate to balance over several (default $WIDTHBENCH_BASE_URL)")
    g.add_argument("--concurrency", type=int, default=concurrency,
                   help=f"requests in flight at most (default {concurrency})")
    g.add_argument("--base-model", default=None,
                   help="the weights behind a served name (part of the cache key; default NAME)")
    g.add_argument("--preset", default="qwen3", choices=("qwen3", "none"),
                   help="sampling preset per mode (default qwen3)")
    g.add_argument("--timeout", type=float, default=1800.0,
                   help="seconds per attempt (default 1800: a 16k-token thinking reply is slow)")
    g.add_argument("--retries", type=int, default=retries,
                   help=f"retries on transient errors (default {retries})")
    g.add_argument("--cache-dir", default=None,
                   help="reply cache folder (default $WIDTHBENCH_CACHE_DIR or ~/.cache/widthbench/llm)")
    g.add_argument("--no-cache", action="store_true", help="neither read nor write the reply cache (nor read back a vllm-batch run's leftover output)")
    g.add_argument("--max-model-len", type=int, default=None, metavar="TOKENS",
                   help="the server's context when it does not report one in /v1/models (vLLM "
                   "does); max_tokens is lowered so prompt + max_tokens fits, and a prompt that "
                   "cannot fit is skipped, not sent")
    g.add_argument("--batch-cmd", default=None,
                   help="vllm-batch command template with {input} {output} {model} "
                   "(default $WIDTHBENCH_VLLM_BATCH_CMD or scripts/vllm_cpu_server.sh batch)")


SAMPLING_HELP = {
    "--temperature": "sampling temperature",
    "--top-p": "nucleus sampling top_p",
    "--top-k": "top_k (-1: off; sent in extra_body)",
    "--min-p": "min_p (sent in extra_body)",
    "--presence-penalty": "presence_penalty (the Qwen3 preset sets 1.5 in the normal mode only)",
    "--max-tokens": "max_tokens per request (default: 16384 thinking, 2048 normal, grown for an "
                    "item whose correct answer would not fit; a value given here is kept)",
}


def _per_mode(option: str):
    def parse(text: str) -> dict:
        try:
            return parse_per_mode(option, text)
        except ValueError as exc:  # argparse prints the message as one line, exit 2
            raise argparse.ArgumentTypeError(str(exc).removeprefix(f"{option} ")) from None

    parse.__name__ = option.lstrip("-").replace("-", "_")
    return parse


def add_sampling_arguments(parser: argparse.ArgumentParser) -> None:
    """--temperature, --top-p, --top-k, --min-p, --presence-penalty, --max-tokens: each one value
    for both modes or per mode (``thinking=0.6,normal=0.7``), over the --preset (docs/llm.md)."""
    g = parser.add_argument_group("sampling (one value for both modes, or thinking=V,normal=V; "
                                  "over the --preset values)")
    for option in SAMPLING_OPTIONS:
        g.add_argument(option, type=_per_mode(option), default=None, metavar="V|MODE=V,...",
                       help=SAMPLING_HELP[option])


def sampling_from_args(args: argparse.Namespace) -> dict:
    """mode name -> {parameter: value} of the sampling options given (`types.merge_sampling`).
    Only the per-mode options of `add_sampling_arguments` count (chat's own --temperature and
    --max-tokens are plain numbers, sent as its request's parameters)."""
    values = {o: getattr(args, o.lstrip("-").replace("-", "_"), None) for o in SAMPLING_OPTIONS}
    return merge_sampling({o: v for o, v in values.items() if isinstance(v, dict)})


def single_max_tokens(args: argparse.Namespace) -> int | None:
    """--max-tokens as one number when it is one value for both modes (what run configs record)."""
    values = getattr(args, "max_tokens", None)
    if values and len(set(values.values())) == 1 and len(values) == 2:
        return next(iter(values.values()))
    return None


def check_cache_dir(args: argparse.Namespace) -> None:
    """A --cache-dir (or $WIDTHBENCH_CACHE_DIR) that cannot be a folder is a one-line UserError
    before any work is done."""
    import os


    if args.no_cache:
        return
    if args.cache_dir is not None:
        check_output_dir(args.cache_dir, "--cache-dir")
    elif os.environ.get("WIDTHBENCH_CACHE_DIR"):
        check_output_dir(os.environ["WIDTHBENCH_CACHE_DIR"], "WIDTHBENCH_CACHE_DIR")


def model_options(args: argparse.Namespace) -> dict:
    """`open_model`'s keyword arguments from the model options (picklable: a worker opens its own)."""
    return dict(base_urls=args.base_url, cache_dir=args.cache_dir, use_cache=not args.no_cache,
                concurrency=args.concurrency, base_model=args.base_model, preset=args.preset,
                timeout=args.timeout, max_retries=args.retries, batch_cmd=args.batch_cmd,
                max_model_len=getattr(args, "max_model_len", None),
                sampling=sampling_from_args(args))


def open_model_from_args(args: argparse.Namespace, **overrides):
    check_cache_dir(args)
    options = model_options(args)
    options.update(overrides)
    return open_model(args.model, **options)


# Exit code of `score` and `solve` when some requests still failed after their retries: the run
# folder is complete except for those, and a rerun with the same --out asks only for them.
INCOMPLETE_EXIT = 3


def incomplete_exit(failed: int, what: str = "item-modes failed after retries") -> int:
    """0, or INCOMPLETE_EXIT after one summary line on stderr when `failed` > 0."""
    import sys

    if failed <= 0:
        return 0
    print(f"widthbench: {failed} {what}; rerun to retry them "
          f"(exit {INCOMPLETE_EXIT}: incomplete run)", file=sys.stderr)
    return INCOMPLETE_EXIT
