"""The strict reader (format compliance): an answer written as the prompt asked.

The grammar is `widthbench.pddl_domains.readers` (one package for both readers); this module names
what the strict policy uses (docs/subtasks.md, "Parsing rules"):

1. Answer section (`readers.reply`): the text after the last ``</think>``; what follows the last
   "Answer:" label, otherwise the whole reply.
2. States and actions: the renderer's parsers (`widthbench.pddl_domains.render.Renderer.parse_*`)
   over `readers.layout`'s clauses: bullets, numbering, markdown and filler phrases are dropped, and
   anything else fails.
3. Verdicts and numbers (`readers.verdicts`): the verdict word first or last and its opposite nowhere;
   exactly one whole number.
4. One-value answers: the first line after the label when the section does not read (`one_value`).
5. Successor mappings: "Action:" / "Resulting state:" blocks (`readers.facts.split_mapping_blocks`).
Nothing is guessed: anything else raises `ParseError` with the reason.
"""

from __future__ import annotations

from widthbench.pddl_domains.readers.facts import split_mapping_blocks
from widthbench.pddl_domains.readers.reply import answer_lines, answer_section, one_value, reply_text
from widthbench.pddl_domains.readers.verdicts import (NUMBER_WORDS, parse_integer, parse_novelty, parse_verdict,
                                                      parse_yes_no)

__all__ = ["reply_text", "answer_section", "answer_lines", "one_value", "split_mapping_blocks",
           "parse_yes_no", "parse_verdict", "parse_novelty", "parse_integer", "NUMBER_WORDS"]
