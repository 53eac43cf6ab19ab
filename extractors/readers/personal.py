"""Personal facts: the frames of ``patterns/frames.jsonl`` (name, home, family, pets, diet, job...)
and the name given to a pet or relative just named; the sentence-level readers (time zone, answers,
diet, states of the body) are in ``said_of_oneself.py``."""

from __future__ import annotations

import re
from typing import Any

from extractors.ambiguity import MONTH_ABBREVIATIONS, MONTHS, WEEKDAYS
from extractors.clauses import Clause
from extractors.frames import Frame, FrameHit
from extractors.readers.common import (
    DEICTIC,
    Fact,
    Span,
    Token,
    slug,
    value_of,
)
from extractors.readers.relatives import relative_of
from extractors.readers.said_of_oneself import ILLNESS_HEADS, TIME_ZONE, SaidOfOneself
from extractors.readers.statements import StatementReader
from extractors.render import SUBJECT_MARK, plain, sentence


class PersonalReader(StatementReader, SaidOfOneself):
    """What a person says of themselves: the frames of ``patterns/frames.jsonl``, answers to
    questions, time zone and diet, then any other durable first-person statement."""

    def framed(self, clause: Clause, hits: list[FrameHit], role: str) -> list[Fact]:
        facts = []
        about = "speaker" if clause.about == "implied" else clause.about
        for hit in hits:
            frame = hit.frame
            if role not in frame.roles or not clause.has(hit.anchor):
                continue
            if frame.about and about not in frame.about:
                continue
            if clause.mood not in frame.moods and not (
                clause.mood == "fragment" and "statement" in frame.moods
            ):
                continue
            # "my husband Raj doesn't eat beef": a name said in passing holds whatever the clause denies
            if (frame.negated == "skip" and clause.negated and not frame.presupposed) or (
                frame.negated == "require" and not clause.negated
            ):
                continue
            if frame.transient == "skip" and clause.transient:
                continue
            # "everyone calls me Effie": others speak, but of the speaker, in a frame made for it
            told = clause.asserted or (
                clause.reported
                and (not frame.about or "third" in frame.about)
                and not (clause.hedged or clause.planned or clause.conditional or clause.mood == "question")
            )
            value = hit.nodes[frame.value]
            if frame.span == "name" and value.lemma_.lower() in self.lex["pet_noun"] | self.lex["kin_noun"]:
                continue  # "my sister Maria's cat": the cat is no one's name
            called = hit.nodes.get("verb")
            if (
                (frame.key or "").startswith(("family:", "pet:"))
                and called is not None
                and any(c.dep_ in ("dobj", "dative") and c.lower_ in ("me", "us") for c in called.children)
            ):
                continue  # "only my mom calls me Jason": the speaker's name in her mouth, not hers
            named_now = any(t.lemma_.lower() in ("name", "call") for t in (value.head, value.head.head))
            if (
                frame.presupposed
                and not clause.negated
                and (clause.mood != "question" or (frame.span == "name" and not named_now))
            ):
                pass  # "can my son Leo eat peanuts?": the name holds whatever is asked
            elif clause.mood == "question":
                # a frame made for it: "can you call me Lexi instead?" asks for a name to be used
                if (
                    clause.about != "you"
                    or clause.modal not in ("can", "ca", "could", "would", "will", "wo")
                    or any(c.dep_ == "det" for c in hit.nodes[frame.value].children)
                ):
                    continue  # (but "would you call me a genius?" asks an opinion)
            elif (
                clause.mood != "imperative"
                and not _wished_name(clause, frame)
                and (not told or clause.modal not in (None, "ca", "can"))
            ):
                continue
            if clause.tense == "past" and not frame.past and not frame.presupposed:
                continue  # "since i was five": was, not is (but "my dog Rex ate it": still Rex)
            if frame.key == "hometown" and not _prep_of_frame(hit):
                continue
            value_token = hit.nodes[frame.value]
            verb = hit.nodes.get("verb")
            me = hit.nodes.get("me")
            if (
                frame.key == "name"
                and verb is not None
                and verb.lemma_ == "be"
                and me is not None
                and me.lower_ == "i"  # (not "my english name is Kevin, chinese name Zhang Wei")
                and any(
                    t.text == "," or t.dep_ == "cc"
                    for t in value_token.doc[verb.i + 1 : value_token.left_edge.i]
                )
            ):
                # "I'm Lukas, 2nd year CS": the name comes right after "I'm", not past a comma (nor
                # past "and ... our springer spaniel Rufus")
                continue
            if not clause.has(value_token) and not clause.has(value_token.head):
                continue  # "I'm lactose intolerant and my partner is vegan": the partner's clause says it
            if (
                (frame.key or "").startswith(("family:", "pet:", "circle:"))
                and value_token.is_lower
                and any(c.dep_ in ("dobj", "prep") for c in value_token.children)
            ):
                continue  # "my grandchildren Wanjiru and Kip visit on sundays": what they do, no name
            value = self._frame_value(frame, value_token, hit)
            if value is None:
                continue
            modifiers = _modifiers_before(value_token) if frame.span == "token" else []
            if modifiers:
                # "a low sodium diet": one value of all the words before the noun, read once
                if value_token.i != modifiers[0].i:
                    continue
                value = value_token.doc[modifiers[0].i : modifiers[-1].i + 1].text
            elif (
                frame.span == "token"
                and value_token.dep_ in ("amod", "compound")
                and value_token.left_edge.i < value_token.i
                and all(
                    t.dep_ in ("npadvmod", "compound", "amod", "advmod") and not t.is_punct
                    for t in value_token.doc[value_token.left_edge.i : value_token.i]
                )
            ):
                value = value_token.doc[value_token.left_edge.i : value_token.i + 1].text  # "plant based"
            if frame.key and frame.key.startswith(("named:", "project_name")):
                value = _titled(value_token, value)  # "The Loose Ends": the article is part of the name
            noun = hit.nodes.get("noun")
            if (
                frame.key
                and frame.key.startswith(("family:", "pet:", "circle:"))
                and noun is not None
                and noun.tag_ == "NNS"
            ):
                # "grandchildren Wanjiru and Kip" (but "my husband Erik and our husky Kaia": one each)
                value = value.rstrip(" .,;")  # ("Eli (9) and Sam (7). need ...": the parse runs on)
                said = re.findall(r"[\w'-]+", value)
                value = " and ".join([value, *(n for n in _names_after(value_token) if n not in said)])
            verb = hit.nodes.get("verb")
            names = {
                "value": value,
                "noun": noun.lower_ if noun is not None else "",
                "verb": verb.lemma_.lower() if verb is not None else "",
                "subject": SUBJECT_MARK,
            }
            relative = None
            if about in ("family", "pet") and not (frame.key or "").startswith(
                ("family:", "pet:", "circle:")
            ):
                relative = relative_of(clause, self.lex)  # "my son Leo has a peanut allergy": the son's
                if relative is None:
                    continue
                names["subject"] = f"{SUBJECT_MARK}'s {relative.phrase}"
            key = frame.key.format(**{**names, "value": slug(value)}) if frame.key else None
            if key and relative is not None:
                key = f"{relative.slot}.{key}"
            text = _agreed(frame.text.format(**names), value)
            if frame.key == "role" and value.lower() in self.lex["kin_noun"]:
                text = f"{names['subject']} is a {value}."  # "mom of 3 here": a mom, not a job held
            if frame.key and frame.key.startswith(("family:", "pet:", "circle:")):
                if value_token.lower_ in _KIN_IDIOMS:
                    continue  # "my mother tongue is Tamil": the kin word names a kind of thing
                if noun is not None:  # "a border collie called Biscuit": the kind as said
                    kind = " ".join([*(c.lower_ for c in noun.children if c.dep_ == "compound"), noun.lower_])
                    text = text.replace(f"'s {noun.lower_} ", f"'s {kind} ", 1)
                text = _with_aside(text, value_token)  # "our dog Biscuit (beagle, 3yo)"
            facts.append(
                Fact(
                    kind=frame.kind,
                    scope=frame.scope,
                    key=key,
                    value=value,
                    text=sentence(text),
                    span=plain(clause.tokens),
                    reader=frame.qualified_id,
                    confidence=frame.confidence,
                    anchor=value_token.i,
                    fields={"episode": "1"} if frame.episode else {},
                )
            )
        # "my kids Ana and Leo": read whole by one frame and in part by another, kept whole
        return [
            f
            for f in facts
            if not any(
                o is not f
                and o.key == f.key
                and f.key
                and len(o.value) > len(f.value)
                and _names(f.value) <= _names(o.value)
                for o in facts
            )
        ]

    def _frame_value(self, frame: Frame, value_token: Token, hit: FrameHit | None = None) -> str | None:
        """The value a frame's hit names, or None when the word there is no such value."""
        names_someone = frame.span == "name" and frame.key is not None and not frame.key.startswith("home")
        if value_token._.tech is not None and frame.scope == "user" and not names_someone:
            return None  # "we moved to Node 22": a product, not a place ("call me Sam" is a name)
        following = value_token.doc[value_token.i + 1] if value_token.i + 1 < len(value_token.doc) else None
        if value_token._.tech is not None and following is not None and following.text[:1].isdigit():
            return None  # "an app for my mom, its flutter 3.19": a product and its version, not her name
        if frame.key == "home_city" and value_token.lower_ in self.lex["continent"]:
            return None  # "metric units please, im in europe": a part of the world, not a home
        if value_token.lower_ in self.lex["timezone"] or (
            frame.key == "home_city" and TIME_ZONE.match(value_token.doc.text, value_token.idx)
        ):
            return None  # "I'm in PST", "i'm in UTC+9, seoul": a time zone
        if frame.key == "timezone" and not (
            value_token.lower_ in self.lex["timezone"]
            or TIME_ZONE.match(value_token.doc.text, value_token.idx)
            or "/"
            in value_token.doc.text[max(0, value_token.idx - 1) : value_token.idx + len(value_token.text) + 1]
            or value_token.text.isupper()
        ):
            return None  # "timezone is CET btw" parsed with "btw" as what it is
        if value_token.lower_ in MONTHS | WEEKDAYS:
            return None  # "on parental leave from june": a time, not a place
        if (
            frame.key == "home_city"
            and value_token.pos_ == "NOUN"
            and value_token.lower_ in self.known_words
            and not any(c.dep_ in ("prep", "appos") for c in value_token.children)
            and (
                value_token.tag_ == "NNS"
                or value_token.lower_ in self.lex["place_kind"]
                or any(c.dep_ in ("det", "poss", "amod") for c in value_token.children)
            )
        ):
            return None  # "we moved to the farm": a kind of place, not where ("live in reykjavik" is)
        if (frame.key or "").startswith("health:"):
            if value_token.lower_ in ILLNESS_HEADS and not any(
                c.dep_ in ("compound", "amod", "poss") for c in value_token.children
            ):
                return None  # "I have a disease": which one is not said
            if value_token.dep_ in ("compound", "amod") and value_token.head.lower_ in ILLNESS_HEADS:
                value_token = value_token.head  # "celiac disease": the illness as named
        value = value_of(value_token, frame.span)
        if frame.key == "name" and value.lower().startswith("name "):
            value = value[5:]  # "chinese name Zhang Wei": the name, not the word "name"
        if not any(ch.isalnum() for ch in value):
            return None  # "in oaxaca 🇲🇽": a flag names no one
        if frame.key in ("home_city", "hometown") and value.lower().rstrip(".") in MONTH_ABBREVIATIONS:
            return None  # "back at work in jan": a month, not a place
        if frame.key in ("home_city", "hometown") and (
            _CLOUD_REGION.match(value_token.doc.text, value_token.idx) or _CLOUD_REGION.fullmatch(value)
        ):
            return None  # "moved the whole thing to eu-west-1": a cloud region, not a home
        if not value or value.lower() in DEICTIC or value.lower().startswith(("same ", "the same ")):
            return None  # "still live in the same town": which town was said elsewhere
        if value.split()[0].lower() in DEICTIC:
            return None  # "from here in town"
        if value_token.i > 0 and value_token.doc[value_token.i - 1].lower_ in ("not", "never"):
            return None  # "call me Tomasz please, not Tom"
        if value_token.lower_ in _FILLERS:
            # "I go by Tomás btw": the name the filler was taken for; "ocaml even tho ...": nothing
            named = [c for c in value_token.children if c.i < value_token.i and c.pos_ == "PROPN"]
            if not named:
                return None
            value_token = named[-1]
        titled_name = frame.span == "name" and value_token.text.istitle() and value_token.is_alpha
        if value_token.pos_ in ("ADV", "SCONJ", "CCONJ", "ADP", "PART", "DET") and not (
            titled_name
            and value_token.pos_ == "ADV"
            and value_token.lower_ not in _NOT_CALLED
            and not value_token.lower_.endswith("ly")
        ):
            return None  # a word that names nothing (but "call me Raj pls", however "Raj" is tagged)
        if frame.key and frame.key.startswith(("family:", "pet:", "circle:")):
            text = value_token.text
            noun = hit.nodes.get("noun") if hit is not None else None
            # ("our border collie Biscuit": "border" comes before the noun it is part of)
            before_noun = noun is not None and value_token.i < noun.i
            plural = value_token.tag_ == "NNS"  # "my daughter Ayumi ..., any tips": a plural names no one
            if (
                noun is not None
                and noun.dep_ == "compound"
                and noun.head.i == value_token.i
                and text.lower() in self.lex["code_noun"] | self.lex["project_noun"]
            ):
                return None  # "our lab code is python": a kind of thing, no name (not "my dog biscuit")
            if (text.islower() and text in self.known_words and (before_noun or plural)) or (
                text.isupper() and len(text) > 3
            ):
                # "household: ..., my partner Tom", "our son Leo (9, NUT ALLERGY)": no names (but
                # "my dog biscuit" is one)
                return None
        if frame.key in ("home_city", "hometown") and any(t._.tech is not None for t in value_token.subtree):
            return None  # "coming from AWS land": a product's world, not a place
        if frame.key == "home_city" and value_token.pos_ == "NOUN" and _not_a_place(value_token, self.lex):
            return None  # "moved to vancouver" (a name the tagger missed), not "moved to production"
        called = frame.id.endswith(".call_me") and value_token.pos_ in ("PROPN", "NOUN")
        called = called and value.lower() not in _NOT_CALLED  # "call me sam", not "call me tomorrow"
        if (
            frame.key == "name"
            and value.islower()
            and (value in self.known_words or value_token.pos_ == "ADJ")
            and not called
        ):
            return None  # "im colorblind": a word of English, not a name
        if (
            frame.key == "name"
            and value_token.lower_ in self.lex["occupation_noun"]
            and (value_token.text.isupper() or any(c.dep_ == "prep" for c in value_token.children))
        ):
            return (
                None  # "I'm CTO at a startup": what the person is, not what they are called (Dev is a name)
            )
        if (
            frame.key == "name"
            and value_token.lower_ in self.lex["diet_word"] | self.lex["condition_adjective"]
        ):
            return None  # "im coeliac btw": a diet, not a name
        if frame.key == "name" and value.islower() and any(c.dep_ == "prep" for c in value_token.children):
            return None  # "im oncall wk of the 12th": a state with its time, not a name
        doc = value_token.doc
        after = doc[value_token.i + 1] if value_token.i + 1 < len(doc) else None
        if frame.key == "age" and after is not None and after.text in ("-", "\u2013", ":", "/"):
            return None  # "im 7-15 now": hours, not an age
        kept = [w for w in str(value).split(" ") if w.lower() not in _FILLERS]
        return " ".join(kept) or None  # "Tomás btw": the name

    def workplace_named(self, sent: Span) -> list[Fact]:
        """ "im at a small fintech called Ledgerly now", "I just joined a startup called Nimbly": the
        company the speaker works at, named after "called" (the tagger takes such names for anything)."""
        for token in sent:
            if token.lower_ not in ("called", "named") or token.i == 0:
                continue
            noun = token.head if token.dep_ == "acl" else token.doc[token.i - 1]
            if (
                noun.lemma_.lower() not in self.lex["employer_noun"]
                and noun.lower_ not in self.lex["employer_noun"]
            ):
                continue
            governor = noun.head
            at = noun.dep_ == "pobj" and governor.lower_ in ("at", "@")
            joined = noun.dep_ == "dobj" and governor.lemma_.lower() in ("join", "start")
            verb = governor.head if at else governor
            subject = next((c for c in verb.children if c.dep_ == "nsubj"), None)
            if not (at or joined) or (subject is not None and subject.lower_ not in ("i", "im")):
                continue
            name = []
            for word in token.doc[token.i + 1 : token.i + 4]:
                if not (word.is_alpha and (word.is_title or word.is_upper)):
                    break
                name.append(word)
            if not name or name[0]._.tech is not None:
                continue
            value = plain(name)
            return [
                Fact(
                    kind="semantic",
                    scope="user",
                    key="employer",
                    value=value,
                    text=f"{SUBJECT_MARK} works at {value}.",
                    span=sent.text.strip(),
                    reader="personal.employer.called",
                    confidence=0.8,
                    anchor=name[0].i,
                )
            ]
        return []

    def names_listed(self, sent: Span) -> list[Fact]:
        """ "we adopted two kittens in march, Miso and Tofu", "adopted 2 cats from the shelter — Miso
        and Udon", "we got the puppy (Biscuit, beagle)": the names set after one's own pets or
        relatives, past a comma, dash or bracket (the parser hangs them anywhere)."""
        kinds = self.lex["pet_noun"] | self.lex["kin_noun"]
        facts = []
        for token in sent:
            noun = token.lemma_.lower()
            count = _parent_of(token)
            if count is not None:  # "dad of two (Giulia 9, Luca 5)": the names are the kids'
                token, noun = count, "kids"
            elif (
                token.pos_ != "NOUN"
                or (noun not in kinds and token.lower_ not in kinds)
                or not _ones_own(token)
            ):
                continue
            names = _names_set_after(token)
            if not names:
                continue
            value = " and ".join(names) if len(names) <= 2 else ", ".join(names[:-1]) + " and " + names[-1]
            kind = "pet" if noun in self.lex["pet_noun"] or token.lower_ in self.lex["pet_noun"] else "family"
            said = noun if count is not None else token.lower_
            facts.append(
                Fact(
                    kind="semantic",
                    scope="user",
                    key=f"{kind}:{said}",
                    value=value,
                    text=_agreed(f"{SUBJECT_MARK}'s {said} is called {value}.", value),
                    span=sent.text.strip(),
                    reader=f"personal.{kind}.names_listed",
                    confidence=0.75,
                    anchor=token.i,
                )
            )
        return facts

    def mine(self, sent: Span) -> list[Fact]:
        """ "Pepper is my sister's cat lol, mine is Noodle": "mine" names the speaker's own one of
        the pet or relative said just before, and the name it is given is theirs."""
        for token in sent:
            if token.lower_ != "mine" or token.dep_ not in ("nsubj", "nsubjpass"):
                continue
            verb = token.head
            if verb.lemma_.lower() not in ("be", "call", "name"):
                continue
            name = next(
                (c for c in verb.children if c.dep_ in ("attr", "acomp", "oprd") and c.text[:1].isupper()),
                None,
            )
            kinds = self.lex["pet_noun"] | self.lex["kin_noun"]
            said_of = next(
                (t for t in reversed(sent.doc[: token.i]) if t.lemma_.lower() in kinds or t.lower_ in kinds),
                None,
            )
            if name is None or said_of is None or name._.tech is not None:
                continue
            noun = said_of.lemma_.lower() if said_of.lemma_.lower() in kinds else said_of.lower_
            kind = "pet" if noun in self.lex["pet_noun"] else "family"
            return [
                Fact(
                    kind="semantic",
                    scope="user",
                    key=f"{kind}:{noun}",
                    value=name.text,
                    text=f"{SUBJECT_MARK}'s {noun} is called {name.text}.",
                    span=sent.text.strip(),
                    reader=f"personal.{kind}.mine",
                    confidence=0.8,
                    anchor=name.i,
                )
            ]
        return []

    def referent_name(self, clause: Clause) -> list[Fact]:
        """ "we adopted a beagle, his name is Pickle": the name of the pet or relative just named."""
        referent, subject = clause.referent, clause.subject
        if referent is None or not clause.asserted:
            return []
        # "named her Pixel", "we adopted a cat and named her Pixel"
        named = clause.head.lemma_.lower() in ("name", "call") and (
            subject is None or subject.lower_ in ("i", "we")
        )
        if not named and (subject is None or subject.lemma_.lower() != "name"):
            return []
        value_token = next((c for c in clause.head.children if c.dep_ in ("attr", "acomp", "oprd")), None)
        if value_token is None and named:  # "named her Pixel", parsed as "her Pixel"
            value_token = next(
                (c for c in clause.head.children if c.dep_ == "dobj" and c.pos_ == "PROPN"), None
            )
        if value_token is None or value_token.pos_ not in ("PROPN", "NOUN"):
            return []
        group = "pet" if referent.lemma_.lower() in self.lex["pet_noun"] else "family"
        noun = referent.lower_
        value = value_of(value_token, "name")
        return [
            Fact(
                kind="semantic",
                scope="user",
                key=f"{group}:{noun}",
                value=value,
                text=f"{SUBJECT_MARK}'s {noun} is called {value}.",
                span=plain(clause.tokens),
                reader="personal.referent_name",
                confidence=0.8,
                anchor=value_token.i,
            )
        ]


def _prep_of_frame(hit: FrameHit) -> bool:
    """Where someone is from hangs on the verb, or on what the verb says the speaker is: "im 16 from
    manila", "a nurse from Ohio"; not on a distance or a state ("3 hours from Berlin", "back from
    holiday", "far from an expert")."""
    prep, verb = hit.nodes.get("prep"), hit.nodes.get("verb")
    if prep is not None and any(c.dep_ == "npadvmod" for c in prep.children):
        return False  # "3 hours from Porto"
    if prep is None or verb is None or any(prep.head.i == node.i for node in hit.nodes.values()):
        return True  # on the verb, or on a word the frame names itself ("a dev in Chennai")
    head = prep.head
    said = head
    while said.dep_ == "appos" and said.head.i != said.i:
        said = said.head  # "I'm Margaret, 68, retired primary teacher from Leeds": what Margaret is
    return (
        said.dep_ == "attr"
        and said.head.i == verb.i
        and head.pos_ in ("NUM", "NOUN", "PROPN")
        and not any(c.dep_ == "nummod" for c in head.children)
    )


_PARENTS = frozenset({"mom", "mum", "dad", "mother", "father", "parent", "mama", "papa", "mommy", "daddy"})


def _parent_of(token: Token) -> Token | None:
    """ "dad of two", "mom of 3 (...)": the count of the speaker's children, which their names follow."""
    doc = token.doc
    if token.lower_ not in _PARENTS or token.i + 2 >= len(doc) or doc[token.i + 1].lower_ != "of":
        return None
    count = doc[token.i + 2]
    if not count.like_num:
        return None
    before = doc[token.i - 1].lower_ if token.i > 0 else ""
    # ("my sister is a mom of 3 (...)": someone else's children)
    others = {"she", "he", "they", "sister", "brother", "friend", "wife", "husband", "partner", "mom", "dad"}
    if any(t.lower_ in others for t in doc[token.sent.start : token.i]):
        return None
    return None if before in ("my", "his", "her", "their", "your", "our") else count


def _modifiers_before(token: Token) -> list[Token]:
    """The words right before a noun that modify it together, when ``token`` is one of them and there
    are several: "low", "sodium" in "a low sodium diet"."""
    if token.dep_ not in ("amod", "compound") or token.head.i <= token.i:
        return []
    noun = token.head
    mods = [c for c in noun.children if c.dep_ in ("amod", "compound", "npadvmod") and c.i < noun.i]
    mods = [c for c in mods if all(t.dep_ != "punct" for t in token.doc[c.i : noun.i])]
    if len(mods) < 2 or mods[-1].i != noun.i - 1:
        return []
    run = [mods[-1]]
    for mod in reversed(mods[:-1]):
        if mod.i != run[0].i - 1:
            break
        run.insert(0, mod)
    return run if len(run) >= 2 and token in run else []


def _ones_own(noun: Token) -> bool:
    """ "my cats", "our twins", "we adopted two kittens", "adopted a puppy" (the "I" left out): a pet
    or relative of the speaker's."""
    if any(c.dep_ == "poss" and c.lower_ in ("my", "our") for c in noun.children):
        return True
    verb = noun.head
    if noun.dep_ != "dobj" or verb.pos_ != "VERB":
        return False
    subject = next((c for c in verb.children if c.dep_ in ("nsubj", "nsubjpass")), None)
    if subject is None:
        return bool(verb.i == verb.sent.start)  # "adopted 2 cats from the shelter ..."
    return bool(subject.lower_ in ("i", "we"))


# what sets names apart from the words before them
_NAME_BREAKS = frozenset({",", "\u2014", "\u2013", "-", "(", ":"})


def _names_set_after(noun: Token) -> list[str]:
    """The names after a pet or relative and the words that go with it ("in march", "from the
    shelter"), past a break: "Miso and Tofu", "(Biscuit, beagle)" (the sentence splitter may have
    cut at the dash)."""
    doc = noun.doc
    i = noun.i + 1
    end = min(len(doc), noun.i + 9)
    while i < end and doc[i].text not in _NAME_BREAKS:
        if doc[i].pos_ in ("VERB", "AUX", "PRON") or doc[i].is_punct:
            return []  # "my cats keep fighting": what they do, not their names
        i += 1
    if i >= end:
        return []
    names: list[str] = []
    i += 1
    while i < len(doc):
        word = doc[i]
        if word.is_alpha and word.text[:1].isupper() and word.text[1:].islower() and len(word) > 1:
            if word.lower_ in _NOT_NAMES:
                return []
            names.append(word.text)
        elif names and word.like_num and doc[i - 1].text == names[-1]:
            pass  # "Ada 9 and Tobi 4": a name and an age
        elif not (names and word.lower_ in ("and", "&", ",")):
            break
        i += 1
    goes_on = i < len(doc) and doc[i].text not in (",", ".", ")", "!", "?", ";", "\u2014", "\u2013", "-")
    if goes_on and not (doc[i].lower_ == "and" or len(names) > 1 or doc[i - 1].text == ","):
        return []  # "our dog, Biscuit loves ...": a sentence goes on, not a list of names
    return names


# capitalised words after a pet or relative that are no names: months, days, "I"
_NOT_NAMES = MONTHS | WEEKDAYS | {"i"}


def _names_after(token: Token) -> list[str]:
    """The names listed after a name: "Wanjiru and Kip", "Ana, Leo and Mia"."""
    names = []
    for conj in token.conjuncts:
        if (
            conj.i > token.i
            and conj.pos_ == "PROPN"
            and conj.text[:1].isupper()
            and not any(g.dep_ in ("poss", "compound", "det", "amod") for g in conj.children)
        ):
            names.append(conj.text)
    return names


def _agreed(text: str, value: str) -> str:
    """ "{s}'s kids are called Ana and Leo", not "is called"."""
    return text.replace(" is called ", " are called ") if " and " in value else text


# chat fillers the tagger may take for a name: "ocaml even tho ..."
_CLOUD_REGION = re.compile(r"[a-z]{2}(?:-[a-z]+)+-\d", re.IGNORECASE)
_FILLERS = frozenset({"tho", "though", "lol", "haha", "btw", "tbh", "imo", "ngl", "idk", "atm", "rn", "asap"})
# what "call me ..." names that is no name
_NOT_CALLED = frozenset(
    {
        "tomorrow",
        "tonight",
        "today",
        "later",
        "anytime",
        "back",
        "maybe",
        "sometime",
        "now",
        "then",
        "soon",
        "again",
    }
)


def _names(value: str) -> set[str]:
    return {w for w in re.findall(r"[^\W_]+", value.lower()) if w != "and"}


def _with_aside(text: str, name: Token) -> str:
    """ "{s}'s dog is called Biscuit (beagle, 3yo).": what a parenthesis right after the name says
    of them."""
    doc = name.doc
    after = name.i + 1
    if after >= len(doc) or doc[after].text != "(":
        return text
    close = next((t.i for t in doc[after + 1 : after + 10] if t.text == ")"), None)
    if close is None or close == after + 1:
        return text
    aside = doc[after + 1 : close].text.strip()
    return f"{text.rstrip('.')} ({aside})"


def _not_a_place(token: Token, lex: Any) -> bool:
    """A common noun a move goes to that is no city: a stage of the code ("production"), a thing of
    the trade, an abstract noun ("management", "marketing", "security"), the first noun of a longer
    name ("got moved to day shift")."""
    lower = token.lower_
    after = token.doc[token.i + 1] if token.i + 1 < len(token.doc) else None
    return (
        (after is not None and after.pos_ == "NOUN" and after.is_lower)
        or lower in lex["code_noun"]
        or lower in lex["project_noun"]
        or lower in ("prod", "staging", "dev", "cloud", "remote", "onsite", "hybrid")
        or lower.endswith(("ment", "tion", "sion", "ing", "ity", "ness", "ance", "ence"))
    )


def _titled(token: Token, value: str) -> str:
    """A name as given, with its capitalized words and article: "my band is called The Loose Ends",
    "my mod is called Tea Garden Expanded" (however the parser split it); not the aside after it."""
    doc = token.doc

    def part(t: Token) -> bool:
        return t.is_title or t.is_upper or t.like_num or t.text in ("&", "+")

    if not part(token):
        return value
    first = last = token.i
    while first > token.sent.start and (part(doc[first - 1]) or doc[first - 1].lower_ in _NAME_JOINS):
        if doc[first - 1].lower_ in ("called", "named"):
            break
        first -= 1
    while last + 1 < token.sent.end and (
        part(doc[last + 1])
        or (doc[last + 1].lower_ in _NAME_JOINS and last + 2 < token.sent.end and part(doc[last + 2]))
    ):
        last += 1
    while first < token.i and doc[first].lower_ in _NAME_JOINS - {"the"}:
        first += 1
    return str(doc[first : last + 1].text)


_NAME_JOINS = frozenset({"&", "and", "of", "the", "de", "du", "von", "van", "la", "le"})

# nouns a kin word makes an idiom of: "mother tongue", "father figure", "mother board"
_KIN_IDIOMS = frozenset(
    {"tongue", "figure", "board", "land", "language", "nature", "ship", "hen", "superior"}
)


def _wished_name(clause: Clause, frame: Frame) -> bool:
    """A name asked for as a wish: "I'd rather go by Thomas now", "you can call me Pri" (not "I would
    go by Tom if ...")."""
    allowed = clause.about == "you" and clause.modal in ("can", "ca", "may")  # "u can call me Pri"
    return (
        frame.key == "name"
        and (clause.modal in ("'d", "d", "would", "would-prefer") or allowed)
        and not (clause.conditional or clause.hedged or clause.mood == "question")
        and not any(
            c.dep_ == "advcl" and any(m.lower_ in ("if", "unless") for m in c.children)
            for c in clause.head.children
        )
    )
