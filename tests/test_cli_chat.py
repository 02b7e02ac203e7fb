"""`widthbench chat`: a default max_tokens sized for a chat reply, and a cut reply said so (issue 25)."""

from __future__ import annotations

import re

import pytest

from widthbench.cli import main
from widthbench.commands.chat import CHAT_MAX_TOKENS

RAMBLING = "sim:const:" + "the capital of France is Paris and " * 400  # ~3,000 tokens, as a model that repeats


def _usage(out: str) -> dict[str, str]:
    line = next(x for x in out.splitlines() if x.startswith("[usage]"))
    return dict(re.findall(r"(\w+)=(\S+)", line))


def test_a_rambling_model_is_cut_at_the_chat_default(tmp_path, capsys):
    assert main(["chat", "--model", RAMBLING, "--no-cache", "--thinking", "on", "hi"]) == 0
    out = capsys.readouterr().out
    usage = _usage(out)
    assert CHAT_MAX_TOKENS == 256
    assert usage["max_tokens"] == "256" and usage["finish"] == "length"
    assert int(usage["completion"]) == 256
    assert "[cut at max_tokens=256; --max-tokens N allows a longer reply]" in out


def test_max_tokens_changes_it_and_a_complete_reply_is_not_called_cut(capsys):
    assert main(["chat", "--model", RAMBLING, "--no-cache", "--max-tokens", "2000", "hi"]) == 0
    assert _usage(capsys.readouterr().out)["max_tokens"] == "2000"
    assert main(["chat", "--model", "sim:const:Paris.", "--no-cache", "hi"]) == 0
    out = capsys.readouterr().out
    assert _usage(out)["finish"] == "stop" and "[cut" not in out


@pytest.mark.parametrize("n", ["0", "-5"])
def test_a_max_tokens_below_one_is_one_line_exit_2(n, capsys):
    assert main(["chat", "--model", "sim:oracle", "--no-cache", "--max-tokens", n, "hi"]) == 2
    assert capsys.readouterr().err.strip() == f"widthbench chat: error: --max-tokens must be at least 1, got {n}"
