"""How a clause is said: its mood (statement, imperative, question, fragment), tense, modality and
negation, and whether it is hedged, planned, reported, conditional, transient or standing."""

from __future__ import annotations

from extractors.clauses.model import (
    FUTURE_MODALS,
    GROUP,
    PLEASE,
    SPEAKER,
    SUBJECT_DEPS,
    WEAK_MODALS,
    Clause,
    Span,
    Token,
    describing_a_thing_to_make,
    for_one_time,
    has_subject,
    in_quotes,
)
from extractors.clauses.who import WhoReader
from extractors.render import habit_misread

_WH = frozenset({"what", "which", "who", "whom", "whose", "why", "how", "where", "when"})
_CONDITION_MARKS = frozenset(
    {"if", "unless", "whether", "suppose", "supposing", "assuming", "incase", "lest", "like"}
)
# "when I run the scraper": a clause of time in the present is a condition, not news
_WHEN_MARKS = frozenset({"when", "whenever", "while", "once", "until", "till"})


# what says a progressive is still to come
_COMING = frozenset({"soon", "tomorrow", "next", "later", "shortly", "eventually"})
# what an order opens with after a label's colon
_ORDER_OPENERS = frozenset({"never", "always", "dont", "don't", "do", "please", "pls", "just", "only"})


class FeatureReader(WhoReader):
    """Reads the features of a clause whose tokens and parent are known."""

    def describe(self, clause: Clause, sentence: Span, question_from: int | None) -> None:
        subject, auxes = self._subject(clause, sentence)
        self._tense(clause, subject, auxes)
        self._manner(clause, subject, auxes, question_from, sentence)

    def _subject(self, clause: Clause, sentence: Span) -> tuple[Token | None, list[Token]]:
        """The clause's subject (its own, or its conjunct's) and who it is about; and its auxiliaries."""
        head = clause.head
        # "pls keep explanations simple": the tagger's subject is a please
        subjects = [c for c in head.children if c.dep_ in SUBJECT_DEPS and c.lower_ not in PLEASE]
        # "Name's Kwame, I'm a nurse": of two subjects the parser hung on one verb, "I" speaks
        subject = next(
            (c for c in subjects if c.lower_ in SPEAKER | GROUP), subjects[0] if subjects else None
        )
        auxes = [c for c in head.children if c.dep_ in ("aux", "auxpass") and c.i < head.i]
        colon = (
            next((t for t in head.doc[subject.i + 1 : head.i] if t.text == ":"), None) if subject else None
        )
        opens_order = colon is not None and (
            colon.i + 1 == head.i or head.doc[colon.i + 1].lower_ in _ORDER_OPENERS
        )  # "coroutine rule on our team: never use GlobalScope"
        if (
            subject is not None
            and colon is not None
            and (head.tag_ == "VBD" or (head.tag_ == "VB" and opens_order))
        ):
            # "new job news: started at Datadog on monday": a label, not who did it (but "team
            # conventions: ..., PR titles must start with ...": the subject after the label)
            after = [c for c in subjects if c.i > subject.i]
            subject = after[-1] if after else None
        if subject is None and clause.parent is not None and head.dep_ == "conj" and _shares_subject(clause):
            subject = clause.parent.subject  # "we use postgres and deploy to fly" (not ", ignore that")
        elif (
            subject is None
            and clause.parent is not None
            and head.dep_ == "advcl"
            and head.tag_ == "VBG"
            and not any(c.dep_ == "mark" for c in head.children)
            and clause.parent.subject is not None
            and clause.parent.subject.lower_ in SPEAKER
        ):
            subject = clause.parent.subject  # "i speak tagalog and english, learning japanese": still "i"
        clause.subject = subject
        clause.about = self._about(subject) if subject is not None else "none"
        # (an opening "studying for the CPA exam, ..." is parsed as an aside of what follows)
        opening = clause.parent is None or (head.dep_ == "advcl" and head.tag_ == "VBG")
        if subject is None and opening and self._diary(head):
            clause.about = "implied"  # "moved to Kraków in march", "allergic to peanuts"
        if (
            subject is None
            and clause.about == "none"
            and head.dep_ == "conj"
            and head.tag_ == "VBD"
            and clause.parent is not None
            and clause.parent.about == "implied"
        ):
            clause.about = "implied"  # "left stripe, started at Datadog on monday": the same "I" left out
        if subject is None and clause.about == "none" and head.tag_ == "VBD" and _opens(sentence, head):
            clause.about = "implied"  # "moved up to Glasgow last month, new flat is tiny": parsed as an aside
        if (
            subject is None
            and clause.about == "none"
            and head.tag_ == "VBD"
            and _after_a_label(sentence, head)
        ):
            clause.about = "implied"  # "new job news: left stripe, started at Datadog on monday"
        if subject is None and sentence[0].lower_ == "myself":
            clause.about = "implied"  # "Myself Arjun, working as SRE in Bengaluru": an introduction
        return subject, auxes

    def _tense(self, clause: Clause, subject: Token | None, auxes: list[Token]) -> None:
        """Modality, tense and negation."""
        head = clause.head
        words = [t.lower_ for t in clause.tokens]
        modal = next((a for a in auxes if a.tag_ == "MD"), None)
        clause.modal = modal.lower_ if modal is not None else None
        if clause.modal in WEAK_MODALS and head.lemma_ in ("like", "love", "prefer") and subject is not None:
            clause.modal = "would-prefer"  # "I'd prefer tabs", "I would like short answers"
        if any(a.lower_ in FUTURE_MODALS for a in auxes) or self._going_to(head):
            clause.tense = "future"
        elif any(a.lemma_ == "have" for a in auxes) and head.tag_ == "VBN":
            clause.tense = "perfect"
        elif (head.tag_ == "VBD" and not habit_misread(head)) or any(a.tag_ == "VBD" for a in auxes):
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
            # but "i live in Montreal since january, no longer in Toronto": past a comma it names the old
            longer = next(t.i for t in clause.tokens if t.lower_ in ("longer", "anymore", "more") and t.i > 0)
            afterthought = longer > head.i and any(
                t.text in (",", ";") for t in clause.tokens if head.i < t.i < longer
            )
            clause.negated = clause.negated or not afterthought

    def _manner(
        self,
        clause: Clause,
        subject: Token | None,
        auxes: list[Token],
        question_from: int | None,
        sentence: Span,
    ) -> None:
        """How it is said: mood, hedged, planned, reported, standing, conditional, transient."""
        head = clause.head
        lex = self.lex
        described = describing_a_thing_to_make(clause)
        lemmas = {t.lemma_.lower() for t in clause.tokens if t.i not in described}
        first = self._first_content(clause)
        clause.mood = self._mood(clause, subject, auxes, first, question_from, sentence)
        # "i play chess online, maybe too much lol": an afterthought past a comma hedges nothing
        comma = next((t.i for t in clause.tokens if t.text == "," and t.i > head.i), None)
        hedges = {t.lemma_.lower() for t in clause.tokens if comma is None or t.i < comma}
        clause.hedged = bool(hedges & lex["hedge"]) or self._governed_by(clause, lex["cognition_verb"])
        infinitive = any(c.dep_ == "aux" and c.lower_ == "to" for c in head.children)
        clause.planned = (
            self._plans(head)
            or self._governed_by(clause, lex["plan_verb"], xcomp_only=not infinitive)
            or clause.tense == "future"
            # "moving to utrecht soon", "starting at Stripe next month": the progressive of what is to come
            or (head.tag_ == "VBG" and any(t.lower_ in _COMING for t in clause.tokens if t.i > head.i))
        )
        clause.reported = self._reported(clause)
        clause.standing = (
            bool(lemmas & lex["standing_marker"])
            or self._standing_phrase([t.lower_ for t in clause.tokens if t.i not in described])
            or _stops_doing(clause.head)
        )
        # "let's just rewrite the whole thing in COBOL over the weekend": proposed, not yet so (but
        # "let's use pnpm from now on" is decided for every time)
        clause.planned |= not clause.standing and self._governed_by(clause, frozenset({"let"}))
        clause.conditional = (
            any(c.dep_ == "mark" and c.lower_ in _CONDITION_MARKS for c in head.children)
            or (clause.parent is not None and clause.parent.conditional and head.dep_ == "conj")
            or _as_if(clause)
            or (
                clause.tense == "present"
                and not clause.standing  # "whenever the schema changes, regenerate ...": a rule
                and any(c.dep_ in ("mark", "advmod") and c.lower_ in _WHEN_MARKS for c in head.children)
            )
        )
        clause.transient = self._transient(clause)

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
                "now",  # "now what do i do with my mornings": still a question
                "anyway",
                "well",
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
            if (
                head.tag_ == "VB"
                and not auxes
                and any(
                    c.lower_ in ("please", "pls", "plz") and subject.i < c.i < head.i for c in head.children
                )
            ):
                return "imperative"  # "commit messages please write in english": the thing, then the order
        # "give me everything in acres, the metric stuff means nothing to me": an opening verb the
        # parser hung under the next clause is still an order
        # ("dont use lodash, we're trying to rip it out": its "do" or "never" opens it)
        opens = first.i == head.i or (
            first.head.i == head.i
            and first.dep_ in ("aux", "neg", "advmod")
            and first.lower_ in ("do", "don't", "dont", "never", "always")
        )
        opening = (
            head.dep_ == "advcl"
            and head.tag_ == "VB"
            and opens
            and not any(c.dep_ == "mark" for c in head.children)
        )
        if subject is None and (head.dep_ not in ("advcl", "xcomp") or opening) and not self._after_to(head):
            if head.tag_ in ("VB", "VBP") or (head.lemma_ == "be" and head.tag_ == "VB"):
                return "imperative"
            if any(a.lower_ in ("do", "don't", "dont") for a in auxes) and head.tag_ == "VB":
                return "imperative"
            if (
                head.tag_ in ("VBD", "VBN")
                and head.lower_ == head.lemma_.lower()
                and first.lower_ in ("always", "never")
                and first.i < head.i
            ):
                return "imperative"  # "always set seeds explicitly": "set" as said is its own base form
        return "statement"

    @staticmethod
    def _after_to(head: Token) -> bool:
        return any(c.dep_ == "aux" and c.lower_ == "to" for c in head.children)

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
            # (not "how it works here: PRs need two approvals": a lead-in before the verb is no plan)
            if any(c.dep_ in ("xcomp", "ccomp") and c.i > head.i for c in head.children):
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
                return not (token.i < governor.i and not has_subject(governor))
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
                fronted_order = not has_subject(verb) and token.i < verb.i  # "we got a dog, so expect typos"
                # "lint is `ruff check .` — hmm it says 3 files ...": a dash ends what the speaker said
                set_apart = token.i < verb.i and any(
                    t.text in ("\u2014", "\u2013", "-", ";") for t in token.doc[token.i : verb.i]
                )
                # "my cat has kidney disease, the vet said renal diet": the verb says something else
                says_other = token.i < verb.i and any(
                    c.dep_ in ("dobj", "ccomp") and c.i > verb.i for c in verb.children
                )
                if not (fronted_order or set_apart or says_other) and (
                    speaker is None or speaker.lower_ not in ("i", "we", "you", "u")
                ):
                    return True  # "my brother keeps saying we should ...", "Tom said they use yarn"
            token = verb
        return False

    def _transient(self, clause: Clause) -> bool:
        lex = self.lex
        words = [t.lower_ for t in clause.tokens]
        # "tired tonight", but not "a morning person", "sunny afternoon ideas": a time word that
        # only describes a noun says when nothing is
        if any(
            t.lower_ in lex["transient_time"]
            and not (t.dep_ in ("compound", "nmod") and t.head.pos_ in ("NOUN", "PROPN"))
            and not in_quotes(t, single=False)
            for t in clause.tokens
        ):
            return True
        if for_one_time(words):
            return True  # "no deploys this friday", "next week"
        text = " ".join(words)
        return any(
            p in text
            for p in (
                "right now",
                "at the moment",
                "for now",
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


def _subject_of(verb: Token) -> Token | None:
    """The subject of a verb, or of the verb it completes ("keeps saying": the subject of "keeps")."""
    token = verb
    for _ in range(4):
        subject = next((c for c in token.children if c.dep_ in SUBJECT_DEPS), None)
        if subject is not None:
            return subject
        if token.dep_ not in ("xcomp", "conj", "ccomp", "advcl") or token.head.i == token.i:
            return None
        token = token.head
    return None


_OPENING_WORDS = frozenset(
    {"so", "ok", "okay", "finally", "just", "also", "and", "well", "btw", "fyi", "recently"}
)


def _after_a_label(sentence: Span, head: Token) -> bool:
    """Whether ``head`` follows a label that opens the sentence ("new job news: ...") with no verb
    before the colon."""
    colon = next((t.i for t in sentence if t.text == ":" and t.i < head.i), None)
    return colon is not None and not any(t.pos_ in ("VERB", "AUX") for t in sentence if t.i < colon)


def _opens(sentence: Span, head: Token) -> bool:
    """Whether ``head`` is the first word of the sentence that says anything."""
    return all(t.is_punct or t.is_space or t.lower_ in _OPENING_WORDS for t in sentence if t.i < head.i)


def _shares_subject(clause: Clause) -> bool:
    """A conjunct said of its parent's subject: any but a bare verb form, which is an order (", ignore
    that"), unless "and" joins it to what "I" or "we" said ("I'm on the road and only have my phone")."""
    head = clause.head
    parent = clause.parent
    spoken = parent is not None and parent.subject is not None and parent.subject.lower_ in SPEAKER | GROUP
    if head.tag_ == "VBZ" and spoken:
        return False  # "i cannot do coffee, makes me jittery": "makes" is not said of "I"
    if head.tag_ != "VB":
        return True
    if parent is None or not spoken:
        return False
    if parent.mood == "imperative":
        return False
    before = [t for t in head.doc[parent.head.i + 1 : clause.start] if not t.is_space]
    return (
        bool(before)
        and before[-1].lower_ in ("and", "but", "&")
        and not any(t.text == "," for t in before[-1:])
    )


def _stops_doing(head: Token) -> bool:
    """ "can you stop using emojis", "stop with the emojis": to stop doing a thing is never to do it
    again, a standing request as much as "never use emojis"."""
    subject = next((c for c in head.children if c.dep_ == "nsubj"), None)
    return (
        head.lemma_.lower() == "stop"
        and head.dep_ not in ("advcl", "relcl")
        and not any(
            c.lower_ in ("so", "until") and c.i < head.i for c in head.children
        )  # ("... so you stop asking")
        and (subject is None or subject.lower_ in ("you", "u"))  # ("commands randomly stop registering")
        and any(
            (c.dep_ == "xcomp" and c.tag_ == "VBG") or (c.dep_ == "prep" and c.lower_ == "with")
            for c in head.children
        )
    )


def _as_if(clause: Clause) -> bool:
    """ "explain big O like im 5", "talk to me as if i'm new here": a likeness, not what is."""
    words = [t.lower_ for t in clause.tokens[:3]]
    subject = clause.subject
    if subject is None or subject.i == clause.tokens[0].i:
        return False
    return (words[0] == "like" and clause.tokens[1].i == subject.i) or words[:2] in (
        ["as", "if"],
        ["as", "though"],
    )
