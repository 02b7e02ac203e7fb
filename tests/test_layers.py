"""One-way layers (docs/design.md, "Layers"): no module imports a module of a higher layer.

Every module's imports are read with `ast` -- top-level and function-level ``import`` / ``from ...
import``, relative ones resolved, and string constants that name one of our modules (what
``importlib.import_module`` is handed) -- and each (importer, imported) pair is checked against the
layer map below. Inside layer 2, the classical planners never import the generators (generators use
the planners for their optimal plans; not the other way round).
"""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

import networkx as nx

ROOT = Path(__file__).resolve().parent.parent


def _load_setup():
    """The build script's `package_map` (setup.py): the same package list the wheel is built from."""
    spec = importlib.util.spec_from_file_location("widthbench_setup", ROOT / "setup.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module

# Bottom to top. A module may import its own layer and the layers below it.
LAYERS = (
    "0 errors and run files",
    "1 engine and rendering",
    "2 classical planners, widths and generators",
    "3 model layer",
    "4 sub-tasks",
    "5 LLM tree searches",
    "6 CLI, reports and the simulated models",
)


def layer(module: str) -> int:
    """The layer of a module of ours (``widthbench.…``)."""
    if module == "widthbench" or _under(module, "widthbench.core"):
        return 0
    if module in ("widthbench.planners.strips", "widthbench.planners.problem_reader",
                  "widthbench.planners.problem_writer") or _under(module, "widthbench.pddl_domains"):
        return 1
    if _under(module, "widthbench.searches"):
        return 5
    if _under(module, "widthbench.planners") or _under(module, "widthbench.generators"):
        return 2
    if _under(module, "widthbench.llm"):
        return 3
    if _under(module, "widthbench.subtasks"):
        return 4
    if module in ("widthbench.cli", "widthbench.__main__", "widthbench.argtypes", "widthbench.inspect_entry") or _under(module, "widthbench.commands") \
            or _under(module, "widthbench.reports") or _under(module, "widthbench.simulated"):
        return 6
    raise AssertionError(f"{module}: no layer (add it to tests/test_layers.py and docs/design.md)")


# Upward imports that exist today and are to be removed. Any pair not listed fails the test; a
# listed pair that no longer occurs fails it too, so the list only shrinks. (Empty: the simulated
# models are handed to the model layer by the commands, `widthbench.simulated`.)
KNOWN_UPWARD: set[tuple[str, str]] = set()


def _under(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def _modules() -> dict[str, Path]:
    """Every module of the import package, by dotted name (folders mapped by the build's own
    `package_map`, so a module the wheel holds is a module this test checks)."""
    out: dict[str, Path] = {}
    for package, folder in _load_setup().package_map(ROOT).items():
        for path in sorted((ROOT / folder).glob("*.py")):
            name = package if path.stem == "__init__" else f"{package}.{path.stem}"
            out[name] = path
    return out


def _imports(module: str, path: Path, known: set[str]) -> set[str]:
    """Our modules that ``module`` imports (anywhere in the file) or names in a string constant."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    is_package = path.stem == "__init__"
    found: set[str] = set()

    def add(name: str) -> None:
        # the longest prefix that is one of our modules ("a.b.c" imported as "a.b" + name "c")
        while name and name not in known:
            name = name.rpartition(".")[0]
        if name:
            found.add(name)

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(alias.name)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module if is_package else module.rpartition(".")[0]
                for _ in range(node.level - 1):
                    base = base.rpartition(".")[0]
                target = f"{base}.{node.module}" if node.module else base
            else:
                target = node.module or ""
            for alias in node.names:
                add(f"{target}.{alias.name}")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in known:
            found.add(node.value)
    found.discard(module)
    return {m for m in found if _under(m, "widthbench")}


def _edges() -> set[tuple[str, str]]:
    modules = _modules()
    known = set(modules)
    return {(m, dep) for m, path in modules.items() for dep in _imports(m, path, known)}


def test_every_module_has_a_layer():
    for m in _modules():
        layer(m)


def test_no_module_imports_a_higher_layer():
    upward = {(a, b) for a, b in _edges() if layer(b) > layer(a)}
    new = sorted(upward - KNOWN_UPWARD)
    assert not new, "upward imports (see docs/design.md, Layers):\n" + "\n".join(
        f"  {a} (layer {LAYERS[layer(a)]}) imports {b} (layer {LAYERS[layer(b)]})" for a, b in new)
    gone = sorted(KNOWN_UPWARD - upward)
    assert not gone, f"no longer imported upward: remove from KNOWN_UPWARD in tests/test_layers.py: {gone}"


def test_the_model_layer_stands_on_layer_0_only():
    """llm.* talks to models; it knows nothing of tasks, planners or rendering (prompts arrive as
    messages), so it imports only errors/run files besides itself."""
    wrong = sorted((a, b) for a, b in _edges() if layer(a) == 3 and layer(b) not in (0, 3)
                   and (a, b) not in KNOWN_UPWARD)
    assert not wrong, f"the model layer imports more than layer 0: {wrong}"


def test_classical_planners_never_import_the_generators():
    wrong = sorted((a, b) for a, b in _edges()
                   if layer(a) == 2 and _under(a, "widthbench.planners") and _under(b, "widthbench.generators"))
    assert not wrong, f"planners import generators: {wrong}"


def test_the_reader_sees_function_level_relative_and_string_imports(tmp_path):
    src = tmp_path / "probe.py"
    src.write_text("import importlib\n\ndef f():\n    from widthbench.planners import iw\n"
                   "    from . import strips\n    return importlib.import_module('widthbench.subtasks.api')\n",
                   encoding="utf-8")
    known = {"widthbench.planners.iw", "widthbench.planners.strips", "widthbench.subtasks.api",
             "widthbench.planners"}
    assert _imports("widthbench.planners.probe", src, known) == known - {"widthbench.planners"}


def _module_cycles(edges: set[tuple[str, str]]) -> list[list[str]]:
    """Import cycles between modules, function-level imports included. A package's ``__init__`` and
    its own sub-modules importing each other is how Python packages re-export, not a cycle."""
    graph = nx.DiGraph()
    graph.add_edges_from((a, b) for a, b in edges if not (_under(a, b) or _under(b, a)))
    return [sorted(c) for c in nx.strongly_connected_components(graph) if len(c) > 1]


def test_no_module_import_cycles():
    cycles = _module_cycles(_edges())
    assert not cycles, "modules that import each other (one must go one way):\n" + "\n".join(
        "  " + " <-> ".join(c) for c in cycles)


def test_every_package_folder_is_seen():
    """The commands, reports, simulated models and searches are checked like every other module."""
    modules = _modules()
    for name in ("widthbench.commands.score", "widthbench.reports.html", "widthbench.simulated.prompt",
                 "widthbench.searches.solve_run", "widthbench.subtasks.definitions.successor"):
        assert name in modules, name
    assert layer("widthbench.commands.score") == 6 and layer("widthbench.searches.solve_run") == 5


def test_an_upward_import_from_a_command_would_be_caught():
    """A command importing the layer above it is impossible (6 is the top); a sub-task module
    importing a command is caught, and so is a cycle through function-level imports."""
    assert layer("widthbench.commands.score") > layer("widthbench.subtasks.score_run")
    edges = {("widthbench.planners.fd", "widthbench.planners.optimal"),
             ("widthbench.planners.optimal", "widthbench.planners.fd"),
             ("widthbench.searches", "widthbench.searches.solve_run")}
    assert _module_cycles(edges) == [["widthbench.planners.fd", "widthbench.planners.optimal"]]


def _room(module: str, modules: dict) -> str:
    """The folder a module sits in (a package is its own folder)."""
    return module if modules[module].stem == "__init__" else module.rpartition(".")[0]


def _private_uses(module: str, path: Path, modules: dict) -> set[tuple[str, str]]:
    """(module, name) of every private name (``_x``) this module takes from another module of ours:
    ``from M import _x`` and ``M._x`` where M is a module it imported under a name."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    bound, out = {}, set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module in modules:
            for alias in node.names:
                if alias.name.startswith("_") and not alias.name.startswith("__"):
                    out.add((node.module, alias.name))
                elif f"{node.module}.{alias.name}" in modules:
                    bound[alias.asname or alias.name] = f"{node.module}.{alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname and alias.name in modules:
                    bound[alias.asname] = alias.name
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in bound \
                and node.attr.startswith("_") and not node.attr.startswith("__"):
            out.add((bound[node.value.id], node.attr))
    return out


def test_no_private_name_crosses_a_room():
    """A folder's private names (``_x``) stay in the folder: another room imports public names only
    (docs/design.md, "The rooms")."""
    modules = _modules()
    crossing = sorted((m, target, name) for m, path in modules.items()
                      for target, name in _private_uses(m, path, modules)
                      if _room(target, modules) != _room(m, modules))
    assert not crossing, "private names used across rooms:\n" + "\n".join(
        f"  {m} uses {target}.{name}" for m, target, name in crossing)
