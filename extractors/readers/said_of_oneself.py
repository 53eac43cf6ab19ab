"""What a person says of themselves read from a sentence's words rather than a frame: a time zone
("im in singapore, UTC+8"), a short answer to the question just asked, a diet named anywhere
("pescatarian now"), a state of the body right after "I'm" ("im type 1 diabetic")."""

from __future__ import annotations

import re

from extractors.clauses import Clause
from extractors.readers.common import PRONOUN_SET, Fact, ReaderBase, Span, Token, joined, slug
from extractors.render import SUBJECT_MARK, plain, sentence

TIME_ZONE = re.compile(
    r"\b(?:(?:UTC|GMT)\s?[+\-\u2212]\s?\d{1,2}(?::?\d\d)?|"
    r"(?:Africa|America|Antarctica|Asia|Atlantic|Australia|Europe|Indian|Pacific)/[A-Z][A-Za-z_]+(?:/[A-Z][A-Za-z_]+)?|"
    r"(?i:(?:Pacific|Eastern|Central|Mountain|Atlantic|Alaska|Hawaii|India|Indian|Japan|China|Korea|Singapore|"
    r"Moscow|Greenwich|Central\s+European|Eastern\s+European|Western\s+European|British|Australian\s+Eastern)\s+"
    r"(?:Standard\s+|Daylight\s+|Summer\s+)?time))(?![\w/])"
)


class SaidOfOneself(ReaderBase):
    """The sentence-level readers of what a person says of themselves."""

    def pronouns(self, sent: Span) -> list[Fact]:
        """ "pronouns they/them please", "btw i use she/her", "I'm Sam (they/them)": the pronouns the
        speaker uses; said of themselves, not asked about ("should I write he/him or they/them?")."""
        text = sent.text
        if text.rstrip().endswith("?"):
            return []
        for match in _PRONOUNS.finditer(text.lower()):
            before = text[: match.start()].rstrip()
            # ("I'm Sam (they/them)", "name's Sam, they/them", "Sam, she/her, Glasgow")
            named = bool(re.search(r"\b[A-Z][a-z]+\s*[(,]$", before))
            own = "pronoun" in text.lower() or before.lower().endswith((" use", " by")) or named
            if not own:
                continue
            value = match.group(0)
            at = sent.start_char + match.start()
            anchor = next((t.i for t in sent if t.idx >= at), sent.start)
            return [
                Fact(
                    "semantic",
                    "user",
                    "pronouns",
                    value,
                    f"{SUBJECT_MARK} uses the pronouns {value}.",
                    plain(list(sent)),
                    "personal.pronouns",
                    0.85,
                    anchor,
                )
            ]
        return []

    def timezone(self, sent: Span) -> list[Fact]:
        """ "im in singapore, UTC+8", "so IST", "tz: CET", "my time zone is Europe/Berlin"."""
        text = sent.text
        words = {t.lower_ for t in sent}
        found = [m.group(0) for m in TIME_ZONE.finditer(text)]
        found += [t.text for t in sent if t.text.isupper() and t.lower_ in self.lex["timezone"]]
        if not found:
            return []
        mine = words & {"i", "i'm", "im", "my", "me", "based", "m"} or re.match(
            r"\s*(?:tz|time\s*zone|timezone)\s*(?:[:=\-]|is\b)", text, re.I
        )  # "tz: CET", "timezone is PST fyi": a label said first is the speaker's own
        said = [t for t in sent if not t.is_punct]
        of_code = any(t.lemma_.lower() in self.lex["code_noun"] or t.lower_ == "db" for t in sent)
        if (
            ("?" in text and not mine)
            or (not mine and of_code)
            or (not mine and (len(said) > 6 or not any(t.dep_ == "ROOT" and t.pos_ != "VERB" for t in sent)))
        ):
            # "what is 3pm PST in CET?": a question about time zones; "all timestamps stored in UTC,
            # converted at display time": how the code keeps time, not where the speaker is
            return []
        # "SGT not CET": the zone named as not the one
        found = [z for z in found if not re.search(rf"\bnot\s+{re.escape(z)}\b", text, re.I)] or found
        ordered = sorted(set(found), key=text.find)
        value = ordered[0] if len(ordered) == 1 else f"{ordered[0]} ({', '.join(ordered[1:])})"
        aside = re.match(r"\s*\(([^()]{2,30})\)", text[text.find(ordered[0]) + len(ordered[0]) :])
        if len(ordered) == 1 and aside:
            value = f"{value} ({aside.group(1).strip()})"  # "US central time (Chicago)": the place it names
        return [
            Fact(
                kind="semantic",
                scope="user",
                key="timezone",
                value=value,
                text=f"{SUBJECT_MARK}'s time zone is {value}.",
                span=text,
                reader="personal.timezone",
                confidence=0.8,
                anchor=sent.start,
            )
        ]

    def answer(
        self, sent: Span, clauses: list[Clause], asked: tuple[str, str | None, str, dict[str, str]]
    ) -> list[Fact]:
        """A short answer to the question before it: "denver. it's beautiful here" after "where do
        you live?"; "a tiny town in ohio" after "where are you from?"."""
        question_id, key, template, groups = asked
        if any(
            c.subject is not None and c.mood == "statement" and c.head.i < sent.start + 4 for c in clauses
        ):
            return []  # a sentence of its own ("i live in denver") is read as such
        words: list[Token] = []
        for token in sent:
            if token.is_punct or token.lower_ in ("and", "but", "so", "i", "well", "oh", "um", "hmm"):
                if words:
                    break
                continue
            if token.pos_ in ("VERB", "AUX", "PRON") or token.lower_ in self.lex["hedge"]:
                if words:
                    break
                return []
            words.append(token)
        if (
            not words
            or len(words) > 6
            or any(t.lower_ in ("yes", "no", "yeah", "nope", "nothing") for t in words)
        ):
            return []
        value = joined(words)
        names = {"value": value, "subject": SUBJECT_MARK, **groups}
        key_name = key.format(**{**names, "value": slug(value)}) if key else None
        return [
            Fact(
                kind="semantic",
                scope="user",
                key=key_name,
                value=value,
                text=sentence(template.format(**names)),
                span=plain(list(sent)),
                reader=question_id,
                confidence=0.7,
                anchor=words[0].i,
            )
        ]

    def body_condition(self, sent: Span) -> list[Fact]:
        """ "im type 1 diabetic", "i'm left handed lol": a state of the body said right after "I'm",
        read from the words, since the parser takes "type" for a verb and "left" for "leave"."""
        tokens = [t for t in sent if not t.is_space]
        for n, token in enumerate(tokens):
            opened = token.lower_ in ("im", "i'm") or (
                token.lower_ in ("'m", "m", "am") and n > 0 and tokens[n - 1].lower_ == "i"
            )
            if not opened or (n > 1 and tokens[n - 2].lower_ in ("if", "when", "whether")):
                continue
            words: list[Token] = []
            for word in tokens[n + 1 : n + 6]:
                lower = word.lower_
                if word.tag_ == "HYPH" and words:
                    continue  # "left-handed": one word, written with a hyphen
                # (a diet is the diet reader's; allergies and pregnancy have frames of their own)
                if lower in self.lex["condition_adjective"] - self.lex["diet_word"] - _FRAMED_STATES or (
                    lower == "handed" and words and words[-1].lower_ in ("left", "right")
                ):
                    value = sent.doc[(words[0] if words else word).i : word.i + 1].text  # as written
                    return [
                        Fact(
                            kind="semantic",
                            scope="user",
                            key=f"health:{slug(value)}",
                            value=value,
                            text=f"{SUBJECT_MARK} is {value}.",
                            span=plain(list(sent)),
                            reader="personal.condition",
                            confidence=0.8,
                            anchor=word.i,
                        )
                    ]
                if not (word.like_num or lower in _CONDITION_WORDS):
                    break
                words.append(word)
        return []

    def _noted_alone(self, sent: Span, first: Token, last: Token) -> bool:
        """ "vegetarian btw, if you ever ...", "gluten-free and no alcohol.": a diet written as a note
        of its own at the start of a sentence, with nothing after it but a filler or the next note."""
        markers = self.lex["discourse_marker"]
        if any(not (t.is_punct or t.lower_ in markers) for t in sent.doc[sent.start : first.i]):
            return False
        after = sent.doc[last.i + 1] if last.i + 1 < sent.end else None
        return after is None or after.is_punct or after.lower_ in markers | {"and", "now", "since", "but"}

    def diet(self, sent: Span, clauses: list[Clause]) -> list[Fact]:
        """ "pescatarian now", "vegetarian since 2019", "not vegan anymore, pescatarian now": a diet
        named anywhere the speaker says it of themselves."""
        facts = []
        for token in sent:
            said = token.text
            what = _free_of(token, sent.start)
            noted = self._noted_alone(sent, what if what is not None else token, token)
            if what is not None and f"{what.lower_}-free" in self.lex["diet_word"]:
                before = {t.lower_ for t in sent.doc[max(sent.start, what.i - 3) : what.i]}
                if not (before & {"i", "im", "i'm", "'m", "m", "am"} or noted):
                    continue  # ("the pasta is gluten free": the food's)
                said = sent.doc[what.i : token.i + 1].text  # "im gluten free", "I'm gluten-free"
            elif token.lower_ not in self.lex["diet_word"]:
                continue
            clause = next((c for c in clauses if c.has(token)), None)
            if (
                not noted
                and clause is not None
                and (
                    clause.about in ("third", "family", "pet", "you", "project")
                    or clause.mood == "question"
                    or not clause.asserted
                )
            ):
                continue
            window = [t.lower_ for t in sent.doc[max(sent.start, token.i - 3) : token.i]]
            if set(window) & (self.lex["person_noun"] | self.lex["kin_noun"] | {"one", "another"}):
                continue  # "one guest is vegan", "one guy's vegetarian": someone else's diet
            if token.i - 2 >= sent.start and (
                sent.doc[token.i - 2].pos_ == "PROPN"
                and sent.doc[token.i - 1].lower_ in ("'s", "is", "\u2019s")
            ):
                continue  # "we're gluten free at home bc Ruby's coeliac": a named one's
            after = [t.lower_ for t in sent.doc[token.i + 1 : min(sent.end, token.i + 3)]]
            if {"not", "n't", "no", "never", "longer"} & set(window) or "anymore" in after:
                continue
            if token.head.lemma_.lower() in (
                "diet",
                "option",
                "options",
                "recipe",
                "recipes",
                "meal",
                "meals",
                "dish",
                *ILLNESS_HEADS,
            ):
                continue  # "a vegan recipe": about food, not the person; "celiac disease": an illness
            facts.append(
                Fact(
                    "semantic",
                    "user",
                    "diet",
                    said,
                    f"{SUBJECT_MARK} is {said}.",
                    plain(list(sent)),
                    "personal.diet",
                    0.8,
                    token.i,
                )
            )
        return facts[:1]


def _free_of(token: Token, start: int) -> Token | None:
    """What "free" is free of: "gluten free", "gluten-free" (three tokens)."""
    if token.lower_ != "free" or token.i <= start:
        return None
    before = token.nbor(-1)
    if before.text == "-" and before.i > start:
        before = before.nbor(-1)
    return before


# the words between "I'm" and a state of the body: "type 1 diabetic", "left handed", "legally blind"
_CONDITION_WORDS = frozenset(
    {
        "type",
        "left",
        "right",
        "legally",
        "partially",
        "mildly",
        "severely",
        "totally",
        "completely",
        "insulin",
        "also",
    }
)
_FRAMED_STATES = frozenset({"allergic", "intolerant", "pregnant"})
# the head nouns of an illness's name: "kidney disease", "Tourette syndrome", "bipolar disorder"
ILLNESS_HEADS = frozenset({"disease", "syndrome", "disorder", "deficiency", "insufficiency", "failure"})

# a pair of pronouns as people write them: "she/her", "they/them", "he/they"
_PRONOUNS = re.compile(rf"\b{PRONOUN_SET.pattern}\b")
