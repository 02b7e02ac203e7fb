"""The one error type for user mistakes (bad file, bad argument).

The CLI catches it once and prints a single line on stderr with exit code 2, of at most
`MAX_LINE` characters: a message names a long list through `listed` (the first values and how many
more), and the CLI cuts what still runs longer (`one_line`). Bugs still raise ordinary exceptions.
"""


class UserError(Exception):
    """A problem with the user's input: what was wrong and where, in one line."""


class ParseError(ValueError):
    """A model's answer (or a user's text) could not be read as PDDL atoms/actions.

    Counted apart from wrong answers when scoring.
    """


# The longest error line a person is shown (`one_line`); messages keep their lists short at the
# source (`listed`), and the CLI cuts whatever still runs longer.
MAX_LINE = 300


def listed(values, width: int = 120) -> str:
    """``values`` joined by ", ", as many as fit in about ``width`` characters (at least one), then
    how many more: the lists an error message names stay short however long the list is."""
    shown, rest = fitting([str(v) for v in values], width, ", ")
    return ", ".join(shown) + (f" and {rest} more" if rest else "")


def fitting(parts: list[str], width: int, sep: str) -> tuple[list[str], int]:
    """(the first parts that fit in about ``width`` characters joined by ``sep``, at least one; how
    many are left out): the one rule by which a message shortens a list."""
    shown: list[str] = []
    for part in parts:
        if shown and len(sep.join([*shown, part])) > width:
            break
        shown.append(part)
    return shown, len(parts) - len(shown)


def one_line(text, limit: int = MAX_LINE) -> str:
    """``text`` as one line of at most ``limit`` characters: its whitespace runs made single spaces
    and, if still longer, its end cut with the number of characters cut said."""
    text = " ".join(str(text).split())
    if len(text) <= limit:
        return text
    keep = limit - len(f" ... ({len(text)} characters cut)")
    return f"{text[:keep].rstrip()} ... ({len(text) - keep} characters cut)"
