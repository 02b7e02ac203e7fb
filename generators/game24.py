"""The 1362 Game of 24 puzzles of Tree of Thoughts (24.csv, ranked by human solve time).

The state model, its atoms and the exact solver are `widthbench.planners.game24_model` (a planning state
model, like `planners.model.StripsModel`); its names are re-exported here for the callers that
read puzzles and models together.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from pathlib import Path

from widthbench.core.errors import UserError
from widthbench.planners.game24_model import (TARGET, Game24Model, Game24State, Number, StateSpace,  # noqa: F401
                                        Step, operand_text, make_state, number_text, state_numbers,
                                        state_text)

DATA = Path(__file__).resolve().parent / "data" / "24.csv"


@dataclass(frozen=True, slots=True)
class Puzzle:
    rank: int  # 1-based row rank in 24.csv (easiest first)
    numbers: tuple[int, ...]

    @property
    def id(self) -> str:
        return f"g24-{self.rank:04d}"

    @property
    def text(self) -> str:
        return " ".join(map(str, self.numbers))


def load_puzzles(rows: str | None = None, path: str | Path | None = None) -> list[Puzzle]:
    """The puzzles of 24.csv, optionally only the ranks in ``rows`` ("901-1000", "1,5,7-9")."""
    p = Path(path) if path is not None else DATA
    try:
        with p.open(newline="", encoding="utf-8") as f:
            reader = csv.DictReader(f)
            puzzles = [Puzzle(int(r["Rank"]), tuple(int(x) for x in r["Puzzles"].split())) for r in reader]
    except OSError as exc:
        raise UserError(f"cannot read Game of 24 puzzles {p}: {exc.strerror}") from None
    except (KeyError, ValueError) as exc:
        raise UserError(f"{p}: not a Game of 24 puzzle file ({exc})") from None
    if rows is None:
        return puzzles
    wanted = parse_rows(rows, len(puzzles))
    return [q for q in puzzles if q.rank in wanted]


def parse_rows(spec: str, n: int) -> set[int]:
    """``"901-1000"`` -> {901, ..., 1000}; comma-separated ranks and ranges, 1-based inclusive."""
    out: set[int] = set()
    for part in spec.split(","):
        part = part.strip()
        m = re.fullmatch(r"(\d+)(?:-(\d+))?", part)
        if not m:
            raise UserError(f"--rows: cannot read {part!r} (expected e.g. 901-1000 or 1,5,7-9)")
        lo = int(m.group(1))
        hi = int(m.group(2)) if m.group(2) else lo
        if not 1 <= lo <= hi <= n:
            raise UserError(f"--rows: {part!r} is outside 1-{n}")
        out.update(range(lo, hi + 1))
    return out
