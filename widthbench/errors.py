"""The one error type for user mistakes (bad file, bad argument).

The CLI catches it once and prints a single line on stderr with exit code 2.
Bugs still raise ordinary exceptions.
"""


class UserError(Exception):
    """A problem with the user's input: what was wrong and where, in one line."""


class ParseError(ValueError):
    """A model's answer (or a user's text) could not be read as PDDL atoms/actions.

    Counted apart from wrong answers when scoring.
    """
