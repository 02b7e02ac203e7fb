"""Build script: which import packages and data files the distribution holds, read from the tree.

The design card's top-level folders (docs/design.md, "Layout and imports") are mapped into one import
package, `widthbench`: `planners/` is imported as `widthbench.planners`, and so on. Every folder
below them that holds an `__init__.py` is a package (found, never listed by hand, so a new folder
cannot be left out of a wheel), and every other file beside the modules (prompt templates, PDDL,
NL templates, report assets, generator data) ships as package data. `tests/test_layers.py` maps
import names to files with the same `package_map`, and `tests/test_wheel.py` builds the wheel and
compares its contents with the tree.
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent

# import name -> top-level folder (the design card's folders; the order is the layers' bottom up)
TOP_LEVEL = {
    "widthbench": "widthbench",
    "widthbench.pddl_domains": "pddl_domains",
    "widthbench.generators": "generators",
    "widthbench.planners": "planners",
    "widthbench.llm": "llm",
    "widthbench.subtasks": "subtasks",
    "widthbench.searches": "searches",
}

_SKIP_DIRS = {"__pycache__"}
_SKIP_SUFFIXES = {".py", ".pyc", ".pyo", ".orig", ".rej", ".swp"}


def _skipped(path: Path, top: Path) -> bool:
    parts = path.relative_to(top).parts
    return any(p in _SKIP_DIRS or p.startswith(".") for p in parts)


def package_map(root: Path = ROOT) -> dict[str, str]:
    """Every import package of the distribution -> its folder, relative to `root` ('/'-separated).

    A folder is a package when it holds `__init__.py` and so does every folder between it and its
    top-level folder."""
    out: dict[str, str] = {}
    for name, folder in TOP_LEVEL.items():
        top = root / folder
        if not (top / "__init__.py").is_file():
            raise FileNotFoundError(f"{top}: a top-level package folder without __init__.py")
        for init in sorted(top.rglob("__init__.py")):
            here = init.parent
            if _skipped(here, top):
                continue
            sub = here.relative_to(top).parts
            if not all((top.joinpath(*sub[:i]) / "__init__.py").is_file() for i in range(len(sub))):
                continue
            out[".".join((name, *sub))] = here.relative_to(root).as_posix()
    return out


def package_data(root: Path = ROOT, packages: dict[str, str] | None = None) -> dict[str, list[str]]:
    """Package -> the data files it owns (paths relative to its folder): every file that is not a
    module, in its folder or in a sub-folder that is not a package itself."""
    packages = package_map(root) if packages is None else packages
    owner_of = {folder: name for name, folder in packages.items()}
    out: dict[str, list[str]] = {}
    for name, folder in packages.items():
        base = root / folder
        for path in sorted(base.rglob("*")):
            if not path.is_file() or path.suffix in _SKIP_SUFFIXES or path.name.endswith("~"):
                continue
            if _skipped(path, base):  # a hidden file, or one under __pycache__ or a hidden folder
                continue
            owner = path.parent
            while owner.relative_to(root).as_posix() not in owner_of:
                owner = owner.parent
            if owner == base:
                out.setdefault(name, []).append(path.relative_to(base).as_posix())
    return out


if __name__ == "__main__":
    from setuptools import setup

    _packages = package_map()
    setup(packages=sorted(_packages), package_dir=_packages, package_data=package_data(ROOT, _packages),
          include_package_data=False)
