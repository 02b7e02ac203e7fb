"""The two generated domains of the paper: Blocksworld (PlanBench's 4-operator domain) and Logistics.

Their generators (`generators.blocksworld`, `generators.logistics`) ground tasks and compute optimal
plans, so they are imported when a set is generated, not when the CLI reads these records.
"""

from __future__ import annotations

from widthbench.generators.domains import BuiltinDomain, GeneratorOption


def generate_blocksworld(count: int, seed: int, **options) -> list:
    from widthbench.generators import blocksworld

    return blocksworld.generate(count, seed, **options)


def generate_logistics(count: int, seed: int, **options) -> list:
    from widthbench.generators import logistics

    return logistics.generate(count, seed, **options)


DOMAINS = (
    BuiltinDomain(
        name="blocksworld", title="Blocksworld", generate=generate_blocksworld, default="4-5 blocks", order=1,
        options=(GeneratorOption("blocks", "number of blocks (default 4-5, as PlanBench)"),)),
    BuiltinDomain(
        name="logistics", title="Logistics", generate=generate_logistics, order=2,
        options=(GeneratorOption("cities", "cities (default 2)"),
                 GeneratorOption("locations", "locations per city, one of them the airport (default 2)"),
                 GeneratorOption("trucks", "trucks, at least one per city (default: one per city)"),
                 GeneratorOption("airplanes", "airplanes (default 1)"),
                 GeneratorOption("packages", "packages (default 1-3)"))),
)
