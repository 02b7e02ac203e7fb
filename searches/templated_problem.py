"""The prompts that every search problem asked through the search templates (`search_prompts`:
the Game of 24, --tasks question sets) words the same way.

A sub-class gives its template set and system message (``t``, ``system``: `_load`), the fields
every prompt of it carries (``prompt_fields``), ``show_state``, ``show_action``, how a list of
states or summaries is written (``STATE_NOUN``, ``ITEM_BREAK``, ``LIST_BREAK``), how an action is
written in the judge's list (``judged_action``) and where a summary stands in a reply
(``summary_text``); what else differs between problems (how a reply is read, the naive prompt)
stays in the sub-class.
"""

from __future__ import annotations

from widthbench.core.errors import ParseError
from widthbench.searches import search_prompts
from widthbench.searches.replies import numbered
from widthbench.subtasks.strict import parse_novelty, parse_yes_no


class TemplatedProblem:
    STATE_NOUN = "State"  # "State 1: ...", or "Partial solution 1:" and the state below it
    ITEM_BREAK = " "  # between an item's label and its text
    LIST_BREAK = "\n"  # between the items of a list
    prompt_fields: dict = {}

    def _load(self, name: str, prompt_dir: str | None) -> None:
        """The template set ``name`` and its system message ``context.<name>.txt``."""
        self.t = search_prompts.load(name, prompt_dir)
        self.system = search_prompts.text_file(f"context.{name}.txt", prompt_dir)

    def _messages(self, kind: str, **fields) -> list[dict]:
        return [{"role": "system", "content": self.system},
                {"role": "user", "content": search_prompts.fill(self.t[kind], **self.prompt_fields, **fields)}]

    def _items(self, noun: str, texts) -> str:
        return self.LIST_BREAK.join(f"{noun} {i}:{self.ITEM_BREAK}{x}" for i, x in enumerate(texts, 1))

    def _listed(self, states) -> str:
        return self._items(self.STATE_NOUN, map(self.show_state, states)) or "none"

    def judged_action(self, action) -> str:
        return self.show_action(action)

    def summary_text(self, text) -> str:
        raise NotImplementedError

    def parse_summary(self, text) -> str:
        body = self.summary_text(text)
        if not body:
            raise ParseError("empty summary")
        return body

    def novelty_summary_messages(self, summaries, recent, state):
        return self._messages("novelty_summarised", summaries=self._items("Summary", summaries), count=str(len(recent)),
                              previous=self._listed(recent), new_state=self.show_state(state))

    def judge_pre_messages(self, state, actions):
        return self._messages("judge_pre", state=self.show_state(state), count=str(len(actions)),
                              actions=numbered([self.judged_action(a) for a in actions]))

    def next_action_messages(self, state):
        return self._messages("next_action", state=self.show_state(state))

    def successor_messages(self, state, action):
        return self._messages("successor", state=self.show_state(state), action=self.show_action(action))

    def direct_messages(self, state):
        return self._messages("direct", state=self.show_state(state))

    def action_list_messages(self, state):
        return self._messages("action_list", state=self.show_state(state))

    def goal_check_messages(self, state):
        return self._messages("goal_check", state=self.show_state(state))

    def parse_goal_check(self, text) -> bool:
        return parse_yes_no(text)

    def novelty_messages(self, previous, state):
        return self._messages("novelty", count=str(len(previous)), previous=self._listed(previous),
                              new_state=self.show_state(state))

    def parse_novelty(self, text) -> bool:
        return parse_novelty(text)

    def summary_messages(self, states):
        return self._messages("novelty_summary", count=str(len(states)), previous=self._listed(states))

    def judge_post_messages(self, state, action, new_state):
        return self._messages("judge_post", state=self.show_state(state), action=self.show_action(action),
                              new_state=self.show_state(new_state))

    def value_messages(self, state):
        return self._messages("value", state=self.show_state(state))
