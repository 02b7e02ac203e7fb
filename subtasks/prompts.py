"""Prompt templates: loading them from `llm/prompts/`, filling them, and reading filled prompts back.

A prompt is two chat messages: the system message is the hand-written domain context
(`llm/prompts/context.<domain>.txt`, plus `extension.<domain>.txt` when the prompt extension is on)
and the user message is a sub-task template (`llm/prompts/<kind>.toml`, one text per style) filled
with rendered states, actions and plans. No few-shot examples (seed 000's choice).

Templates are also the contract with the simulated models: `match_user_message` turns every
template into a regular expression (fixed text literal, each ``{field}`` a lazy group) and reads the
fields back, so `widthbench.subtasks.simulate` can rebuild the task from the prompt text alone.
"""

from __future__ import annotations

import functools
import re
import tomllib
from pathlib import Path

from widthbench.errors import UserError

PROMPT_DIR = Path(__file__).resolve().parent.parent / "llm" / "prompts"
STYLES = ("pddl", "nl")
#: Template kinds (file stems under llm/prompts/).
KINDS = ("action_generation", "next_action", "successor", "successor_mapping", "verification",
         "goal_check", "novelty", "novelty_estimate", "width_estimate")
_FIELD = re.compile(r"\{([a-z_]+)\}")


def prompt_dir() -> Path:
    if not PROMPT_DIR.is_dir():  # installed as a wheel without the data files
        raise UserError(f"prompt templates not found at {PROMPT_DIR}")
    return PROMPT_DIR


@functools.lru_cache(maxsize=None)
def load_kind(kind: str) -> dict[str, str]:
    """The TOML table of one template kind: style -> text, plus any extra sentences."""
    path = prompt_dir() / f"{kind}.toml"
    with open(path, "rb") as f:
        data = tomllib.load(f)
    for style in STYLES:
        if style not in data:
            raise ValueError(f"{path}: no template for style {style!r}")
    return {k: v.strip("\n") for k, v in data.items()}


def template(kind: str, style: str) -> str:
    if style not in STYLES:
        raise UserError(f"unknown style {style!r} (known: {', '.join(STYLES)})")
    return load_kind(kind)[style]


def fill(kind: str, style: str, **fields: str) -> str:
    text = template(kind, style)
    missing = set(_FIELD.findall(text)) - set(fields)
    if missing:
        raise ValueError(f"template {kind}.{style} needs field(s) {', '.join(sorted(missing))}")
    return _FIELD.sub(lambda m: fields[m.group(1)], text)


# ---------------------------------------------------------------------------------------------
# Domain contexts


def domain_key(domain_name: str) -> str:
    """The context file stem for a PDDL domain name (``blocksworld-4ops`` -> ``blocksworld``)."""
    name = domain_name.lower()
    stems = sorted(p.name[len("context."):-len(".txt")] for p in prompt_dir().glob("context.*.txt"))
    if name in stems:
        return name
    for stem in stems:
        if name.startswith(stem) or stem in name or (stem == "blocksworld" and "blocks" in name):
            return stem
    raise UserError(f"no domain context for domain {domain_name!r}: add llm/prompts/context.<name>.txt "
                    f"(have: {', '.join(stems)})")


@functools.lru_cache(maxsize=None)
def _read(name: str) -> str:
    return (prompt_dir() / name).read_text(encoding="utf-8").strip()


def context(domain_name: str) -> str:
    return _read(f"context.{domain_key(domain_name)}.txt")


def extension_available(domain_name: str) -> bool:
    return (prompt_dir() / f"extension.{domain_key(domain_name)}.txt").is_file()


def extension(domain_name: str) -> str:
    key = domain_key(domain_name)
    if not extension_available(domain_name):
        raise UserError(f"no prompt extension for domain {key!r} (llm/prompts/extension.{key}.txt)")
    return _read(f"extension.{key}.txt")


def system_message(domain_name: str, extended: bool = False) -> str:
    text = context(domain_name)
    if extended:
        text += "\n\n" + extension(domain_name)
    return text


def messages(domain_name: str, user: str, extended: bool = False) -> list[dict]:
    return [{"role": "system", "content": system_message(domain_name, extended)},
            {"role": "user", "content": user}]


def identify_domain(system: str) -> tuple[str, bool]:
    """(domain key, extension on) of a system message written by `system_message`."""
    for path in sorted(prompt_dir().glob("context.*.txt")):
        key = path.name[len("context."):-len(".txt")]
        ctx = _read(path.name)
        if system.strip() == ctx:
            return key, False
        if extension_available(key) and system.strip() == ctx + "\n\n" + extension(key):
            return key, True
    raise ValueError("the system message is not one of widthbench's domain contexts")


# ---------------------------------------------------------------------------------------------
# Reading a filled template back


@functools.lru_cache(maxsize=None)
def template_regex(text: str) -> re.Pattern:
    """A regex that reads a filled-in template back: each {field} becomes a named lazy group."""
    parts, pos = [], 0
    for m in _FIELD.finditer(text):
        parts.append(re.escape(text[pos:m.start()]))
        parts.append(f"(?P<{m.group(1)}>.*?)")
        pos = m.end()
    parts.append(re.escape(text[pos:]))
    return re.compile("".join(parts), re.S)


def _template_regex(kind: str, style: str) -> re.Pattern:
    return template_regex(template(kind, style))


def match_user_message(text: str) -> tuple[str, str, dict[str, str]]:
    """(kind, style, fields) of a user message filled from one of the templates."""
    for kind in KINDS:
        for style in STYLES:
            m = _template_regex(kind, style).fullmatch(text.strip())
            if m:
                return kind, style, m.groupdict()
    raise ValueError("the user message matches none of widthbench's sub-task templates")
