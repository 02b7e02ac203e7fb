"""Prompt templates: loading them from `llm/prompts/`, filling them, and reading filled prompts back.

A prompt is two chat messages: the system message is the domain context and the user message is a sub-task template (`llm/prompts/<kind>.toml`, one text per style) filled
with rendered states, actions and plans. No few-shot examples (the paper's choice).

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
fields back, so `widthbench.subtasks.sim_answers` can rebuild the task from the prompt text alone.

Prompts as settings (docs/subtasks.md, "Prompts"): ``--prompt-dir DIR`` is the user's copy of
`llm/prompts/` (`export_prompts`, CLI `widthbench prompts export DIR`); a file there replaces the
built-in file of the same name, files it lacks stay built-in, and a file of another name is refused
(`check_prompt_dir`). It travels as ``Domain.prompt_dir`` (like ``--context``), so every prompt of a
task is filled from it; the search templates (`searches.search_prompts`) read ``DIR/search/``. Which novelty
prompt is asked travels as ``Domain.novelty_prompt``: "widthbench" (the default, `novelty.toml`, which
defines novelty) or "paper" (`novelty_paper.toml`: Listing 1 of "Novelty-based Tree-of-Thought Search
for LLM Reasoning and Planning", verbatim). `prompt_digest` is the digest of the text of every
template a run can use, for the run identity.
"""

from __future__ import annotations

import functools
import hashlib
import re
import shutil
import tomllib
from pathlib import Path

from widthbench.core.errors import UserError, listed
from widthbench.pddl_domains import planbench_configs
from widthbench.core.errors import UserError as _UserError
from widthbench.generators.domains import DomainRegistry
from widthbench.generators.instance import builtin_name
from widthbench.pddl_domains.context import domain_from_context
from widthbench.planners import strips

PROMPT_DIR = Path(__file__).resolve().parent.parent / "llm" / "prompts"
STYLES = ("pddl", "nl")
#: Template kinds (file stems under llm/prompts/).
KINDS = ("action_generation", "next_action", "successor", "successor_mapping", "verification",
         "goal_check", "novelty", "novelty_estimate", "width_estimate", "plan_generation",
         "plan_generation_or_none", "formalize_problem", "formalize_goal", "formalize_domain")
_FIELD = re.compile(r"\{([a-z_]+)\}")
#: --novelty-prompt values: widthbench's own (defines novelty) or the paper's Listing 1, verbatim.
NOVELTY_PROMPTS = ("widthbench", "paper")
_NOVELTY_FILES = {"widthbench": "novelty", "paper": "novelty_paper"}


def prompt_dir() -> Path:
    if not PROMPT_DIR.is_dir():  # installed as a wheel without the data files
        raise UserError(f"prompt templates not found at {PROMPT_DIR}")
    return PROMPT_DIR


@functools.lru_cache(maxsize=1)
def builtin_files() -> tuple[str, ...]:
    """The built-in prompt files, as paths relative to llm/prompts/ (``search/direct.toml`` ...)."""
    root = prompt_dir()
    return tuple(sorted(p.relative_to(root).as_posix() for p in root.rglob("*")
                  if p.is_file() and p.suffix in (".toml", ".txt")))


def prompt_path(name: str, user_dir: str | None = None) -> Path:
    """The file ``name`` (relative to llm/prompts/) of the user's prompt folder, else the built-in one."""
    if user_dir:
        p = Path(user_dir) / name
        if p.is_file():
            return p
    return prompt_dir() / name


def check_prompt_dir(user_dir: str) -> str:
    """``user_dir`` resolved, after checking that it is a folder whose files all have built-in
    names and parse (one UserError line otherwise); its TOML templates may use only the
    placeholders the built-in file of the same kind uses."""
    root = Path(user_dir)
    if not root.is_dir():
        raise UserError(f"--prompt-dir {user_dir}: {'not a folder' if root.exists() else 'not found'}")
    known = set(builtin_files())
    for p in sorted(root.rglob("*")):
        if not p.is_file():
            continue
        rel = p.relative_to(root).as_posix()
        if rel not in known:
            raise UserError(f"--prompt-dir {user_dir}: {rel} is not one of widthbench's prompt files "
                            "(`widthbench prompts export DIR` writes them all)")
        if p.suffix == ".toml":
            mine, builtin = read_toml(str(p)), read_toml(str(prompt_dir() / rel))
            for key, text in mine.items():
                extra = set(_FIELD.findall(text)) - set(_FIELD.findall(builtin.get(key, "")))
                if key not in builtin or extra:
                    what = f"unknown key {key!r}" if key not in builtin else \
                        f"placeholder(s) {listed('{' + x + '}' for x in sorted(extra))} not known here"
                    raise UserError(f"--prompt-dir {user_dir}: {rel}: {what} "
                                    f"(known: {listed(sorted(builtin))})")
    return str(root.resolve())


def read_text(path: str | Path) -> str:
    """A prompt file's text, read once per version of the file (a user may edit a --prompt-dir
    file between two runs in one process: the cache key holds its modification time and size)."""
    st = Path(path).stat()
    return _read_version(str(path), st.st_mtime_ns, st.st_size)


@functools.lru_cache(maxsize=512)
def _read_version(path: str, mtime_ns: int, size: int) -> str:
    return Path(path).read_text(encoding="utf-8")


def read_toml(path: str) -> dict[str, str]:
    """A prompt TOML file's string values (newlines at both ends stripped), read once per version."""
    st = Path(path).stat()
    return _toml_version(str(path), st.st_mtime_ns, st.st_size)


@functools.lru_cache(maxsize=512)
def _toml_version(path: str, mtime_ns: int, size: int) -> dict[str, str]:
    try:
        data = tomllib.loads(_read_version(path, mtime_ns, size))
    except tomllib.TOMLDecodeError as exc:
        raise UserError(f"{path}: not TOML ({exc})") from None
    return {k: v.strip("\n") for k, v in data.items() if isinstance(v, str)}


def missing_fields(user_dir: str) -> list[str]:
    """"file key: {field}, ..." for each template of ``user_dir`` that leaves out a placeholder of
    the built-in one: a model can answer it, but the simulated models cannot read it back."""
    out = []
    root = Path(user_dir)
    for rel in builtin_files():
        p = root / rel
        if p.suffix != ".toml" or not p.is_file():
            continue
        mine, builtin = read_toml(str(p)), read_toml(str(prompt_dir() / rel))
        for key, text in builtin.items():
            lost = set(_FIELD.findall(text)) - set(_FIELD.findall(mine.get(key, text)))
            if lost:
                out.append(f"{rel} {key}: {', '.join('{' + x + '}' for x in sorted(lost))}")
    return out


def prompt_digest(user_dir: str | None = None, novelty_prompt: str | None = None) -> str:
    """sha256 of the text of every prompt file a run with this prompt folder can use (each name with
    the text in force: the user's file, else the built-in one) and of the novelty prompt chosen:
    the same digest means the same prompts. For the run identity."""
    h = hashlib.sha256()
    for name in builtin_files():
        h.update(name.encode() + b"\0" + prompt_path(name, user_dir).read_bytes() + b"\0")
    h.update(f"novelty-prompt={novelty_prompt or 'widthbench'}".encode())
    return h.hexdigest()


def export_prompts(folder: str | Path) -> list[Path]:
    """Copy the built-in prompt files into ``folder`` (created), to edit and pass as --prompt-dir.
    A file already there is not overwritten (one UserError line)."""
    out = Path(folder)
    if out.exists() and not out.is_dir():
        raise UserError(f"{out}: not a folder")
    targets = [(prompt_dir() / name, out / name) for name in builtin_files()]
    clash = [str(t) for _, t in targets if t.exists()]
    if clash:
        raise UserError(f"{clash[0]} exists ({len(clash)} prompt file(s) in {out}); give a new or empty folder")
    written = []
    for src, dst in targets:
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, dst)
        written.append(dst)
    return written


def with_prompts(instances, user_dir: str | None = None, novelty_prompt: str | None = None) -> list:
    """``instances`` (`generators.Instance`) whose domain carries the prompt folder and the novelty
    prompt (`strips.with_presentation`), so every prompt about them is filled from those."""
    import dataclasses


    if not user_dir and not novelty_prompt:
        return list(instances)
    doms: dict = {}
    out = []
    for inst in instances:
        key = inst.domain if inst.domain_model is None else id(inst.domain_model)
        if key not in doms:
            base = inst.domain_model if inst.domain_model is not None else strips.load_domain(inst.domain)
            doms[key] = strips.with_presentation(base, prompt_dir=user_dir, novelty_prompt=novelty_prompt)
        out.append(dataclasses.replace(inst, domain_model=doms[key]))
    return out


def check_simulated_can_read(model_spec: str, user_dir: str | None, novelty_prompt: str | None,
                             asks_novelty: bool) -> None:
    """One UserError line when a task-aware simulated model (sim:oracle, sim:noisy:P, sim:random)
    could not read back the prompts a run would send it: templates of the prompt folder that leave
    out a placeholder (the simulator rebuilds the task from the fields), or the paper's novelty
    prompt, which gives neither the objects nor the static facts the states need."""
    if not model_spec.startswith("sim:") or model_spec.split(":")[1] not in ("oracle", "noisy", "random"):
        return
    lost = missing_fields(user_dir) if user_dir else []
    if lost:
        raise UserError(f"{model_spec} reads prompts back from their fields, and --prompt-dir {user_dir} "
                        f"leaves some out ({'; '.join(lost[:3])}{'; ...' if len(lost) > 3 else ''}): "
                        "keep the placeholders, or use a served model")
    if asks_novelty and (novelty_prompt or "widthbench") == "paper":
        raise UserError(f"{model_spec} cannot answer --novelty-prompt paper: Listing 1 gives neither the "
                        "objects nor the static facts the simulator needs to read the states back; use a "
                        "served model, or --novelty-prompt widthbench")


def run_domains(domain: str | None, instances: str | None = None, domain_file: str | None = None,
                context_file: str | None = None, templates_file: str | None = None,
                prompt_dir: str | None = None, novelty_prompt: str | None = None) -> tuple:
    """The `strips.Domain` a score or solve run writes its prompts for, with their presentation
    (for the simulated models, `widthbench.simulated.Simulator(domains=...)`); () for Game of 24 and
    question sets."""
    if instances:
        from widthbench.generators.instance import find_domain

        path = domain_file or find_domain(Path(instances))
    elif domain in DomainRegistry.default():
        path = domain
    else:
        return ()
    dom = strips.load_domain(path, context_file=context_file, templates_file=templates_file)
    return (strips.with_presentation(dom, prompt_dir=prompt_dir, novelty_prompt=novelty_prompt),)


def novelty_kind(novelty_prompt: str | None) -> str:
    """The template kind of a --novelty-prompt value."""
    choice = novelty_prompt or "widthbench"
    if choice not in _NOVELTY_FILES:
        raise UserError(f"--novelty-prompt {choice!r}: choose from {', '.join(NOVELTY_PROMPTS)}")
    return _NOVELTY_FILES[choice]


def load_kind(kind: str, user_dir: str | None = None) -> dict[str, str]:
    """The TOML table of one template kind: style -> text, plus any extra sentences (from the
    user's prompt folder when it has the file)."""
    path = prompt_path(f"{kind}.toml", user_dir)
    data = read_toml(str(path))
    for style in STYLES:
        if style not in data:
            raise UserError(f"{path}: no template for style {style!r}")
    return data


def template(kind: str, style: str, user_dir: str | None = None) -> str:
    if style not in STYLES:
        raise UserError(f"unknown style {style!r} (known: {', '.join(STYLES)})")
    return load_kind(kind, user_dir)[style]


def fill(kind: str, style: str, user_dir: str | None = None, **fields: str) -> str:
    text = template(kind, style, user_dir)
    missing = set(_FIELD.findall(text)) - set(fields)
    if missing:
        raise ValueError(f"template {kind}.{style} needs field(s) {', '.join(sorted(missing))}")
    return _FIELD.sub(lambda m: fields[m.group(1)], text)


# ---------------------------------------------------------------------------------------------
# Domain contexts


def _user_dir(domain) -> str | None:
    return (getattr(domain, "prompt_dir", "") or None) if not isinstance(domain, str) else None


def domain_key(domain_name: str) -> str:
    """The context file stem for a PDDL domain name (``blocksworld-4ops`` -> ``blocksworld``)."""
    name = domain_name.lower()
    stems = _stems()
    if name in stems:
        return name
    for stem in stems:
        if name.startswith(stem) or stem in name or (stem == "blocksworld" and "blocks" in name):
            return stem
    raise UserError(f"no domain context for domain {domain_name!r}: add llm/prompts/context.<name>.txt "
                    f"(have: {', '.join(stems)})")


def _read(name: str, user_dir: str | None = None) -> str:
    return read_text(prompt_path(name, user_dir)).strip()


def _stems() -> list[str]:
    return sorted(n[len("context."):-len(".txt")] for n in builtin_files()
                  if n.startswith("context.") and n.endswith(".txt"))


def hand_written_key(domain) -> str | None:
    """The stem of the hand-written context of a Domain (None: it has none)."""
    name = builtin_name(domain)
    if name is not None and name in _stems():
        return name
    return domain.name if domain.name in _stems() else None


def context_for(domain, user_dir: str | None = None) -> tuple[str, str]:
    """(context text, label) of a domain name or a `strips.Domain` (module docstring). A Domain's
    own prompt folder (``Domain.prompt_dir``) is used; ``user_dir`` serves a domain name."""
    if isinstance(domain, str):
        key = domain_key(domain)
        return _read(f"context.{key}.txt", user_dir), f"hand-written:{key}"
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
            result = (_read(f"context.{key}.txt", _user_dir(domain)), f"hand-written:{key}")
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
    return key is not None and f"extension.{key}.txt" in builtin_files()


def extension(domain, user_dir: str | None = None) -> str:
    key = _extension_key(domain)
    if not extension_available(domain):
        name = domain if isinstance(domain, str) else domain.name
        raise UserError(f"no prompt extension for domain {name!r} (llm/prompts/extension.{key or name}.txt)")
    return _read(f"extension.{key}.txt", _user_dir(domain) or user_dir)


def system_message(domain, extended: bool = False, user_dir: str | None = None) -> str:
    """The system message for a domain name or a `strips.Domain`."""
    text = context_for(domain, user_dir)[0]
    if extended:
        text += "\n\n" + extension(domain, user_dir)
    return text


def messages(domain, user: str, extended: bool = False) -> list[dict]:
    return [{"role": "system", "content": system_message(domain, extended)},
            {"role": "user", "content": user}]


def identify_domain(system: str, user_dir: str | None = None) -> tuple[str, bool]:
    """(domain key, extension on) of a system message written by `system_message`."""
    for key in _stems():
        ctx = _read(f"context.{key}.txt", user_dir)
        if system.strip() == ctx:
            return key, False
        if extension_available(key) and system.strip() == ctx + "\n\n" + extension(key, user_dir):
            return key, True
    raise ValueError("the system message is not one of widthbench's domain contexts")


def domain_of_system_message(system: str, user_dir: str | None = None):
    """(`strips.Domain`, extension on) of a system message: a hand-written context is its built-in
    domain; any other context must carry the domain's ``(define (domain ...))`` (generated contexts
    do), which is parsed back. ValueError when neither applies."""
    try:
        key, ext = identify_domain(system, user_dir)
        return strips.with_presentation(strips.load_domain(key), prompt_dir=user_dir), ext
    except (ValueError, _UserError):  # not hand-written, or hand-written for a domain not built in
        pass

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


def _template_regex(kind: str, style: str, user_dir: str | None = None) -> re.Pattern:
    return template_regex(template(kind, style, user_dir))


def match_user_message(text: str, user_dir: str | None = None) -> tuple[str, str, dict[str, str]]:
    """(kind, style, fields) of a user message filled from one of the templates (those of the
    prompt folder ``user_dir`` where it has them)."""
    for kind in KINDS:
        for style in STYLES:
            m = _template_regex(kind, style, user_dir).fullmatch(text.strip())
            if m:
                return kind, style, m.groupdict()
    raise ValueError("the user message matches none of widthbench's sub-task templates")

