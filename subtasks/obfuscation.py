"""What a run records of ``--obfuscate mode --obfuscate-seed N`` (docs/rendering.md, "Obfuscated domains").

`identity(mode, seed, domain, instances, domain_file)` gives the run-identity fields: ``obfuscate:
{mode, seed}`` and, beside it, ``obfuscation_mapping``: the domain's renaming (domain name,
predicates, actions, types, constants; `pddl_domains.obfuscate.Renaming.mapping`) and how objects are
named. Empty without obfuscation, so runs made before the flag existed still resume.
"""

from __future__ import annotations

from pathlib import Path

from widthbench.pddl_domains import obfuscate
from widthbench.planners import strips
from widthbench.core.errors import UserError

OBJECTS_RULE = ("each object's new name is picked by a hash of (mode, seed, its name), the next free one "
                "on a collision within its task; the prompts show them")


def check(obfuscation) -> tuple:
    """``(mode, seed)`` checked, or () for none."""
    if not obfuscation:
        return ()
    mode, seed = obfuscation
    return (obfuscate.check_mode(mode), int(seed))


def domain_of(domain: str, instances: str | None, domain_file: str | None) -> strips.Domain:
    if domain_file:
        return strips.load_domain(domain_file)
    if instances:
        from widthbench.generators.instance import find_domain

        return strips.load_domain(find_domain(Path(instances)))
    return strips.load_domain(domain)


def identity(obfuscation, domain: str, instances: str | None = None, domain_file: str | None = None) -> dict:
    if not obfuscation:
        return {}
    mode, seed = check(obfuscation)
    mapping = obfuscate.renaming(domain_of(domain, instances, domain_file), mode, seed).mapping()
    mapping.pop("mode")
    mapping.pop("seed")
    return {"obfuscate": {"mode": mode, "seed": seed}, "obfuscation_mapping": {**mapping, "objects": OBJECTS_RULE}}


# ---------------------------------------------------------------------------------------------
# The command-line flags (generate, render, score, solve, export)


def add_arguments(parser) -> None:
    parser.add_argument("--obfuscate", default=None, choices=obfuscate.MODES,
                        help="rename predicates, actions, types and objects in every prompt and in the "
                        "answers read back: unrelated common words (mystery), random strings (random) or "
                        "another domain's vocabulary (deceptive); truth and scoring are the plain run's "
                        "(docs/rendering.md)")
    parser.add_argument("--obfuscate-seed", type=int, default=0, metavar="N",
                        help="seed of the renaming (default 0; with --obfuscate)")


def from_args(args) -> tuple:
    """``(mode, seed)`` from --obfuscate/--obfuscate-seed, () without --obfuscate."""
    mode = getattr(args, "obfuscate", None)
    if mode is None:
        if getattr(args, "obfuscate_seed", 0):
            raise UserError("--obfuscate-seed needs --obfuscate mystery|random|deceptive")
        return ()
    return check((mode, args.obfuscate_seed))


# ---------------------------------------------------------------------------------------------
# The report's note


def report_lines(summary: dict, run: str) -> list[str]:
    """Markdown lines naming a run's obfuscation and its renaming ([] for a plain run)."""
    config = summary.get("config") or summary.get("source") or {}
    ob = config.get("obfuscate")
    if not ob:
        return []
    mapping = config.get("obfuscation_mapping") or {}
    out = [f"### Obfuscated names ({run})", "",
           f"Prompts showed the domain renamed: `--obfuscate {ob['mode']} --obfuscate-seed {ob['seed']}` "
           "(truth and scoring are the plain run's; answers were read back into the original names).", "",
           "| kind | original | shown as |", "|---|---|---|"]
    if mapping.get("domain"):
        out.append(f"| domain | | {mapping['domain']} |")
    for kind in ("predicates", "actions", "types", "constants"):
        for original, new in (mapping.get(kind) or {}).items():
            out.append(f"| {kind[:-1]} | {original} | {new} |")
    if isinstance(mapping.get("objects"), str):
        out += ["", f"Objects: {mapping['objects']}."]
    return out + [""]
