"""How every registry finds its records: the modules of a package, each defining a tuple of records.

The sub-task registry scans `widthbench.subtasks.definitions` for ``SUBTASKS``, the domain registry
`widthbench.generators.domains` for ``DOMAINS``, the model backends `widthbench.llm.backends` for
``BACKENDS`` and the report writers `widthbench.reports` for ``REPORTS`` (docs/design.md, "The
registries"). Adding a record is adding a module; nothing lists them by hand. `records_in_file` reads
the records of a user's module file (`solve --method-module`, `Registry.from_modules`). `Records`
is what every registry is: its records by name, in their order.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import pkgutil
from types import MappingProxyType

from widthbench.core.errors import UserError, listed


def records_in(package: str, attribute: str) -> list:
    """The records every module of ``package`` defines as ``attribute`` (a tuple), the modules taken
    in the order of their names."""
    found = []
    for info in sorted(pkgutil.iter_modules(importlib.import_module(package).__path__), key=lambda m: m.name):
        found += list(getattr(importlib.import_module(f"{package}.{info.name}"), attribute, ()))
    return found


def records_in_file(path, attribute: str, what: str) -> list:
    """The records a module file (a user's extension) defines as ``attribute``; UserError when it
    cannot be loaded as a ``what`` module or defines none. A missing file is FileNotFoundError, for
    the caller to name its flag."""
    spec = importlib.util.spec_from_file_location(f"widthbench_user_{attribute.lower()}_{abs(hash(str(path)))}", path)
    if spec is None or spec.loader is None:
        raise UserError(f"cannot load {what} module {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    found = list(getattr(module, attribute, ()))
    if not found:
        raise UserError(f"{path}: defines no {attribute}")
    return found


def keyed(records, key: str, what: str) -> MappingProxyType:
    """{record's ``key``: record}, read-only, in the records' order; a key defined twice is a
    ValueError naming ``what`` ("sub-task 'novelty' is defined twice")."""
    out: dict = {}
    for record in records:
        name = getattr(record, key)
        if name in out:
            raise ValueError(f"{what} {name!r} is defined twice")
        out[name] = record
    return MappingProxyType(out)


class Records:
    """An ordered, read-only set of records by name: what every registry is. A registry says where
    its built-in records are (``PACKAGE``, each module's ``ATTRIBUTE``: `records_in`), which field
    names a record (``KEY``), what one is called in messages (``WHAT``) and, by `order_key`, their
    order (default: the record's ``order``, then its name)."""

    PACKAGE = ""
    ATTRIBUTE = ""
    KEY = "name"
    WHAT = "record"

    def __init__(self, records):
        self._records = found = keyed(records, self.KEY, self.WHAT)
        self.names: tuple[str, ...] = tuple(sorted(found, key=lambda n: self.order_key(n, found[n])))

    def order_key(self, name: str, record):
        return record.order, name

    @classmethod
    def default(cls):
        """The built-in records (every module of ``PACKAGE``), made once."""
        return _built_in(cls)

    def __contains__(self, name) -> bool:
        return name in self._records

    def __iter__(self):
        return (self._records[n] for n in self.names)

    def get(self, name: str):
        try:
            return self._records[name]
        except KeyError:
            raise UserError(self.unknown(name)) from None

    def unknown(self, name: str) -> str:
        """The error line for a name no record has."""
        return f"unknown {self.WHAT} {name!r} (known: {listed(list(self.names), 200)})"


@functools.cache
def _built_in(cls) -> Records:
    return cls(records_in(cls.PACKAGE, cls.ATTRIBUTE))
