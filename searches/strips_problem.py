"""A STRIPS instance (Blocksworld, Logistics, any PDDL set) as a search problem.

States are the engine's int bitmasks, actions PDDL texts (``"(unstack a b)"``). Prompts come from
`widthbench.subtasks.api` (next action, successor, action generation, goal check, novelty) and from
llm/prompts/search/ (direct, naive, judge, value, novelty summaries); answers are read back through
the renderer, so a state the model writes is a state of the task or a ParseError (a dead node).

Engine side: applicable actions ranked by h* of their successor (`planners.ground_truth.GroundTruth`),
successors, goal test, atoms for novelty, and the instance width w = the effective width of IW on
the full goal (`planners.iw.iterated_width`, the smallest k for which IW(k) reaches the goal).
"""

from __future__ import annotations

import functools

from widthbench.core.errors import ParseError, UserError
from widthbench.planners import strips
from widthbench.searches import search_prompts
from widthbench.searches.replies import numbered, parse_score, parse_scores, split_direct
from widthbench.pddl_domains import obfuscate
from widthbench.subtasks import answers, api
from widthbench.subtasks import prompts as sub_prompts
from widthbench.subtasks.strict import answer_section
from widthbench.planners.ground_truth import GroundTruth
from widthbench.planners.progress import progress
from widthbench.planners.iw import DEFAULT_MAX_WIDTH, iterated_width
from widthbench.planners.state_model import StripsModel
from widthbench.subtasks.definitions.shared import actions_tokens, state_tokens


class StripsProblem:
    kind = "plan"
    has_engine = True

    def __init__(self, instance, *, style: str = "nl", extension: bool = True,
                 novelty_width: int | None = None, reader: str = answers.HEADLINE_READER,
                 obfuscation: tuple = ()):
        self.instance = instance
        self.id = instance.id
        self.domain = instance.domain if isinstance(instance.domain, str) else str(instance.domain)
        self.task = instance.task()
        if obfuscation:  # --obfuscate: prompts and readers renamed, the engine's task unchanged
            self.task = obfuscate.attach_task(self.task, *obfuscation)
        self.obfuscation = tuple(obfuscation)
        self.style = style
        self.r = api.renderer(self.task, style)
        self.extension = extension and sub_prompts.extension_available(obfuscate.shown(self.task).domain)
        self.novelty_width = novelty_width
        self.initial = self.task.init
        self.optimal_length = instance.optimal_length
        self.reader = reader  # which reader of the sub-task answer kinds reads the model's answers
        self._question = answers.ReaderContext(self.task)

    # ---- identity and display -------------------------------------------------------------
    def key(self, state):
        return state

    def action_key(self, action):
        return action

    def show_state(self, state) -> str:
        return self.r.state(state, include_static=False)

    def show_action(self, action) -> str:
        return str(action)

    # ---- engine ---------------------------------------------------------------------------
    @functools.cached_property
    def truth(self):
        return GroundTruth(self.task)

    def engine_ranked(self, state) -> list[tuple[str, int]]:
        succ = [(str(a), strips.successor(state, a)) for a in strips.applicable_actions(self.task, state)]
        order = {a: i for i, (a, _) in enumerate(succ)}
        return sorted(succ, key=lambda x: (self.truth.h_star(x[1]), order[x[0]]))

    def _action(self, text: str):
        try:
            return strips.parse_action(self.task, text)
        except UserError:
            return None

    def engine_successor(self, state, action):
        a = self._action(action)
        if a is None or not strips.is_applicable(state, a):
            return None
        return strips.successor(state, a)

    def engine_is_goal(self, state) -> bool:
        return strips.is_goal(self.task, state)

    def novelty_mask(self, state) -> int:
        return state

    def width(self) -> int:
        return self._width

    @functools.cached_property
    def _width(self) -> int:
        # the oracle novelty width; wider than IW(DEFAULT_MAX_WIDTH) (None) prunes at that k. A goal
        # true initially has width 0, which is a width, not "none found"
        res = iterated_width(StripsModel(self.task), DEFAULT_MAX_WIDTH)
        return res.width if res.width is not None else DEFAULT_MAX_WIDTH

    def check_thinking(self, text: str, state) -> dict | None:
        """The reasoning-trace check of a reply's thinking about ``state`` (docs/traces.md); None for
        a question about several states (a novelty or summary call)."""
        if state is None:
            return None
        return api.check_thinking(self.task, text, self.style, state)

    def progress(self, plan) -> float | None:
        """`planners.progress` of a plan (PDDL texts or Actions; None: no plan, the empty plan's 0)
        on this task, with the search's ground truth; None on an unsolvable task."""
        return progress(self.task, list(plan or ()), truth=self.truth)

    def check(self, plan, final_state=None) -> dict:
        """Engine validation of a plan from the initial state."""
        if plan is None:
            return {"plan_valid": False, "solved": False, "reason": "no plan"}
        try:
            res = strips.execute_plan(self.task, list(plan))
        except UserError as exc:
            return {"plan_valid": False, "solved": False, "reason": str(exc)}
        executable = res.failed_step is None
        return {"plan_valid": res.valid, "solved": res.valid, "executable": executable,
                "reason": res.reason()}

    # ---- prompts: sub-task API -------------------------------------------------------------
    def next_action_messages(self, state):
        return api.next_action_prompt(self.task, state, self.style, extension=self.extension)

    def _read(self, kind: answers.AnswerKind, text: str):
        return kind.read(self.reader, self._question, text, self.style).value

    def parse_next_action(self, text, state):
        return self._read(answers.ACTION, text)

    def successor_messages(self, state, action):
        return api.successor_prompt(self.task, state, action, self.style)

    def parse_successor(self, text, state, action):
        return self._read(answers.STATE, text)

    def action_list_messages(self, state):
        return api.action_generation_prompt(self.task, state, self.style)

    def parse_action_list(self, text, state):
        return self._read(answers.ACTION_LIST, text)

    def goal_check_messages(self, state):
        return api.goal_check_prompt(self.task, state, self.style)

    def parse_goal_check(self, text) -> bool:
        return self._read(answers.YES_NO, text)

    def novelty_messages(self, previous, state):
        return api.novelty_prompt(self.task, previous, state, self.style, width=self.novelty_width)

    def parse_novelty(self, text) -> bool:
        return self._read(answers.NOVELTY, text)

    def answer_tokens(self, purpose: str, state) -> int | None:
        """Estimated tokens of a correct answer to a prompt about ``state`` (sizes max_tokens):
        a state (direct, successor; static facts included), or the applicable actions."""
        if purpose in ("direct", "successor"):
            return state_tokens(self.task, self.style, state) + 64  # and the action, for direct
        if purpose == "action-list":
            return actions_tokens(self.task, self.style, strips.applicable_actions(self.task, state))
        return None

    # ---- prompts: search templates ----------------------------------------------------------
    def _messages(self, kind: str, extended: bool = False, **fields) -> list[dict]:
        user = search_prompts.fill(search_prompts.strips_template(kind, self.style, self.task.domain.prompt_dir or None),
                                   objects=api.objects_text(self.task, self.style), **fields)
        return sub_prompts.messages(obfuscate.shown(self.task).domain, user, extended=extended)

    def direct_messages(self, state):
        return self._messages("direct", extended=self.extension, state=self.r.state(state),
                              goal=self.r.goal())

    def parse_direct(self, text, state):
        action_text, state_text = split_direct(text)
        return self.r.parse_action(action_text), self.r.parse_state(state_text)

    def naive_messages(self):
        return self._messages("naive", extended=self.extension, state=self.r.state(self.task.init),
                              goal=self.r.goal())

    def feedback_messages(self, plan_text: str, feedback: str, state=None):
        """The validator-feedback prompt (`solve --method feedback`): the problem (from ``state``,
        default the initial state: after a change, the state the world is in), the last plan as
        the model wrote it (or its answer, when no plan could be read) and the feedback."""
        state = self.task.init if state is None else state
        return self._messages("feedback", extended=self.extension, state=self.r.state(state),
                              goal=self.r.goal(), plan=plan_text.strip() or "(no plan)", feedback=feedback)

    def agent_messages(self, state, observation: str):
        """One turn of `solve --method agent --tool-format text`: what the last action did, the
        state now and the goal."""
        return self._messages("agent", extended=self.extension, observation=observation,
                              state=self.r.state(state), goal=self.r.goal())

    def agent_tools_message(self, state, observation: str, tools: str) -> str:
        """The text of one turn of `solve --method agent --tool-format openai` (the first user
        message, then every tool result): what the last call did, the state now, the goal, and the
        names of the tools offered."""
        return self._messages("agent_tools", extended=self.extension, observation=observation, tools=tools,
                              state=self.r.state(state), goal=self.r.goal())[-1]["content"]

    def parse_naive(self, text):
        return self._read(answers.PLAN, text)

    def judge_pre_messages(self, state, actions):
        return self._messages("judge_pre", state=self.r.state(state), goal=self.r.goal(),
                              count=str(len(actions)), actions=numbered([self.r.action(a) for a in actions]))

    def judge_post_messages(self, state, action, new_state):
        return self._messages("judge_post", state=self.r.state(state), action=self.r.action(action),
                              new_state=self.r.state(new_state), goal=self.r.goal())

    def value_messages(self, state):
        return self._messages("value", state=self.r.state(state), goal=self.r.goal())

    def parse_scores(self, text, count):
        return parse_scores(text, count)

    def parse_score(self, text):
        return parse_score(text)

    def _static(self) -> str:
        return self.r.atoms(sorted(self.task.static_atoms)) or "none" if self.task.static_atoms else "none"

    def parse_summary(self, text) -> str:
        section = answer_section(text).strip()
        if not section:
            raise ParseError("empty summary")
        return section

    def summary_messages(self, states):
        return self._messages("novelty_summary", static=self._static(), count=str(len(states)),
                              previous=api.previous_states_text(self.task, states, self.style))

    def novelty_summary_messages(self, summaries, recent, state):
        text = "\n\n".join(f"Summary {i}:\n{s}" for i, s in enumerate(summaries, 1))
        return self._messages("novelty_summarised", static=self._static(), summaries=text,
                              count=str(len(recent)),
                              previous=api.previous_states_text(self.task, recent, self.style) if recent else "none",
                              new_state=self.r.state(state, include_static=False),
                              criterion=api.novelty_criterion(self.novelty_width, self.task.domain.prompt_dir or None))
