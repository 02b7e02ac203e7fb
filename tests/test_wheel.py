"""The built wheel holds every module and data file of the tree (setup.py finds packages, never lists them).

The expected contents come from an independent source: the folders named in docs/design.md's layout
table ("folder | import as"), and the files git tracks under them. A package folder the build's
discovery missed (as `widthbench/commands/` once was) or a data file it left out fails the test.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path, PurePosixPath

ROOT = Path(__file__).resolve().parent.parent


def design_card_folders() -> dict[str, str]:
    """folder -> import name, from docs/design.md's layout table (rows whose import name is ours)."""
    text = (ROOT / "docs" / "design.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `([a-z_]+)/` \| `(widthbench(?:\.[a-z_]+)?)` \|", text, flags=re.M)
    return dict(rows)


def tree_files() -> set[str]:
    """The paths a wheel must hold for the tracked files of the design card's folders."""
    folders = design_card_folders()
    listed = subprocess.run(["git", "ls-files", "-z", "--", *folders], cwd=ROOT, capture_output=True,
                            check=True).stdout.decode().split("\0")
    out = set()
    for rel in filter(None, listed):
        path = PurePosixPath(rel)
        if not (ROOT / rel).is_file():
            continue  # deleted in the working tree, not yet committed
        folder = path.parts[0]
        out.add("/".join((*folders[folder].split("."), *path.parts[1:])))
    return out


def test_the_design_card_names_every_top_level_package():
    folders = design_card_folders()
    assert folders["widthbench"] == "widthbench" and folders["searches"] == "widthbench.searches"
    assert set(folders) == {"widthbench", "pddl_domains", "generators", "planners", "searches", "subtasks", "llm"}


def clean_copy(dest: Path) -> Path:
    """The files git tracks, and the new ones it does not ignore, copied to `dest`: a build there
    cannot pick up a stale build/ folder of the checkout."""
    listed = subprocess.run(["git", "ls-files", "-z", "-co", "--exclude-standard"], cwd=ROOT,
                            capture_output=True, check=True).stdout.decode().split("\0")
    for rel in filter(None, listed):
        if (ROOT / rel).is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / rel, dest / rel)
    return dest


def test_the_wheel_holds_every_module_and_data_file_of_the_tree(tmp_path):
    src = clean_copy(tmp_path / "src")
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(tmp_path / "dist"),
                            str(src)], capture_output=True, text=True, timeout=600)
    assert build.returncode == 0, build.stderr[-2000:]
    (wheel,) = (tmp_path / "dist").glob("widthbench-*.whl")
    names = {n for n in zipfile.ZipFile(wheel).namelist() if ".dist-info/" not in n}
    expected = tree_files()
    assert {"widthbench/commands/score.py", "widthbench/searches/solve_run.py", "widthbench/llm/prompts/novelty.toml",
            "widthbench/pddl_domains/blocksworld.pddl", "widthbench/reports/assets/report.js",
            "widthbench/generators/data/24.csv"} <= expected
    missing, extra = sorted(expected - names), sorted(names - expected)
    assert not missing, f"in the tree, not in the wheel: {missing}"
    assert not extra, f"in the wheel, not tracked in the tree: {extra}"
