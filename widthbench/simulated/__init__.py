"""Task-aware simulated models (``sim:oracle``, ``sim:noisy:P``, ``sim:random``): one package.

A `Simulator` answers widthbench's own prompts from the prompt text alone, computed by the engine:
`PromptReader` (`widthbench.simulated.prompt`) reads a prompt back into a question, and one
registry of answerers answers it — the sub-task records' simulated answers
(`widthbench.subtasks.registry`, e.g. `widthbench.subtasks.sim_answers`), the STRIPS search prompts'
(`widthbench.searches.sim_search_answers`), and the Game-of-24 and --tasks simulators. The model layer
never imports any of this: the commands hand a simulator to `widthbench.llm.open_model(...,
simulator=...)` (or use `open_model` below), and its `answer` becomes the backend's answer
function. So the model layer stays below the sub-tasks and the searches (docs/design.md, "Layers").

- ``oracle``: the correct answer, written in the format the prompt asks for;
- ``noisy:P``: the oracle's answer made wrong with probability P in a realistic way (a dropped or
  extra action, pick-up/unstack confused, a wrong fact, a flipped verdict, a number off by one);
- ``random``: a well-formed random answer.

So sim:oracle scoring 100% tests the whole prompt -> answer -> read round trip. A prompt that is
none of widthbench's gets a fixed reply that no reader accepts (a parse error). With thinking on, the
reply carries thinking written the way reasoning models think about the question's state
(`widthbench.simulated.thoughts`), into which sim:noisy puts seeded errors that `reply` reports.
Caches (rebuilt tasks, ground truth, parsed states) belong to the simulator's reader, so two models
never share them.
"""

from __future__ import annotations

import random

from widthbench.core.errors import ParseError, UserError
from widthbench.simulated import thoughts as simulated_thinking
from widthbench.simulated.prompt import PromptReader, ReadPrompt
from widthbench.llm import open_model as llm_open_model
from widthbench.searches import question_sets
from widthbench.searches import sim_search_answers as search_answers
from widthbench.searches import game24_problem as game24
from widthbench.subtasks.registry import Registry

UNREADABLE = "(simulated model: this prompt is not one of widthbench's sub-task prompts)"

__all__ = ["Simulator", "ReadPrompt", "PromptReader", "open_model", "simulator_for", "mode_of", "UNREADABLE"]


def mode_of(label: str) -> tuple[str, float]:
    """("oracle" | "noisy" | "random", P) of a task-aware model label ("oracle", "noisy:0.2", ...)."""
    if label in ("oracle", "random"):
        return label, 0.0
    if label.startswith("noisy:"):
        return "noisy", float(label.split(":", 1)[1])
    raise ValueError(f"unknown simulated model kind {label!r}")


class Simulator:
    """The engine-backed answerer of every widthbench prompt (see the module docstring)."""

    def __init__(self, registry=None, prompt_dir: str | None = None, domains=()):
        """``prompt_dir``: the run's prompt folder (--prompt-dir), whose templates the prompts are
        read back with; ``domains``: the run's `strips.Domain`s with their presentation (--context,
        --templates, --prompt-dir), recognised by their system message, so a user's context or
        NL templates are read as the run wrote them."""
        import functools


        registry = registry or Registry.default()
        others = (functools.partial(game24.sim_question, prompt_dir=prompt_dir),
                  functools.partial(question_sets.sim_question, prompt_dir=prompt_dir))
        self.reader = PromptReader(registry.simulated_answers(), search_answers.STRIPS_ANSWERS,
                                   other_readers=others, prompt_dir=prompt_dir, domains=domains)

    def answer(self, label: str, messages, thinking: bool, rng: random.Random) -> tuple[str, str | None]:
        """(text, reasoning) of the task-aware model ``label`` for a prompt."""
        return self.reply(label, messages, thinking, rng)[:2]

    def reply(self, label: str, messages, thinking: bool,
              rng: random.Random) -> tuple[str, str | None, list[dict] | None]:
        """(text, reasoning, the errors put into the reasoning on purpose) of the task-aware model
        ``label`` for a prompt; the last is None without thinking or when the thinking is not about
        one state of a STRIPS task."""
        mode, p = mode_of(label)
        try:
            q = self.reader.read(list(messages))
        except (ValueError, ParseError, UserError) as exc:
            return UNREADABLE, (f"Simulated reasoning: I could not read the prompt ({exc})." if thinking else None), None
        if q is None:
            return UNREADABLE, ("Simulated reasoning: this is not one of widthbench's prompts." if thinking else None), None
        corrupt = mode == "noisy" and rng.random() < p
        try:
            text, note = q.handler(q, mode, corrupt, rng)
        except (ValueError, ParseError, UserError) as exc:
            # A prompt in our format whose content the engine rejects (e.g. a hand-written action
            # that is not an action of the task): answer like a model that cannot read it.
            if q.family == "subtask":
                return UNREADABLE, (f"Simulated reasoning: I could not read the question ({exc})." if thinking else None), None
            text, note = "I cannot read this question.", f"I could not read the prompt ({exc})."
        reasoning = injected = None
        if thinking:
            if q.family == "subtask":
                head = (f"Simulated reasoning ({mode}): this is a {q.kind.replace('_', ' ')} question in "
                        f"{'PDDL' if q.style == 'pddl' else 'natural language'} about {q.base.domain_name}.")
            else:
                head = f"Simulated reasoning ({mode}) for a {q.kind.replace('_', ' ')} search prompt."
            # drawn after the answer, from a generator of its own: thinking never changes an answer
            thought = simulated_thinking.think(q, mode, p, random.Random(rng.random()))
            if thought is None:
                reasoning = f"{head} {note}"
            else:
                body, injected = thought
                start = len(head) + 1
                reasoning = f"{head}\n{body}\n{note}"
                injected = [{**x, "span": [x["span"][0] + start, x["span"][1] + start]} for x in injected]
        return "Answer:\n" + text, reasoning, injected


def simulator_for(spec: str, prompt_dir: str | None = None, domains=()) -> "Simulator | None":
    """A fresh simulator for a ``sim:`` model spec (the others need none), reading the run's prompt
    folder and domains (`Simulator`)."""
    return Simulator(prompt_dir=prompt_dir, domains=domains) if spec.startswith("sim:") else None


def open_model(spec: str, **options):
    """`widthbench.llm.open_model` with a fresh `Simulator` handed in (for sim:oracle and friends)."""
    options.setdefault("simulator", Simulator())
    return llm_open_model(spec, **options)
