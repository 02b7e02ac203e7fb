"""widthbench.generators: seeded instance generators and instance sets on disk.

- ``generate(domain, count, seed, **options) -> list[Instance]`` dispatches to
  ``generators.blocksworld.generate`` (options: ``blocks``) or ``generators.logistics.generate``
  (options: ``cities``, ``locations``, ``trucks``, ``airplanes``, ``packages``); both also take
  ``min_plan_length``, ``max_plan_length``, ``width`` (keep instances of that effective width),
  ``optimal``, ``planner``, ``timeout``,
  ``max_failed_draws`` and ``progress``; ``unsolvable=True`` draws certified unsolvable instances
  instead (`generators.unsolvable`: no optimal plans, no plan-length or width filters).
- ``write_instance_set(dir, domain, instances)`` / ``read_instance_set(dir)``: see ``instance.py``.

(The Game of 24 lives in ``generators.game24``; it is not a STRIPS domain and is not dispatched here.)
"""

from __future__ import annotations

from widthbench.core.errors import UserError, listed
from widthbench.generators.instance import Instance, read_instance_set, write_instance_set

DOMAINS = ("blocksworld", "logistics")

__all__ = ["DOMAINS", "Instance", "generate", "read_instance_set", "write_instance_set"]


def generate(domain: str, count: int, seed: int, unsolvable: bool = False, **options) -> list[Instance]:
    """``count`` distinct seeded instances of ``domain``; same arguments -> same instances."""
    if domain == "blocksworld":
        from widthbench.generators import blocksworld as mod
    elif domain == "logistics":
        from widthbench.generators import logistics as mod
    else:
        raise UserError(f"no generator for domain {domain!r} (choose from {', '.join(DOMAINS)})")
    import inspect

    allowed = set(inspect.signature(mod.generate).parameters) - {"count", "seed"}
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
        made = generate_unsolvable(lambda n: mod.generate(n, seed, optimal=False, **base), count, seed,
                                   max_failed_draws=options.get("max_failed_draws", 2000))
        if progress is not None:
            progress(len(made))
        return made
    return mod.generate(count, seed, **options)
