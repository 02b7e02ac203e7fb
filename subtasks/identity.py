"""The parts of a run identity that say what the model was shown (docs/design.md, "The run store").

Files are identified by digests of their text, never by their names: editing a prompt template, a
context or an NL template file in place changes the identity, and so does an edited instance; moving
a folder does not. Used by `score` (`subtasks.score_run`) and `solve` (`searches.solve_run`).

- `prompt_templates_digest(user_dir, novelty_prompt)`: every prompt file in force (the user's
  --prompt-dir over the built-in folder) and the novelty prompt chosen.
- `instances_digest(folder)`: the domain and problem files and the manifest of an instance folder.
- `presentation(domain)`: the domain's PDDL (as parsed), its prompt context and its NL templates.
- `sampling(model)`: the sampling values the model sends in each mode (preset and every
  value; max_tokens is decided per item and recorded as the run's max_tokens policy).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from widthbench.llm.types import mode_params
from widthbench.pddl_domains.render import templates_for
from widthbench.subtasks.prompts import context_for, prompt_digest

# Bumped whenever a change to the readers can change a verdict on an answer already recorded, so
# that a run resumed across the change is refused instead of mixing two readers' verdicts.
# 2: issue 29's readers (answer blocks, commentary, PDDL-name calls, withdrawals, same-verdict readings);
# 3: issue 40's readers by principle (copies of one plan, withdrawals that name a step, any notation and
# spelling that names an action's objects, rules and labels no steps, the answer's end marker);
# 4: a step said to be not needed and kept for a reason ("not necessary, but ...") is a step;
# 5: an attempt the answer itself rejects gives way to the plan written afresh after it (rule 11).
READER_VERSION = 5


def digest(*parts: str | bytes) -> str:
    h = hashlib.sha256()
    for p in parts:
        h.update(p if isinstance(p, bytes) else p.encode("utf-8"))
        h.update(b"\0")
    return h.hexdigest()[:16]


def sample_seed(seed: int, sample: int) -> int:
    """The seed of sample ``sample`` of a ``--samples N`` run (score and solve), from the run seed: each
    sample's requests derive their sampling seeds from it, so no two samples are one request (and
    one cached reply)."""
    return int(digest(str(seed), "sample", str(sample)), 16) % 2**31


def path_digest(path: str | Path) -> str:
    """A file's bytes, or every file below a folder with its relative name (a MATH folder)."""
    path = Path(path)
    if path.is_dir():
        files = sorted(p for p in path.rglob("*") if p.is_file())
        return digest(*[x for p in files for x in (str(p.relative_to(path)), p.read_bytes())])
    return digest(path.read_bytes())


def prompt_templates_digest(user_dir: str | None = None, novelty_prompt: str | None = None) -> str:
    """The prompt files in force (a user's --prompt-dir over the built-in ones) and the novelty
    prompt chosen (`subtasks.prompts.prompt_digest`)."""
    return prompt_digest(user_dir, novelty_prompt)[:16]


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


def sampling(model) -> dict:
    """{"preset": name, "<mode>": {parameter: value sent}} in both modes (`Model.mode_params`; a
    model without one, such as a test's stand-in, by its preset and parameters); max_tokens only
    when the user set it."""
    preset = getattr(model, "preset", None)
    if hasattr(model, "mode_params"):
        return {"preset": preset, **model.mode_params()}
    return {"preset": preset, **mode_params(preset or "none", getattr(model, "params", None) or {})}
