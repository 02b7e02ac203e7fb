"""The flexible reader: finds the answer inside a real reply, without guessing.

The strict reader (`widthbench.subtasks.strict`) measures format compliance; this one reads the same
answers the way a person would, and returns exactly what the strict reader returns for that kind
(PDDL action texts, a state bitmask, a dict, a bool, an int) in a `Reading` with where it found the
answer (``span``, offsets into the raw reply) and which rule located it (``rule``). Both are policies
over one grammar, `widthbench.pddl_domains.readers` (its modules state the rules;
docs/subtasks.md, "Flexible reader").
"""

from __future__ import annotations

from widthbench.pddl_domains.readers import Reading
from widthbench.pddl_domains.readers.facts import read_state, read_successor_mapping
from widthbench.pddl_domains.readers.plans import read_action_list, read_plan, read_single_action
from widthbench.pddl_domains.readers.verdicts import read_integer, read_novelty, read_verdict, read_yes_no

__all__ = ["Reading", "read_action_list", "read_single_action", "read_plan", "read_state",
           "read_successor_mapping", "read_verdict", "read_novelty", "read_yes_no", "read_integer"]
