"""What a model call takes (`Request`) and gives back (`Reply`), and the sampling presets.

A `Request` holds the chat messages, the thinking switch, a purpose tag for the token ledger
(`action-generation`, `successor`, `verify`, `novelty`, `search-expand`, ...), sampling overrides,
a seed, max_tokens and an optional decoding constraint (`{"choice": [...]}`, `{"regex": ...}`,
`{"grammar": ...}`, `{"json": schema}`: vLLM's `structured_outputs`, applied after the reasoning). The sampling parameters actually sent are the model's preset for the mode,
then the model's own overrides, then the request's (`resolve_params`); they are always sent in full,
so a server default never decides a result silently.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

# Qwen3 model card, "Best Practices": thinking mode must not be greedy (it loops); the non-thinking
# preset adds presence_penalty against repetition. top_k/min_p travel in extra_body.
QWEN3_THINKING = MappingProxyType({"temperature": 0.6, "top_p": 0.95, "top_k": 20, "min_p": 0.0})
QWEN3_NORMAL = MappingProxyType(
    {"temperature": 0.7, "top_p": 0.8, "top_k": 20, "min_p": 0.0, "presence_penalty": 1.5}
)
PRESETS: Mapping[str, Mapping[str, Mapping[str, Any]]] = MappingProxyType(
    {
        "qwen3": MappingProxyType({"thinking": QWEN3_THINKING, "normal": QWEN3_NORMAL}),
        # Send nothing but the request's own parameters (for servers that reject top_k etc.).
        "none": MappingProxyType({"thinking": MappingProxyType({}), "normal": MappingProxyType({})}),
    }
)

DEFAULT_MAX_TOKENS = {"thinking": 16384, "normal": 2048}
ANSWER_MARGIN = 256  # tokens beyond a correct answer: the "Answer:" line, a short preamble


def max_tokens_for_answer(answer_tokens: int, thinking: bool) -> int | None:
    """The default max_tokens of a request whose correct answer takes about ``answer_tokens``: None
    (the per-mode default, 2,048 tokens without thinking, 16,384 with) when the answer plus
    ANSWER_MARGIN fits in 2,048; else that default grown by the excess, so a long correct answer
    (a successor mapping of 15 rover states, an alfred state of 300 facts) is never cut."""
    need = answer_tokens + ANSWER_MARGIN
    normal = DEFAULT_MAX_TOKENS["normal"]
    if need <= normal:
        return None
    return DEFAULT_MAX_TOKENS[mode_name(thinking)] + need - normal

# Thinking is a bool everywhere inside widthbench; these are its only spellings, used at the edges.
THINKING_CHOICES = ("on", "off", "both")  # the --thinking option of chat, score and solve


def thinking_modes(choice: str) -> tuple[bool, ...]:
    """The modes of a --thinking value: "on", "off" or "both" (off first)."""
    modes = {"on": (True,), "off": (False,), "both": (False, True)}
    if choice not in modes:
        from widthbench.core.errors import UserError

        raise UserError(f"--thinking must be one of {', '.join(THINKING_CHOICES)}, got {choice!r}")
    return modes[choice]


def on_off(thinking: bool) -> str:
    """How summaries and configs write a mode: "on" / "off"."""
    return "on" if thinking else "off"


def mode_name(thinking: bool) -> str:
    """How presets, ledgers, cache keys' modes and labels name a mode: "thinking" / "normal"."""
    return "thinking" if thinking else "normal"

# Without a tokenizer, a chat prompt is bounded by its bytes: a byte-level BPE token (Llama 3, Qwen,
# SmolLM2, GPT-2 style) covers at least one byte; role tags and template text (a default system
# prompt) add a few dozen tokens. Used only when the server cannot count (no /tokenize).
TEMPLATE_TOKENS_PER_MESSAGE = 16
TEMPLATE_TOKENS = 128


def prompt_token_bound(messages: Sequence[Mapping[str, Any]]) -> int:
    """A safe upper bound on a chat prompt's tokens, with no tokenizer."""
    return TEMPLATE_TOKENS + sum(len(str(m.get("content") or "").encode())
                                 + TEMPLATE_TOKENS_PER_MESSAGE for m in messages)


def fit_max_tokens(requested: int, prompt_tokens: int, context: int,
                   exact: bool = True) -> tuple[int | None, str | None]:
    """(max_tokens to send, None), or (None, reason) when the prompt leaves no room for one token
    in the server's context. vLLM rejects prompt + max_tokens > max_model_len with HTTP 400."""
    room = context - prompt_tokens
    if room < 1:
        what = f"prompt of {prompt_tokens} tokens" if exact else f"prompt of about {prompt_tokens} tokens (estimated)"
        return None, f"{what} does not fit the server's context of {context}"
    return min(requested, room), None


CONSTRAINT_KINDS = ("choice", "regex", "grammar", "json")


def _freeze_constraint(constraint: Mapping[str, Any] | None) -> Mapping[str, Any] | None:
    if constraint is None:
        return None
    if not isinstance(constraint, Mapping) or not constraint:
        raise TypeError("Request.constraint must be a mapping such as {'choice': ['yes', 'no']}")
    unknown = [k for k in constraint if k not in CONSTRAINT_KINDS]
    if unknown:
        raise ValueError(f"unknown constraint kind(s) {unknown} (known: {', '.join(CONSTRAINT_KINDS)})")
    # A canonical, JSON-able copy: it goes on the wire and into the cache key.
    return MappingProxyType(json.loads(json.dumps(dict(constraint), sort_keys=True)))


def _freeze_messages(messages: Sequence[Mapping[str, Any]]) -> tuple[Mapping[str, Any], ...]:
    if isinstance(messages, (str, bytes)) or not isinstance(messages, Sequence):
        raise TypeError("Request.messages must be a sequence of {'role': ..., 'content': ...} dicts")
    frozen = []
    for m in messages:
        if not isinstance(m, Mapping) or "role" not in m or "content" not in m:
            raise TypeError(f"each message needs 'role' and 'content': {m!r}")
        frozen.append(MappingProxyType(dict(m)))
    return tuple(frozen)


@dataclass(frozen=True, slots=True)
class Request:
    """One chat completion to make. `params` override the sampling preset key by key.

    `constraint` (None: free text) is sent as `structured_outputs` (part of the cache key);
    simulated models ignore it. `tools` (empty: none) are the OpenAI tools offered, sent as
    ``tools`` with ``tool_choice: auto`` (part of the cache key when there are some); the reply's
    calls come back in `Reply.tool_calls`."""

    messages: tuple[Mapping[str, Any], ...]
    thinking: bool = False
    purpose: str = "other"
    params: Mapping[str, Any] = field(default_factory=dict)
    seed: int | None = None
    max_tokens: int | None = None
    constraint: Mapping[str, Any] | None = None
    tools: tuple = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "messages", _freeze_messages(self.messages))
        # a canonical, JSON-able copy: it goes on the wire and into the cache key
        object.__setattr__(self, "tools", tuple(MappingProxyType(json.loads(json.dumps(dict(t), sort_keys=True)))
                                                for t in (self.tools or ())))
        object.__setattr__(self, "params", MappingProxyType(dict(self.params or {})))
        object.__setattr__(self, "constraint", _freeze_constraint(self.constraint))

    @classmethod
    def user(cls, text: str, **kwargs: Any) -> "Request":
        """A request with one user message."""
        return cls(messages=({"role": "user", "content": text},), **kwargs)

    @property
    def mode(self) -> str:
        return mode_name(self.thinking)

    def message_dicts(self) -> list[dict[str, Any]]:
        return [dict(m) for m in self.messages]

    def __hash__(self) -> int:
        return hash(
            (
                json.dumps(self.message_dicts(), sort_keys=True),
                self.thinking,
                self.purpose,
                json.dumps(dict(self.params), sort_keys=True, default=str),
                self.seed,
                self.max_tokens,
                json.dumps(dict(self.constraint), sort_keys=True) if self.constraint else None,
                json.dumps(self.tool_dicts(), sort_keys=True) if self.tools else None,
            )
        )

    def tool_dicts(self) -> list[dict[str, Any]]:
        return [json.loads(json.dumps(dict(t))) for t in self.tools]


@dataclass(frozen=True, slots=True)
class Reply:
    """What came back. A failed request is a Reply with `error` set (after the retry budget).

    `completion_tokens` includes the thinking tokens (as vLLM's usage does); `thinking_tokens` is
    their share, `None` when it could not be counted. `thinking_tokens_from` says where the count
    came from: "usage", "tokenize", "simulated" or None. `finish_reason == "length"` marks a reply
    cut by max_tokens (possibly inside the thinking, with an empty `text`).

    `max_tokens` is the value actually sent: the requested one, lowered so prompt + max_tokens fits
    the server's context (`Model.context_length`). `skipped` is set (with the reason, e.g. "prompt
    of 9012 tokens does not fit the server's context of 8192") when the prompt alone does not fit:
    such a request is never sent, is not an error (`ok` stays true, `answered` is false) and is not
    cached (a server with a longer context may answer it).
    """

    text: str
    reasoning: str | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    thinking_tokens: int | None = 0
    finish_reason: str | None = None
    latency: float = 0.0
    cached: bool = False
    error: str | None = None
    model: str = ""
    simulated: bool = False
    thinking_tokens_from: str | None = None
    attempts: int = 1
    max_tokens: int | None = None
    skipped: str | None = None
    # The run that asked for this reply first (`Model.run(..., tag=)`): kept in the reply cache, so a
    # resumed run knows its own earlier replies from other runs' (`ledger.ledger_from_calls`).
    made_by: str | None = None
    # The sampling parameters sent (max_tokens as sent); set by `Model.run` on every reply.
    params: Mapping[str, Any] | None = None
    # A simulated model's errors put into its thinking on purpose (sim:noisy; docs/llm.md,
    # "Simulated models"): [{"kind", "span", "claimed", "expect"}], [] for thinking written clean,
    # None when not known (a real model, or no thinking).
    injected: tuple | list | None = None
    # The tool calls of the reply when tools were offered (`Request.tools`): [{"id", "name",
    # "arguments"}], arguments as the JSON text the model wrote.
    tool_calls: tuple | list = ()

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def answered(self) -> bool:
        """The model was asked and answered (neither an error nor skipped)."""
        return self.error is None and self.skipped is None

    @property
    def truncated(self) -> bool:
        return self.finish_reason == "length"

    def to_dict(self) -> dict[str, Any]:
        out = {name: getattr(self, name) for name in self.__dataclass_fields__}
        if out["params"] is not None:
            out["params"] = dict(out["params"])
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "Reply":
        return cls(**{k: v for k, v in data.items() if k in cls.__dataclass_fields__})


def resolve_params(
    request: Request, preset: str = "qwen3", overrides: Mapping[str, Any] | None = None,
    sampling: Mapping[str, Mapping[str, Any]] | None = None,
) -> dict[str, Any]:
    """The full sampling parameters sent for `request`: preset < model overrides < request params
    < the user's per-mode settings (``sampling``: mode name -> {parameter: value}, the
    --temperature/--top-p/... options of score, solve and export).

    max_tokens is always included (the user's setting for the mode, else the request's, else
    overrides, else a per-mode default) because it decides truncation; a value of None in overrides
    or request params removes a preset key. The user's settings come last because a request's own
    max_tokens is a default the code chose (grown for a long answer), not a choice of the user.
    """
    if preset not in PRESETS:
        raise ValueError(f"unknown sampling preset {preset!r} (known: {', '.join(PRESETS)})")
    params: dict[str, Any] = dict(PRESETS[preset][request.mode])
    for layer in (overrides or {}, request.params):
        for key, value in layer.items():
            if value is None:
                params.pop(key, None)
            else:
                params[key] = value
    if request.max_tokens is not None:
        params["max_tokens"] = request.max_tokens
    params.update((sampling or {}).get(request.mode, {}))
    params.setdefault("max_tokens", DEFAULT_MAX_TOKENS[request.mode])
    return params


# ---------------------------------------------------------------------------------------------
# Sampling as settings: --temperature thinking=0.6,normal=0.7 (or one value for both modes)

MODES = ("thinking", "normal")
#: option name -> (request parameter, type, check, what the check demands)
SAMPLING_OPTIONS: Mapping[str, tuple[str, type, Any, str]] = MappingProxyType({
    "--temperature": ("temperature", float, lambda v: v >= 0, "at least 0"),
    "--top-p": ("top_p", float, lambda v: 0 < v <= 1, "in (0, 1]"),
    "--top-k": ("top_k", int, lambda v: v == -1 or v >= 1, "-1 (off) or at least 1"),
    "--min-p": ("min_p", float, lambda v: 0 <= v <= 1, "in [0, 1]"),
    "--presence-penalty": ("presence_penalty", float, lambda v: -2 <= v <= 2, "in [-2, 2]"),
    "--max-tokens": ("max_tokens", int, lambda v: v >= 1, "at least 1"),
})


def parse_per_mode(option: str, text: str) -> dict[str, Any]:
    """The per-mode values of a sampling option: ``"0.6"`` (both modes), ``"thinking=0.6,normal=0.7"``
    or one mode alone (``"normal=1.5"``). ValueError with a one-line message when malformed."""
    _, kind, ok, demand = SAMPLING_OPTIONS[option]
    out: dict[str, Any] = {}
    parts = [p.strip() for p in text.split(",")]
    for part in parts:
        mode, sep, value = part.rpartition("=") if "=" in part else ("", "", part)
        modes = (mode,) if sep else MODES
        if sep and mode not in MODES:
            raise ValueError(f"{option} {text!r}: mode {mode!r} is not one of {', '.join(MODES)} "
                             "(write thinking=V,normal=V or one value for both)")
        if not sep and len(parts) > 1:
            raise ValueError(f"{option} {text!r}: write thinking=V,normal=V or one value for both")
        try:
            number = kind(value)
        except ValueError:
            raise ValueError(f"{option} {text!r}: {value!r} is not {'an integer' if kind is int else 'a number'}") from None
        if not ok(number):
            raise ValueError(f"{option} {text!r}: {number} must be {demand}")
        for m in modes:
            if m in out:
                raise ValueError(f"{option} {text!r}: mode {m} given twice")
            out[m] = number
    return out


def merge_sampling(per_option: Mapping[str, Mapping[str, Any] | None]) -> dict[str, dict[str, Any]]:
    """mode -> {parameter: value} from option -> (mode -> value) (options not given: None)."""
    out: dict[str, dict[str, Any]] = {m: {} for m in MODES}
    for option, values in per_option.items():
        for mode, value in (values or {}).items():
            out[mode][SAMPLING_OPTIONS[option][0]] = value
    return {m: p for m, p in out.items() if p}


def mode_params(preset: str = "qwen3", overrides: Mapping[str, Any] | None = None,
                sampling: Mapping[str, Mapping[str, Any]] | None = None) -> dict[str, dict[str, Any]]:
    """The sampling parameters sent in each mode (mode name -> {parameter: value}) for a request
    without parameters of its own: what a run's identity records. ``max_tokens`` is included
    only when the user set it (otherwise it is a per-request default: `max_tokens_for_answer`)."""
    out = {}
    for mode in MODES:
        req = Request.user("", thinking=mode == "thinking")
        params = resolve_params(req, preset, overrides, sampling)
        if "max_tokens" not in (sampling or {}).get(mode, {}) and "max_tokens" not in (overrides or {}):
            params.pop("max_tokens")
        out[mode] = dict(sorted(params.items()))
    return out


def cache_key(
    model: str, base_model: str, request: Request, params: Mapping[str, Any]
) -> tuple[str, str]:
    """(sha256 hex, canonical JSON) of exactly what determines a reply: model name, base model name,
    messages, sampling parameters (incl. the requested max_tokens), thinking flag, seed and the
    constraint (only when there is one, so keys made before constraints existed stay valid). The
    purpose tag is not part of it: the same prompt asked for two purposes is one model call."""
    key: dict[str, Any] = {
        "model": model,
        "base_model": base_model,
        "messages": request.message_dicts(),
        "params": dict(params),
        "thinking": request.thinking,
        "seed": request.seed,
    }
    if request.constraint is not None:
        key["constraint"] = dict(request.constraint)
    if request.tools:  # only when offered, so keys made before tools existed stay valid
        key["tools"] = request.tool_dicts()
    canonical = json.dumps(
        key,
        sort_keys=True,
        ensure_ascii=False,
        separators=(",", ":"),
        default=str,
    )
    return hashlib.sha256(canonical.encode()).hexdigest(), canonical
