"""Durable first-person statements no frame names: "i play the violin", "my mom is a teacher", "I'm a
senior backend engineer" (the role slot); not a state of the moment ("I'm tired") or the task at hand
("I have a question")."""

from __future__ import annotations

import re

from extractors.clauses import Clause
from extractors.clauses.model import keeps_happening
from extractors.readers.common import DEICTIC, Fact, Token, condition, joined, value_of, with_borrowed_subject
from extractors.readers.rules import RuleReader
from extractors.render import SUBJECT_MARK, implied_third_person, plain, third_person, trim

# what a statement says of its subject: "i play the violin", "my mom is a teacher", "I work remotely"
_COMPLEMENTS = frozenset(
    (
        "dobj",
        "attr",
        "acomp",
        "xcomp",
        "prep",
        "oprd",
        "ccomp",
        "npadvmod",
        "advmod",
        "amod",
        "compound",
    )
)


# words that say nothing of a person alone: "Because {subject} has."
_SAYS_NOTHING = frozenset(
    {
        "has",
        "have",
        "is",
        "are",
        "was",
        "were",
        "does",
        "do",
        "did",
        "gets",
        "got",
        "because",
        "so",
        "and",
        "but",
    }
)


# what opens a clause that only says when or why its sentence's main clause holds
_SUBORDINATORS = frozenset(
    {"because", "since", "whenever", "when", "if", "though", "although", "while", "cause", "cuz", "bc"}
)


class StatementReader(RuleReader):
    """What a person says of themselves that no frame names."""

    def personal(self, clause: Clause) -> list[Fact]:
        """A durable first-person statement no frame names: "i play the violin", "my mom is a teacher"."""
        if not self._of_oneself(clause):
            return []
        if clause.head.lemma_.lower() in ("call", "name") and any(
            c.dep_ in ("dobj", "dative") and c.lower_ in ("me", "us") for c in clause.head.children
        ):
            return []  # "only my mom calls me Jason": what others call the speaker, the name readers'
        content = _content(clause)
        if not content or not self._durable(clause, content):
            return []
        if any(t.lower_ in self.lex["timezone"] for c in content for t in c.subtree):
            return []  # "I'm in PST": the time zone reader's
        text = _statement_text(clause)
        if not text or len(text.split()) > 30:
            return []
        value = joined([t for c in content for t in sorted(c.subtree, key=lambda t: t.i)])
        said = set(re.findall(r"[a-z']+", text.replace(SUBJECT_MARK, " ").lower())) - _SAYS_NOTHING
        if not said:
            return []  # "because i have the db running" read as "{subject} has.": what it has is not said
        key = self._role_key(clause) if clause.tense != "past" else None  # a past job is no current role
        if key == "role":
            value = self.role_value(clause) or value
        indentation, spaces = self.rule_slot(clause.tokens, "user")
        if indentation == "indentation" and spaces:
            key, value, text = indentation, spaces, self.slot_text(indentation, spaces, text)
        return [
            Fact(
                kind="semantic",
                scope="user",
                key=key,
                value=value or plain(clause.tokens),
                text=text,
                span=plain(clause.tokens),
                reader="personal.statement",
                confidence=0.75,
                anchor=content[0].i,
            )
        ]

    def _of_oneself(self, clause: Clause) -> bool:
        """A statement, said as true and lasting, of the speaker's own life (not what someone says,
        plans or thinks; not the household's "we" unless it names family)."""
        if clause.about not in ("speaker", "implied", "family", "pet", "speaker_thing", "group"):
            return False
        if clause.mood not in ("statement",) or not clause.asserted or clause.transient:
            return False
        if clause.modal not in (None, "ca", "can") or condition(clause):
            return False
        head = clause.head
        if head.dep_ == "advcl" and any(
            c.dep_ in ("mark", "advmod") and c.lower_ in _SUBORDINATORS for c in head.children
        ):
            return False  # "(devtools::document()) whenever i touch the roxygen comments": when, or why
        lemma = head.lemma_.lower()
        lex = self.lex
        if any(
            t.lemma_.lower() in lex["speech_verb"] | lex["cognition_verb"]
            for t in clause.tokens
            if t.pos_ == "VERB"
        ):
            return False  # "my brother keeps saying ...": what someone says, not what is
        negative_ok = lemma in lex["consume_verb"] or (lemma in lex["preference_verb"] and not clause.negated)
        if clause.negated and not negative_ok:
            return False
        if (
            lemma == "use"
            and clause.about in ("speaker", "implied")
            and head.tag_ in ("VBD", "VBN")
            and any(c.dep_ == "xcomp" and c.lemma_ != "be" for c in head.children)
        ):
            return False  # "used to do crossfit": what was, no longer (but "i used to be a mail carrier")
        progressive_ok = lemma in ("live", "work", "learn", "study", "train", "volunteer")
        bare_participle = head.tag_ == "VBG" and not any(c.dep_ in ("aux", "auxpass") for c in head.children)
        # "flying MAN to JFK in june", "(i'm a teacher,) making a lesson on ...": what is under way,
        # dated or told after what one is (but "playing piano and going thrift shopping": what one does)
        under_way = _MOMENT.search(" ".join(t.lower_ for t in clause.tokens)) is not None or (
            head.dep_ == "advcl" and head.head.i < head.i
        )
        if bare_participle and not progressive_ok and under_way:
            return False
        career = (
            clause.tense == "past"
            and lemma == "be"
            and clause.about == "speaker"
            and any(c.dep_ == "attr" and c.lemma_.lower() in lex["occupation_noun"] for c in head.children)
        )  # "i was a firefighter for thirty years": a working life, told
        if (
            clause.tense not in ("present", "perfect")
            and not (clause.tense == "progressive" and progressive_ok)
            and not career
        ):
            return False
        if clause.about == "group" and not (self._family_object(clause) or negative_ok):
            return False  # "we have two kids", "we do eat eggs": the household, not the team
        if clause.about == "speaker_thing" and not self._profile(clause):
            return False
        gets = lemma == "get" and any(c.dep_ == "acomp" for c in head.children)  # "I get travel sick"
        allowed = ("have", "be", "do", "make", "speak", "keep", "go", "take")
        if lemma in lex["conversation_verb"] and lemma not in allowed and not gets:
            return False
        return not (
            lemma in lex["plan_verb"] or lemma in lex["cognition_verb"] or lemma in lex["speech_verb"]
        )

    def _role_key(self, clause: Clause) -> str | None:
        """ "I'm a senior backend engineer": an occupation is the user's role slot."""
        if clause.about != "speaker" or clause.head.lemma_ != "be":
            return None
        attr = next((c for c in clause.head.children if c.dep_ == "attr" and c.pos_ == "NOUN"), None)
        if attr is None or not any(c.dep_ == "det" for c in attr.children):
            return None
        noun = attr.lower_
        if noun in self.lex["diet_word"] or noun in self.lex["kin_noun"]:
            return None
        suffixes = self.lex["occupation_suffix"]
        whole = noun in suffixes
        return (
            "role"
            if whole or (len(noun) > 4 and any(noun.endswith(s) for s in suffixes if len(s) <= 4))
            else None
        )

    @staticmethod
    def role_value(clause: Clause) -> str:
        attr = next((c for c in clause.head.children if c.dep_ == "attr"), None)
        return value_of(attr, "role") if attr is not None else ""

    def _family_object(self, clause: Clause) -> bool:
        return any(
            t.lemma_.lower() in self.lex["kin_noun"] or t.lemma_.lower() in self.lex["pet_noun"]
            for t in clause.tokens
            if t.dep_ in ("dobj", "attr")
        )

    def _profile(self, clause: Clause) -> bool:
        subject = clause.subject
        if subject is None:
            return False
        if subject.lemma_.lower() in self.lex["profile_noun"]:
            return True
        return clause.head.lemma_ == "be" and any(
            c.dep_ == "attr" and c.pos_ in ("NOUN", "PROPN", "NUM") for c in clause.head.children
        )

    def _durable(self, clause: Clause, content: list[Token]) -> bool:
        """Not a state of the moment ("I'm tired"), not the task at hand ("I have a question")."""
        lex = self.lex
        head = clause.head
        if head.lower_ in lex["transient_adjective"] or head.lemma_.lower() in lex["transient_adjective"]:
            return False  # "so sorry for typos"
        if head.tag_ == "VBG" and head.lemma_.lower() in ("wait", "sit", "stand", "queue"):
            return False  # "im at the airport waiting to board": this moment
        if head.lower_ in ("same", "ditto", "likewise"):
            return False  # "same for sign out": what was said before, of something else
        if keeps_happening(clause):
            return False  # "my cats keep peeing outside the litterbox": a trouble, not who they are
        for c in content:
            words = {t.lower_ for t in c.subtree}
            transient = {c.lower_, c.lemma_.lower()} & lex["transient_adjective"]
            if transient and (c.dep_ == "acomp" or c.i == head.i):
                return False
            if c.dep_ in ("dobj", "attr") and c.lemma_.lower() in lex["nonfact_object"]:
                return False
            if (
                c.dep_ == "dobj"
                and clause.about == "implied"
                and any(t.lemma_.lower() in lex["code_noun"] for t in c.subtree)
            ):
                return False  # "still learning the codebase": the work at hand, with the "I" left out
            if c.dep_ == "attr" and c.lemma_.lower() in lex["state_noun"]:
                return False  # "I'm a nervous wreck", "my sleep schedule is pure chaos"
            if c.dep_ in ("dobj", "attr", "acomp") and c.lower_ in DEICTIC | {
                "anything",
                "everything",
                "nothing",
            }:
                return False
            if c.dep_ == "prep" and any(t.dep_ == "pobj" and t.lower_ in DEICTIC for t in c.children):
                return False
            if (
                any(t._.tech for t in c.subtree)
                and clause.about in ("speaker", "implied", "group")
                and head.lemma_ != "love"
            ):
                return False  # a product the speaker uses is the stack reader's
            del words
        said = [t for c in content for t in c.subtree]
        if head.lemma_ == "be" and any(
            t.lower_ in ("here", "there") and t.head.dep_ == "prep" and t.head.head.i == head.i for t in said
        ):
            return False  # "i am from here in town": where "here" is, is the other's to know
        if any(t.lower_ in DEICTIC and t.dep_ in ("pobj", "dobj") for t in said):
            return False  # "I like the sound of that", "I'm terrible at those": said of the other's words
        if not any(
            (t.pos_ in ("NOUN", "PROPN", "ADJ", "X") or t.tag_ == "VBG")
            and t.lower_ not in _EMPTY_WORDS
            and t.lower_ not in DEICTIC
            for t in said
        ):
            return False  # "I enjoy it mostly", "I have five", "more for you then": says nothing itself
        if any(c.lower_ == "about" and any(x.dep_ == "xcomp" for x in c.children) for c in content):
            return False  # "about to go to bed"
        if head.lemma_ == "have" and any(
            c.dep_ == "xcomp" and not any(x.dep_ in ("dobj", "prep", "attr", "acomp") for x in c.children)
            for c in head.children
        ):
            return False  # "I have to run": this moment's need
        if head.lemma_ == "be" and any(_where_one_is_now(c) for c in content):
            return False  # "im at the airport", "im out of ideas": where one is now, not who
        if head.lemma_ == "have" and any(
            c.dep_ == "dobj"
            and any(
                x.dep_ in ("relcl", "acl") and any(a.dep_ == "aux" and a.lower_ == "to" for a in x.children)
                for x in c.children
            )
            for c in content
        ):
            return False  # "now i have 2000 photos to sort": a job to do, not who one is
        if head.lemma_ == "be" and not any(c.dep_ in ("attr", "acomp", "prep") for c in content):
            return clause.about == "implied"
        return True


def _where_one_is_now(complement: Token) -> bool:
    """ "at the airport", "out of ideas": a place or state of the moment (but "at a startup", "at
    Google", "at the University of Lagos" say where one works or studies)."""
    if complement.dep_ != "prep":
        return False
    if complement.lower_ == "out" and any(c.lower_ == "of" for c in complement.children):
        return True
    place = next((c for c in complement.children if c.dep_ == "pobj"), None)
    return (
        complement.lower_ == "at"
        and place is not None
        and place.pos_ == "NOUN"
        and any(c.dep_ == "det" and c.lower_ == "the" for c in place.children)
        and not any(t.pos_ == "PROPN" for t in place.subtree)
    )


_MOMENT = re.compile(
    r"\b(?:now|today|tonight|tomorrow|this (?:week|weekend|month|year)|next \w+|in (?:january|february|"
    r"march|april|may|june|july|august|september|october|november|december)|on (?:monday|tuesday|"
    r"wednesday|thursday|friday|saturday|sunday))\b"
)
_EMPTY_WORDS = frozenset(
    {
        "more",
        "less",
        "much",
        "lot",
        "lots",
        "bit",
        "most",
        "mostly",
        "kind",
        "sort",
        "way",
        "opposite",
        "same",
    }
)


def _content(clause: Clause) -> list[Token]:
    """What the statement says of its subject: its objects, complements and the like."""
    head = clause.head
    complements = [c for c in head.children if c.dep_ in _COMPLEMENTS]
    content = [
        c
        for c in complements
        if c.dep_ not in ("advmod",) or c.lower_ in ("home", "abroad", "nights", "remotely")
    ]
    if clause.about == "implied" and head.pos_ in ("ADJ", "NOUN"):
        content = content or [head]
    return content


def _statement_text(clause: Clause) -> str:
    """The statement in the third person: "{subject} plays the violin"."""
    head = clause.head
    if clause.about == "implied":
        text = implied_third_person(trim(clause.tokens), head)
    else:
        text = with_borrowed_subject(clause, third_person(clause.tokens, clause.subject, clause.referent))
    return text
