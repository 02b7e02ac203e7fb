"""The simulated models' tokenizer: deterministic word/punctuation pieces.

Real token counts come from the server (usage, or its /tokenize endpoint). Simulated models have no
vocabulary, so they count with this tokenizer, and the sim-server's /tokenize answers with it too,
which lets the client's counting path be tested over HTTP exactly as against vLLM.
A piece is a run of at most 4 word characters or one other non-space character, so a long word
costs several tokens, roughly as with a BPE vocabulary.
"""

from __future__ import annotations

import re

_PIECE = re.compile(r"\w{1,4}|[^\w\s]")

# ChatML framing per message (<|im_start|>, role, newline, <|im_end|>), as Qwen's template adds.
MESSAGE_OVERHEAD = 4


def tokenize(text: str) -> list[str]:
    """The token pieces of `text`."""
    return _PIECE.findall(text)


def count_tokens(text: str | None) -> int:
    return len(_PIECE.findall(text)) if text else 0


def truncate_tokens(text: str, limit: int) -> str:
    """The prefix of `text` holding its first `limit` tokens (all of it if shorter)."""
    if limit <= 0:
        return ""
    for i, match in enumerate(_PIECE.finditer(text)):
        if i + 1 == limit:
            return text[: match.end()]
    return text


def count_prompt_tokens(messages) -> int:
    """Prompt tokens of a chat: the messages' pieces plus ChatML framing and the generation prompt."""
    return sum(count_tokens(m.get("content") or "") + MESSAGE_OVERHEAD for m in messages) + 3
