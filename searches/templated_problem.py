"""The prompts that every search problem asked through the search templates (`search_prompts`:
the Game of 24, --tasks question sets) words the same way.

A sub-class gives ``_messages(kind, **fields)`` (its system message and template set),
``show_state``, ``show_action`` and ``_listed(states)``; what differs between problems (how a
reply is read, the judges' action lists, the naive prompt) stays in the sub-class.
"""

from __future__ import annotations

from widthbench.subtasks.strict import parse_novelty, parse_yes_no


class TemplatedProblem:
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
