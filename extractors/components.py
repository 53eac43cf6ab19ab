"""The spaCy components of ``mnemo.clauses.v1``, registered by name (``Language.factory``), and
the tokenizer's chat spellings (``patterns/spellings.jsonl``): what the parse needs that the model
does not know about chat.

- ``mnemo_chat_sentences_v1``: sentence starts chat misses ("no emojis. ever. makes it look ...");
- ``mnemo_hyphened_names_v1``: "Hye-jin", "Min-jun" as one name;
- ``mnemo_chat_norms_v1``: lemmas for chat spellings ("im", "dont");
- ``mnemo_coined_words_v1``: a word the model never saw is a name, not a preposition;
- ``mnemo_tech_v1``: products of ``patterns/vocabulary.jsonl``.
"""

from __future__ import annotations

import re
from typing import Any

import msgspec
from spacy.language import Language

from core.errors import ConfigError
from extractors.data import load
from extractors.vocabulary import TechMarker, load_vocabulary

# Chat spellings the tagger reads better spelled out: "im" is "I'm".
_SPECIAL_CASES = {
    "im": [{"ORTH": "i", "NORM": "i"}, {"ORTH": "m", "NORM": "am"}],
    "Im": [{"ORTH": "I", "NORM": "i"}, {"ORTH": "m", "NORM": "am"}],
    "IM": [{"ORTH": "I", "NORM": "i"}, {"ORTH": "M", "NORM": "am"}],
}
# a name with a dot inside, as code writes it: "fmt.Errorf", "os.Exit", "React.useState" (the
# tokenizer cuts "word.Word" as two sentences run together)
_DOTTED_NAME = re.compile(r"^[a-z][a-z0-9_]{0,15}\.[A-Z][A-Za-z0-9_]*[a-z0-9_][A-Za-z0-9_]*$")
# words that open a sentence typed without a space after the stop: "works fine.Then it breaks"
_OPENING_WORDS = frozenset(
    {
        "it",
        "the",
        "then",
        "we",
        "this",
        "that",
        "but",
        "and",
        "so",
        "also",
        "now",
        "thanks",
        "thank",
        "anyway",
        "not",
        "my",
        "our",
        "you",
        "they",
        "he",
        "she",
        "its",
        "what",
        "how",
        "why",
        "when",
        "can",
        "could",
        "please",
        "pls",
        "any",
        "there",
        "here",
    }
)


def _dotted_name(text: str) -> bool:
    return bool(_DOTTED_NAME.match(text)) and text.split(".", 1)[1].lower() not in _OPENING_WORDS


# a dash between spaces, then a subject, opens a new sentence
_DASHES = frozenset({"\u2014", "\u2013", "-", "--"})
_SUBJECTS = frozenset({"i", "we"})
_BE_NORMS = frozenset({"am", "is", "are", "'m", "'re", "'s"})
_CLOSED_CLASSES = frozenset({"ADP", "ADV", "AUX", "CCONJ", "SCONJ", "DET", "PRON", "PART", "INTJ"})


class ChatSpelling(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    """A short form chat uses and the word it stands for (``patterns/spellings.jsonl``)."""

    said: str
    norm: str


def chat_spellings() -> dict[str, list[dict[str, str]]]:
    """Tokenizer special cases giving each short form its full word as NORM: the tagger and parser
    read NORM, so "all db access goes through ..." parses as "all database access ..." (not "db" as a
    verb), while the text, and every value copied from it, stays as typed."""
    cases = dict(_SPECIAL_CASES)
    for where, row in load("spellings.jsonl", ChatSpelling):
        if not row.said.isalpha() or row.said != row.said.lower():
            raise ConfigError(f"{where}: a short form is one lowercase word, not {row.said!r}")
        for form in {row.said, row.said.upper(), row.said.capitalize()}:
            cases[form] = [{"ORTH": form, "NORM": row.norm}]
    return cases


def add_components(nlp: Language, known_words: frozenset[str], discourse: frozenset[str]) -> None:
    """Chat spellings in the tokenizer and our components in the pipeline, in the order they run.
    ``discourse``: words that open a clause and carry nothing ("btw", "nvm"), even when a product
    has the same name."""
    tokenizer: Any = nlp.tokenizer
    for text, pieces in chat_spellings().items():
        tokenizer.add_special_case(text, pieces)
    tokenizer.token_match = _dotted_name
    nlp.add_pipe("mnemo_chat_sentences_v1", before="parser")
    names: Any = nlp.add_pipe("mnemo_hyphened_names_v1")
    names.dictionary = _dictionary(nlp)
    nlp.add_pipe("mnemo_chat_norms_v1")
    coined: Any = nlp.add_pipe("mnemo_coined_words_v1")
    coined.known_words = known_words
    tech: Any = nlp.add_pipe("mnemo_tech_v1")
    tech.known_words = known_words
    tech.discourse = discourse


@Language.factory("mnemo_chat_norms_v1")
def _chat_norms(nlp: Language, name: str) -> Any:
    """Lemmas for the apostrophe-less forms chat uses ("im", "dont"), so rules over lemmas see them."""

    def fix(doc: Any) -> Any:
        for token in doc:
            if token.norm_ in _BE_NORMS and token.pos_ in ("AUX", "VERB") and token.lemma_ != "be":
                token.lemma_ = "be"
            elif token.norm_ == "not" and token.dep_ == "neg":
                token.lemma_ = "not"
        return doc

    return fix


class _CoinedWords:
    """A word the model never saw ("zqhzsjdeploy", "tuistctl") cannot be a preposition or an adverb:
    those classes are closed, and the tagger guesses them for unknown words now and then. Such a
    word is read as a name, which is what a coined word in a chat about tools almost always is."""

    def __init__(self) -> None:
        self.known_words: frozenset[str] = frozenset()  # set once the model's words are known

    def __call__(self, doc: Any) -> Any:
        if not self.known_words:
            return doc
        for token in doc:
            if (
                token.pos_ in _CLOSED_CLASSES
                and token.is_alpha
                and len(token) > 3
                and token.lower_ not in self.known_words
            ):
                token.pos_ = "PROPN"
                token.tag_ = "NNP"
        return doc


class _HyphenedNames:
    """A name written with a hyphen ("Hye-jin", "Min-jun", "Hans-Peter") is one name: the tokenizer
    cuts it in three and the tagger reads the pieces as nouns, so "I'm Hye-jin" names nobody. Merged
    into one proper noun when a piece is no word of English ("Built-in", "Follow-up" stay cut, and
    so does "Mary-Kate", both of whose pieces are words)."""

    def __init__(self) -> None:
        self.dictionary: frozenset[str] = frozenset()  # the lemmatizer's words of English

    def _english(self, token: Any) -> bool:
        return token.lower_ in self.dictionary or token.lemma_.lower() in self.dictionary

    def __call__(self, doc: Any) -> Any:
        if not self.dictionary:
            return doc
        spans = []
        n = 0
        while n + 2 < len(doc):
            first, dash, second = doc[n], doc[n + 1], doc[n + 2]
            if (
                dash.text == "-"
                and not first.whitespace_
                and not dash.whitespace_
                and first.is_alpha
                and second.is_alpha
                and first.text[:1].isupper()
                and first.text[1:].islower()
                # "Min-jun", "Hye-jin": a second piece no word of English; "Hans-Peter": a first one
                # (not "Built-in", "Follow-up", "Code-Kommentare": words of a language)
                and (
                    (second.text.islower() and not self._english(second))
                    or (second.is_title and not self._english(first))
                )
                and (n + 3 >= len(doc) or doc[n + 3].text != "-")
            ):
                spans.append(doc[n : n + 3])
                n += 3
            else:
                n += 1
        with doc.retokenize() as retokenizer:
            for span in spans:
                retokenizer.merge(span, attrs={"POS": "PROPN", "TAG": "NNP", "LEMMA": span.text})
        return doc


def _dictionary(nlp: Language) -> frozenset[str]:
    """The base forms the model's lemmatizer knows, by any part of speech: a dictionary of English."""
    if "lemmatizer" not in nlp.pipe_names:
        return frozenset()
    index = nlp.get_pipe("lemmatizer").lookups.get_table("lemma_index")  # type: ignore[attr-defined]
    return frozenset(word for pos in index for word in index[pos])


@Language.factory("mnemo_hyphened_names_v1")
def _hyphened_names(nlp: Language, name: str) -> _HyphenedNames:
    return _HyphenedNames()


@Language.factory("mnemo_coined_words_v1")
def _coined_words(nlp: Language, name: str) -> _CoinedWords:
    return _CoinedWords()


@Language.factory("mnemo_chat_sentences_v1")
def _chat_sentences(nlp: Language, name: str) -> Any:
    """Sentence starts the parser misses in chat: "no emojis. ever. makes it look ..." starts three
    sentences, though none is capitalised. Runs before the parser, which keeps what is set here."""

    def mark(doc: Any) -> Any:
        for token in doc[1:-1]:
            following = doc[token.i + 1]
            if token.text in (".", "!", "?") and token.whitespace_ and doc[token.i - 1].is_alpha:
                if following.is_alpha or following.text in ("(", "`", "'", '"'):
                    following.is_sent_start = True
            elif (
                token.text in _DASHES
                and token.whitespace_
                and doc[token.i - 1].whitespace_
                and (
                    (following.lower_ in _SUBJECTS and _a_note_before(doc, token.i))
                    or (
                        following.tag_ == "VBD"
                        and _a_note_before(doc, token.i, _LIMITING)
                        and not _dashed_before(doc, token.i)
                    )
                )
            ):
                # "python 3.12 not 3.11 — I checked the Dockerfile", "long story short — moved to Berlin"
                following.is_sent_start = True
            elif (
                token.text == ":"
                and following.tag_ in ("VBD", "VBN")
                and (following.lower_.endswith("ed") or following.lower_ in _IRREGULAR_PAST)
                and not (following.i + 1 < len(doc) and doc[following.i + 1].tag_.startswith("NN"))
                and token.i <= 4
                and _a_note_before(doc, token.i, _LIMITING | _CORRECTING)
            ):
                # "update: relocated to Edinburgh": a label, then the news (not "about me: retired
                # engineer, ...", a word that describes the next)
                following.is_sent_start = True
        return doc

    return mark


def _a_note_before(doc: Any, dash: int, qualifying: frozenset[str] | None = None) -> bool:
    """What comes before a dash since the sentence began is a note of its own, no clause and no
    qualifier of what follows ("except on weekends — I'm fine with ...")."""
    qualifying = _QUALIFYING if qualifying is None else qualifying
    start = dash
    while start > 0 and not doc[start - 1].is_sent_end and doc[start - 1].text not in (".", "!", "?"):
        start -= 1
    return not any(
        t.tag_.startswith("VB") or t.tag_ == "MD" or t.lower_ in qualifying for t in doc[start:dash]
    )


# what makes the words before a dash part of what follows: a limit ("except on weekends — I'm
# fine with ...") or a correction ("scratch yarn — we're on bun now", "sorry typo — ...")
_QUALIFYING = frozenset(
    {"except", "unless", "but", "only", "if", "when", "sorry", "wait", "no", "scratch", "typo", "oops"}
    | {"actually", "correction", "update", "edit", "ugh", "ok", "okay", "so"}
)


def _dashed_before(doc: Any, dash: int) -> bool:
    """Whether the sentence has a dash before this one: "the build -- as usual -- broke" sets an aside
    between two dashes."""
    start = dash
    while start > 0 and not doc[start - 1].is_sent_end and doc[start - 1].text not in (".", "!", "?"):
        start -= 1
    return any(t.text in _DASHES for t in doc[start:dash])


# the past of verbs people tell news with, not ending in -ed ("kafka", tagged a participle, is none)
_IRREGULAR_PAST = frozenset({"left", "got", "went", "took", "began", "sold", "bought", "quit", "became"})
# a label that marks a correction keeps its sentence: "correction: moved to Porto, not Lisbon"
_CORRECTING = frozenset({"correction", "sorry", "wait", "oops", "actually", "typo", "no", "edit"})


# before a dash and a verb with no subject ("long story short — moved to Berlin"), what makes the
# words a limit of what follows rather than a note of their own
_LIMITING = frozenset({"except", "unless", "but", "only", "if", "when"})


@Language.factory("mnemo_tech_v1")
def _tech(nlp: Language, name: str) -> TechMarker:
    """Products of ``patterns/vocabulary.jsonl`` as ``doc.spans["tech"]``."""
    return TechMarker(nlp, load_vocabulary())
