"""How people introduce themselves: "retired maths teacher in Cork", "im Priya, ICU nurse at St
Thomas', doing MSc part time", "carpenter, own business (Hollis Joinery) in Bristol". An opening
written as notes, with no clause of its own, whose first item is what the person is: kept whole,
as said, with the person as its subject; the role is its slot."""

from __future__ import annotations

import re

from extractors.readers.common import PRONOUN_SET, TITLES, Fact, ReaderBase, Span, Token, joined
from extractors.readers.rules.facts import in_third_person
from extractors.render import SUBJECT_MARK, sentence, trim

# what opens an introduction before the person says what they are
_OPENERS = frozenset(
    {
        "hi",
        "hello",
        "hey",
        "hiya",
        "morning",
        "evening",
        "me",
        "im",
        "i'm",
        "i",
        "m",
        "'m",
        "am",
        "here",
        "so",
        "background",
        "bio",
        "about",
        "intro",
        "context",
    }
    | {"my", "name", "name's", "names", "is", "this", "it's"}  # "my name is Chidi, pharmacist in Lagos"
)
_MAX_WORDS = 40
_SAID_AM = frozenset({"im", "i'm", "m", "'m", "am"})
# "me: Lena, Munich", "about me:", "kurz zu mir:", "sobre mim:": what labels notes on the speaker
_ME = frozenset(
    {"me", "about", "myself", "moi", "yo", "ich", "eu", "io", "mir", "mim", "zu", "sobre", "über"}
)
_BREAKS = frozenset({",", "-", "\u2014", "\u2013"})
_NOT_WHO = frozenset(
    {"new", "same", "also", "just", "ok", "okay", "everyone", "nobody", "all", "still", "back", "long"}
)


class Introductions(ReaderBase):
    """An introduction written as notes."""

    def introduction(self, sent: Span, first: bool) -> list[Fact]:
        """``first``: the sentence opens the message (introductions come first)."""
        tokens = _before_dash(trim([t for t in sent if not t.is_space]))
        if not tokens or len(tokens) > _MAX_WORDS or sent.text.rstrip().endswith("?"):
            return []
        noted = self._labeled_me(tokens)
        if noted is not None:
            return noted
        start = _after_label(tokens)
        announced = start > 0  # "quick intro: Raj, PM at Zendesk": a name after the label is theirs
        tokens = _without_pronouns(tokens)  # "Priya (she/her), PhD student ...": the pronoun reader's
        if _greeted(tokens, start):
            start += 2  # "namaskar, Vikram here, devops at ...": a greeting in any language
        while start < len(tokens) and (
            tokens[start].is_punct
            or tokens[start].lower_ in _OPENERS
            or _GREETING.fullmatch(tokens[start].lower_)
        ):
            start += 1
        opened = start
        # "Ahmed here, SAP consultant from Cairo": the name said with "here", then what they are
        # ("Hey, Arjun here — embedded guy": after a greeting too; "Lucas aqui, ...", "Jana hier")
        name_here = (
            len(tokens) > start + 1
            and tokens[start].pos_ == "PROPN"
            and tokens[start].lower_ not in self.lex["occupation_noun"]  # "postdoc here — ...": no name
            and tokens[start].lower_ not in self.lex["diet_word"]  # "vegetarian here (ovo-lacto)"
            and tokens[start + 1].lower_ in _HERE
            and _ends_here(tokens, start + 2, greeted=start > 0)
        )
        if name_here:
            tokens, start = tokens[start:], 0
        named = start < len(tokens) and tokens[start].pos_ == "PROPN" and (start > 0 or name_here)
        if named:  # "im Priya, ICU nurse at ...": the name, then what they are
            comma = next((n for n in range(start, len(tokens)) if tokens[n].text in _BREAKS), None)
            if comma is None:
                return [self._name(tokens[0])] if name_here else []  # "Marco here (he/him)."
            start = comma + 1
        name_first = not named and self._name_first(tokens)
        if name_first:  # "Tomasz, backend dev in Wrocław"
            named, start = True, 2
        if any(t.text in (":", "=") for t in tokens[start : start + 4]):
            return []  # "local dev: docker compose up": a label for what follows, not who one is
        role = self._role(tokens[start:])
        if role is None and first and not named:
            return self._here(tokens[start:])
        if role is None and not named:
            return self._condition(tokens[start:])  # "... learning Spanish. type 2 diabetic so ..."
        if role is None and name_here:
            if (
                tokens[start].lower_ in ("from", "in")
                and start + 1 < len(tokens)
                and tokens[start + 1].pos_ == "PROPN"
            ):
                # "Lucas aqui, from Belo Horizonte": where the person is from, said with the name
                end = _end(tokens, start)
                said = f"{tokens[0].text}, {joined(tokens[start:end]).strip(' ,')}"
                return [
                    self._name(tokens[0]),
                    _note(said, f"{SUBJECT_MARK}: {said}", tokens, tokens[start].i),
                ]
            return [self._name(tokens[0])]  # "Hey, Arjun here — embedded guy, STM32 + FreeRTOS"
        if role is None and named and not name_first and any(t.lower_ in _SAID_AM for t in tokens[:opened]):
            return [self._name(tokens[opened])]  # "hi im Kenji, robotics nerd at ...": the name at least
        if role is None or not (first or named):
            return []
        said_am = any(t.lower_ in _SAID_AM for t in tokens[:start])
        if tokens[start].lower_ in ("a", "an") and not said_am:
            return []  # "a pilot, that's cool": what the other person said they are
        end = _end(tokens, start)
        said = joined(tokens[opened:end]).strip(" ,")
        if name_here:  # "Ahmed here, SAP consultant from Cairo": "here" says nothing of Ahmed
            said = f"{tokens[0].text}, {joined(tokens[start:end]).strip(' ,')}"
        said = in_third_person(said).replace(" ,", ",")  # (where an aside of pronouns was)
        named_here = [self._name(tokens[0])] if name_here or (name_first and named) else []
        if named and not named_here and (said_am or announced) and tokens[opened].pos_ == "PROPN":
            named_here = [self._name(tokens[opened])]  # "hi im Kenji, embedded dev at ..."
        return [
            *named_here,
            Fact(
                kind="semantic",
                scope="user",
                key="role",
                value=role,
                text=sentence(f"{SUBJECT_MARK}: {said}"),
                span=joined(tokens),
                reader="personal.introduction",
                confidence=0.7,
                anchor=tokens[start].i,
            ),
        ]

    def _labeled_me(self, tokens: list[Token]) -> list[Fact] | None:
        """ "me: Lena, Munich, on call this week": notes on the speaker under "me:"."""
        # ("me = Lena, berlin", "moi: Anaïs, lyon", "context dump: me = Lena, ...")
        colon = next(
            (
                n
                for n in range(1, len(tokens) - 1)
                if tokens[n].text in (":", "=")
                and tokens[n - 1].lower_ in _ME
                and (n == 1 or tokens[n - 2].is_punct or tokens[n - 2].lower_ in _ME)
            ),
            None,
        )
        if colon is None:
            return None
        rest = tokens[colon + 1 :]
        if not rest:
            return None
        first = rest[0]
        named = first.pos_ == "PROPN" and first._.tech is None and (len(rest) == 1 or rest[1].text in _BREAKS)
        said = in_third_person(joined(rest).strip(" ,"))
        note = _note(said, f"{SUBJECT_MARK}: {said}", tokens, first.i)
        return [self._name(first), note] if named else [note]

    def _name_first(self, tokens: list[Token]) -> bool:
        """ "Tomasz, backend dev in Wrocław": a name no dictionary knows, then what the person is."""
        first = tokens[0]
        return (
            len(tokens) > 3
            and tokens[1].text == ","
            and first._.tech is None
            and first.text[:1].isupper()
            and first.is_alpha
            and first.lower_ not in self.known_words
            and self._role(tokens[2:]) is not None
        )

    @staticmethod
    def _name(token: Token) -> Fact:
        return Fact(
            kind="semantic",
            scope="user",
            key="name",
            value=token.text,
            text=sentence(f"{SUBJECT_MARK}'s name is {token.text}."),
            span=token.text,
            reader="personal.introduction",
            confidence=0.7,
            anchor=token.i,
        )

    def _here(self, tokens: list[Token]) -> list[Fact]:
        """ "type 1 diabetic here", "lactose intolerant here": what the person is, said with "here"."""
        here = next((n for n, t in enumerate(tokens[:6]) if t.lower_ == "here"), None)
        if here is None:
            return self._condition(tokens)
        if here == 0:
            return []
        after = tokens[here + 1] if here + 1 < len(tokens) else None
        if after is not None and after.pos_ in ("VERB", "AUX"):
            return []  # "tests here are `just test`": the thing here, not the person
        words = tokens[:here]
        if any(t.pos_ in ("VERB", "AUX", "PRON", "DET") or t._.tech is not None for t in words):
            return []
        if not any(t.pos_ in ("ADJ", "NOUN", "PROPN") for t in words):
            return []
        if all(t.lower_ in _NOT_WHO or t.lower_ in self.lex["transient_adjective"] for t in words):
            return []  # "new here", "same here", "tired here"
        if any(
            t.lower_ in ("rule", "rules", "note", "notes", "question", "context", "update") for t in words
        ):
            return []  # "unity rule here: ...": what the note is, not who the speaker is
        if len(words) == 1 and self._a_name(words[0]):
            return [self._name(words[0])]  # "Tom here. need help with a regex"
        return [_is(words, tokens)]

    def _a_name(self, token: Token) -> bool:
        return token.pos_ == "PROPN" and token.is_alpha and token.text[:1].isupper() and token._.tech is None

    def _condition(self, tokens: list[Token]) -> list[Fact]:
        """ "type 1 diabetic so any meal plan needs carb counts", "28 weeks pregnant, no sushi pls": a
        message that opens on the person's condition, said without "I'm"."""
        end = next(
            (n for n, t in enumerate(tokens) if t.is_punct or t.lower_ in ("so", "and", "but")), len(tokens)
        )
        words = tokens[:end]
        while words and words[-1].lower_ in self.lex["discourse_marker"]:
            words = words[:-1]  # "lactose intolerant fyi"
        if not words or len(words) > 5:
            return []
        if len(words) > 2 and words[0].lower_ == "allergic" and words[1].lower_ == "to":
            return [_is(words, tokens)]  # "allergic to shellfish (like epipen allergic)", however tagged
        if words[-1].lower_ in self.lex["fan_noun"] and not any(
            t.pos_ in ("VERB", "AUX", "PRON") for t in words
        ):
            said = joined(words)  # "huge Liverpool fan and i play five-a-side on thursdays"
            article = "" if words[0].pos_ == "DET" else "an " if said[:1].lower() in "aeiou" else "a "
            return [_note(said, f"{SUBJECT_MARK} is {article}{said}.", tokens, words[0].i)]
        typed = len(words) > 1 and words[0].lower_ == "type" and words[1].like_num  # "type 2 diabetic"
        if any(
            (t.pos_ in ("VERB", "AUX", "PRON", "DET", "ADP") and not (typed and t.i == words[0].i))
            or t._.tech is not None
            for t in words
        ):
            return []
        conditions = self.lex["condition_adjective"] - self.lex["diet_word"]  # a diet is the diet reader's
        if any(t.lower_ in conditions for t in words):
            return [_is(words, tokens)]
        if words[-1].lower_ in self.lex["condition_noun"] | _ALLERGY and words[-1].pos_ == "NOUN":
            # "severe peanut allergy btw (epipen level)": what the person has, said without "I have"
            said = joined(words)
            return [_note(said, f"{SUBJECT_MARK} has {said}.", tokens, words[0].i)]
        return []

    def _role(self, tokens: list[Token]) -> str | None:
        """The role a note opens with ("retired maths teacher", "2nd yr mech eng student"), when the
        note has no verb with a subject of its own before it."""
        words: list[Token] = []
        occupations = self.lex["occupation_noun"] | {t.lower_ for t in tokens if t.text in TITLES}
        if tokens and tokens[0].lower_ in ("not", "no"):
            return None  # "not a dev so pls no jargon": what one is not
        for n, token in enumerate(tokens):
            after = tokens[n + 1] if n + 1 < len(tokens) else None
            if token.is_punct or token.lower_ in ("at", "in", "for", "from", "with", "here", "and", "(", "@"):
                break
            if (
                token.lower_ == "of"
                and words
                and words[-1].lower_ in occupations
                and not (after and after.like_num)
            ):
                break  # "CTO of a small agency in Doha": the role is the CTO (but "mom of 3")
            trade = after is not None and after.lower_ in occupations  # "embedded dev", tagged a verb
            # "devops at an edtech", tagged a verb (but "we cook with RunUAT": a verb with its subject)
            trade = trade or (
                token.lower_ in occupations
                and not any(c.dep_ == "nsubj" and c.pos_ == "PRON" for c in token.children)
            )
            if token.pos_ in ("VERB", "AUX") and token.tag_ not in ("VBN", "VBG") and not trade:
                return None  # a clause: "server keeps crashing"
            words.append(token)  # "salesforce admin", "SAP consultant": a product may name the trade
        if not words or len(words) > 6:
            return None
        glued = words[-1].i + 1 < len(words[-1].doc) and words[-1].doc[words[-1].i + 1].text == "-"
        if glued and not words[-1].whitespace_:
            return None  # "dev-only deps you can just add": a kind of thing, not who one is
        if any(t.text == ":" for t in tokens[len(words) : len(words) + 6]):
            return None  # "local dev for the pipelines: dagster dev ...": a label over a command
        head = next(
            (
                t
                for t in reversed(words)
                if t.pos_ in ("NOUN", "PROPN", "ADJ", "X") or t.lower_ in occupations
            ),
            None,
        )
        if head is None:
            return None
        if head.lower_ not in occupations and head.lemma_.lower() not in occupations:
            return None
        return joined(words)


# greetings typed long: "heyy", "hiii", "helloo", "yoo"
_GREETING = re.compile(r"h+e+y+|h+i+|h+e+l+o+|y+o+|h+o+l+a+|o+i+")
_HERE = frozenset({"here", "aqui", "aquí", "hier", "ici", "qui"})


def _ends_here(tokens: list[Token], at: int, greeted: bool = False) -> bool:
    """What may follow "NAME here": a break, an aside ("Marco here (he/him)"), an emoji ("Jana hier
    👋"), or the end of a line after a greeting ("Moin, Jana hier")."""
    if at >= len(tokens):
        return greeted
    token = tokens[at]
    return (
        token.text in _BREAKS
        or token.text == "("
        or (not token.is_punct and not any(ch.isalnum() or ch in "'`" for ch in token.text))
    )


def _without_pronouns(tokens: list[Token]) -> list[Token]:
    """The words without an aside of pronouns: "Priya (she/her), PhD student" -> "Priya, PhD student"."""
    for n, token in enumerate(tokens[:8]):
        if token.text != "(":
            continue
        close = next((m for m in range(n + 1, min(n + 6, len(tokens))) if tokens[m].text == ")"), None)
        if close is not None and PRONOUN_SET.fullmatch(
            joined(tokens[n + 1 : close]).replace(" ", "").lower()
        ):
            return tokens[:n] + tokens[close + 1 :]
    return tokens


def _greeted(tokens: list[Token], start: int) -> bool:
    """ "namaskar, Vikram here, ...", "Moin, Jana hier", "안녕하세요, I'm Hye-jin": one word and a comma
    before a name said with "here", or before "I'm"."""
    if len(tokens) <= start + 3 or not tokens[start].is_alpha or tokens[start + 1].text not in (",", "!"):
        return False
    after = tokens[start + 2]
    return (
        after.pos_ == "PROPN"
        and tokens[start + 3].lower_ in _HERE
        and _ends_here(tokens, start + 4, greeted=True)
    ) or after.lower_ in ("i", "im", "i'm")


def _before_dash(tokens: list[Token]) -> list[Token]:
    """ "mom of 3 (...), part-time bookkeeper — I use excel ...": what follows a dash and "I" is not who."""
    dash = next(
        (
            n
            for n in range(1, len(tokens) - 1)
            if tokens[n].text in _BREAKS and tokens[n].text != "," and tokens[n + 1].lower_ in ("i", "we")
        ),
        None,
    )
    return tokens[:dash] if dash is not None else tokens


def _end(tokens: list[Token], start: int) -> int:
    """Where an introduction ends: before "..., need a quote template" (the request after it),
    "..., so I'm on the road ..." (why, not who) or "here, ..." ("drummer here, ...")."""
    for n in range(start + 1, len(tokens) - 1):
        after = tokens[n + 1]
        if tokens[n].lower_ == "here" and (after.text in _BREAKS or after.text in (".", "!", "?", ";", ":")):
            return n  # "drummer here, what metronome app ...": who they are ends at "here"
        if tokens[n].text == "," and (
            (after.pos_ in ("VERB", "AUX") and after.tag_ in ("VB", "VBP", "MD"))
            or after.lower_ in ("so", "because", "cause", "but")
            # ("freelance Android dev, I live in Bremen ...": a clause of its own says the rest)
            or (after.lower_ == "i" and n + 2 < len(tokens) and tokens[n + 2].pos_ in ("VERB", "AUX"))
        ):
            return n
    return len(tokens)


_ALLERGY = frozenset({"allergy", "allergies", "intolerance"})


def _is(words: list[Token], tokens: list[Token]) -> Fact:
    """ "{subject} is type 1 diabetic.": what the person is, said without "I'm"."""
    said = joined(words)
    return _note(said, f"{SUBJECT_MARK} is {said}.", tokens, words[0].i)


def _note(value: str, text: str, tokens: list[Token], anchor: int) -> Fact:
    """A note on the person, as said, in no slot."""
    return Fact(
        kind="semantic",
        scope="user",
        key=None,
        value=value,
        text=sentence(text),
        span=joined(tokens),
        reader="personal.introduction",
        confidence=0.7,
        anchor=anchor,
    )


def _after_label(tokens: list[Token]) -> int:
    """Where an introduction starts after a label that announces it ("quick intro since it's a new
    chat: vet tech in Austin")."""
    colon = next((n for n, t in enumerate(tokens[:12]) if t.text == ":"), None)
    if colon is None or not any(t.lower_ in _ANNOUNCING for t in tokens[:colon]):
        return 0
    return colon + 1


_ANNOUNCING = frozenset({"intro", "introduction", "background", "context", "bio"})
