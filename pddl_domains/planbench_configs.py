"""PlanBench's YAML configs (``configs/<variant>.yaml``) read as a domain context plus a template set.

A PlanBench config names a variant's instance folder and domain file (``instance_dir``,
``domain_file``, relative to PlanBench's ``instances`` folder), its natural-language domain
description (``domain_intro``), its sentence templates for predicates and actions (``predicates``,
``actions``: ``"{} craves {}"``, the PDDL arguments in order) and its object names
(``encoded_objects``: ``"a": "object a"``, or by first letter with the digits of the name filled
in, ``"p": "package_{}"`` for p0, ``"l": "location_{}_{}"`` for l1-0); ``encoded_objects_compact``
gives short names that are also read (``"red"`` for ``"red block"``).

`config_tables` reads one and `render.template_set_for` makes it a `TemplateSet`, so a `Renderer` built with the config's
path as its template set (``Renderer(task, "nl", "…/mystery_blocksworld.yaml")``, or
``--templates FILE.yaml``) writes and reads a variant's states, goals and plans word for word as
PlanBench's prompts do (tests/pddl_domains/test_planbench_configs.py checks them against PlanBench's
stored prompts). A config without templates (Sokoban, the PDDL-only sets) gives ``None``: such
variants are asked in PDDL.

`find_variant` maps a PlanBench result file's variant (its ``results/<variant>/`` folder or its
``domain`` field) to its config in a PlanBench data root (the folder holding ``plan-bench/`` and
``llm_planning_analysis/``) and resolves the instance folder and domain file, which PlanBench keeps
in either part's ``instances`` folder.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path

from widthbench.core.errors import UserError

CONFIG_SUFFIXES = (".yaml", ".yml")
_PARTS = ("llm_planning_analysis", "plan-bench")  # the two halves of PlanBench's data, searched in order
PARTS = _PARTS
#: PlanBench names a few results folders differently from the config they were made with.
_RESULT_FOLDER_ALIASES = {"obfuscated_randomized_blocksworld": "random_blocksworld",
                          "obfuscated_randomized_blocksworld_3": "random_blocksworld_3"}


def is_config(templates: str | None) -> bool:
    """True when ``templates`` names a PlanBench YAML config (by its suffix)."""
    return bool(templates) and str(templates).lower().endswith(CONFIG_SUFFIXES)


@dataclass(frozen=True, slots=True)
class PlanBenchConfig:
    path: str
    name: str  # domain_name
    instance_dir: str  # relative to an instances folder
    domain_file: str
    intro: str  # domain_intro, "" when the config has none
    has_templates: bool


@functools.lru_cache(maxsize=64)
def _load_yaml(path: str) -> dict:
    import yaml  # PyYAML: read only when a PlanBench config is used

    try:
        with open(path, encoding="utf-8") as f:
            data = yaml.safe_load(f)
    except OSError as exc:
        raise UserError(f"cannot read PlanBench config {path}: {exc.strerror}") from None
    except yaml.YAMLError as exc:
        raise UserError(f"{path}: not a YAML file ({str(exc).splitlines()[0]})") from None
    if not isinstance(data, dict):
        raise UserError(f"{path}: not a PlanBench config (expected a mapping of keys)")
    return data


def load_config(path: str | Path) -> PlanBenchConfig:
    p = str(Path(path).resolve())
    if not Path(p).is_file():
        raise UserError(f"PlanBench config not found: {path}")
    data = _load_yaml(p)
    return PlanBenchConfig(p, str(data.get("domain_name", Path(p).stem)), str(data.get("instance_dir", "")),
                           str(data.get("domain_file", "")), str(data.get("domain_intro") or "").strip(),
                           isinstance(data.get("actions"), dict) and isinstance(data.get("predicates"), dict))


def _slots(template: str) -> str:
    """PlanBench's positional ``{}`` as numbered slots ``{0}``, ``{1}``, ... (whitespace normalised)."""
    counter = iter(range(100))
    return " ".join(re.sub(r"\{\}", lambda _: "{%d}" % next(counter), str(template)).split()).lower()


def config_tables(path: str) -> dict | None:
    """A config's templates as plain tables: ``predicates`` and ``actions`` (name -> one template with
    numbered slots), ``encoded`` and ``compact`` object names; None when it has no templates.
    (`render.template_set_for` builds the `TemplateSet` from these.)"""
    data = _load_yaml(str(Path(path).resolve()))
    preds, acts = data.get("predicates"), data.get("actions")
    if not isinstance(preds, dict) or not isinstance(acts, dict):
        return None

    def names(key: str) -> dict:
        return {str(k).lower(): " ".join(str(v).split()).lower() for k, v in (data.get(key) or {}).items()}

    return {"predicates": {str(k).lower(): _slots(v if v is not None else "") for k, v in preds.items()},
            "actions": {str(k).lower(): _slots(v if v is not None else "") for k, v in acts.items()},
            "encoded": names("encoded_objects"), "compact": names("encoded_objects_compact")}


def encoded_name(obj: str, encoded: dict) -> str | None:
    """PlanBench's name of object ``obj``: its own entry, else its first letter's entry with the
    digit groups of the name filled in (``l1-0`` -> ``location_1_0``); None when neither applies."""
    o = obj.lower()
    if o in encoded and "{}" not in encoded[o]:
        return encoded[o]
    pattern = encoded.get(o[:1])
    digits = re.findall(r"\d+", o)
    if pattern and pattern.count("{}") == len(digits) and digits:
        return pattern.format(*digits)
    return None


# ---------------------------------------------------------------------------------------------
# Variants in a PlanBench data root


def is_data_root(d: str | Path) -> bool:
    """True for the folder holding PlanBench's ``plan-bench/`` and/or ``llm_planning_analysis/``
    with their ``instances`` folders."""
    return any((Path(d) / part / "instances").is_dir() for part in _PARTS)


@dataclass(frozen=True, slots=True)
class Variant:
    name: str  # the config's domain_name
    config: PlanBenchConfig
    domain_file: Path
    instance_dir: Path


def find_variant(root: str | Path, names: list[str]) -> Variant:
    """The first of ``names`` (a result file's variant folder, then its ``domain`` field) that names a
    config in ``root`` (module doc), with its domain file and instance folder resolved."""
    root = Path(root)
    tried = []
    for name in names:
        for n in _candidates(name):
            tried.append(n)
            for part in _PARTS:
                path = root / part / "configs" / f"{n}.yaml"
                if path.is_file():
                    return _resolve(root, load_config(path))
    raise UserError(f"{root}: no PlanBench config for variant {names[0]!r} (looked for "
                    f"{', '.join(dict.fromkeys(tried))} in */configs)")


def _candidates(name: str) -> list[str]:
    n = name.lower().strip().strip("/")
    n = re.sub(r"_zero_shot(?=$|_)", "", n)  # "blocksworld_zero_shot_3" -> "blocksworld_3"
    return [x for x in (n, _RESULT_FOLDER_ALIASES.get(n)) if x]


def _resolve(root: Path, cfg: PlanBenchConfig) -> Variant:
    def find(rel: str, what: str, kind) -> Path:
        for part in _PARTS:
            p = root / part / "instances" / rel
            if kind(p):
                return p
        raise UserError(f"{cfg.path}: its {what} {rel!r} is in neither {root}/plan-bench/instances nor "
                        f"{root}/llm_planning_analysis/instances")

    return Variant(cfg.name, cfg, find(cfg.domain_file, "domain_file", Path.is_file),
                   find(cfg.instance_dir, "instance_dir", Path.is_dir))
