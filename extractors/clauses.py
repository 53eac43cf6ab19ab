"""Clauses and what they assert, from spaCy's parse.

A sentence holds one clause per verb that heads one (the root, verbs joined by "and", complement
and adverbial clauses). For each clause this module reads who it is about and how it is said:
asked or stated, ordered (imperative), negated, hedged, planned, wished, reported from someone
else, conditional, momentary, or standing ("always", "every time"). The readers decide what to
keep from these features; nothing here knows about products or slots.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from extractors.lexicon import Lexicon
from extractors.render import glued_symbol
from extractors.vocabulary import WEEKDAYS

Token = Any  # spacy.tokens.Token
Span = Any

_PLACEHOLDER = re.compile(r"^CMD\d+$")  # a command set aside before parsing (see pipeline._unit)
# what one says of oneself with the subject left out: "working as SRE", "living in Lisbon now"
_SELF_DESCRIBING = frozenset({"work", "live", "study", "teach", "base", "stay", "run", "build", "train"})
_CLAUSE_DEPS = frozenset({"ROOT", "conj", "ccomp", "advcl", "parataxis"})
_SUBJECT_DEPS = frozenset({"nsubj", "nsubjpass", "csubj", "expl"})
_SPEAKER = frozenset({"i", "me", "myself"})
_GROUP = frozenset({"we", "us", "ourselves"})
_YOU = frozenset({"you", "u", "ya", "yourself", "y'all"})
_POINTING = frozenset({"it", "this", "that", "these", "those", "there", "which", "what", "here"})
_THIRD_PRONOUNS = frozenset(
    {"he", "she", "they", "him", "her", "them", "someone", "somebody", "everyone", "one"}
)
_WH = frozenset({"what", "which", "who", "whom", "whose", "why", "how", "where", "when"})
_CONDITION_MARKS = frozenset(
    {"if", "unless", "whether", "suppose", "supposing", "assuming", "incase", "lest", "like"}
)
# "when I run the scraper": a clause of time in the present is a condition, not news
_WHEN_MARKS = frozenset({"when", "whenever", "while", "once", "until", "till"})
_FUTURE_MODALS = frozenset({"will", "'ll", "ll", "shall", "wo", "gonna"})
_WEAK_MODALS = frozenset({"might", "could", "may", "would", "'d", "d", "ca", "can"})
_DUTY_MODALS = frozenset({"must", "should", "shall", "need", "ought"})
_BOUNDARY = frozenset({",", ";", ":", "\u2014", "\u2013", "-", "so", "but", "and", "then", "(", ")"})


@dataclass(slots=True)
class Clause:
    head: Token
    tokens: list[Token]
    subject: Token | None
    # speaker | implied | group | family | pet | speaker_thing | project | you | third | pointing
    # | thing | none
    about: str
    mood: str  # statement | imperative | question | fragment
    negated: bool = False
    modal: str | None = None
    tense: str = "present"  # present | past | perfect | future | progressive
    hedged: bool = False
    planned: bool = False
    reported: bool = False
    conditional: bool = False
    transient: bool = False
    standing: bool = False
    parent: Clause | None = None
    children: list[Clause] = field(default_factory=list)
    referent: Token | None = None  # who "he" or "she" is, when the speaker just named them

    @property
    def start(self) -> int:
        return int(self.tokens[0].i)

    @property
    def end(self) -> int:
        return int(self.tokens[-1].i) + 1

    @property
    def text(self) -> str:
        return "".join(t.text_with_ws for t in self.tokens).strip()

    def has(self, token: Token) -> bool:
        return self.start <= token.i < self.end and token in self.tokens

    @property
    def asserted(self) -> bool:
        """Said as true, now, by the speaker: not asked, wished, planned, guessed or supposed."""
        return not (
            self.mood == "question"
            or self.hedged
            or self.planned
            or self.reported
            or self.conditional
            or self.tense == "future"
            or (self.modal is not None and self.modal in _WEAK_MODALS | _FUTURE_MODALS)
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


def _refers(subject: Token) -> bool:
    """ "he", "she", or "his name", "her name": a subject that points back at someone just named."""
    if subject.lower_ in ("he", "she"):
        return True
    return subject.lemma_.lower() == "name" and any(
        c.dep_ == "poss" and c.lower_ in ("his", "her", "its") for c in subject.children
    )


def _time_word(token: Token) -> bool:
    """ "yesterday's deploy", "last night's build": a time, not a person owning the subject."""
    return token.lemma_.lower() in _TIMES or any(c.lower_ in _TIMES for c in token.children)


def _depth(clause: Clause) -> int:
    depth, parent = 0, clause.parent
    while parent is not None:
        depth, parent = depth + 1, parent.parent
    return depth


def _has_subject(verb: Token) -> bool:
    return any(c.dep_ in _SUBJECT_DEPS for c in verb.children)


def _subject_of(verb: Token) -> Token | None:
    """The subject of a verb, or of the verb it completes ("keeps saying": the subject of "keeps")."""
    token = verb
    for _ in range(4):
        subject = next((c for c in token.children if c.dep_ in _SUBJECT_DEPS), None)
        if subject is not None:
            return subject
        if token.dep_ not in ("xcomp", "conj", "ccomp", "advcl") or token.head.i == token.i:
            return None
        token = token.head
    return None


class ClauseReader:
    def __init__(self, lexicon: Lexicon, labels: frozenset[str] = frozenset()) -> None:
        self.lex = lexicon
        self.labels = labels  # words that name a part of the stack ("ci", "db", "background jobs")

    def kin_mention(self, sentence: Span) -> Token | None:
        """The last family member or pet the speaker names as theirs ("my husband", "our dog")."""
        found = None
        for token in sentence:
            noun = token.lemma_.lower()
            mine = any(c.dep_ == "poss" and c.lower_ in ("my", "our") for c in token.children)
            # "we adopted a beagle", "just got a kitten": a pet the speaker has just taken in is theirs too
            taken = token.dep_ == "dobj" and token.head.lemma_.lower() in ("adopt", "get", "rescue", "have")
            if (mine and noun in self.lex["kin_noun"]) or ((mine or taken) and noun in self.lex["pet_noun"]):
                found = token
        return found

    def clauses(self, sentence: Span, referent: Token | None = None) -> list[Clause]:
        heads = [t for t in sentence if self._heads_clause(t)]
        if not heads:
            heads = [sentence.root]
        if sentence.root not in heads:
            heads.insert(0, sentence.root)
        head_ids = {t.i for t in heads}
        clauses: dict[int, Clause] = {}
        for head in heads:
            tokens = self._own_tokens(head, head_ids)
            if not tokens:
                continue
            clauses[head.i] = Clause(head=head, tokens=tokens, subject=None, about="none", mood="statement")
        for clause in clauses.values():
            parent_head = self._governing_head(clause.head, head_ids)
            if parent_head is not None and parent_head.i in clauses:
                clause.parent = clauses[parent_head.i]
                clause.parent.children.append(clause)
        ordered = sorted(clauses.values(), key=lambda c: c.start)
        question_from = self._question_segment(sentence)
        for clause in sorted(ordered, key=lambda c: _depth(c)):  # parents first: conjuncts inherit subjects
            self._describe(clause, sentence, question_from)
            # "we adopted a beagle last weekend, his name is Pickle": named earlier in the same sentence
            earlier = (
                self.kin_mention(sentence.doc[sentence.start : clause.start])
                if clause.start > sentence.start
                else None
            )
            if earlier is not None:
                referent = earlier
            if referent is not None and clause.subject is not None and _refers(clause.subject):
                # "my husband flies there a lot, he's a pilot": he is the husband
                clause.about = "pet" if referent.lemma_.lower() in self.lex["pet_noun"] else "family"
                clause.referent = referent
                clause.reported = False
        for clause in sorted(ordered, key=lambda c: _depth(c)):
            # "thinking about moving from Heroku to Fly": what a plan or a guess governs is planned too
            parent = clause.parent
            if parent is not None and clause.head.dep_ in ("advcl", "ccomp", "xcomp"):
                if parent.subject is None and clause.head.i < parent.head.i:
                    continue  # "we adopted a beagle, so expect typos": said before an order, not under it
                # "i hate mornings, i need two coffees to function": a plan after it does not reach back
                clause.planned |= parent.planned and clause.head.i > parent.head.i
                clause.hedged |= parent.hedged
                clause.conditional |= parent.conditional
        for clause in ordered:
            # "why does X rebuild when i touch a readme": what is asked about is asked too
            parent = clause.parent
            if parent is not None and parent.mood == "question" and clause.head.dep_ == "advcl":
                marks = {c.lower_ for c in clause.head.children if c.dep_ == "mark"}
                if not marks & {"since", "because", "as", "cause", "cuz", "coz"}:
                    clause.mood = "question"
        return ordered

    # -- structure ---------------------------------------------------------------------------------

    @staticmethod
    def _heads_clause(token: Token) -> bool:
        if token.dep_ == "ROOT":
            return True
        if token.dep_ not in _CLAUSE_DEPS:
            return False
        if token.pos_ in ("VERB", "AUX"):
            return True
        # "I'm vegan and my wife is a nurse": a conjunct with a subject of its own
        return any(c.dep_ in _SUBJECT_DEPS for c in token.children)

    @staticmethod
    def _own_tokens(head: Token, head_ids: set[int]) -> list[Token]:
        """The head's subtree without the subtrees of the clauses nested in it."""
        tokens: list[Token] = []
        stack = [head]
        while stack:
            token = stack.pop()
            tokens.append(token)
            for child in token.children:
                if child.i in head_ids:
                    continue
                if child.dep_ == "cc" and child.head.i == head.i and child.i > head.i:
                    continue
                stack.append(child)
        tokens.sort(key=lambda t: t.i)
        while tokens and ((tokens[-1].is_punct and not glued_symbol(tokens)) or tokens[-1].dep_ == "cc"):
            tokens.pop()
        while tokens and (tokens[0].is_punct or tokens[0].dep_ == "cc"):
            tokens.pop(0)
        return tokens

    @staticmethod
    def _governing_head(head: Token, head_ids: set[int]) -> Token | None:
        token = head
        while token.head.i != token.i:
            token = token.head
            if token.i in head_ids:
                return token
        return None

    # -- features ----------------------------------------------------------------------------------

    def _describe(self, clause: Clause, sentence: Span, question_from: int | None) -> None:
        head = clause.head
        lex = self.lex
        subjects = [c for c in head.children if c.dep_ in _SUBJECT_DEPS]
        # "Name's Kwame, I'm a nurse": of two subjects the parser hung on one verb, "I" speaks
        subject = next(
            (c for c in subjects if c.lower_ in _SPEAKER | _GROUP), subjects[0] if subjects else None
        )
        auxes = [c for c in head.children if c.dep_ in ("aux", "auxpass") and c.i < head.i]
        if subject is None and clause.parent is not None and head.dep_ == "conj" and head.tag_ != "VB":
            subject = clause.parent.subject  # "we use postgres and deploy to fly" (not ", ignore that")
        clause.subject = subject
        clause.about = self._about(subject) if subject is not None else "none"
        if subject is None and clause.parent is None and self._diary(head):
            clause.about = "implied"  # "moved to Kraków in march", "allergic to peanuts"
        if subject is None and sentence[0].lower_ == "myself":
            clause.about = "implied"  # "Myself Arjun, working as SRE in Bengaluru": an introduction
        words = [t.lower_ for t in clause.tokens]
        lemmas = {t.lemma_.lower() for t in clause.tokens}

        # modality, tense, negation
        modal = next((a for a in auxes if a.tag_ == "MD"), None)
        clause.modal = modal.lower_ if modal is not None else None
        if clause.modal in _WEAK_MODALS and head.lemma_ in ("like", "love", "prefer") and subject is not None:
            clause.modal = "would-prefer"  # "I'd prefer tabs", "I would like short answers"
        if any(a.lower_ in _FUTURE_MODALS for a in auxes) or self._going_to(head):
            clause.tense = "future"
        elif any(a.lemma_ == "have" for a in auxes) and head.tag_ == "VBN":
            clause.tense = "perfect"
        elif head.tag_ == "VBD" or any(a.tag_ == "VBD" for a in auxes):
            clause.tense = "past"  # "we moved", "she was born", "we got married", "I had left"
        elif head.tag_ == "VBG" and any(a.lemma_ == "be" for a in auxes):
            clause.tense = "progressive"
        # a "not" after the head names an alternative ("use yarn, not npm"), it does not deny the clause
        doc = head.doc
        clause.negated = (
            any(c.dep_ == "neg" and c.i < head.i for c in head.children)
            or any(c.dep_ == "neg" for a in auxes for c in a.children)
            # "we're (definitely) not on kubernetes": right after the copula it denies the clause
            or any(
                c.dep_ == "neg"
                and head.lemma_ == "be"
                and all(doc[i].pos_ == "ADV" for i in range(head.i + 1, c.i))
                for c in head.children
                if c.i > head.i
            )
        )
        if "used" in words and "to" in words and head.lemma_ != "use":
            clause.tense = "past"  # "we used to deploy on heroku"
        if "used" in words and "to" in words and head.lemma_ == "use" and head.tag_ == "VB":
            clause.tense = "past"  # "we used to use npm"
        joined_words = " ".join(words)
        if "no longer" in joined_words or "anymore" in words or "any more" in joined_words:
            clause.negated = True

        # how it is said
        first = self._first_content(clause)
        clause.mood = self._mood(clause, subject, auxes, first, question_from, sentence)
        clause.hedged = bool(lemmas & lex["hedge"]) or self._governed_by(clause, lex["cognition_verb"])
        infinitive = any(c.dep_ == "aux" and c.lower_ == "to" for c in head.children)
        clause.planned = (
            self._plans(head)
            or self._governed_by(clause, lex["plan_verb"], xcomp_only=not infinitive)
            or clause.tense == "future"
        )
        clause.reported = self._reported(clause)
        clause.standing = bool(lemmas & lex["standing_marker"]) or self._standing_phrase(words)
        clause.conditional = (
            any(c.dep_ == "mark" and c.lower_ in _CONDITION_MARKS for c in head.children)
            or (clause.parent is not None and clause.parent.conditional and head.dep_ == "conj")
            or (
                clause.tense == "present"
                and not clause.standing  # "whenever the schema changes, regenerate ...": a rule
                and any(c.dep_ in ("mark", "advmod") and c.lower_ in _WHEN_MARKS for c in head.children)
            )
        )
        clause.transient = self._transient(clause)

    def _about(self, subject: Token) -> str:
        lower = subject.lower_
        lex = self.lex
        if lower not in _SPEAKER and any(t.lower_ in ("i", "me") for t in subject.subtree):
            return "speaker"  # "me and my wife are vegetarian", "my wife and I moved"
        if lower in _SPEAKER:
            return "speaker"
        if lower in _GROUP:
            return "group"
        if lower in _YOU:
            return "you"
        if lower in _POINTING or (
            lower in ("one", "ones") and any(c.lower_ in ("that", "this", "those") for c in subject.children)
        ):
            return "pointing"  # "that one still uses unittest"
        if lower in _THIRD_PRONOUNS:
            return "third"
        possessors = {c.lower_ for c in subject.children if c.dep_ == "poss" and not _time_word(c)}
        noun = subject.lemma_.lower()
        if any(c.lower_ in ("other", "another", "different") for c in subject.children):
            return "third"  # "the other team uses Jest"
        if any(
            c.lower_ in ("favourite", "favorite", "fav", "fave") for c in subject.children
        ) and not possessors - {"my"}:
            return "speaker_thing"  # "favourite lang is still ocaml"
        if possessors & {"my", "mine"}:
            if noun in lex["kin_noun"] or subject.lower_ in lex["kin_noun"]:
                return "family"
            if noun in lex["pet_noun"]:
                return "pet"
            if noun in lex["person_noun"]:
                return "third"
            return "speaker_thing"
        if possessors & {"our"}:
            if noun in lex["kin_noun"]:
                return "family"
            if noun in lex["pet_noun"]:
                return "pet"
            if noun in lex["person_noun"]:
                return "third"
            return "project"
        if possessors & {"his", "her", "their", "your"} or any(
            c.dep_ == "poss" and not _time_word(c) for c in subject.children
        ):
            return "third"
        if subject._.tech is not None or _PLACEHOLDER.match(subject.text):
            return "project"  # a product, or a command set aside before parsing ("CMD1 runs everything")
        compound = " ".join(
            [*(c.lower_ for c in subject.children if c.dep_ in ("compound", "amod")), subject.lower_]
        )
        if compound in self.labels:
            return "project"  # "background jobs moved to GoodJob", "the package manager is pnpm"
        if noun in lex["person_noun"]:
            return "third"
        if noun in lex["project_noun"] or subject.lower_ in lex["project_noun"] or noun in self.labels:
            return "project"
        if subject.pos_ == "PROPN" and subject.ent_type_ in ("", "PERSON"):
            return "third"
        return "thing"

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

    @staticmethod
    def _first_content(clause: Clause) -> Token:
        for token in clause.tokens:
            if token.is_punct or token.dep_ in ("intj", "discourse", "cc", "punct"):
                continue
            if token.lower_ in (
                "please",
                "pls",
                "plz",
                "just",
                "also",
                "and",
                "then",
                "so",
                "btw",
                "oh",
                "ok",
            ):
                continue
            return token
        return clause.tokens[0]

    def _mood(
        self,
        clause: Clause,
        subject: Token | None,
        auxes: list[Token],
        first: Token,
        question_from: int | None,
        sentence: Span,
    ) -> str:
        head = clause.head
        if question_from is not None and head.i >= question_from:
            return "question"
        if first.lower_ in _WH and first.i <= head.i and first.dep_ not in ("mark",) and head.dep_ != "advcl":
            return "question"
        if subject is not None and auxes and auxes[0].i < subject.i and first.i == auxes[0].i:
            return "question"  # "do we use yarn", "is this right"
        if head.pos_ not in ("VERB", "AUX"):
            return "statement" if clause.about == "implied" else "fragment"
        if (
            subject is not None
            and head.tag_ in ("VBP", "VB")
            and subject.lower_ not in ("i", "we", "you", "they")
        ):
            opener = sentence[0] if len(sentence) else None
            if opener is not None and opener.lower_ in ("for", "in", "on", "when") and opener.i < subject.i:
                return (
                    "imperative"  # "For hotfix branches skip the tests": the subject is the opener's object
                )
        # "give me everything in acres, the metric stuff means nothing to me": an opening verb the
        # parser hung under the next clause is still an order
        opening = (
            head.dep_ == "advcl"
            and head.tag_ == "VB"
            and first.i == head.i
            and not any(c.dep_ == "mark" for c in head.children)
        )
        if subject is None and (head.dep_ not in ("advcl", "xcomp") or opening) and not self._after_to(head):
            if head.tag_ in ("VB", "VBP") or (head.lemma_ == "be" and head.tag_ == "VB"):
                return "imperative"
            if any(a.lower_ in ("do", "don't", "dont") for a in auxes) and head.tag_ == "VB":
                return "imperative"
        return "statement"

    @staticmethod
    def _after_to(head: Token) -> bool:
        return any(c.dep_ == "aux" and c.lower_ == "to" for c in head.children)

    def question_start(self, sentence: Span) -> int | None:
        return self._question_segment(sentence)

    @staticmethod
    def _question_segment(sentence: Span) -> int | None:
        """Where the asked part of a sentence ending in "?" begins: after its last clause boundary."""
        tokens = [t for t in sentence if not t.is_space]
        while tokens and tokens[-1].is_punct and tokens[-1].text not in ("?",):
            tokens.pop()
        if not tokens or "?" not in tokens[-1].text:
            return None
        start: int = tokens[0].i
        for token in tokens[:-1]:
            if (token.lower_ in _BOUNDARY and token.dep_ in ("punct", "cc", "prep")) or token.text in (
                ",",
                ";",
                "\u2014",
            ):
                start = token.i + 1
        return start

    @staticmethod
    def _going_to(head: Token) -> bool:
        """ "we're going to move", "gonna switch": the head is a plan."""
        if head.lemma_ == "go" and head.tag_ == "VBG":
            return any(c.dep_ == "xcomp" for c in head.children)
        parent = head.head
        return bool(head.dep_ == "xcomp" and parent.lemma_ == "go" and parent.tag_ == "VBG")

    def _plans(self, head: Token) -> bool:
        """ "I want to learn Rust", "we plan to move", "thinking about switching"."""
        lemma = head.lemma_.lower()
        if lemma in self.lex["plan_verb"]:
            if any(c.dep_ in ("xcomp", "ccomp") for c in head.children):
                return True
            if any(c.dep_ == "prep" and c.lower_ in ("about", "of") for c in head.children):
                return True
        # "I'd love to visit", "we'd like to try"
        return (
            lemma in ("like", "love")
            and any(a.tag_ == "MD" for a in head.children)
            and any(c.dep_ == "xcomp" for c in head.children)
        )

    @staticmethod
    def _governed_by(clause: Clause, verbs: frozenset[str], xcomp_only: bool = False) -> bool:
        """The clause is the complement of one of ``verbs`` ("I think we use X", "we want to use X")."""
        token = clause.head
        deps = ("xcomp", "pcomp") if xcomp_only else ("ccomp", "xcomp", "pcomp")
        while token.dep_ in deps or (token.dep_ == "pobj" and token.head.dep_ == "prep"):
            governor = token.head
            if governor.dep_ == "prep":
                governor = governor.head
            if governor.lemma_.lower() in verbs:
                # "..., so expect typos": an order that follows does not govern what came before
                return not (token.i < governor.i and not _has_subject(governor))
            if governor.i == token.i:
                break
            token = governor
        return False

    def _reported(self, clause: Clause) -> bool:
        """Someone else's words, deeds or views: a third-party subject, or a clause under another
        person's verb of saying or thinking."""
        if clause.about == "third":
            return True
        if "according" in (t.lower_ for t in clause.head.sent):
            return True
        says = self.lex["speech_verb"] | self.lex["cognition_verb"]
        token = clause.head
        # up the complement chain only: "X said (that) we ...", "keeps saying we should ..."
        while token.dep_ in ("ccomp", "xcomp", "conj") and token.head.i != token.i:
            verb = token.head
            if verb.pos_ in ("VERB", "AUX") and verb.lemma_.lower() in says and token.dep_ != "conj":
                speaker = _subject_of(verb)
                fronted_order = not _has_subject(verb) and token.i < verb.i  # "we got a dog, so expect typos"
                if not fronted_order and (speaker is None or speaker.lower_ not in ("i", "we", "you", "u")):
                    return True  # "my brother keeps saying we should ...", "Tom said they use yarn"
            token = verb
        return False

    def _transient(self, clause: Clause) -> bool:
        lex = self.lex
        words = [t.lower_ for t in clause.tokens]
        if any(w in lex["transient_time"] for w in words):
            return True
        text = " ".join(words)
        return any(
            p in text
            for p in (
                "right now",
                "at the moment",
                "this week",
                "this morning",
                "for now",
                "next week",
                "next month",
                "this weekend",
                "until ",
                "for the next",
            )
        )

    @staticmethod
    def _standing_phrase(words: list[str]) -> bool:
        text = " ".join(words)
        return any(
            p in text
            for p in (
                "from now on",
                "going forward",
                "by default",
                "as a rule",
                "in general",
                "every time",
                "any time",
                "from here on",
                "moving forward",
            )
        )
