"""The four hooks a search is built from, each with an engine and an LLM implementation.

1. propose  — next actions (ESA) or next states with their action (direct mapping):
   `Proposer.propose(state, k, round)` samples k next steps; `Proposer.candidates(state, k, round)`
   lists the admissible actions (MCTS pre-evaluation; direct mapping: k sampled next states).
2. map      — action -> successor state: `Mapper.successor(state, action)`.
3. verify   — goal check: `Verifier.is_goal(state)`.
4. novelty  — keep or prune a newly generated state: `NoveltyJudge.judge(state, parent)`.

Any search runs with any mix (LLM actions + engine successors, ...): a failure is traced to the
sub-task that caused it. The engine side answers from the exact model of the domain; the LLM side
asks the sub-task prompts (`widthbench.subtasks.api` for STRIPS, llm/prompts/search/ otherwise,
both through the `Problem` adapter) and parses the answer back. An answer that cannot be read
gives a `Proposal` with `error` set: the search records a dead node, never a guess.

MCTS and CaT also need LLM evaluators (`Evaluator`): judge scores before and after execution
(ToolTree) and state values (Caterpillar of Thoughts).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any, Protocol

from widthbench.core.errors import ParseError
from widthbench.planners.novelty import NoveltyTable
from widthbench.searches.broker import LLM


@dataclass(slots=True)
class Proposal:
    action: Any = None
    state: Any = None  # direct mapping (or an engine proposer): the successor state
    error: str | None = None  # the answer could not be read (or the action is inapplicable)


def _reply_text(reply) -> str:
    if reply.error is not None:
        raise ParseError(f"model call failed: {reply.error}")
    return reply.text or ""


# ----------------------------------------------------------------------------------------------
# 1. propose


class Proposer(Protocol):
    async def propose(self, state, k: int, round: int = 0) -> list[Proposal]: ...

    async def candidates(self, state, k: int, round: int = 0) -> list[Proposal]: ...


class EngineProposer:
    """Applicable actions, best first (shortest remaining distance to the goal, then engine
    order): the perfect action generator. ``direct`` also gives the successor states."""

    def __init__(self, problem, direct: bool):
        self.problem = problem
        self.direct = direct

    def _ranked(self, state) -> list[Proposal]:
        return [Proposal(a, s if self.direct else None) for a, s in self.problem.engine_ranked(state)]

    async def propose(self, state, k: int, round: int = 0) -> list[Proposal]:
        ranked = self._ranked(state)
        if not ranked:
            return []
        # A rewind to the same state (CaT) moves on to the next-best actions.
        start = (round * k) % len(ranked)
        return (ranked[start:] + ranked[:start])[:k]

    async def candidates(self, state, k: int, round: int = 0) -> list[Proposal]:
        return self._ranked(state)


class LLMProposer:
    """ESA: k samples of the next-action prompt; direct: k samples of the next-state prompt
    (action and resulting state in one answer). Candidates (MCTS): the action-generation prompt
    (ESA) or k direct samples."""

    def __init__(self, problem, llm: LLM, direct: bool):
        self.problem = problem
        self.llm = llm
        self.direct = direct

    async def _one(self, state, sample: int) -> Proposal:
        p = self.problem
        if self.direct:
            purpose, messages = "direct", p.direct_messages(state)
        else:
            purpose, messages = "next-action", p.next_action_messages(state)
        reply = await self.llm.ask(messages, purpose, sample, _answer_tokens(p, purpose, state), state=state)
        try:
            text = _reply_text(reply)
            if self.direct:
                action, new_state = p.parse_direct(text, state)
                return Proposal(action, new_state)
            return Proposal(p.parse_next_action(text, state))
        except ParseError as exc:
            self.llm.unreadable(purpose)
            return Proposal(error=str(exc))

    async def propose(self, state, k: int, round: int = 0) -> list[Proposal]:
        return list(await asyncio.gather(*(self._one(state, round * k + j) for j in range(k))))

    async def candidates(self, state, k: int, round: int = 0) -> list[Proposal]:
        if self.direct:
            return await self.propose(state, k, round)
        reply = await self.llm.ask(self.problem.action_list_messages(state), "action-list", round,
                                   _answer_tokens(self.problem, "action-list", state), state=state)
        try:
            actions = self.problem.parse_action_list(_reply_text(reply), state)
        except ParseError as exc:
            self.llm.unreadable("action-list")
            return [Proposal(error=str(exc))]
        return [Proposal(a) for a in actions]


# ----------------------------------------------------------------------------------------------
# 2. map


def _answer_tokens(problem, purpose: str, state) -> int | None:
    """The problem's estimate of a correct answer's tokens, if it makes one (STRIPS problems do)."""
    estimate = getattr(problem, "answer_tokens", None)
    return estimate(purpose, state) if estimate is not None else None


class Mapper(Protocol):
    async def successor(self, state, action) -> Proposal: ...


class EngineMapper:
    def __init__(self, problem):
        self.problem = problem

    async def successor(self, state, action) -> Proposal:
        new = self.problem.engine_successor(state, action)
        if new is None:
            return Proposal(action, error="the engine says the action is not applicable")
        return Proposal(action, new)


class LLMMapper:
    def __init__(self, problem, llm: LLM):
        self.problem = problem
        self.llm = llm

    async def successor(self, state, action) -> Proposal:
        reply = await self.llm.ask(self.problem.successor_messages(state, action), "successor", 0,
                                   _answer_tokens(self.problem, "successor", state), state=state)
        try:
            return Proposal(action, self.problem.parse_successor(_reply_text(reply), state, action))
        except ParseError as exc:
            self.llm.unreadable("successor")
            return Proposal(action, error=str(exc))


# ----------------------------------------------------------------------------------------------
# 3. verify


class Verifier(Protocol):
    async def is_goal(self, state) -> bool: ...


class EngineVerifier:
    def __init__(self, problem):
        self.problem = problem

    async def is_goal(self, state) -> bool:
        return self.problem.engine_is_goal(state)


class LLMVerifier:
    """The goal-check prompt; an unreadable answer counts as "no" (the search goes on)."""

    def __init__(self, problem, llm: LLM):
        self.problem = problem
        self.llm = llm

    async def is_goal(self, state) -> bool:
        reply = await self.llm.ask(self.problem.goal_check_messages(state), "goal-check", state=state)
        try:
            return self.problem.parse_goal_check(_reply_text(reply))
        except ParseError:
            self.llm.unreadable("goal-check")
            return False


# ----------------------------------------------------------------------------------------------
# 4. novelty


class NoveltyJudge(Protocol):
    def start(self, root_state) -> None: ...

    async def judge(self, state, parent_state) -> str | None:
        """None: keep (novel); "duplicate" or "pruned-novelty": prune."""


class NoNovelty:
    def start(self, root_state) -> None:
        pass

    async def judge(self, state, parent_state) -> str | None:
        return None


class OracleNovelty:
    """Exact classical novelty at the instance width w (Lipovetzky & Geffner): a new state is kept
    iff some tuple of at most w atoms is true in it for the first time among the states kept so
    far in this search; a state generated before is a duplicate (detected first, as in IW)."""

    def __init__(self, problem):
        self.problem = problem
        self.width = problem.width()
        self.table = NoveltyTable(max(self.width, 1))
        self.seen: set = set()

    def start(self, root_state) -> None:
        self.seen.add(self.problem.key(root_state))
        self.table.add_mask(self.problem.novelty_mask(root_state))

    async def judge(self, state, parent_state) -> str | None:
        key = self.problem.key(state)
        if key in self.seen:
            return "duplicate"
        self.seen.add(key)
        mask = self.problem.novelty_mask(state)
        parent = self.problem.novelty_mask(parent_state) if parent_state is not None else 0
        # The parent may be a state the LLM mapped wrongly and that was never kept; the
        # incremental test is exact only relative to a kept parent, so test every tuple then.
        if parent_state is None or self.problem.key(parent_state) not in self.seen:
            parent = 0
        if self.table.novelty_and_add(mask, parent) > self.table.k:
            return "pruned-novelty"
        return None


class LLMNovelty:
    """The paper's yes/no question: is the new state novel compared with the states kept so far?

    The list of previous states is shown in full while its text fits ``max_chars``; beyond that the
    oldest states are summarised (one summary call per chunk of states, each chunk summarised
    once) and the prompt shows the summaries plus the most recent states in full. An unreadable
    verdict keeps the state (pruning needs a readable "no")."""

    def __init__(self, problem, llm: LLM, max_chars: int):
        self.problem = problem
        self.llm = llm
        self.max_chars = max_chars
        self.kept: list = []
        self.sizes: list[int] = []  # characters of each kept state as listed
        self.summaries: list[str] = []
        self.summarised = 0  # kept[:summarised] are covered by summaries
        self.keys: set = set()

    def _keep(self, state) -> None:
        self.kept.append(state)
        self.sizes.append(len(self.problem.show_state(state)) + 2)
        self.keys.add(self.problem.key(state))

    def start(self, root_state) -> None:
        self._keep(root_state)

    def _length(self) -> int:
        return sum(self.sizes[self.summarised:]) + sum(map(len, self.summaries))

    async def _summarise(self) -> None:
        p = self.problem
        budget = self.max_chars // 2
        while self._length() > self.max_chars:
            chunk, size = [], 0
            for i in range(self.summarised, len(self.kept) - 1):  # keep the newest state in full
                size += self.sizes[i]
                if chunk and size > budget:
                    break
                chunk.append(self.kept[i])
            if not chunk:
                break
            reply = await self.llm.ask(p.summary_messages(chunk), "novelty-summary")
            try:
                text = p.parse_summary(_reply_text(reply))
            except ParseError:
                self.llm.unreadable("novelty-summary")
                text = "(no summary)"
            self.summaries.append(text)
            self.summarised += len(chunk)

    async def judge(self, state, parent_state) -> str | None:
        p = self.problem
        if self._length() > self.max_chars:
            await self._summarise()
        recent = self.kept[self.summarised:]
        if self.summaries:
            messages = p.novelty_summary_messages(self.summaries, recent, state)
        else:
            messages = p.novelty_messages(recent, state)
        reply = await self.llm.ask(messages, "novelty")
        try:
            novel = p.parse_novelty(_reply_text(reply))
        except ParseError:
            self.llm.unreadable("novelty")
            novel = True
        if novel:
            self._keep(state)
            return None
        return "duplicate" if p.key(state) in self.keys else "pruned-novelty"


# ----------------------------------------------------------------------------------------------
# evaluators (MCTS judge, CaT value)


class Evaluator:
    """LLM scores: ToolTree's judge before execution (one call scoring all candidate actions) and
    after (the resulting state), and CaT's value of a state. Scores are asked on 0-10; judge
    scores are returned in [0, 1], values on 0-10. Unreadable answers give None."""

    def __init__(self, problem, llm: LLM):
        self.problem = problem
        self.llm = llm

    async def judge_pre(self, state, actions: list, sample: int = 0) -> list[float | None]:
        if not actions:
            return []
        reply = await self.llm.ask(self.problem.judge_pre_messages(state, actions), "judge-pre", sample,
                                   state=state)
        try:
            scores = self.problem.parse_scores(_reply_text(reply), len(actions))
        except ParseError:
            self.llm.unreadable("judge-pre")
            return [None] * len(actions)
        return [None if s is None else min(max(s / 10.0, 0.0), 1.0) for s in scores]

    async def judge_post(self, state, action, new_state) -> float | None:
        reply = await self.llm.ask(self.problem.judge_post_messages(state, action, new_state),
                                   "judge-post", state=state)
        try:
            return min(max(self.problem.parse_score(_reply_text(reply)) / 10.0, 0.0), 1.0)
        except ParseError:
            self.llm.unreadable("judge-post")
            return None

    async def value(self, state) -> float | None:
        reply = await self.llm.ask(self.problem.value_messages(state), "value", state=state)
        try:
            return min(max(self.problem.parse_score(_reply_text(reply)), 0.0), 10.0)
        except ParseError:
            self.llm.unreadable("value")
            return None


# ----------------------------------------------------------------------------------------------
# assembly


@dataclass(slots=True)
class Hooks:
    proposer: Any
    mapper: Any
    verifier: Any
    novelty: Any
    evaluator: Evaluator | None
    direct: bool


def build_hooks(problem, config, llm: LLM) -> Hooks:
    """The hooks of a configuration (see SearchConfig: mapping, actions, successors, verify,
    novelty)."""
    direct = config.mapping == "direct"
    proposer = EngineProposer(problem, direct) if config.actions == "engine" else LLMProposer(problem, llm, direct)
    mapper = EngineMapper(problem) if config.successors == "engine" else LLMMapper(problem, llm)
    verifier = EngineVerifier(problem) if config.verify == "engine" else LLMVerifier(problem, llm)
    if config.novelty == "oracle":
        novelty = OracleNovelty(problem)
    elif config.novelty == "llm":
        novelty = LLMNovelty(problem, llm, config.novelty_max_chars)
    else:
        novelty = NoNovelty()
    return Hooks(proposer, mapper, verifier, novelty, Evaluator(problem, llm), direct)
