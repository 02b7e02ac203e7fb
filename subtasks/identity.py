"""The parts of a run identity that say what the model was shown (docs/design.md, "The run store").

Files are identified by digests of their text, never by their names: editing a prompt template, a
context or an NL template file in place changes the identity, and so does an edited instance; moving
a folder does not. Used by `score` (`subtasks.run`) and `solve` (`searches.run`).

- `prompt_templates_digest()`: every file of the prompt template folder (`subtasks.prompts.prompt_dir`).
- `instances_digest(folder)`: the domain and problem files and the manifest of an instance folder.
- `presentation(domain)`: the domain's PDDL (as parsed), its prompt context and its NL templates.
- `sampling(model, thinking)`: the sampling values the model sends in each mode (preset and every
  value; max_tokens is decided per item and recorded as the run's max_tokens policy).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from widthbench.llm.types import Request, mode_name, resolve_params
from widthbench.pddl_domains.render import templates_for
from widthbench.subtasks.prompts import context_for, prompt_dir

# Bumped whenever a change to the readers can change a verdict on an answer already recorded, so
# that a run resumed across the change is refused instead of mixing two readers' verdicts.
READER_VERSION = 1


def digest(*parts: str | bytes) -> str:
    h = hashlib.sha256()
    for p in parts:
        h.update(p if isinstance(p, bytes) else p.encode("utf-8"))
        h.update(b"\0")
    return h.hexdigest()[:16]


def folder_digest(folder: Path, pattern: str = "*") -> str:
    files = sorted(p for p in folder.rglob(pattern) if p.is_file() and "__pycache__" not in p.parts)
    return digest(*[x for p in files for x in (str(p.relative_to(folder)), p.read_bytes())])


def prompt_templates_digest() -> str:
    return folder_digest(prompt_dir())


def instances_digest(folder: str | Path) -> str:
    """Digest of an instance folder's PDDL files and manifest (the files `read_instance_set` reads)."""
    folder = Path(folder)
    files = sorted([*folder.glob("*.pddl"), *folder.glob("manifest.jsonl")])
    return digest(*[x for p in files for x in (p.name, p.read_bytes())])


def presentation(domain) -> dict:
    """Digests of what a prompt about ``domain`` (a `strips.Domain`) shows besides the instance."""
    text, label = context_for(domain)
    return {"domain": digest(domain.text or repr((domain.name, domain.predicates, domain.schemas))),
            "context": digest(text), "context_source": label.split(":", 1)[0],
            "nl_templates": digest(repr(templates_for(domain)))}


def sampling(model, thinking: tuple[bool, ...]) -> dict:
    """{"preset": name, "<mode>": {parameter: value sent}} for the run's thinking modes."""
    preset = getattr(model, "preset", None)
    out: dict = {"preset": preset}
    for t in thinking:
        params = resolve_params(Request(messages=({"role": "user", "content": ""},), thinking=t),
                                preset or "none", getattr(model, "params", None) or {})
        params.pop("max_tokens", None)
        out[mode_name(t)] = params
    return out
