"""widthbench.generators: seeded instance generators and instance sets on disk.

- ``generate(domain, count, seed, **options) -> list[Instance]`` dispatches to the generator of the
  built-in domain's record (`generators.domains`: Blocksworld takes ``blocks``, Logistics ``cities``,
  ``locations``, ``trucks``, ``airplanes``, ``packages``); every generator also takes
  ``min_plan_length``, ``max_plan_length``, ``width`` (keep instances of that effective width),
  ``optimal``, ``planner``, ``timeout``,
  ``max_failed_draws`` and ``progress``; ``unsolvable=True`` draws certified unsolvable instances
  instead (`generators.unsolvable`: no optimal plans, no plan-length or width filters).
- ``write_instance_set(dir, domain, instances)`` / ``read_instance_set(dir)``: see ``instance.py``.

(The Game of 24 lives in ``generators.game24``; it is not a STRIPS domain and is not dispatched here.)
"""

from __future__ import annotations

from widthbench.core.errors import UserError, listed
from widthbench.generators.domains import COMMON_OPTIONS, DomainRegistry
from widthbench.generators.instance import Instance, read_instance_set, write_instance_set

__all__ = ["Instance", "generate", "read_instance_set", "write_instance_set"]


def generate(domain: str, count: int, seed: int, unsolvable: bool = False, **options) -> list[Instance]:
    """``count`` distinct seeded instances of ``domain``; same arguments -> same instances."""
    record = DomainRegistry.default().get(domain)
    allowed = {*record.option_names, *COMMON_OPTIONS}
    unknown = sorted(set(options) - allowed)
    if unknown:
        raise UserError(f"{domain} generator: unknown option(s) {listed(unknown, 60)} "
                        f"(known: {listed(sorted(allowed))})")
    if unsolvable:
        from widthbench.generators.unsolvable import generate_unsolvable

        for key in ("min_plan_length", "max_plan_length", "width"):
            if options.get(key) is not None:
                raise UserError(f"--unsolvable instances have no plan: --{key.replace('_', '-')} does not apply")
        base = {k: v for k, v in options.items() if k not in ("optimal", "planner", "timeout", "progress",
                                                             "min_plan_length", "max_plan_length", "width")}
        progress = options.get("progress")
        made = generate_unsolvable(lambda n: record.generate(n, seed, optimal=False, **base), count, seed,
                                   max_failed_draws=options.get("max_failed_draws", 2000))
        if progress is not None:
            progress(len(made))
        return made
    return record.generate(count, seed, **options)
