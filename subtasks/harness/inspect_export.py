"""The sub-tasks as an inspect_ai task folder (`widthbench export inspect`, docs/inspect.md).

`export_inspect(config, out)` writes the frozen item set `score` builds (`export.write_item_set`:
the same items, rows and instances as the lm-eval export, read back by `widthbench score --items`)
and ``widthbench_tasks.py``, one inspect task per sub-task x style x thinking mode, named as the
lm-eval tasks are (``widthbench_blocksworld_plan_verification_nl_nothink``). Each task function calls
`inspect_tasks.frozen_task` on the folder: no copy of a reader, scorer or prompt is written. Writing
the folder needs no inspect_ai; running its tasks does (``pip install 'widthbench[inspect]'``).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from widthbench.subtasks.harness import item_sets as export
from widthbench.subtasks.registry import Registry

HARNESS = "inspect"
TASK_FILE = "widthbench_tasks.py"
TEMPLATE_DIR = Path(__file__).resolve().parent  # inspect_tasks.py.txt, inspect_readme.md.txt


@dataclasses.dataclass(frozen=True)
class InspectExport:
    folder: Path
    tasks: tuple[str, ...]
    items: dict  # sub-task -> number of items
    rows: int


def task_function(name: str, subtask: str, style: str, thinking: bool) -> str:
    return "\n".join(["", "", "@task", f"def {name}():",
                      f"    return frozen_task(HERE, {subtask!r}, {style!r}, thinking={thinking})", ""])


def export_inspect(config, out_dir, *, registry: Registry | None = None) -> InspectExport:
    """Build ``config``'s items (as `score` builds them) and write the inspect task folder ``out_dir``."""
    registry = registry or Registry.default()
    written = export.write_item_set(config, out_dir, harness=HARNESS, old_task_files=(TASK_FILE,),
                                    registry=registry)
    tasks, code = [], [(TEMPLATE_DIR / "inspect_tasks.py.txt").read_text(encoding="utf-8").rstrip("\n")]
    for sub in written.items:
        for style in config.styles:
            for thinking in config.thinking:
                name = export.task_name(written.domain, sub, style, thinking)
                tasks.append(name)
                code.append(task_function(name, sub, style, thinking).rstrip("\n"))
    (written.folder / TASK_FILE).write_text("\n".join(code) + "\n", encoding="utf-8")
    meta = export.finish(written, tasks, [], registry)
    rows = "\n".join(f"| `{s}` | {n} |" for s, n in meta["items"].items())
    (written.folder / "README.md").write_text(
        (TEMPLATE_DIR / "inspect_readme.md.txt").read_text(encoding="utf-8").format(
            domain=meta["domain"], digest=meta["items_digest"], rows=rows, tasks=len(tasks),
            first=tasks[0], styles=", ".join(meta["styles"]), thinking=", ".join(meta["thinking"])),
        encoding="utf-8")
    return InspectExport(written.folder, tuple(tasks), meta["items"], written.rows)
