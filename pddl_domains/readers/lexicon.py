"""The words the trace verifier stands behind: a claim is judged only when every word of its sentence is known.

The verifier reads English with rules (`phrases.txt`), and a rule can only be as good as the words it
was written and tested for: a word no rule has met ("as a consequence", "I misspoke") may put a
claim at another point in time, make an option of it or take it back, and a reading that misses
that reports an error the trace did not make. So a claim is judged only in a sentence whose every
word (and sign) is known (docs/traces.md, principle 6):

- the words of the phrases the readers match (`phrases.txt`), of the sentence frames the verifier is
  tested on (the trace writer's, the property tests', the measured held-out sets), and a few words
  kept by hand that say nothing of mood or time (labels of real traces: "Reason:"), all in
  `known_words.txt` (written by ``scripts/known_words.py``; a test checks it is current);
- the task's own words: its objects, predicates and actions, by name and in every template and
  paraphrase of its template set (`task_vocabulary`);
- a known word with an ending ("stacking", "blocks", "orange's", "checked"), numbers, and ASCII
  punctuation.

A word outside these makes its sentence's claims unjudged (context "unknown-words"): its facts are
not judged and its actions are followed without being trusted (`subtasks/traces/verify.py`). The
unknown words are kept in the trace (``unknown_words``), so that what a model writes that the
verifier does not read yet is visible.
"""

from __future__ import annotations

import re
from functools import cache
from importlib import resources

__all__ = ["Lexicon", "known_words", "read_sections", "tokens", "task_vocabulary"]

#: A word (with its apostrophes: "can't", "orange's") or one sign that is neither a letter, a digit,
#: a space nor ASCII punctuation ("✓", "⇒").
TOKEN = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)*|[^\w\s!-/:-@\[-`{-~]")
_SECTION = re.compile(r"^\[([a-z_]+)\]$")
#: Endings a known word may take (a word denied with "n't" is no ending: negation words are listed).
_ENDINGS = (("'s", ""), ("s'", ""), ("ies", "y"), ("ied", "y"), ("es", ""), ("s", ""), ("ed", ""), ("ed", "e"),
            ("d", ""), ("ing", ""), ("ing", "e"), ("ly", ""))


def read_sections(text: str) -> dict[str, list[str]]:
    """``[name]`` -> the words under it (whitespace-separated; ``#`` starts a comment line)."""
    out: dict[str, list[str]] = {}
    current = None
    for n, line in enumerate(text.splitlines(), 1):
        s = line.strip()
        if not s or s.startswith("#"):
            continue
        m = _SECTION.match(s)
        if m:
            current = out.setdefault(m.group(1), [])
        elif current is None:
            raise ValueError(f"known_words.txt line {n}: a word before any [section]")
        else:
            current.extend(s.split())
    return out


@cache
def known_words(answers: bool = False) -> frozenset[str]:
    """Every word of `known_words.txt`, lower case; its ``[answers]`` section (the words of the plan
    answers the plan reader is tested on) only with ``answers``."""
    text = resources.files(__package__).joinpath("known_words.txt").read_text(encoding="utf-8")
    return frozenset(w.lower() for name, words in read_sections(text).items() if answers or name != "answers"
                     for w in words)


def tokens(text: str) -> list[str]:
    """The words and signs of ``text``, lower case, in order."""
    return TOKEN.findall(text.lower())


def bases(word: str):
    """``word`` and the forms it may be an ending of ("stacking" -> "stack", "moving" -> "move",
    "putting" -> "put", "checked" -> "check", "orange's" -> "orange"), or a drawn-out spelling of
    ("hmmm" -> "hmm")."""
    yield word
    long = re.sub(r"(\w)\1{2,}", r"\1\1", word)  # a sound drawn out: "hmmm" -> "hmm", "sooo" -> "soo", "so"
    if long != word:
        yield long
        yield re.sub(r"(\w)\1+", r"\1", long)
    for end, repl in _ENDINGS:
        if word.endswith(end) and len(word) - len(end) >= 2:
            stem = word[: -len(end)]
            yield stem + repl
            if not repl and len(stem) > 2 and stem[-1] == stem[-2] and end in ("ed", "ing"):
                yield stem[:-1]  # "putting" -> "put", "stopped" -> "stop"


def task_vocabulary(grammar) -> frozenset[str]:
    """The task's own words (a `grammar.TaskGrammar`): its objects, predicates, actions and types by
    name and by their words, and every template and paraphrase of its template set."""
    from widthbench.pddl_domains.readers.grammar import paraphrase_tables, squash, template_domain

    r, task = grammar.r, grammar.task
    texts: list[str] = [o for o, _ in task.objects] + list(grammar.object_by_name) + list(r.names.values())
    texts += list(grammar.arity_action) + list(grammar.arity_atom) + list(task.domain.types)
    texts += [squash(n) for n in (*grammar.arity_action, *grammar.arity_atom)]  # "pickup", "putdown"
    ts = r.template_set
    for table in (ts.predicates, ts.actions, ts.types or {}, ts.objects or {}, ts.format):
        texts.extend(_strings(table))
    try:
        extra = paraphrase_tables(template_domain(ts.path) or "", r.templates)
    except (OSError, ValueError):
        extra = ({}, {})
    for table in extra:
        for values in table.values():
            texts.extend(values)
    words = set()
    for t in texts:
        words.update(tokens(re.sub(r"\{\d*\}|[_-]", " ", str(t))))
    return frozenset(words)


def _stems(words) -> frozenset[str]:
    """The words and the forms each may be an ending of (`bases`)."""
    return frozenset(b for w in words for b in bases(w))


@cache
def _known_stems(answers: bool = False) -> frozenset[str]:
    return _stems(known_words(answers))


def _strings(value) -> list[str]:
    """The strings of a template file's value (a string, a list or table of them, a flag)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, (list, tuple)):
        return [s for v in value for s in _strings(v)]
    return []


class Lexicon:
    """The known words (`known_words`; with ``answers``, those of plan answers too) and a task's own
    (``vocabulary``)."""

    def __init__(self, vocabulary=frozenset(), answers: bool = False):
        self.words = _known_stems(answers) | _stems(vocabulary)
        self._seen: dict[str, bool] = {}

    def known(self, token: str) -> bool:
        """Whether ``token`` or a form it is an ending of is a known word or the stem of one
        ("condition" for "conditions")."""
        hit = self._seen.get(token)
        if hit is None:
            hit = self._seen[token] = any(b in self.words for b in bases(token))
        return hit

    def unknown(self, text: str) -> tuple[str, ...]:
        """The words and signs of ``text`` that are not known, each once, in order."""
        out: list[str] = []
        for t in tokens(text):
            if not self.known(t) and t not in out:
                out.append(t)
        return tuple(out)
