"""The domain registry: one record per built-in domain; adding a built-in domain is adding one module
under generators/domains/ plus its data files (docs/design.md, "Extension paths")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from widthbench.core.errors import UserError
from widthbench.generators import generate
from widthbench.generators.domains import DOMAIN_DIR, PROMPT_DIR, BuiltinDomain, DomainRegistry

PACKAGE_DIR = Path(__file__).resolve().parents[2] / "generators" / "domains"

# A toy built-in domain: a robot in a corridor of cells. Its module holds the record and the
# generator; its data files are the domain and a hand-written context.
TOY_MODULE = '''
"""A toy built-in domain: a robot walks a corridor of cells to a goal cell."""
import random

from widthbench.generators.domains import BuiltinDomain, GeneratorOption


def generate(count, seed, cells="4", **options):
    from widthbench.generators.common import Candidate, collect, derive_seed, int_range
    from widthbench.generators.instance import to_instances
    from widthbench.planners.strips import ground, load_domain

    n_cells = int_range(cells, "--cells", minimum=2)
    dom = load_domain("corridor")

    def draw(master):
        n = n_cells.draw(master)
        rng = random.Random(s := derive_seed(master))
        names = [f"c{i}" for i in range(1, n + 1)]
        start, goal = rng.sample(names, 2)
        adj = [f"(adj {a} {b})" for a, b in zip(names, names[1:])] + [f"(adj {b} {a})" for a, b in zip(names, names[1:])]
        return Candidate({"cells": n}, s, tuple(names), (f"(at {start})", *adj), (f"(at {goal})",))

    accepted = collect(what="corridor instances", count=count, seed=seed, draw=draw,
                       to_task=lambda c: ground(dom, c.objects, c.init, c.goal, name="corridor"),
                       capacity=sum(n * (n - 1) for n in n_cells.values()), **options)
    return to_instances("cor", "corridor", accepted)


DOMAINS = (BuiltinDomain(name="corridor", title="Corridor", generate=generate, default="4 cells", order=50,
                         options=(GeneratorOption("cells", "cells in the corridor (default 4)"),)),)
'''

TOY_DOMAIN = """(define (domain corridor)
  (:requirements :strips)
  (:predicates (at ?c) (adj ?a ?b))
  (:action move
    :parameters (?from ?to)
    :precondition (and (at ?from) (adj ?from ?to))
    :effect (and (at ?to) (not (at ?from)))))
"""

TOY_CONTEXT = """You are solving problems in the Corridor domain.

A robot stands in one cell of a corridor; cells are adjacent to their neighbours.
- (at c): the robot is in cell c.
- (adj a b): cell a is next to cell b (static).
- (move a b): the robot moves from cell a to the adjacent cell b.
"""

TOY_FILES = {PACKAGE_DIR / "corridor.py": TOY_MODULE, DOMAIN_DIR / "corridor.pddl": TOY_DOMAIN,
             PROMPT_DIR / "context.corridor.txt": TOY_CONTEXT}


def test_default_registry_lists_the_builtin_domains_with_their_data_files():
    reg = DomainRegistry.default()
    assert reg.names == ("blocksworld", "logistics")
    bw, lg = reg
    assert bw.domain_file == DOMAIN_DIR / "blocksworld.pddl" and bw.domain_file.is_file()
    assert bw.templates["widthbench"].name == "blocksworld.nl.toml"
    assert bw.templates["planbench"].name == "blocksworld.planbench.toml"
    assert bw.context_file == PROMPT_DIR / "context.blocksworld.txt"
    assert bw.option_names == ("blocks",)
    assert lg.option_names == ("cities", "locations", "trucks", "airplanes", "packages")
    assert [o.name for o, _ in reg.options()] == ["blocks", "cities", "locations", "trucks", "airplanes", "packages"]
    assert reg.listed() == "blocksworld or logistics"


def test_generate_dispatches_through_the_record_and_checks_its_options():
    insts = generate("blocksworld", 2, 3, blocks="3", optimal=False)
    assert [i.params["blocks"] for i in insts] == [3, 3] and all(i.domain == "blocksworld" for i in insts)
    with pytest.raises(UserError, match=r"no generator for domain 'nope' \(choose from blocksworld, logistics\)"):
        generate("nope", 1, 0)
    with pytest.raises(UserError, match=r"blocksworld generator: unknown option\(s\) packages"):
        generate("blocksworld", 1, 0, packages="2")


def test_a_domain_defined_twice_or_without_its_domain_file_is_refused():
    bw = DomainRegistry.default().get("blocksworld")
    with pytest.raises(ValueError, match="defined twice"):
        DomainRegistry([bw, bw])
    with pytest.raises(ValueError, match="no domain file"):
        DomainRegistry([BuiltinDomain(name="no-such-domain", title="None", generate=bw.generate)])


def test_a_toy_builtin_domain_is_one_module_plus_data_files(toy_files, fresh_cli, tmp_path):
    toy_files(TOY_FILES)
    # CLI choices and help come from the registry
    helped = fresh_cli("generate", "--help", cwd=tmp_path)
    assert helped.returncode == 0 and "{blocksworld,logistics,corridor}" in helped.stdout
    assert "--cells N|LO-HI" in helped.stdout and "cells in the corridor (default 4)" in helped.stdout
    assert "corridor, 4 cells" in fresh_cli("score", "--help", cwd=tmp_path).stdout.replace("\n", " ").replace("  ", "")
    wrong = fresh_cli("generate", "corridor", "--blocks", "3", "--count", "1", "--seed", "0", "--out", "x", cwd=tmp_path)
    assert wrong.returncode == 2 and wrong.stderr.strip() == "widthbench generate: error: --blocks does not apply to corridor"

    made = fresh_cli("generate", "corridor", "--count", "4", "--cells", "3-4", "--seed", "5", "--out", "set", "--quiet",
                cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    assert "wrote 4 corridor instances" in made.stdout
    rows = [json.loads(x) for x in (tmp_path / "set" / "manifest.jsonl").read_text().splitlines()]
    assert [r["id"] for r in rows] == ["cor-0001", "cor-0002", "cor-0003", "cor-0004"]
    assert all(r["domain"] == "corridor" and r["optimal_length"] == len(r["optimal_plan"]) >= 1 for r in rows)
    assert (tmp_path / "set" / "domain.pddl").read_text() == TOY_DOMAIN

    scored = fresh_cli("score", "--model", "sim:oracle", "--domain", "corridor", "--subtask",
                  "action-generation,successor-separate", "--style", "both", "--thinking", "off", "--count", "3",
                  "--seed", "1", "--out", "run", "--no-cache", cwd=tmp_path)
    assert scored.returncode == 0, scored.stderr
    recs = [json.loads(x) for x in (tmp_path / "run" / "items.jsonl").read_text().splitlines()]
    assert len(recs) == 2 * 2 * 3 and all(r["correct"] for r in recs)
    nl = next(r for r in recs if r["style"] == "nl")
    # the prompt carries the toy's hand-written context
    assert "A robot stands in one cell of a corridor" in json.dumps(nl["prompt"])
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert {r["subtask"] for r in summary["rows"]} == {"action-generation", "successor-separate"}
    assert all(r["accuracy"] == 1.0 for r in summary["rows"])


def test_the_design_card_lists_the_toy_domains_files(extension_files):
    root = PACKAGE_DIR.parents[1]
    assert {str(p.relative_to(root)) for p in TOY_FILES} <= extension_files("built-in domain", "corridor")


def test_the_toy_is_gone_after_its_test():
    assert "corridor" not in DomainRegistry.default()
    assert not any(p.exists() for p in TOY_FILES)
