"""Who tells an action, and when: the third person and the past read as the first person and the present.

A trace may tell its steps in the third person ("the solver unstacks A from B", "he puts A down") or
in the past ("I unstacked A from B", "we have put A down"). Neither changes which action is named or
what is said of it. So before a sentence is read, its words are told again in the first person and
the present (`Teller.first_person`), each rewritten stretch padded with spaces to its own length, so
that every offset into the text still holds (docs/traces.md, principle 8):

- an agent as the subject ("the solver", "the planner", "he", "she": phrases.txt `[person]`) and the
  verb after it, with any adverbs between ("also weighs", "does not", "is", "has", "can"), read as "I"
  and that verb in the first person: "I also weigh", "I do not", "I am", "I have", "I can";
- "they" reads as "I" only before a verb of the task's actions ("they unstack A", "could they unstack
  A"): objects of the task do not do its actions. "it" never does: "it takes A and B", "what does it
  take to X" say what an action requires, whatever the task's verbs;
- a verb of the task's actions told in the past after its subject ("I unstacked", "we have put", "she
  took") reads in the present, and where it was is kept (`Told.past`): a step told in the past may
  retell one taken earlier, so it is followed but never judged by its own words
  (`claims.ClaimReader`); the perfect denied ("he has not yet unstacked") reads "I do not yet
  unstack": not taken;
- a verb of the task's actions in the past perfect ("I had unstacked") is left as it stands: it
  speaks of a point before the one the trace is at.

Verbs in the past are formed by the rules of English spelling (`past_forms`) and, for the verbs that
do not follow them, `IRREGULAR`. Nothing here reads a claim: it only changes the words the readers
after it meet.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from widthbench.pddl_domains.readers import phrases

__all__ = ["IRREGULAR", "Told", "Teller", "past_forms", "present", "third_forms"]

WORDS = phrases.section("person")

#: English verbs whose past and past participle do not follow the spelling rules: base -> (past,
#: participle). A participle the same as the base ("put", "overcome") is listed so that the perfect
#: ("we have put A down") reads as done.
IRREGULAR = {
    "become": ("became", "become"), "begin": ("began", "begun"), "bend": ("bent", "bent"), "bind": ("bound", "bound"),
    "blow": ("blew", "blown"), "break": ("broke", "broken"), "bring": ("brought", "brought"),
    "build": ("built", "built"), "buy": ("bought", "bought"),
    "cast": ("cast", "cast"), "catch": ("caught", "caught"), "choose": ("chose", "chosen"),
    "come": ("came", "come"), "cut": ("cut", "cut"), "deal": ("dealt", "dealt"), "dig": ("dug", "dug"),
    "do": ("did", "done"), "draw": ("drew", "drawn"), "drive": ("drove", "driven"), "eat": ("ate", "eaten"),
    "fall": ("fell", "fallen"), "feed": ("fed", "fed"), "feel": ("felt", "felt"), "fight": ("fought", "fought"),
    "find": ("found", "found"), "fly": ("flew", "flown"), "forget": ("forgot", "forgotten"),
    "freeze": ("froze", "frozen"), "get": ("got", "gotten"), "give": ("gave", "given"), "go": ("went", "gone"),
    "grind": ("ground", "ground"), "grow": ("grew", "grown"), "hang": ("hung", "hung"), "have": ("had", "had"),
    "hear": ("heard", "heard"), "hide": ("hid", "hidden"), "hit": ("hit", "hit"), "hold": ("held", "held"),
    "keep": ("kept", "kept"), "know": ("knew", "known"), "lay": ("laid", "laid"), "lead": ("led", "led"),
    "leave": ("left", "left"), "lend": ("lent", "lent"), "let": ("let", "let"), "lie": ("lay", "lain"),
    "light": ("lit", "lit"), "lose": ("lost", "lost"), "make": ("made", "made"), "meet": ("met", "met"),
    "overcome": ("overcame", "overcome"), "pay": ("paid", "paid"), "put": ("put", "put"), "quit": ("quit", "quit"),
    "read": ("read", "read"), "ride": ("rode", "ridden"), "ring": ("rang", "rung"), "rise": ("rose", "risen"),
    "run": ("ran", "run"), "say": ("said", "said"), "see": ("saw", "seen"), "seek": ("sought", "sought"),
    "sell": ("sold", "sold"), "send": ("sent", "sent"), "set": ("set", "set"), "shake": ("shook", "shaken"),
    "shed": ("shed", "shed"), "shoot": ("shot", "shot"), "shut": ("shut", "shut"), "sing": ("sang", "sung"),
    "sink": ("sank", "sunk"), "sit": ("sat", "sat"), "slide": ("slid", "slid"), "sling": ("slung", "slung"),
    "speak": ("spoke", "spoken"), "spin": ("spun", "spun"), "split": ("split", "split"),
    "spread": ("spread", "spread"), "stand": ("stood", "stood"), "steal": ("stole", "stolen"),
    "stick": ("stuck", "stuck"), "strike": ("struck", "struck"), "string": ("strung", "strung"),
    "sweep": ("swept", "swept"), "swim": ("swam", "swum"), "swing": ("swung", "swung"), "take": ("took", "taken"),
    "teach": ("taught", "taught"), "tear": ("tore", "torn"), "tell": ("told", "told"), "think": ("thought", "thought"),
    "throw": ("threw", "thrown"), "undo": ("undid", "undone"), "wake": ("woke", "woken"), "wear": ("wore", "worn"),
    "win": ("won", "won"), "wind": ("wound", "wound"), "withdraw": ("withdrew", "withdrawn"),
    "write": ("wrote", "written"),
}

_VOWELS = "aeiou"


def third_forms(verb: str) -> tuple[str, ...]:
    """The third person singular of ``verb`` ("unstack" -> "unstacks", "carry" -> "carries")."""
    if verb in ("be", "have", "do", "go"):
        return {"be": ("is",), "have": ("has",), "do": ("does",), "go": ("goes",)}[verb]
    if verb.endswith(("s", "sh", "ch", "x", "z", "o")):
        return (verb + "es",)
    if len(verb) > 1 and verb[-1] == "y" and verb[-2] not in _VOWELS:
        return (verb[:-1] + "ies",)
    return (verb + "s",)


def past_forms(verb: str) -> tuple[str, ...]:
    """The past and past participle of ``verb``, by `IRREGULAR` or the spelling rules ("stack" ->
    "stacked", "place" -> "placed", "drop" -> "dropped", "carry" -> "carried"); a final consonant
    after one vowel may or may not be doubled ("travel" -> "traveled", "travelled"), both are given."""
    if verb in IRREGULAR:
        return tuple(dict.fromkeys(IRREGULAR[verb]))
    if verb.endswith("e"):
        return (verb + "d",)
    if len(verb) > 1 and verb[-1] == "y" and verb[-2] not in _VOWELS:
        return (verb[:-1] + "ied",)
    out = [verb + "ed"]
    if len(verb) > 2 and verb[-1] not in _VOWELS + "wxy" and verb[-2] in _VOWELS and verb[-3] not in _VOWELS:
        out.append(verb + verb[-1] + "ed")
    return tuple(out)


#: The perfect: a step said to be done ("I have unstacked A"), or not yet ("we haven't unstacked A").
#: Here, as `_NOT_VERB`, and not in phrases.txt, whose words are known words (lexicon.py): these are
#: read only before a verb of the task, and a sentence with "haven't" elsewhere stays unjudged.
_PERFECT = r"have|has|'ve|haven't|hasn't|have\s+not|has\s+not"
_DENIED_PERFECT = re.compile(r"haven't|hasn't|have\s+not|has\s+not")
#: Words in -s right after a subject that are no verb ("he thus", "the solver always").
_NOT_VERB = re.compile(r"its|this|thus|as|us|his|hers|yes|always|perhaps|unless|sometimes|besides|afterwards|"
                       r"towards|less|across|plus|nevertheless|regardless|was|is|has|does|ones")

#: The third person of the verbs that do not take an ending ("is", "has", "does") -> the first.
_AUXILIARY = {"is": "am", "has": "have", "does": "do", "doesn't": "don't", "hasn't": "haven't",
              "is not": "am not", "does not": "do not", "has not": "have not"}


def present(word: str) -> str | None:
    """The first person of a verb in the third person singular ("weighs" -> "weigh", "carries" ->
    "carry", "pushes" -> "push", "does" -> "do", "is" -> "am", "has" -> "have"), or None for a word
    that is no such form."""
    if word in _AUXILIARY:
        return _AUXILIARY[word]
    if not re.fullmatch(r"[a-z]{2,}s", word) or _NOT_VERB.fullmatch(word):
        return None
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if re.search(r"(?:ss|sh|ch|x|z|o)es$", word):
        return word[:-2]
    return word[:-1]


@dataclass(frozen=True, slots=True)
class Told:
    text: str  # the text in the first person and the present, as long as the text it was made from
    past: tuple[int, ...]  # offsets (in ``text``) of the verbs of the task's actions that were told in the past


class Teller:
    """Tells texts again in the first person and the present, for one task: ``verbs`` are the
    first words of its actions ("unstack", "pick", "feast"), ``vocabulary`` its own words (an agent
    noun among them is no agent: "the robot" in a domain of robots)."""

    def __init__(self, verbs, vocabulary=frozenset()):
        heads = sorted({v for v in verbs if re.fullmatch(r"[a-z]{2,}", v)}, key=len, reverse=True)
        self._heads = frozenset(heads)
        self._base: dict[str, str] = {}  # a form of a verb of the task -> that verb
        self._past: set[str] = set()
        for v in heads:
            for f in third_forms(v):
                self._base.setdefault(f, v)
            for f in past_forms(v):
                self._base.setdefault(f, v)
                self._past.add(f)
        nouns = [n for n in WORDS.AGENT_NOUN.split("|") if n not in vocabulary]
        agent = rf"(?:{WORDS.PERSONAL}|(?:{WORDS.DETERMINER})\s+(?:{'|'.join(nouns) or '(?!)'}))"
        forms = sorted(set(self._base) | self._heads, key=len, reverse=True)
        verb = "(?:" + ("|".join(map(re.escape, forms)) or "(?!)") + r")(?![\w'-])"
        adverbs = rf"(?:(?:{WORDS.ADVERB})\s+)*"
        self._told = re.compile(
            # "could it unstack A", "does the solver unstack A": a modal before its subject
            rf"(?<![\w'-])(?P<modal>{WORDS.MODAL}|does|do)(?P<gap>\s+)(?:{agent}|they)\s+(?={adverbs}{verb})"
            # "the solver (then) unstacks", "I (have) unstacked", "they unstack"
            rf"|(?<![\w'-])(?P<subject>{agent}|they|i|we|you)(?:\s+|(?='ve\b))(?P<adverbs>{adverbs})"
            rf"(?:(?P<aux>{_PERFECT})\s+(?P<adverbs2>{adverbs}))?(?P<verb>{verb})"
            # "the solver weighs", "he does not", "she can": an agent and a verb of its own
            rf"|(?<![\w'-])(?P<agent>{agent})\s+(?P<adverbs3>{adverbs})"
            rf"(?P<other>is\s+not|does\s+not|has\s+not|{WORDS.MODAL}|[a-z]+(?:n't)?)(?![\w'-])")

    def first_person(self, low: str) -> Told:
        """``low`` (lower case) told in the first person and the present (module docstring)."""
        out, past, at = [], [], 0
        for m in self._told.finditer(low):
            said = self._say(m)
            if said is None:
                continue
            text, verb_at = said
            if len(text) > m.end() - m.start():
                continue  # no room to say it in the first person: left as it stands
            out += [low[at:m.start()], text.ljust(m.end() - m.start())]
            if verb_at is not None:
                past.append(m.start() + verb_at)
            at = m.end()
        out.append(low[at:])
        return Told("".join(out), tuple(past))

    def _say(self, m: re.Match) -> tuple[str, int | None] | None:
        """The words of one match in the first person, and where in them the verb of the task told in
        the past now stands (None when none was)."""
        if m.group("modal"):
            modal = _AUXILIARY.get(m.group("modal"), m.group("modal"))
            return f"{modal}{m.group('gap')}i", None
        if m.group("agent"):
            word = m.group("other")
            said = word if re.fullmatch(WORDS.MODAL, word) else present(" ".join(word.split()))
            return None if said is None else (f"i {m.group('adverbs3')}{said}", None)
        subject, verb, aux = m.group("subject"), m.group("verb"), m.group("aux")
        base = self._base.get(verb, verb)
        if aux is not None:
            if subject == "they" or verb not in self._past:
                return None  # "they have stacked": maybe the objects'; "we have stack": no perfect
            if _DENIED_PERFECT.fullmatch(aux):
                return f"i {m.group('adverbs')}do not {m.group('adverbs2')}{base}", None
            said = f"i {m.group('adverbs')}{m.group('adverbs2')}{base}"
            return said, len(said) - len(base)
        if verb in self._heads:
            # the base form: "they unstack" ("I unstack" is already the first person; "I put" may be
            # the past, as the same word: read as it stands)
            return None if subject in ("i", "we", "you") else (f"i {m.group('adverbs')}{verb}", None)
        said = f"i {m.group('adverbs')}{base}"
        return said, len(said) - len(base) if verb in self._past else None
