#!/usr/bin/env python3
"""Build a tiny, scripted Qwen3-architecture checkpoint that a real vLLM server can load.

    make_tiny_qwen3.py OUTDIR --answer TEXT [--thinking-text TEXT] [--name NAME]

Run it with the vLLM venv's interpreter (it needs `numpy`, `tokenizers` and `safetensors`, which
that venv has; the widthbench venv does not):

    "$(scripts/vllm_cpu_server.sh python)" scripts/make_tiny_qwen3.py /tmp/yes --answer yes

It takes about a second and needs no network. OUTDIR gets `config.json`, `generation_config.json`,
`tokenizer.json`, `tokenizer_config.json`, `model.safetensors` and `scripted.json` (what the model
says, token by token, for tests).

Why it is deterministic. The decoder layers' output projections (`o_proj`, `down_proj`) are zero, so
every layer adds nothing to the residual stream and the final hidden state is the last token's
embedding: the logits depend on the last token only. Embedding and `lm_head` then form a bigram table
with a margin of ~200 logits, so the model emits the same text at any temperature, top-p/top-k or
presence penalty. Every token of the scripted output has exactly one successor, which is why the
thinking text and the answer are added tokens (one per word, or one for the whole piece when a word
repeats) rather than byte sequences. The scripted completions (generation prompt included) are

    thinking on:  <|im_start|>assistant\\n | <think> \\n{thinking} \\n </think> \\n\\n {answer} <|im_end|>
    thinking off: <|im_start|>assistant\\n<think>\\n\\n</think>\\n\\n | {answer} <|im_end|>

The prompt's last token selects the start: the byte token "\\n" (end of "assistant\\n") is followed
by <think>; the added token "\\n\\n" (end of the empty think block) is followed by the answer.
Any other last token is followed by <|im_end|>.

The chat template is our own Qwen3-style ChatML template; like Qwen3's it honours
`enable_thinking` (chat_template_kwargs) and drops the thinking of earlier assistant turns.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

HIDDEN = 128
HEADS = 2
KV_HEADS = 1
HEAD_DIM = 64
INTERMEDIATE = 256
LAYERS = 2
MAX_POSITIONS = 4096
# RMSNorm turns a one-hot embedding into sqrt(HIDDEN) ≈ 11.3 in one coordinate; times LOGIT_WEIGHT
# this is the winning logit (~226) while every other logit is 0.
LOGIT_WEIGHT = 20.0

ENDOFTEXT, IM_START, IM_END, THINK, END_THINK = (
    "<|endoftext|>", "<|im_start|>", "<|im_end|>", "<think>", "</think>")
BLANK = "\n\n"  # its own added token: it ends the no-thinking generation prompt

DEFAULT_THINKING = "Scripted reasoning: this tiny test model always gives one fixed reply."

CHAT_TEMPLATE = r"""{#- widthbench tiny Qwen3-style ChatML template (not Qwen's file). -#}
{%- macro text(content) -%}
  {%- if content is string -%}{{ content }}
  {%- elif content is iterable and content is not mapping -%}
    {%- for part in content -%}
      {%- if part is mapping and part.type == 'text' -%}{{ part.text }}{%- endif -%}
    {%- endfor -%}
  {%- elif content is not none -%}{{ content }}
  {%- endif -%}
{%- endmacro -%}
{%- for message in messages -%}
  {%- if message.role == 'assistant' -%}
    {%- set content = text(message.content) -%}
    {%- if '</think>' in content -%}
      {%- set content = content.split('</think>')[-1].lstrip('\n') -%}
    {%- endif -%}
    {{- '<|im_start|>assistant\n' + content + '<|im_end|>\n' -}}
  {%- else -%}
    {{- '<|im_start|>' + message.role + '\n' + text(message.content) + '<|im_end|>\n' -}}
  {%- endif -%}
{%- endfor -%}
{%- if add_generation_prompt -%}
  {{- '<|im_start|>assistant\n' -}}
  {%- if enable_thinking is defined and enable_thinking is false -%}
    {{- '<think>\n\n</think>\n\n' -}}
  {%- endif -%}
{%- endif -%}
"""


def bytes_to_unicode() -> dict[int, str]:
    """GPT-2's reversible byte → printable-character map, which byte-level BPE vocabularies use."""
    printable = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(
        range(ord("®"), ord("ÿ") + 1))
    chars = printable[:]
    extra = 0
    for b in range(256):
        if b not in printable:
            printable.append(b)
            chars.append(256 + extra)
            extra += 1
    return {b: chr(c) for b, c in zip(printable, chars)}


def word_pieces(text: str, taken: set[str]) -> list[str]:
    """Split at whitespace (spaces go with the next word); one piece if a word would repeat."""
    pieces = re.findall(r"\s*\S+", text)
    if pieces:
        pieces[-1] += text[len("".join(pieces)):]  # trailing whitespace
    if not pieces or len(set(pieces)) < len(pieces) or taken & set(pieces):
        return [text]
    return pieces


def build_tokenizer(thinking_pieces: list[str], answer_pieces: list[str]):
    from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers

    b2u = bytes_to_unicode()
    vocab = {b2u[b]: b for b in range(256)}
    tok = Tokenizer(models.BPE(vocab=vocab, merges=[]))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    tok.decoder = decoders.ByteLevel()
    tok.add_special_tokens([AddedToken(t, special=True, normalized=False)
                            for t in (ENDOFTEXT, IM_START, IM_END)])
    # Like Qwen3's: <think> and </think> are added but not "special", so they survive
    # skip_special_tokens decoding and the reasoning parser can see them.
    plain = [THINK, END_THINK, BLANK, *thinking_pieces, *answer_pieces]
    tok.add_tokens([AddedToken(t, special=False, normalized=False) for t in dict.fromkeys(plain)])
    return tok


def script(thinking_text: str, answer: str) -> tuple[list[str], list[str], list[str]]:
    fixed = {THINK, END_THINK, BLANK, ENDOFTEXT, IM_START, IM_END}
    thinking_pieces = word_pieces("\n" + thinking_text + "\n", fixed)
    answer_pieces = word_pieces(answer, fixed | set(thinking_pieces))
    on = [THINK, *thinking_pieces, END_THINK, BLANK, *answer_pieces, IM_END]
    return thinking_pieces, answer_pieces, on


def successor_table(tok, on: list[str]) -> dict[int, int]:
    """token id → the one token id the model emits after it."""
    ids = [tok.token_to_id(t) for t in on]
    if None in ids:
        raise SystemExit(f"make_tiny_qwen3: token missing from vocabulary: {on[ids.index(None)]!r}")
    newline_byte = tok.token_to_id(bytes_to_unicode()[ord("\n")])
    table = {newline_byte: ids[0]}  # "...assistant\n" → <think>
    for a, b in zip(ids, ids[1:]):
        if table.get(a, b) != b:
            raise SystemExit(
                f"make_tiny_qwen3: token {tok.id_to_token(a)!r} would need two successors; "
                "choose a thinking text / answer whose words do not clash")
        table[a] = b
    return table


def build_weights(vocab_size: int, table: dict[int, int], default_next: int):
    import numpy as np

    rng = np.random.default_rng(0)
    successors = sorted(set(table.values()) | {default_next})
    if len(successors) > HIDDEN:
        raise SystemExit(f"make_tiny_qwen3: script has {len(successors)} distinct tokens, "
                         f"more than the hidden size {HIDDEN}")
    slot = {nxt: i for i, nxt in enumerate(successors)}
    embed = np.zeros((vocab_size, HIDDEN), np.float32)
    for tid in range(vocab_size):
        embed[tid, slot[table.get(tid, default_next)]] = 1.0
    lm_head = np.zeros((vocab_size, HIDDEN), np.float32)
    for nxt, i in slot.items():
        lm_head[nxt, i] = LOGIT_WEIGHT

    def small(*shape):
        return (rng.standard_normal(shape) * 0.02).astype(np.float32)

    t = {"model.embed_tokens.weight": embed, "lm_head.weight": lm_head,
         "model.norm.weight": np.ones(HIDDEN, np.float32)}
    for i in range(LAYERS):
        p = f"model.layers.{i}."
        t.update({
            p + "input_layernorm.weight": np.ones(HIDDEN, np.float32),
            p + "post_attention_layernorm.weight": np.ones(HIDDEN, np.float32),
            p + "self_attn.q_proj.weight": small(HEADS * HEAD_DIM, HIDDEN),
            p + "self_attn.k_proj.weight": small(KV_HEADS * HEAD_DIM, HIDDEN),
            p + "self_attn.v_proj.weight": small(KV_HEADS * HEAD_DIM, HIDDEN),
            # Zero output projections: the layers leave the residual stream (the embedding) as is.
            p + "self_attn.o_proj.weight": np.zeros((HIDDEN, HEADS * HEAD_DIM), np.float32),
            p + "self_attn.q_norm.weight": np.ones(HEAD_DIM, np.float32),
            p + "self_attn.k_norm.weight": np.ones(HEAD_DIM, np.float32),
            p + "mlp.gate_proj.weight": small(INTERMEDIATE, HIDDEN),
            p + "mlp.up_proj.weight": small(INTERMEDIATE, HIDDEN),
            p + "mlp.down_proj.weight": np.zeros((HIDDEN, INTERMEDIATE), np.float32),
        })
    return t


def make_model(outdir: Path, answer: str, thinking_text: str = DEFAULT_THINKING,
               name: str | None = None) -> dict:
    """Write the checkpoint into outdir; return the script description (also in scripted.json)."""
    from safetensors.numpy import save_file

    if not answer.strip() or not thinking_text.strip():
        raise SystemExit("make_tiny_qwen3: --answer and --thinking-text must not be blank")
    thinking_pieces, answer_pieces, on = script(thinking_text, answer)
    tok = build_tokenizer(thinking_pieces, answer_pieces)
    table = successor_table(tok, on)
    n_tokens = tok.get_vocab_size(with_added_tokens=True)
    vocab_size = -(-n_tokens // 64) * 64  # padded like real checkpoints; extra rows never win
    ids = {t: tok.token_to_id(t) for t in (ENDOFTEXT, IM_START, IM_END, THINK, END_THINK)}

    outdir.mkdir(parents=True, exist_ok=True)
    tok.save(str(outdir / "tokenizer.json"))
    save_file(build_weights(vocab_size, table, ids[IM_END]), str(outdir / "model.safetensors"),
              metadata={"format": "pt"})
    config = {
        "architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3",
        "vocab_size": vocab_size, "hidden_size": HIDDEN, "intermediate_size": INTERMEDIATE,
        "num_hidden_layers": LAYERS, "num_attention_heads": HEADS, "num_key_value_heads": KV_HEADS,
        "head_dim": HEAD_DIM, "hidden_act": "silu", "max_position_embeddings": MAX_POSITIONS,
        "rms_norm_eps": 1e-6, "rope_theta": 1000000.0, "rope_scaling": None,
        "attention_bias": False, "attention_dropout": 0.0, "use_sliding_window": False,
        "sliding_window": None, "max_window_layers": LAYERS, "tie_word_embeddings": False,
        "initializer_range": 0.02, "use_cache": True, "torch_dtype": "float32",
        "bos_token_id": ids[ENDOFTEXT], "eos_token_id": ids[IM_END],
    }
    (outdir / "config.json").write_text(json.dumps(config, indent=2) + "\n")
    # Qwen3's published sampling defaults; vLLM applies them when a request leaves them out.
    generation = {"bos_token_id": ids[ENDOFTEXT], "eos_token_id": [ids[IM_END], ids[ENDOFTEXT]],
                  "pad_token_id": ids[ENDOFTEXT], "do_sample": True, "temperature": 0.6,
                  "top_p": 0.95, "top_k": 20}
    (outdir / "generation_config.json").write_text(json.dumps(generation, indent=2) + "\n")
    tok_config = {
        "tokenizer_class": "PreTrainedTokenizerFast", "model_max_length": MAX_POSITIONS,
        "bos_token": None, "eos_token": IM_END, "pad_token": ENDOFTEXT, "unk_token": None,
        "add_bos_token": False, "add_eos_token": False, "clean_up_tokenization_spaces": False,
        "split_special_tokens": False, "errors": "replace", "chat_template": CHAT_TEMPLATE,
    }
    (outdir / "tokenizer_config.json").write_text(json.dumps(tok_config, indent=2) + "\n")
    (outdir / "special_tokens_map.json").write_text(json.dumps(
        {"eos_token": IM_END, "pad_token": ENDOFTEXT}, indent=2) + "\n")

    thinking_tokens = [THINK, *thinking_pieces, END_THINK]
    answer_tokens = [*answer_pieces, IM_END]
    described = {
        "name": name or outdir.name,
        "answer": answer,
        "thinking_text": thinking_text,
        # Decoded completions (skip_special_tokens drops <|im_end|>).
        "completion_thinking_on": THINK + "".join(thinking_pieces) + END_THINK + BLANK + answer,
        "completion_thinking_off": answer,
        # Completion token sequences; completion_tokens counts the final <|im_end|> too.
        "tokens_thinking_on": [*thinking_tokens, BLANK, *answer_tokens],
        "tokens_thinking_off": answer_tokens,
        "token_ids": {t: tok.token_to_id(t) for t in dict.fromkeys(on + [BLANK, IM_START])},
        "vocab_size": vocab_size,
    }
    (outdir / "scripted.json").write_text(json.dumps(described, indent=2) + "\n")
    return described


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("outdir", type=Path)
    ap.add_argument("--answer", required=True, help="what the model answers, e.g. 'yes'")
    ap.add_argument("--thinking-text", default=DEFAULT_THINKING,
                    help="what it thinks first when thinking is on")
    ap.add_argument("--name", help="name recorded in scripted.json (default: OUTDIR's name)")
    args = ap.parse_args(argv)
    d = make_model(args.outdir, args.answer, args.thinking_text, args.name)
    print(f"wrote {args.outdir} (vocab {d['vocab_size']}; thinking on: "
          f"{d['completion_thinking_on']!r})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
