"""How a rule becomes a fact: whose rule it is (the user's, about answers; the project's, about the
code), the slot it fills when it has one (reply language, reply length, indentation), and its words
in the third person ("without asking me first" -> "without asking the user first")."""

from __future__ import annotations

import re

from extractors.readers.common import Fact, ReaderBase, Token, joined
from extractors.render import SUBJECT_MARK, plain, sentence

COMMAND = re.compile(r"^CMD\d+$")  # a command set aside before parsing
_LENGTHS = frozenset(
    [
        "short",
        "shorter",
        "brief",
        "concise",
        "terse",
        "succinct",
        "detailed",
        "long",
        "longer",
        "thorough",
        "verbose",
        "in-depth",
        "comprehensive",
        "minimal",
        "compact",
    ]
)
FIRST_PERSON_WORDS = re.compile(
    r"(?<![\w'/-])(?-i:(?!US\b))(?:(?:i|we)\s+(?:have|do|don't|dont|am|are)|me|my|i'm|im|i've|ive|i|myself|we're|we've|we|us|our)"
    r"(?![\w'/-])",
    re.I,
)
# In a rule, the user the rule speaks of: "without asking me first" -> "without asking the user first".
_THIRD_PERSON = {
    "me": "the user",
    "my": "the user's",
    "i": "the user",
    "i'm": "the user is",
    "im": "the user is",
    "ive": "the user has",
    "myself": "the user",
    "we": "the team",
    "we're": "the team is",
    "we've": "the team has",
    "us": "the team",
    "our": "the team's",
    "i've": "the user has",
}
_OUR_TEAM = re.compile(r"\bour team\b", re.I)
# "i have 4 boys working under me" -> "the user has ...": the verb agrees with who is named
_AGREED = {"have": "has", "do": "does", "don't": "doesn't", "dont": "doesn't", "am": "is", "are": "is"}


def _third(word: str) -> str:
    said = word.lower().split()
    if len(said) == 2:
        return f"{_THIRD_PERSON[said[0]]} {_AGREED[said[1]]}"
    return _THIRD_PERSON[said[0]]


def in_third_person(body: str) -> str:
    """The user and the team the rule speaks of, named as such."""
    body = _OUR_TEAM.sub("the team", body)  # not "the team's team"
    return FIRST_PERSON_WORDS.sub(lambda m: _third(m.group(0)), body)


def _of_artifacts(token: Token) -> bool:
    """ "british spelling in all ui strings", "composition api in examples": the words of an answer
    said of what the code holds are the project's."""
    return any(
        t.lower_
        in (
            "ui",
            "strings",
            "copy",
            "codebase",
            "repo",
            "commit",
            "commits",
            "docs",
            "pr",
            "prs",
            "branch",
            "branches",
            "tabs",  # "style: 4 spaces, no tabs, max line length 100": how the code is laid out
            "indentation",
            "indent",  # "style: 2 spaces indent, single quotes": the code's
            "semicolons",
            "json",  # "snake_case in json responses": what the API answers, not the assistant
            "api",
            "endpoint",
            "endpoints",
        )
        for t in _segment(token)
    )


def _segment(token: Token) -> list[Token]:
    """The words of the sentence around ``token`` up to a clause of its own after a comma: "no emojis
    in your replies, I paste them into work docs" says where they go as a reason apart."""
    sent = token.sent
    doc = sent.doc

    def opens_a_clause(t: Token) -> bool:
        return t.text in _SEGMENT_BREAKS and t.i + 1 < sent.end and doc[t.i + 1].lower_ in _CLAUSE_OPENERS

    start = next((t.i + 1 for t in reversed(doc[sent.start : token.i]) if opens_a_clause(t)), sent.start)
    end = next((t.i for t in doc[token.i : sent.end] if opens_a_clause(t)), sent.end)
    return list(doc[start:end])


_SEGMENT_BREAKS = frozenset({",", ";", "\u2014", "\u2013"})
_CLAUSE_OPENERS = frozenset(
    {"i", "we", "they", "it", "this", "that", "because", "cause", "since", "as", "so"}
)


# verbs of what an answer says ("cite papers when u mention methods", "give units with numbers")
_TELLING = frozenset(
    {
        "give",
        "cite",
        "mention",
        "show",
        "tell",
        "explain",
        "suggest",
        "recommend",
        "quote",
        "write",
        "present",
    }
)


# the pace of every answer: "explain things step by step", "go slow please", "chunk it up"
PACED = re.compile(
    r"\bstep[- ]by[- ]step\b|\b(?:go|take it|explain\w*(?: \w+)?|talk) slow(?:ly|er)?\b|\bbit by bit\b|"
    r"\bone (?:step|thing) at a time\b|"
    r"\bsmall(?:er)? steps\b|\bchunk(?:s|ed)?\b|\bsimpl(?:e|y|er)\b|\bgently\b",
    re.IGNORECASE,
)


def paced(tokens: list[Token]) -> bool:
    return bool(PACED.search(" ".join(t.lower_ for t in tokens)))


class RuleBase(ReaderBase):
    """Whose a rule is, and the fact it makes."""

    def rule_scope(self, tokens: list[Token]) -> str:
        """A rule about how the assistant answers or talks to the user is the user's; one about the
        code, the repo or the team's work is the project's."""
        lex = self.lex
        user = 0.0
        project = 0.0
        answers = lex["answer_word"] - {"me"}
        life = lex["life_noun"] | lex["kin_noun"] | lex["pet_noun"] | lex["diet_word"]
        homely = lex["consume_verb"] | lex["life_event_verb"] | {"live", "cook", "sleep", "eat"}
        for token in tokens:
            lemma, lower = token.lemma_.lower(), token.lower_
            if (lower in answers or lemma in answers) and not _of_artifacts(token):
                user += 1.5  # how answers look is said of answers; a code word nearby is usually context
            if lower in ("i", "i'm") and token.dep_ in ("nsubj", "nsubjpass"):
                user += 1  # "on fridays i eat fish tho": about the speaker's own life
            if lower == "we" and token.dep_ == "nsubj" and token.head.lemma_.lower() not in homely:
                project += 1  # "in this codebase we use tabs not spaces": the team's way (not "we eat")
            if lower == "my" and token.head.lemma_.lower() not in lex["code_noun"] | lex["project_noun"]:
                user += 1  # "except dark chocolate, that's my one exception" (not "my PRs", "my repo")
            if lower == "me":
                governor = token.head.lemma_.lower()
                user += (
                    2
                    if governor
                    in ("for", "give", "show", "write", "send", "explain", "answer", "reply", "with", "to")
                    else 0.5
                )
            if lower in ("you", "u", "ya") and token.dep_ in ("nsubj", "dobj", "dative"):
                user += 1  # "when u change a file ...", "... when you refer to a tool": the assistant's way
            if lemma in _TELLING and token.dep_ == "ROOT" and token.tag_ == "VB":
                user += 1  # "cite papers ...", "always give units ...": what an answer says
            if lemma in life or lower in life:
                user += 1  # "skip the wine pairings": about the person's own life
            if token._.tech is not None:
                if self.vocab.slot(token._.tech).scope == "user":
                    user += 2
                else:
                    project += 1
            if (
                lemma in lex["code_noun"]
                or lower in lex["code_noun"]
                or "/" in lower
                or lower.startswith("`")
                or COMMAND.match(token.text)
            ):
                project += 1
        if any(
            t.lower_ in lex["language_name"] and t.i > 0 and t.doc[t.i - 1].lower_ in ("in", "auf")
            for t in tokens
        ) and not any(t.lemma_.lower() in lex["code_noun"] for t in tokens):
            user += 2  # "answer in German" (but "all comments must be in English": the code's)
        if paced(tokens) and not project:
            user += 2  # "go slow please": how the answers are paced
        return "user" if user > project else "project"

    def rule_fact(
        self, body: str, tokens: list[Token], scope: str, source: list[Token], anchor: int, reader: str
    ) -> Fact:
        key, value = self.rule_slot(tokens, scope)
        body = in_third_person(body)
        text = body if body.startswith(SUBJECT_MARK) else f"{SUBJECT_MARK} rule: {sentence(body)}"
        return Fact(
            kind="procedural" if scope == "project" or key is None else "semantic",
            scope=scope,
            key=key,
            value=value or plain(tokens),
            text=sentence(text) if key is None else self.slot_text(key, value or "", text),
            span=plain(source),
            reader=reader,
            confidence=0.85,
            anchor=anchor,
        )

    def rule_slot(self, tokens: list[Token], scope: str) -> tuple[str | None, str | None]:
        words = [t.lower_ for t in tokens]
        if scope == "user":
            for i, word in enumerate(words):
                if word in self.lex["language_name"] and i > 0 and words[i - 1] in ("in", "auf"):
                    return "response_language", tokens[i].text
            for token in tokens:
                if token.lower_ in _LENGTHS and token.head.lemma_.lower() in (
                    self.lex["answer_word"] | {"keep", "be"}
                ):
                    return "response_length", token.text
        for i, word in enumerate(words):
            if word in ("tabs", "spaces", "tab", "space") or re.match(r"^\d+-space", word):
                start = i
                while start > 0 and (
                    words[start - 1].isdigit() or words[start - 1] in ("-", "four", "two", "eight")
                ):
                    start -= 1
                end = i + 1
                if end < len(words) and words[end] in ("indentation", "indent", "indents", "indenting"):
                    end += 1
                if word in ("tab", "space") and start == i and end == i + 1:
                    continue  # "space theme sounds fun": one space, counted by nothing, lays out nothing
                return "indentation", joined(tokens[start:end])
        return None, None

    @staticmethod
    def slot_text(key: str, value: str, text: str) -> str:
        """A slotted rule keeps its words as said ("keep ur answers short", "tabs not spaces"): the
        slot is for supersession; the words are what a later prompt should read."""
        if text and value.lower() in text.lower():
            return sentence(text)
        if key == "response_language":
            return f"{SUBJECT_MARK} wants replies in {value}."
        if key == "response_length":
            return f"{SUBJECT_MARK} wants replies kept {value}."
        if key == "indentation":
            return f"{SUBJECT_MARK} indents code with {value}."
        return text
