"""The documentation's examples run as written (issue 25).

A fenced code block of README.md or docs/*.md whose previous line is the marker ``<!-- runnable -->``
is run as a bash script (``set -e -o pipefail``: every command must exit 0) in a fresh folder laid out
like the checkout, so that ``../shared/data`` and ``widthbench`` mean what they mean to a reader in the
checkout, with a private reply cache. Mark only blocks that run here fast and with no server
(simulated models); the others (real models, hours-long reproductions) stay unmarked.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import DATA, REPO, SHARED, need_data

MARKER = "<!-- runnable -->"
DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
FENCE = re.compile(r"^```(\w*)\s*$")


@dataclass(frozen=True)
class Block:
    file: Path
    line: int  # 1-based line of the opening fence
    lang: str
    text: str

    @property
    def name(self) -> str:
        return f"{self.file.relative_to(REPO)}:{self.line}"


def runnable_blocks(path: Path) -> list[Block]:
    """The marked blocks of one Markdown file; a marker not followed by a bash block is an error."""
    lines = path.read_text(encoding="utf-8").splitlines()
    blocks = []
    for i, line in enumerate(lines):
        if line.strip() != MARKER:
            continue
        fence = FENCE.match(lines[i + 1]) if i + 1 < len(lines) else None
        if fence is None or fence.group(1) not in ("bash", "sh"):
            raise AssertionError(f"{path.name}:{i + 1}: {MARKER} must be followed by a ```bash block")
        end = next(j for j in range(i + 2, len(lines)) if lines[j].startswith("```"))
        blocks.append(Block(path, i + 2, fence.group(1), "\n".join(lines[i + 2:end]) + "\n"))
    return blocks


BLOCKS = [b for path in DOCS for b in runnable_blocks(path)]


def test_the_examples_a_newcomer_meets_first_are_marked():
    names = {b.file.name for b in BLOCKS}
    assert {"README.md", "domains.md"} <= names
    text = "".join(b.text for b in BLOCKS)
    for command in ("generate", "render", "plan", "validate", "score", "report", "solve", "widths"):
        assert f"widthbench {command} " in text, command


def test_a_marker_must_mark_a_bash_block(tmp_path):
    doc = tmp_path / "doc.md"
    doc.write_text(f"text\n{MARKER}\nnot a block\n")
    with pytest.raises(AssertionError, match="must be followed by"):
        runnable_blocks(doc)
    doc.write_text(f"{MARKER}\n```bash\nwidthbench --help\n```\n")
    (block,) = runnable_blocks(doc)
    assert (block.line, block.text) == (2, "widthbench --help\n")


def _checkout(tmp_path: Path) -> Path:
    """tmp/checkout (the working folder) beside tmp/shared (a link to the reference data)."""
    work = tmp_path / "checkout"
    work.mkdir()
    (tmp_path / "shared").symlink_to(SHARED, target_is_directory=True)
    return work


def _env(tmp_path: Path) -> dict[str, str]:
    bin_dir = str(Path(sys.executable).parent)  # the venv's widthbench and python
    return {**os.environ, "PATH": bin_dir + os.pathsep + os.environ.get("PATH", ""),
            "WIDTHBENCH_CACHE_DIR": str(tmp_path / "cache"), "PYTHONDONTWRITEBYTECODE": "1"}


def run_block(block: Block, tmp_path: Path, timeout: float = 600) -> subprocess.CompletedProcess:
    script = "set -e -o pipefail\n" + block.text
    return subprocess.run(["bash", "-c", script], cwd=_checkout(tmp_path), env=_env(tmp_path),
                          capture_output=True, text=True, timeout=timeout)


@pytest.mark.parametrize("block", BLOCKS, ids=[b.name for b in BLOCKS])
def test_runnable_example_exits_0(block, tmp_path):
    if "../shared/data" in block.text:
        need_data()
    done = run_block(block, tmp_path)
    assert done.returncode == 0, (f"{block.name} exited {done.returncode}\n--- block\n{block.text}"
                                  f"--- stderr (last lines)\n" + "\n".join(done.stderr.splitlines()[-15:]))
    # What an example writes into the checkout (sets/, plan.txt, runs/) is ignored by git there.
    made = sorted(p.name + ("/" if p.is_dir() else "") for p in (tmp_path / "checkout").iterdir())
    assert made == [] or _ignored(made) == made, f"{block.name} writes {made}; not in .gitignore: " \
        f"{sorted(set(made) - set(_ignored(made)))}"


def _ignored(names: list[str]) -> list[str]:
    """The names (relative to the checkout's top) that the checkout's .gitignore ignores."""
    if not (REPO / ".git").exists():
        pytest.skip("not a git checkout")
    done = subprocess.run(["git", "-C", str(REPO), "check-ignore", "--no-index", *names],
                          capture_output=True, text=True, timeout=600)
    return sorted(done.stdout.split())


def test_a_failing_command_in_a_block_fails_the_block(tmp_path):
    block = Block(REPO / "README.md", 1, "bash",
                  "widthbench generate blocksworld --count 1 --seed 1 --out sets/x --quiet\n"
                  "widthbench validate blocksworld sets/x/instance-0001.pddl no-such-plan.txt\n"
                  "echo never\n")
    done = run_block(block, tmp_path)
    assert done.returncode == 2 and "never" not in done.stdout
    assert (tmp_path / "checkout" / "sets" / "x" / "domain.pddl").is_file()  # ran where the reader is


def test_reference_data_is_where_the_blocks_look_for_it(tmp_path):
    need_data()
    assert (_checkout(tmp_path).parent / "shared" / "data").resolve() == DATA.resolve()
