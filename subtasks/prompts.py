"""Prompt templates: loading them from `llm/prompts/`, filling them, and reading filled prompts back.

A prompt is two chat messages: the system message is the domain context and the user message is a sub-task template (`llm/prompts/<kind>.toml`, one text per style) filled
with rendered states, actions and plans. No few-shot examples (seed 000's choice).

Which context (`context_for(domain)`, in this order; the label is recorded in every score run):
1. the user's file (``--context FILE``, carried as ``Domain.context_file``): ``file:PATH``;
2. a hand-written file `llm/prompts/context.<name>.txt` (plus `extension.<name>.txt` when the prompt
   extension is on) when the domain is equivalent to the built-in domain <name> (Blocksworld and
   Logistics, in any copy: `generators.instance.builtin_name`) or is named exactly <name>:
   ``hand-written:<name>``;
3. otherwise a context generated from the PDDL (`widthbench.pddl_domains.context`): ``generated``.
Given a domain *name* instead of a Domain, only 2 applies (by name, as before).

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
from widthbench.pddl_domains import planbench_configs

PROMPT_DIR = Path(__file__).resolve().parent.parent / "llm" / "prompts"
STYLES = ("pddl", "nl")
#: Template kinds (file stems under llm/prompts/).
KINDS = ("action_generation", "next_action", "successor", "successor_mapping", "verification",
         "goal_check", "novelty", "novelty_estimate", "width_estimate", "plan_generation")
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


def _stems() -> list[str]:
    return sorted(p.name[len("context."):-len(".txt")] for p in prompt_dir().glob("context.*.txt"))


def hand_written_key(domain) -> str | None:
    """The stem of the hand-written context of a Domain (None: it has none)."""
    from widthbench.generators.instance import builtin_name

    name = builtin_name(domain)
    if name is not None and name in _stems():
        return name
    return domain.name if domain.name in _stems() else None


def context_for(domain) -> tuple[str, str]:
    """(context text, label) of a domain name or a `strips.Domain` (module docstring)."""
    if isinstance(domain, str):
        key = domain_key(domain)
        return _read(f"context.{key}.txt"), f"hand-written:{key}"
    hit = domain.views.get("prompt-context")
    if hit is not None:
        return hit
    if domain.context_file:
        try:
            text = Path(domain.context_file).read_text(encoding="utf-8").strip()
        except OSError as exc:
            raise UserError(f"cannot read context file {domain.context_file}: {exc.strerror}") from None
        if not text:
            raise UserError(f"context file {domain.context_file} is empty")
        result = (text, f"file:{domain.context_file}")
    elif planbench_configs.is_config(domain.templates_file) and planbench_configs.load_config(domain.templates_file).intro:
        # a PlanBench config as --templates: its domain_intro is the context (docs/subtasks.md)
        result = (planbench_configs.load_config(domain.templates_file).intro, f"planbench-config:{domain.templates_file}")
    else:
        key = hand_written_key(domain)
        if key is not None:
            result = (_read(f"context.{key}.txt"), f"hand-written:{key}")
        else:
            from widthbench.pddl_domains.context import generated_context

            result = (generated_context(domain, domain.templates_file or "widthbench"), "generated")
    domain.views["prompt-context"] = result
    return result


def context(domain) -> str:
    return context_for(domain)[0]


def context_label(domain) -> str:
    """Which context prompts about ``domain`` use: "hand-written:<name>", "file:<path>" or "generated"."""
    return context_for(domain)[1]


def _extension_key(domain) -> str | None:
    if isinstance(domain, str):
        return domain_key(domain)
    label = context_label(domain)
    return label.split(":", 1)[1] if label.startswith("hand-written:") else None


def extension_available(domain) -> bool:
    key = _extension_key(domain)
    return key is not None and (prompt_dir() / f"extension.{key}.txt").is_file()


def extension(domain) -> str:
    key = _extension_key(domain)
    if not extension_available(domain):
        name = domain if isinstance(domain, str) else domain.name
        raise UserError(f"no prompt extension for domain {name!r} (llm/prompts/extension.{key or name}.txt)")
    return _read(f"extension.{key}.txt")


def system_message(domain, extended: bool = False) -> str:
    """The system message for a domain name or a `strips.Domain`."""
    text = context(domain)
    if extended:
        text += "\n\n" + extension(domain)
    return text


def messages(domain, user: str, extended: bool = False) -> list[dict]:
    return [{"role": "system", "content": system_message(domain, extended)},
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


def domain_of_system_message(system: str):
    """(`strips.Domain`, extension on) of a system message: a hand-written context is its built-in
    domain; any other context must carry the domain's ``(define (domain ...))`` (generated contexts
    do), which is parsed back. ValueError when neither applies."""
    from widthbench.planners import strips

    from widthbench.errors import UserError as _UserError

    try:
        key, ext = identify_domain(system)
        return strips.load_domain(key), ext
    except (ValueError, _UserError):  # not hand-written, or hand-written for a domain not built in
        pass
    from widthbench.pddl_domains.context import domain_from_context

    dom = domain_from_context(system)
    if dom is None:
        raise ValueError("the system message is neither a hand-written context nor carries a PDDL domain")
    return dom, False


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


# ---------------------------------------------------------------------------------------------
# What a score run records about its presentation


def presentation_identity(instances: str | None, domain_file: str | None = None,
                          context_file: str | None = None, templates_file: str | None = None) -> dict:
    """The run-identity fields for the domain file, context and templates a run uses.

    Empty for runs that use a built-in domain with its hand-written context (so older runs still
    resume); else ``domain_file``/``context_file``/``templates_file`` when given and ``context``, the
    label of the context the prompts carry ("generated", "file:PATH", "hand-written:NAME")."""
    out = {k: v for k, v in (("domain_file", domain_file), ("context_file", context_file),
                             ("templates_file", templates_file)) if v}
    if instances is None and domain_file is None:
        return out
    from widthbench.generators.instance import _find_domain
    from widthbench.planners import strips

    path = domain_file or _find_domain(Path(instances))
    dom = strips.load_domain(path, context_file=context_file, templates_file=templates_file)
    label = context_label(dom)
    if out or not label.startswith("hand-written:"):
        out["context"] = label
    return out
