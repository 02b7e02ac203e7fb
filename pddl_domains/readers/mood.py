"""The mood and the time of a clause: whether a model asserts what it writes, and about which point.

Words of English reasoning, no domain's (docs/traces.md, "How a trace is read"). A claim is judged
only when both are certain; everything here only says what the words say.

Mood (`MOODS`): a clause asserts (the state is so, the action is taken), or it states a requirement
("we need A clear", "requires", "must be", "Pre:", "X demands A"), a goal, a plan or aim ("should",
"will", "to get", "ideally", "I'm going to"), a question, a supposition (the if-part of "if ...",
"were I to"), an option considered ("maybe", "for example", "I could", "would be possible"), a
rejected option ("I can't", "instead of", "X is not possible"), or names an action as a point ("after
unstacking A", "X requires ..."); "I can X" asserts that X applies where the line is. Hedged facts
("maybe A is clear") are not asserted.

Time: "now", "currently", "at this point", a sentence that opens with a time word or a consequence
("At this point, ...", "As a result, ...", "Which means ...") (the point the line is at); "because",
"since" after an action (the state before it); "initially" (the start); "after X-ing" (after X) and
"when X-ing" (at X). Narration before a fact that names no object and negates nothing ("we've got",
"that gives") is not part of the fact.

Negation and truth words: "no pain c", "not clear", "A is not clear" (`grammar.fact_forms`), "pain c
is false", "planet b: no"; "province b is true", "harmony: yes", "(yes)". Enumerations the text says
are complete (`enumerations`): "only A and C are clear", "only <fact> and <fact> hold", "nothing
besides <fact> holds", "none but A is clear", "none of A, B
is clear", "neither A nor B is clear", "all blocks are clear except A".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# ---------------------------------------------------------------------------------------------- moods

ASSERT = "assert"  # a fact asserted; an action taken
CAN = "can"  # "I can X": X asserted applicable where the line is, not taken
REQUIRE = "require"
GOAL = "goal"
PLAN = "plan"
QUESTION = "question"
SUPPOSE = "suppose"
CANDIDATE = "candidate"
REJECT = "reject"
REFERENCE = "reference"
HEDGE = "hedge"
MOODS = (ASSERT, CAN, REQUIRE, GOAL, PLAN, QUESTION, SUPPOSE, CANDIDATE, REJECT, REFERENCE, HEDGE)

# ---------------------------------------------------------------------------------------------- narration

#: A subject with a modal before an action ("I can", "we need to", "let me"): narration, dropped.
SUBJECT_MODAL = re.compile(
    r"^(?:can|could|should|shall|may|might|will|would|do|does)\s+(?:i|we|you)\s+(?:(?:still|now|then|just|also)\s+)?"
    r"|^(?:(?:(?:i|we|you)\s+|(?=can\b|could\b|should\b|will\b|need\s+to\b|have\s+to\b))(?:(?:can|could|might|may|will|would|should|must|shall|'ll|am\s+going\s+to|"
    r"go\s+with|go\s+for|opt\s+for|settle\s+on|"
    r"are\s+going\s+to|need\s+to|have\s+to|want\s+to|try\s+to|decide\s+to|first|then|now|next|also|just|"
    r"only|still|finally|can\s+now|'d)\s+)*)"
    r"|^(?:let\s+me|let's|let\s+us|i'll|we'll|i'd)\s+(?:(?:first|then|now|next|also|just|try\s+to|try|go\s+with|go\s+for|"
    r"opt\s+for|settle\s+on)\s+)*"
    r"|^(?:i'm|we're|i\s+am|we\s+are)\s+(?:now\s+)?(?:going\s+to|about\s+to)\s+")
#: An action named as an option or a deliberation ("a possibility is to X", "think about whether to
#: X", "whether or not to X"): considered, not taken; the action is read after these words.
OPTION_LEAD = re.compile(
    r"^(?:(?:think|thinking|wonder|wondering|decide|deciding|consider|considering|unsure|not\s+sure|ask\s+myself)"
    r"\s+(?:about\s+|of\s+)?)?whether\s+(?:or\s+not\s+)?(?:(?:i|we)\s+(?:should|could|can|might)\s+|to\s+)"
    r"|^(?:a|an|one|another|the\s+other|the\s+first|the\s+next)\s+(?:option|possibility|idea|alternative|choice|candidate)"
    r"\s+(?:is|would\s+be|could\s+be|might\s+be|here\s+is)\s+(?:to\s+)?")
#: A word of carrying out before the action it carries out ("Performing X.", "Executing: X"): the
#: action taken, read after it.
PERFORMING = re.compile(r"^(?:performing|executing|applying|carrying\s+out)\s*:?\s+(?=\S)")
#: "I can" / "we can now" without "could" or a question: the action applies where the line is.
ABILITY = re.compile(r"^(?:(?:so|and|then|now)\s+)*(?:i|we|you)\s+(?:can|can\s+now|could\s+now)\s+(?!not\b|'t\b)")
OPENER = re.compile(r"^(?:(?:so\s+far|so|but|and|now|then|okay|ok|well|hmm+|alright|oh|also|wait|no(?=\s*[,.!;:])|yes|actually|"
                    r"first|firstly|second|next|finally|lastly|after\s+that|afterwards|thus|therefore|hence|"
                    r"here|this\s+way|that\s+way|if|suppose|supposing|assuming|what\s+if|imagine|when|once|"
                    r"were\s+(?:i|we|you)\s+to|"
                    r"for\s+example|for\s+instance|e\.\s?g\.|maybe|perhaps|possibly|what\s+about|how\s+about|"
                    r"alternatively|(?:i|we)\s+(?:now\s+)?(?:see|know|have|note|notice|recall)(?:\s+that)?|note\s+that|notice\s+that|"
                    r"as\s+of\s+now|looking\s+at\s+it|indeed|"
                    r"remember\s+that|it\s+holds\s+that|clearly|of\s+course|right\s+now|currently|at\s+this\s+point|"
                    r"at\s+the\s+moment|at\s+present|as\s+a\s+result|"
                    r"(?:(?:the\s+)?(?:first|next|last|final)\s+)?(?:step|action|move)"
                    r"(?:\s*\d+(?:\s+(?:is|would\s+be|will\s+be|should\s+be|could\s+be)(?:\s+to)?)?"
                    r"|\s+(?:is|would\s+be|will\s+be|should\s+be|could\s+be)(?:\s+to)?|(?=\s*:))|\d+[.)])\b[\s,.!:;-]*)+")
OPENER_WORDS = re.compile(r"^(?:(?:so|but|and|now|then|wait|well|okay|ok|also|yes|no(?=\s*[,.!;:])|hmm+|actually)\b[\s,]*)+")
#: "no" opens a retraction ("No, ...") but denies a fact when nothing separates them ("no pain c").
#: An action said not to be taken or not possible ("I can't unstack B", "instead of stacking").
NEGATED = re.compile(r"^(?:(?:i|we|you)\s+)?(?:can't|cannot|can\s+not|couldn't|don't|do\s+not|shouldn't|"
                     r"should\s+not|won't|will\s+not|mustn't|must\s+not|never|not|no\s+need\s+to|avoid|"
                     r"instead\s+of|without|before|until|unless|rather\s+than|trying\s+to|try\s+to)\b")
#: "after" / "by" / "when" before a gerund: the action named as a point.
GERUND_LEAD = re.compile(r"(?:^|(?<=\s))(?:after|by|when|once|upon|from)\s+(?=\w+ing\b)")
#: Verbs of change and contractions read as the grammar's "is".
CHANGE = ((re.compile(r"\b(?:becomes|remains|stays|is\s+now|is\s+still|gets|is\s+then)\b"), "is"),
          (re.compile(r"\b(?:become|remain|stay|are\s+now|are\s+still)\b"), "are"),
          (re.compile(r"\bisn't\b"), "is not"), (re.compile(r"\baren't\b"), "are not"),
          (re.compile(r"\b(?:it's|it\s+is)\s+(?=now\b|still\b)"), "it is "))
#: A requirement written into a fact's verb ("A must be clear", "B needs to be on the table"), and
#: an aim ("A should be on B").
REQUIRED_VERB = re.compile(r"\b(?:must\s+be|must\s+have\s+been|needs?\s+to\s+be|has\s+to\s+be|have\s+to\s+be|"
                           r"is\s+required\s+to\s+be|is\s+required|are\s+required|is\s+needed|are\s+needed)\b")
AIMED_VERB = re.compile(r"\b(?:should\s+be|ought\s+to\s+be|will\s+be|would\s+be|shall\s+be)\b")
#: A clause that opens a requirement or precondition list ("we need", "requires", "Pre:", "the
#: preconditions are"): its facts, and the facts after it in its sentence, are requirements.
REQUIRE_LEAD = re.compile(
    r"^(?:(?:so|and|but|then|now|also|first)\s+)*(?:(?:i|we|you|it|this|that|which|one)\s+)?(?:(?:still|also|first|then|would|will|do|does)\s+)*"
    r"(?:need|needs|needed|require|requires|required|must\s+have|has\s+to\s+have|have\s+to\s+have)\b(?!\s+to\s+(?!be\b))\s*:?\s*(?:that\s+)?"
    r"|^(?:the\s+|its\s+|their\s+|our\s+)?(?:pre-?conditions?|requirements?|pre|conditions?|prerequisites?)"
    r"(?:(?:\s+(?:of|for|to)\s+[^:]{1,60}?)?\s+(?:are|is|would\s+be|will\s+be)\b|\s*:|\s*$)\s*(?:that\s+)?")
#: A sentence that opens with the purpose of an action ("To stack A on B, ...", "To be able to X,
#: ...", "In order to X, ..."): the facts it states are what that action requires, not the state.
PURPOSE = re.compile(r"^[\W_]*(?:(?:so|and|but|then|now|okay|ok|well)\b[\s,]*)*(?:in\s+order\s+to|so\s+as\s+to|"
                     r"to\s+be\s+able\s+to|to)\s+(?!be\b|have\b|get\s+to\b|start\b|begin\b|sum\s+up\b|recap\b)\S")
#: Time words after a fact ("the hand is empty now"): the fact is read without them.
TRAILING_TIME = re.compile(r"\s+(?:now|right\s+now|at\s+this\s+point|at\s+the\s+moment|currently|any\s*more|"
                           r"still|too|as\s+well|again)$")
#: Words that confirm a requirement or a fact is met ("holding blue (yes)", "which it is", "✓").
CONFIRMED = re.compile(r"\((?:yes|true|ok|met|satisfied|holds|it\s+is|which\s+it\s+is|correct|check(?:ed)?)\)|"
                       r"\bwhich\s+(?:it|they|he|she)\s+(?:is|are|does|do)\b|[✓✔]|\b(?:yes|true)\s*[.!)]*\s*$")
#: Words that hedge a fact ("maybe", "probably", "I think", "seems"): not asserted.
HEDGED = re.compile(r"\b(?:maybe|perhaps|possibly|probably|presumably|might|may\s+be|could\s+be|i\s+think|i\s+guess|"
                    r"seems?|appears?|likely|unlikely|i'm\s+not\s+sure|not\s+sure)\b")
#: An option considered, inside a clause ("I could X", "X would be possible", "we might X").
CONSIDERED = re.compile(r"^(?:(?:i|we|you)\s+)?(?:could|might|may)\b|\b(?:would|could|might)\s+(?:be\s+)?"
                        r"(?:possible|allowed|valid|work|an\s+option|fine|ok|okay)\b")
#: What a clause says of the action it opens with, after it: its requirements ("X requires A",
#: "X needs"; a point named, not an action taken), that it would be possible (an option), that it is
#: possible or allowed ("X is possible": asserted applicable, not taken), that it is not.
OF_ACTION = (
    (REFERENCE, re.compile(r"^\s*(?:(?:we|i|you|one)\s+(?:would\s+|will\s+|first\s+)?(?:need|require)|requires?|needs?|would\s+(?:need|require)|"
                           r"demands?|calls?\s+for|depends?\s+on|presupposes|is\s+(?:only\s+)?(?:allowed|possible|legal)\s+only\s+(?:if|when)|"
                           r"is\s+only\s+(?:allowed|legal)\s+(?:if|when)|can\s+only\s+(?:be\s+done|happen)\s+(?:if|when)|has\s+(?:the\s+)?(?:pre-?conditions?|requirements?)|"
                           r"pre-?conditions?|is\s+only\s+possible\s+if|is\s+possible\s+only\s+if)\b")),
    (REJECT, re.compile(r"^\s*(?:(?:is|was|would\s+be|seems)\s+(?:not|n't)\s+|isn't\s+|wasn't\s+|(?:is|would\s+be)\s+im)"
                        r"(?:possible|allowed|valid|applicable|legal|an\s+option)|^\s*(?:can't|cannot|won't|doesn't)\b")),
    (CANDIDATE, re.compile(r"^\s*(?:would|could|might|may)\s+(?:be\s+)?(?:possible|allowed|valid|work|an\s+option|fine|ok|okay)\b"
                           r"|^\s*(?:might|could|may)\b|^\s*\?")),
    (CAN, re.compile(r"^\s*(?:is|seems|looks)\s+(?:possible|allowed|valid|applicable|legal|fine|ok|okay)\b")),
)
#: An intent to do something ("we need to move orange to the table", "I will put it down"), not
#: about a state ("A should hold", "need to get to ..."): "Then ..." after it goes on with the plan.
PLANS_DOING = re.compile(r"\b(?:need|needs|have|has|want|wants|going|ought)\s+to\s+(?!be\b|have\b|hold\b|get\s+to\b|end\b|"
                         r"reach\b|achieve\b)\w+|\b(?:should|must|will|'ll|shall)\s+(?!be\b|have\b|hold\b|end\b)\w+")
#: The goal named as what a clause states ("our goal is that ...", "the target is ..."): read without it.
GOAL_LEAD = re.compile(r"^(?:our|the|my|your)\s+(?:final\s+|main\s+)?(?:goal|target|objective|aim)s?\s+(?:is|are|would\s+be)\s*:?\s*"
                       r"(?:to\s+(?:have|get|reach|make)\s+)?(?:that\s+)?(?=\S)")
#: A reason for the action just named: the state before it ("because", "since", "requires").
BEFORE = re.compile(r"^(?:because|since|as|given\s+that|requires?|needs?|precondition[s]?|for\s+this|"
                    r"which\s+requires?|check(?:ing)?|that\s+requires?)\b\s*:?\s*")
PREDICATE_ONLY = re.compile(r"^(?:not\s+|no\s+longer\s+)?(?:\S+\s*){1,5}$")
GOAL_WORD = re.compile(r"\b(?:goal|goals|objective|objectives|target|targets)\b")
#: Words that would change what a fact says if a narration before it were dropped: negation, the past.
NOT_NARRATION = re.compile(r"\b(?:not|no|never|nor|neither|none|without|false|untrue|wrong|was|were|had|n't)\b|n't\b")
GOAL_STOP = re.compile(r"^(?:so|which|because|since|meaning|i\.?e|then|thus|but|while|where|that\s+means|now|"
                       r"currently|initially|right\s+now|at\s+the\s+moment)\b")
CONDITIONAL = re.compile(r"^(?:(?:so|but|and|now|then|wait|well|okay|ok|also)\b[\s,]*)*"
                         r"(?:if|unless|whether|when|once|assuming|suppose|supposing|provided|in\s+case|"
                         r"were\s+(?:i|we|you)\s+to)\b")
POST_LABEL = re.compile(r"^(?:post|post-?conditions?|effects?|result|after|afterwards?)\b")
AFTER = re.compile(r"^(?:after|once|upon)\b")
BARE_GERUND = re.compile(r"^\w+ing\b")
AT_MOMENT = re.compile(r"^(?:when|while|before|upon|to|for|in\s+order\s+to)\s+")
#: Another point named: "after moving A", "once that is done" (never "after this": the point the line is at).
AT_POINT = re.compile(r"^(?:after|once|when|until|upon)\s+(?!(?:this|that|doing\s+(?:this|that|so)|which)\b)")
RESTATES = re.compile(r"^[\W_]*(?:so|that\s+is|that\s+means|i\.?e\.?|which\s+means|meaning|in\s+other\s+words)\b")
CURRENT = re.compile(r"\b(?:currently|right\s+now|at\s+the\s+moment|now|initially|initial|start|starting|"
                     r"step\s*\d|first|after\s+step)\b")
GOES_ON = re.compile(r"^[\W_]*(?:then|and\s+then|next|after\s+that|afterwards)\b")
#: A sentence that opens with a time word ("At this point, A, B and C"), a word of what follows in time
#: ("afterwards", "subsequently", "following this", "with that done", "having done so") or of consequence ("as a result", "hence",
#: "therefore", "consequently"; "this gives", "this leads to", "which results in"): its facts are
#: said of the point the line is at.
OPENS_NOW = re.compile(r"^[\W_]*(?:(?:so|and|but|then|okay|ok|well)\b[\s,]*)*(?:now|right\s+now|currently|after\s+(?:this|that)|"
                       r"afterwards?|subsequently|thereafter|following\s+(?:this|that)|"
                       r"with\s+(?:this|that|it)\s+done|(?:this|that)\s+(?:being\s+)?done|once\s+(?:(?:this|that|it)\s+is\s+)?done|"
                       r"having\s+done\s+(?:this|that|so)|"
                       r"as\s+a\s+(?:result|consequence)|hence|thus|therefore|consequently|accordingly|"
                       r"(?:that|this|which|it)\s+(?:gives|means|leaves|makes|leads\s+to|results\s+in|yields|produces|causes)|"
                       r"resulting\s+in|so\s+we\s+get|at\s+this\s+point|at\s+the\s+moment|at\s+present)\b")
#: A clause, or a sentence that opens so, that says "initially": its facts are of the state the trace
#: starts from.
_START_WORDS = (r"(?:initially|originally|at\s+the\s+(?:start|beginning)|in\s+the\s+(?:initial|starting|start)\s+state|"
                r"to\s+begin\s+with|to\s+start\s+with)\b")
SAYS_START = re.compile(r"\b" + _START_WORDS)
OPENS_START = re.compile(r"^[\W_]*(?:(?:so|and|but|okay|ok|well|wait)\b[\s,]*)*" + _START_WORDS)
SAYS_NOW = re.compile(r"\b(?:now|currently|right\s+now|at\s+this\s+point|at\s+the\s+moment|at\s+present)\b")
RELATIVE = re.compile(r"^(?:which|who)\s+(?=(?:is|are|now|remains|becomes|stays|sits|rests|has|holds)\b)")
WHY_DONE = re.compile(r"^(?:because|since|as)\s+(?:i|we)\s+(?:already\s+|just\s+)?(?!(?:can|could|will|would|should|"
                      r"need|needs|must|have|has|am|are|was|were|want|'m|'ll|'d)\b)[a-z]+")
WHY_LEAD = re.compile(r"^(?:because|since|as|given\s+that)\s+(?=(?:after|once|upon)\b)")
WHY = re.compile(r"\b(?:because|since|given\s+that)\b\s*")
NOW = re.compile(r"^(?:after|afterwards|then|now|next|so\s+now|and\s+now|once\s+done|as\s+a\s+result|"
                 r"this\s+(?:makes|leaves)|which\s+(?:makes|leaves))\b")
AIM = re.compile(r"\b(?:should|must|needs?|would|will|'ll|could|might|want)\b")
NOT_FORM = re.compile(r"\(\s*not\s*(\(\s*[a-z_][\w\-]*(?:\s+[^\s()]+)*\s*\))\s*\)")
DENIED_AFTER = re.compile(r"^\s*(?:is|are)\s+(?:not|false|no\s+longer)|^\s*(?:doesn't|does\s+not)\s+hold")
DENIED_BEFORE = re.compile(r"\b(?:not|no\s+longer|false)\s*$")

# ---------------------------------------------------------------------------------------------- truth words

#: A clause that is only a verdict on the facts listed just before it in its sentence ("the
#: preconditions; A is clear, the hand is empty, are satisfied" / "..., is not satisfied").
VERDICT = re.compile(r"^(?P<yes>yes|true|correct|right|indeed|checked|ok|okay|(?:that's|that\s+is)\s+(?:true|right|correct))$|"
                     r"^(?:which\s+|that\s+|these\s+|this\s+|they\s+|it\s+)?(?:(?:is|are)\s+(?P<neg>not\s+|no\s+longer\s+)?(?:all\s+)?"
                     r"(?:satisfied|met|true|fulfilled|the\s+case)|(?:does|do)\s+(?P<neg2>not\s+)?hold)"
                     r"(?:\s+(?:in\s+the\s+(?:current|present)\s+state|now|here|any\s*more|either))?\s*$")

_NO = re.compile(r"^(?:no|not)\s+(?!longer\b|need\b|one\b|other\b)")
_FALSE_AFTER = re.compile(r"\s*(?:(?:is|are)\s+(?:false|not\s+true|untrue)|(?:does|do)\s*(?:not|n't)\s+hold|"
                          r"\s*[:=-]\s*(?:no|false)|\s+no|\s*\((?:no|false)\))\s*$")
_TRUE_AFTER = re.compile(r"\s*(?:(?:is|are)\s+(?:true|the\s+case)|holds?|\s*[:=-]\s*(?:yes|true)|\s+yes|"
                         r"\s*\((?:yes|true)\))\s*$")


def truth_forms(c: str):
    """(fact text, negated) readings of a clause that carries its truth in words: "no pain c",
    "not clear a", "pain c is false", "planet b: no" (denied); "province b is true", "harmony: yes",
    "holding blue (yes)" (asserted). Nothing when the clause has no such words."""
    m = _NO.match(c)
    if m:
        yield c[m.end():], True
    m = _FALSE_AFTER.search(c)
    if m and m.start() > 0:
        yield c[:m.start()], True
    m = _TRUE_AFTER.search(c)
    if m and m.start() > 0:
        yield c[:m.start()], False


# ---------------------------------------------------------------------------------------------- enumerations

_LIST_SPLIT = re.compile(r"\s*(?:,\s*(?:and\s+|&\s+)?|\s+and\s+|\s+&\s+|\s+nor\s+)\s*")
#: Words that make a list exclusive: "only", "just", "exactly", "solely", and "nothing / none / no one /
#: no other <noun>" followed by "but", "besides", "except", "other than", "apart from", "beyond", "save".
_BUT = r"(?:but|besides|except|other\s+than|apart\s+from|beyond|save)"
_ONLY = (r"(?:only|just|exactly|solely|exclusively|nothing\s+(?:else\s+)?" + _BUT + r"|none\s+(?:other\s+)?" + _BUT +
         r"|no\s+one\s+(?:else\s+)?" + _BUT + r"|no\s+(?:other\s+)?(?:blocks?|objects?|ones?|facts?)\s+" + _BUT + r")")
_ENUMERATIONS = (
    # "only a and c are clear", "only the red block is clear", "none besides a is clear"
    ("only", re.compile(r"^" + _ONLY + r"\s+(?P<objs>.+?)\s+(?:is|are)\s+(?P<pred>(?!the\s+only\b).+)$")),
    # "a and c are the only clear blocks", "a is the only one that is clear"
    ("only", re.compile(r"^(?P<objs>.+?)\s+(?:is|are)\s+the\s+only\s+(?:ones?|blocks?|objects?)\s+(?:that\s+(?:is|are)\s+)?(?P<pred>.+)$")),
    ("only", re.compile(r"^the\s+only\s+(?P<pred>[\w-]+)\s+(?:ones?|blocks?|objects?)\s+(?:is|are)\s+(?P<objs>.+)$")),
    # "only <fact> and <fact> hold"
    ("only-facts", re.compile(r"^" + _ONLY + r"\s+(?P<facts>.+?)\s+(?:hold|holds|are\s+true|is\s+true)$")),
    ("only-facts", re.compile(r"^" + _ONLY + r"\s+(?:these|the\s+following)\s+(?:facts\s+)?(?:hold|are\s+true)(?:\s+now)?\s*:?\s*"
                              r"(?P<facts>.+)$")),
    ("none", re.compile(r"^none\s+of\s+(?P<objs>.+?)\s+(?:is|are)\s+(?P<pred>.+)$")),
    ("none", re.compile(r"^neither\s+(?P<objs>.+?\s+nor\s+.+?)\s+(?:is|are)\s+(?P<pred>.+)$")),
    # "all blocks are clear except a", "every block except a is clear"
    ("except", re.compile(r"^(?:all|every|each)\s+(?:of\s+)?(?:the\s+)?(?:[\w-]+\s+)?(?:is|are)\s+(?P<pred>.+?)\s+"
                          r"(?:except|but|other\s+than|apart\s+from)\s+(?:for\s+)?(?P<objs>.+)$")),
    ("except", re.compile(r"^(?:all|every|each)\s+(?:of\s+)?(?:the\s+)?(?:[\w-]+\s+)?(?:except|but|other\s+than|apart\s+from)\s+"
                          r"(?:for\s+)?(?P<objs>.+?)\s+(?:is|are)\s+(?P<pred>.+)$")),
)


@dataclass(frozen=True, slots=True)
class Enumeration:
    """An enumeration read from a clause: ``kind`` "only" (the objects listed are the only ones the
    predicate holds of), "only-facts" (the facts listed are the only ones of their predicates),
    "none" (it holds of none of them), "except" (of all but them); ``items`` the object phrases (or
    fact phrases), ``predicate`` the predicate phrase ("clear", "on the table")."""

    kind: str
    items: tuple[str, ...]
    predicate: str = ""


def enumerations(clause: str) -> list[Enumeration]:
    """The enumerations a (normalised, opener-free) clause may state, in the order of `_ENUMERATIONS`
    (the reader keeps the first whose items name objects or facts of its task)."""
    c = TRAILING_TIME.sub("", " ".join(clause.split()).strip(" .!;:"))
    out = []
    for kind, pat in _ENUMERATIONS:
        m = pat.match(c)
        if not m:
            continue
        if kind == "only-facts":
            items = tuple(y for x in _LIST_SPLIT.split(m.group("facts")) for y in re.split(r"(?<=\))\s+(?=\()", x) if y)
            if items:
                out.append(Enumeration(kind, items))
            continue
        items = tuple(re.sub(r"^(?:both|either|neither)\s+", "", x) for x in _LIST_SPLIT.split(m.group("objs")) if x)
        out.append(Enumeration(kind, items, m.group("pred").strip()))
    return out


def mood_of_fact(raw: str) -> str | None:
    """The mood a fact clause's own words give it (None: none of its own, the sentence decides):
    a requirement written into its verb, or a hedge."""
    if REQUIRED_VERB.search(raw):
        return REQUIRE
    if AIMED_VERB.search(raw):
        return PLAN
    if HEDGED.search(raw):
        return HEDGE
    return None


def required_as_is(c: str) -> str:
    """``c`` with a requirement or an aim written into its verb read as "is" ("A must be clear" -> "A
    is clear")."""
    return AIMED_VERB.sub("is", REQUIRED_VERB.sub("is", c))
