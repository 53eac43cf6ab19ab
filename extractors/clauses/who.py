"""Who a clause is about: the speaker, their group, family or pet, their own thing, the project,
"you", someone else, something pointed at, or a thing; and a note about oneself with the "I" left out
("moved to Kraków in march", "allergic to peanuts")."""

from __future__ import annotations

import re

from extractors.ambiguity import WEEKDAYS
from extractors.clauses.model import GROUP, SPEAKER, Token
from extractors.lexicon import Lexicon
from extractors.vocabulary import label_words

_PLACEHOLDER = re.compile(r"^CMD\d+$")  # a command set aside before parsing (see pipeline._unit)
# "AudioManager", "UserService", "snake_case_name", "fetchUser": a name in the code, not a person's
# (but "McDonald", "LeBron": a person's name may have two capitals)
_CODE_NAME = re.compile(
    r"^(?:[A-Z][a-z0-9]+){1,}(?:Manager|Service|Controller|Handler|Factory|Provider|Client|Helper|Repository|"
    r"Store|Utils?|View|Model|Component|Module|Worker|Job|Queue|Config|Adapter|Builder|Loader|Parser|"
    r"Router|Gateway|Server|Api|API|Spec|Test|Context|Hook|Screen|Page|Form|Plugin|Engine|Bus)$"
    r"|^(?:[A-Z][a-z0-9]+){3,}$|^[a-z]+(?:_[a-z0-9]+)+$|^[a-z]+[A-Z]\w*$"
)
# what one says of oneself with the subject left out: "working as SRE", "living in Lisbon now"
_SELF_DESCRIBING = frozenset(
    {"work", "live", "study", "teach", "base", "stay", "run", "build", "train", "learn"}
)
_YOU = frozenset({"you", "u", "ya", "yourself", "y'all"})
_POINTING = frozenset({"it", "this", "that", "these", "those", "there", "which", "what", "here"})
_THIRD_PRONOUNS = frozenset(
    {"he", "she", "they", "him", "her", "them", "someone", "somebody", "everyone", "one"}
)
_TIMES = WEEKDAYS | frozenset(
    [
        "yesterday",
        "today",
        "tomorrow",
        "tonight",
        "night",
        "morning",
        "week",
        "month",
        "year",
        "weekend",
        "sprint",
        "release",
    ]
)


POSSESSIVE = frozenset({"my", "mine", "our", "his", "her", "their", "your", "its"})


class WhoReader:
    """Who a clause is about, from its subject and the words around it."""

    def __init__(self, lexicon: Lexicon, labels: frozenset[str] = frozenset()) -> None:
        self.lex = lexicon
        self.labels = labels  # words that name a part of the stack ("ci", "db", "background jobs")

    def _about(self, subject: Token) -> str:
        lower = subject.lower_
        lex = self.lex
        if lower not in SPEAKER and any(
            t.lower_ in ("i", "me") and _joined_to(t, subject) for t in subject.subtree
        ):
            return "speaker"  # "me and my wife are vegetarian", "my wife and I moved"
        if lower in SPEAKER:
            return "speaker"
        if lower in GROUP:
            return "group"
        if lower in _YOU:
            return "you"
        before = subject.doc[subject.i - 1].lower_ if subject.i > 0 else ""
        if lower in _POINTING or (
            lower in ("one", "ones")
            # ("except the audit service, that one writes to cassandra": the parser may not hang
            # "that" on "one")
            and (
                any(c.lower_ in ("that", "this", "those") for c in subject.children)
                or before in ("that", "this")
            )
        ):
            return "pointing"  # "that one still uses unittest"
        if lower in _THIRD_PRONOUNS:
            return "third"
        possessors = {c.lower_ for c in subject.children if c.dep_ == "poss" and not _time_word(c)}
        noun = subject.lemma_.lower()
        kinds = lex["kin_noun"] | lex["pet_noun"]
        kind = next(
            (c for c in subject.children if c.dep_ in ("compound", "appos") and c.lower_ in kinds), None
        )
        if subject.pos_ == "PROPN" and kind is not None:
            # "our dog Rex is allergic to chicken": the parser hangs the kind and its owner on the name
            owners = possessors | {c.lower_ for c in kind.children if c.dep_ == "poss"}
            owned = self._owned_by_speaker(kind, owners)
            if owned in ("family", "pet"):
                return owned
        if any(c.lower_ in ("other", "another", "different") for c in subject.children):
            return "third"  # "the other team uses Jest"
        if any(
            c.lower_ in ("favourite", "favorite", "fav", "fave") for c in subject.children
        ) and not possessors - {"my"}:
            return "speaker_thing"  # "favourite lang is still ocaml"
        compound = label_words(subject)
        if compound in self.labels and " " in compound and not possessors - {"our"}:
            return "project"  # "our package manager is bun": a slot's label, though "manager" is a person
        owned = self._owned_by_speaker(subject, possessors)
        if owned is not None:
            return owned
        if possessors & {"his", "her", "their", "your"} or any(
            c.dep_ == "poss" and not _time_word(c) for c in subject.children
        ):
            return "third"
        if subject._.tech is not None or _PLACEHOLDER.match(subject.text):
            return "project"  # a product, or a command set aside before parsing ("CMD1 runs everything")
        if compound in self.labels:
            return "project"  # "background jobs moved to GoodJob", "the package manager is pnpm"
        if noun in lex["person_noun"]:
            return "third"
        if noun in lex["project_noun"] or subject.lower_ in lex["project_noun"] or noun in self.labels:
            return "project"
        if _CODE_NAME.match(subject.text):
            return "project"  # "AudioManager is allowed to be a singleton": a name in the code
        if (
            subject.pos_ == "PROPN"
            and subject.ent_type_ in ("", "PERSON")
            and not any(c.dep_ == "det" for c in subject.children)  # "no PHI ever leaves": a kind
        ):
            return "third"
        return "thing"

    def _owned_by_speaker(self, subject: Token, possessors: set[str]) -> str | None:
        """Who a possessed subject is about: "my wife" (family), "my dog" (pet), "my discord bot runs
        on bun" (the project), "our repo" (the project), "my wife's name" (family); None when the
        possessor is not the speaker or the team."""
        lex = self.lex
        noun = subject.lemma_.lower()
        if possessors & {"my", "mine"}:
            if noun in lex["kin_noun"] or subject.lower_ in lex["kin_noun"]:
                return "family"
            if noun in lex["pet_noun"]:
                return "pet"
            if noun in lex["person_noun"]:
                return "third"
            if noun in lex["project_noun"] and any(t._.tech for t in subject.head.subtree if t.i > subject.i):
                return "project"  # "my discord bot runs on bun": the speaker's project, said with its stack
            return "speaker_thing"
        if possessors & {"our"}:
            if noun in lex["kin_noun"]:
                return "family"
            if noun in lex["pet_noun"]:
                return "pet"
            if noun in lex["person_noun"]:
                return "third"
            return "project"
        owner = next((c for c in subject.children if c.dep_ == "poss" and c.lower_ not in POSSESSIVE), None)
        if owner is not None and not possessors & {"his", "her", "their", "your"}:
            # "my wife's name is Adaeze", "mum's name is Pauline": said of the speaker's own
            owned = any(g.dep_ == "poss" and g.lower_ in ("my", "our") for g in owner.children)
            kin = owner.lemma_.lower() in lex["kin_noun"] or owner.lower_ in lex["kin_noun"]
            bare = not any(g.dep_ in ("poss", "det") for g in owner.children)
            if kin and (owned or bare):
                return "family"
            if owner.lemma_.lower() in lex["pet_noun"] and (owned or bare):
                return "pet"
        return None

    def _diary(self, head: Token) -> bool:
        """A note about oneself with the "I" left out: a past verb or an adjective at the start."""
        skip = ("just", "finally", "also", "and", "so", "btw", "still", "recently", "only", "oh", "well")
        # an opening aside is not where the note starts: "sorry for the slow replies, just moved to Porto"
        aside = {
            t.i
            for c in head.children
            if c.dep_ in ("advcl", "intj", "discourse") and c.i < head.i
            for t in c.subtree
        }
        first = next(
            (
                t
                for t in head.sent
                if not t.is_punct
                and t.lower_ not in skip
                and t.i not in aside
                and not (t.dep_ in ("aux", "auxpass") and t.head.i == head.i)
            ),
            None,
        )
        if first is None or first.i != head.i:
            return False
        content = [
            c
            for c in head.children
            if c.dep_ in ("dobj", "prep", "prt", "acomp", "xcomp", "oprd", "attr")
            or (c.dep_ == "advmod" and c.lower_ in ("back", "home", "away", "abroad"))
        ]
        pronoun = any(c.lower_ in ("it", "that", "this", "them") for c in content)
        if head.tag_ in ("VBN", "VBD") and not content and head.lemma_.lower() in self.lex["life_event_verb"]:
            return True  # "got married last saturday"
        if head.tag_ == "VBG" and head.lemma_.lower() in _SELF_DESCRIBING and content:
            return True  # "Myself Arjun, working as SRE in Bengaluru"
        if head.tag_ in ("VBD", "VBN") and content and not pronoun and head.lemma_ != "be":
            return head.lemma_.lower() not in self.lex["conversation_verb"] - {
                "get",
                "go",
                "make",
                "take",
                "find",
            }
        return (
            head.pos_ == "ADJ" and any(c.dep_ == "prep" for c in head.children)
        ) or head.lower_ in self.lex["diet_word"]


def refers(subject: Token) -> bool:
    """ "he", "she", or "his name", "her name": a subject that points back at someone just named."""
    if subject.lower_ in ("he", "she"):
        return True
    return subject.lemma_.lower() == "name" and any(
        c.dep_ == "poss" and c.lower_ in ("his", "her", "its") for c in subject.children
    )


def _time_word(token: Token) -> bool:
    """ "yesterday's deploy", "last night's build": a time, not a person owning the subject."""
    return token.lemma_.lower() in _TIMES or any(c.lower_ in _TIMES for c in token.children)


def _joined_to(token: Token, subject: Token) -> bool:
    """ "my wife and I": a speaker joined to the subject, not one inside words that describe it
    ("the config you gave me ... is moot")."""
    while token.i != subject.i:
        if token.dep_ in ("relcl", "acl", "pcomp"):
            return False  # ("no new dependencies without checking with me first": inside what describes it)
        token = token.head
    return True
