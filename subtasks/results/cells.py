"""The cell of a score run: the one key that rows, records, tables, figures and the page group by.

A record (one item-mode of items.jsonl) and a summary row name their cell with the same five fields:
sub-task, description style, thinking, prompt extension, domain. `Cell.of` reads them from either,
and a mode's thinking is one value, a bool, however a file spelled it (`thinking_of`: a record says
``true``, a row ``"on"``, a preset ``"thinking"``, an lm-eval task ``"think"``). What a person or a
file reads is made from the cell, never spelled again:

    Cell.of(record_or_row) -> Cell          Cell.from_json(cell.to_json()) == cell
    cell.column -> ("nl", "on")             a Table-1 column: style and thinking as rows write it
    cell.text   -> "successor|nl|on|0|blocksworld"   the page's key of the cell (report.js)
    cell.name   -> "successor nl, thinking on"       how a message names it
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from widthbench.llm.types import on_off

# every way a file of this project has written a mode's thinking; nothing else is a mode
THINKING_SPELLINGS: Mapping[object, bool] = {True: True, False: False, "on": True, "off": False,
                                             "thinking": True, "normal": False, "think": True,
                                             "nothink": False}


def thinking_of(value) -> bool:
    """A mode's thinking as a bool, from any spelling in `THINKING_SPELLINGS` (ValueError otherwise)."""
    try:
        return THINKING_SPELLINGS[value]
    except (KeyError, TypeError):
        raise ValueError(f"not a thinking mode: {value!r} (expected one of on, off, true, false)") from None


@dataclass(frozen=True, slots=True, order=True)
class Cell:
    """Sub-task, style, thinking, extension and domain of a row or a record (module docstring)."""

    subtask: str
    style: str
    thinking: bool
    extension: bool = False
    domain: str = ""

    @classmethod
    def of(cls, x: Mapping) -> Cell:
        """The cell of a record or a summary row (a missing style or domain is "", a missing
        thinking or extension off: a record written by hand for a test, or by an older layout)."""
        ext = x.get("extension")
        return cls(str(x["subtask"]), str(x.get("style") or ""), thinking_of(x.get("thinking", False)),
                   thinking_of(ext) if isinstance(ext, str) else bool(ext), str(x.get("domain") or ""))

    @property
    def mode(self) -> str:
        """The thinking as rows and configs write it: "on" / "off"."""
        return on_off(self.thinking)

    @property
    def column(self) -> tuple[str, str]:
        """The Table-1 column of the cell: (style, "on"/"off")."""
        return self.style, self.mode

    @property
    def text(self) -> str:
        """One string for the cell (the page's key): its fields joined by "|"."""
        return "|".join((self.subtask, self.style, self.mode, str(int(self.extension)), self.domain))

    @property
    def name(self) -> str:
        """The cell as a message names it."""
        return f"{self.subtask} {self.style}, thinking {self.mode}" + (", extension" if self.extension else "")

    def to_json(self) -> dict:
        return {"subtask": self.subtask, "style": self.style, "thinking": self.mode,
                "extension": self.extension, "domain": self.domain}

    @classmethod
    def from_json(cls, data: Mapping) -> Cell:
        return cls.of(data)
