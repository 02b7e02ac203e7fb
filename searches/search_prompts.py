"""The search prompts the sub-task API lacks: template files under llm/prompts/search/.

- STRIPS domains: one TOML file per kind (``direct``, ``naive``, ``judge_pre``, ``judge_post``,
  ``value``, ``novelty_summary``, ``novelty_summarised``), one text per style (``pddl``, ``nl``); the
  system message is the sub-task domain context (`widthbench.subtasks.prompts.system_message`).
- Game of 24 and --tasks question sets: ``game24.toml`` / ``tasks.toml`` hold every kind, one text
  each, with the system message ``context.game24.txt`` / ``context.tasks.txt``.

A user's prompt folder (--prompt-dir DIR, `subtasks.prompts`) replaces these files by its own
``DIR/search/<name>``; every function takes it as ``user_dir`` (None: the built-in files).

Templates are also the contract with the simulated models (`searches/sim_search_answers.py`): a
filled template is read back by matching it (fixed text literal, each ``{field}`` a lazy group), as
`widthbench.subtasks.prompts` does for the sub-task templates. Every placeholder is followed by
fixed text that cannot occur inside it.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

from widthbench.core.errors import UserError
from widthbench.subtasks.prompts import PROMPT_DIR, prompt_path, read_text, read_toml, template_regex

SEARCH_DIR = PROMPT_DIR / "search"
STRIPS_KINDS = ("direct", "naive", "judge_pre", "judge_post", "value", "novelty_summary",
                "novelty_summarised", "feedback", "agent", "agent_tools")
_FIELD = re.compile(r"\{([a-z_]+)\}")


def search_dir() -> Path:
    if not SEARCH_DIR.is_dir():
        raise UserError(f"search prompt templates not found at {SEARCH_DIR}")
    return SEARCH_DIR


def load(name: str, user_dir: str | None = None) -> dict[str, str]:
    """The TOML table of ``llm/prompts/search/<name>.toml`` (or the user's ``DIR/search/<name>.toml``)."""
    search_dir()
    return read_toml(str(prompt_path(f"search/{name}.toml", user_dir)))


def text_file(name: str, user_dir: str | None = None) -> str:
    search_dir()
    return read_text(prompt_path(f"search/{name}", user_dir)).strip()


def fill(template: str, **fields: str) -> str:
    missing = set(_FIELD.findall(template)) - set(fields)
    if missing:
        raise ValueError(f"template needs field(s) {', '.join(sorted(missing))}")
    return _FIELD.sub(lambda m: fields[m.group(1)], template)


def strips_template(kind: str, style: str, user_dir: str | None = None) -> str:
    return load(kind, user_dir)[style]


regex = template_regex  # the sub-task templates' reader serves the search templates too


@functools.lru_cache(maxsize=None)
def _longest_literal(template: str) -> str:
    return max(_FIELD.split(template)[::2], key=len)


def match(template: str, text: str) -> dict[str, str] | None:
    # The fixed text must occur before the (backtracking) regex is tried: prompts can be long.
    if _longest_literal(template) not in text:
        return None
    m = regex(template).fullmatch(text.strip())
    return m.groupdict() if m else None


def asked(name: str, system: str, user: str, user_dir: str | None = None) -> tuple[str, dict[str, str]] | None:
    """(template kind, its fields) when ``system`` is template set ``name``'s system message
    (``context.<name>.txt``) and ``user`` one of its prompts filled in; None otherwise (a set that
    cannot be read included)."""
    try:
        context = text_file(f"context.{name}.txt", user_dir)
    except (OSError, UserError):
        return None
    if system.strip() != context:
        return None
    for kind, template in load(name, user_dir).items():
        fields = match(template, user)
        if fields is not None:
            return kind, fields
    return None


def match_strips(text: str, user_dir: str | None = None) -> tuple[str, str, dict[str, str]] | None:
    """(kind, style, fields) of a user message filled from a STRIPS search template, or None."""
    for kind in STRIPS_KINDS:
        for style in ("pddl", "nl"):
            fields = match(strips_template(kind, style, user_dir), text)
            if fields is not None:
                return kind, style, fields
    return None
