"""Rules written as notes: "squash merge only", "no `any` in TS", "always conventional commits",
"bullets > paragraphs", "aisle seat always", and conventions under a label that names them ("branch
naming: feature/<ticket>-short-desc")."""

from __future__ import annotations

from extractors.clauses.model import for_one_time
from extractors.readers.common import (
    BREAKING,
    DEICTIC,
    Fact,
    Span,
    Token,
    goes_wrong,
    pieces,
    points_elsewhere,
)
from extractors.readers.rules.facts import COMMAND
from extractors.readers.rules.standing import StandingRules, without_please
from extractors.render import plain, trim

# labels of a rule written as a note: "branch naming: feature/<ticket>-desc", "commits here: ..."
_RULE_LABELS = frozenset(
    {"naming", "convention", "conventions", "style", "format", "rule", "rules", "policy", "workflow"}
)
# "no worries", "no problem": said in passing, not a rule
_NO_PHRASES = frozenset(
    (
        "worries",
        "problem",
        "problems",
        "idea",
        "clue",
        "rush",
        "way",
        "pressure",
        "thanks",
        "need",
        "luck",
        "one",
        "matter",
        "offense",
        "biggie",
        "longer",  # "no longer in Toronto": what was, not a rule
        "wait",  # "talks to postgres - no wait, its mysql": a correction begins
        "sorry",
        "actually",
    )
)

# after "not", words that describe rather than name an alternative: "not a tech person", "not that big"
_DESCRIBES = frozenset(
    {"a", "an", "the", "that", "so", "too", "very", "really", "much", "sure", "at", "my", "our"}
)


# what goes wrong, not how things are written: "bug in the parser"
_PROBLEMS = frozenset(
    {"bug", "error", "issue", "typo", "crash", "exception", "failure", "problem", "warning"}
)
_POINTING = DEICTIC | {"the", "my", "our", "your", "his", "her", "their"}


# orders for the task at hand the tagger may take for nouns at the start of a line
_TASKS = frozenset(
    ("rename", "replace", "update", "change", "fix", "remove", "delete", "add", "move", "refactor", "swap")
)
# how a problem is told without its subject: "getting a white screen on android 14 only"
_UNDERGOING = frozenset({"getting", "seeing", "hitting", "having"})
# the trouble verbs that only ever tell of a failure ("ignore vendor/ always" is a rule)
# failures named by their shorthand: "OOMs", "segfaults"
_FAILURES = frozenset({"ooms", "oom", "oomed", "segfaults", "segfaulted", "panics", "times-out", "flaky"})
# days that make a note a one-off ("no deploys today", "no meetings tomorrow pls")
_THIS_DAY = frozenset({"today", "tonight", "tomorrow", "rn", "tmrw", "tmr"})


class NoteRules(StandingRules):
    """Rules said as notes rather than clauses."""

    def fragment_rules(self, sent: Span, question_from: int | None) -> list[Fact]:
        """Rules written as notes: "squash merge only", "no `any` in TS", "always conventional commits",
        "bullets > paragraphs", "aisle seat always", "halal only when suggesting restaurants"."""
        root = sent.root
        if root.lemma_.lower() in self.lex["speech_verb"] and any(
            c.dep_ == "nsubj"
            and (c.lemma_.lower() in self.lex["kin_noun"] or c.lower_ in ("he", "she", "they"))
            for c in root.children
        ):
            # "my dad always said never buy a new car, only 2-3 years old": his words (but "my lead
            # said: no force pushes to main" is the team's rule)
            return []
        labeled = self._labeled_rule(sent, question_from)
        if labeled:
            return labeled
        facts = []
        previous: list[Token] = []  # "grams and millilitres, never cups": one rule, said in two pieces
        # "the queue worker keeps dying silently overnight, no logs": what the failure lacks
        failure = next((t.i for t in sent if t.pos_ in ("VERB", "AUX") and goes_wrong(t)), None)
        # "dev build crashes on launch. no logs.": a bare "no X" after a failure told just before
        bare = len([t for t in sent if not t.is_punct]) <= 2
        if failure is None and bare and sent.start > 0:
            told = sent.doc[sent.start - 1].sent
            failure = next(
                (sent.start - 1 for t in told if t.pos_ in ("VERB", "AUX") and goes_wrong(t)), None
            )
        for piece in pieces(sent, cut_plus=False, cut_colon=True):
            if question_from is not None and piece[-1].i >= question_from:
                continue
            tokens = without_please(trim(_outside_parentheses(list(piece))))
            plain_before, previous = previous, tokens
            if failure is not None and tokens and tokens[0].lower_ == "no" and tokens[0].i > failure:
                continue
            fact = self._note(sent, piece, tokens, plain_before)
            if fact is not None:
                facts.append(fact)
        return facts

    def _note(self, sent: Span, piece: Span, said: list[Token], plain_before: list[Token]) -> Fact | None:
        """The rule a piece of a line notes, with the piece before it when it goes on from it."""
        tokens = said
        alone = [t.lower_ for t in tokens if not t.is_punct]
        if alone[:1] == ["no"] and alone[1:2] and alone[1] in _NO_PHRASES:
            return None  # "..., no wait": a correction or a courtesy, however short
        merged = bool(
            tokens
            and (
                tokens[0].lower_ in ("never", "no", "not")
                or alone in (["always"], ["only"], ["every", "time"])
            )
            and plain_before
            # ("feature flags for anything customer facing, always": a bare "always" reaches further)
            and len(plain_before) <= (7 if len(alone) == 1 else 5)
            and not any(t.pos_ in ("VERB", "AUX") for t in plain_before)
            # ("just curious, not gonna do it": a clause denied, not a way of doing things)
            and not (tokens[0].lower_ == "not" and any(t.pos_ in ("VERB", "AUX") for t in tokens))
        )
        if merged:
            tokens = [*plain_before, *tokens]
        words = [t.lower_ for t in tokens]
        # "tidyverse style please": a short note asked for
        asked = (
            any(t.lower_ in ("please", "pls", "plz") for t in piece)
            and len(tokens) <= 6
            and not any(t.tag_ == "VB" or t.lower_ in DEICTIC for t in tokens)  # not "fix this test pls"
        )
        if not _noted(tokens, words, merged, asked or self._convention(tokens), self.lex["code_noun"]):
            return None
        if self._trouble(tokens):
            return None  # "the login test times out on CI only": where it goes wrong, not a rule
        if (
            len(tokens) > 1
            and words[0] == "no"
            and tokens[1].lemma_.lower() in _PROBLEMS
            and not {"allowed", "ever", "tolerated", "accepted"} & set(words)
        ):
            return (
                None  # "no error in the logs", "no issues so far": what was seen (but "no warnings allowed")
            )
        if not any(t.pos_ in ("NOUN", "PROPN", "VERB", "ADJ", "NUM", "X") for t in tokens):
            return None  # "we got hurt by this in 2022, never again": about nothing it names
        if points_elsewhere(tokens):
            return None  # "never touch it": what "it" is was said before
        zones = self.lex["timezone"]
        if {t.lower_ for t in said} & zones and not set(words) & (self.lex["code_noun"] | {"db"}):
            return None  # "JST now, not eastern": where the speaker is, the time zone reader's
        if merged and {t.lower_ for t in plain_before} & zones:
            merged, tokens = False, said  # "i'm Marta, CET, no need for pleasantries": two notes
            words = [t.lower_ for t in tokens]
        if set(words) & _THIS_DAY or for_one_time(words):
            return None  # "no deploys today", "no deploys this friday": for now, not a rule
        scope = self.rule_scope(tokens)
        lemmas = {t.lemma_.lower() for t in tokens}
        commanded = any(COMMAND.match(t.text) for t in tokens)
        if not commanded and not lemmas & (self.lex["code_noun"] | self.lex["answer_word"]) - {"me"}:
            at = words.index("not") if "not" in words[1:-1] else 0
            instead = (
                at > 0
                and words[at - 1] not in ("me", "i", "us", "it")
                and words[at + 1] not in _DESCRIBES  # "not a tech person at all": what one is not
                # "hospital policy, not negotiable": a word that judges the note, no alternative
                and not (tokens[at + 1].pos_ == "ADJ" and at + 2 == len(tokens) and not tokens[at + 1]._.tech)
                # "use pnpm, not npm": the stack's (but "assume fish not bash": the user's own shell)
                and not (
                    tokens[at - 1]._.tech
                    and tokens[at + 1]._.tech
                    and self.vocab.slot(tokens[at - 1]._.tech).scope == "project"
                )
            )
            # ("UTC everywhere" is a way; "rename fetchUsr everywhere" a task)
            everywhere = "everywhere" in words and not any(t.pos_ == "VERB" for t in tokens)
            technical = any(
                t._.tech is not None
                or any(ch.isdigit() for ch in t.text)
                or (t.is_alpha and t.lower_ not in self.known_words)
                or ("/" in t.text and len(t.text) > 1)  # "generated/", "src/gen": a path
                or t.lower_ in ("tabs", "spaces", "utc")  # how code is written
                or t.lower_ == "facing"  # "in anything user-facing": what the product shows
                for t in tokens
            )
            # "no jquery.", "no ORMs": a product banned, said alone
            banned = (
                words[0] == "no"
                and len(tokens) == 2
                and any(
                    t._.tech is not None and self.vocab.slot(t._.tech).scope == "project" for t in tokens[1:]
                )
            )
            # "no dynamic allocation ever": a ban for all time, whatever the thing
            forever = (
                words[0] == "no"
                and words[1] != "more"  # ("no more marking ever": a change, not a ban)
                and len(words) <= 5
                and words[-1] in ("ever", "period", "allowed")
            )
            if (
                not instead
                and not banned
                and not forever
                and not (_no_thing_where(tokens) and (technical or _in_what_you_give(tokens)))
                and (words[0] == "no" or not ({"always", "only", "never"} & set(words) or everywhere))
            ):
                return None  # "no fish either", "no dedicated ops person": said in passing
            # "aisle seat always", "halal only": the person's own way; "static pools only", "PSR-12
            # always", "raw psycopg only": the code's
            # ("no milk or yogurt in the smoothie suggestions": what is suggested to the person)
            theirs = _in_what_you_give(tokens) or any(
                t.lemma_.lower() in self.lex["life_noun"] | {"suggestion", "idea"} for t in tokens
            )
            # ("money is always integer cents, never floats": said on after a statement of a thing)
            scope = "project" if (technical or self._after_a_thing(tokens)) and not theirs else "user"
        body = plain(plain_before) + ", " + plain(said) if merged else plain(tokens)
        label = self._note_label(sent, tokens[0].i)
        return self.rule_fact(
            f"{label}: {body}" if label else body,
            tokens,
            scope,
            list(piece),
            tokens[0].i,
            "rules.note",
        )

    def _after_a_thing(self, tokens: list[Token]) -> bool:
        """A note said on after a clause of its sentence whose subject is a thing, not a person:
        "money is always integer cents, never floats", or in the sentence before: "all amounts are
        stored as integer cents. never floats."."""
        sent = tokens[0].sent
        root = sent.root
        if root.i >= tokens[0].i:
            if sent.start == 0 or any(t.i < tokens[0].i and not t.is_punct for t in sent):
                return False
            root = sent.doc[sent.start - 1].sent.root
        people = self.lex["person_noun"] | self.lex["kin_noun"] | self.lex["pet_noun"] | self.lex["life_noun"]
        return any(
            c.dep_ in ("nsubj", "nsubjpass")
            and ((c.pos_ == "NOUN" and c.lemma_.lower() not in people) or c.lower_ == "we")
            for c in root.children
        )  # (or of the team: "we dont write class components anymore, hooks only")

    def _trouble(self, tokens: list[Token]) -> bool:
        """A problem told in a note's shape: "the second one OOMs on CI only" (the tagger takes the
        verb for a plural noun), "getting a weird white screen on android 14 only"."""
        troubles = self.lex["trouble_verb"] & BREAKING
        if tokens[0].lower_ in _UNDERGOING:
            return True
        if tokens[0].lower_ not in ("no", "never", "zero", "always") and any(
            t.lemma_.lower() in self.lex["failure_noun"]
            and t.tag_ in ("NNS", "NN")
            and not any(c.dep_ == "amod" for c in t.children)  # "custom exceptions only": a kind
            and not (t.i > 0 and t.doc[t.i - 1].lower_ in ("no", "never", "zero", "any"))
            for t in tokens
        ):
            return True  # "linker errors ONLY on mac" (but "two rules: no exceptions across ...")
        for token, after in zip(tokens, [*tokens[1:], None], strict=True):
            lower = token.lower_
            if after is not None and lower in ("times", "timed") and after.lower_ == "out":
                return True
            stem = lower[:-2] if lower.endswith("es") else lower[:-1] if lower.endswith("s") else lower
            if lower in _FAILURES or (token.i > tokens[0].i and (stem in troubles or lower in troubles)):
                return True  # ("flaky on CI only": a failure's shorthand opens the note too)
        return False

    def _convention(self, tokens: list[Token]) -> bool:
        """ "code comments in english", "answers as bullet points", "type hints everywhere": a note
        naming a thing of the code or of answers, and the way it is written (not "bug in the parser")."""
        if len(tokens) > 8 or any(t.pos_ in ("VERB", "AUX") and t.tag_ != "VBN" for t in tokens):
            return False
        at = next((n for n, t in enumerate(tokens) if t.lower_ in ("in", "as", "everywhere")), None)
        if not at:
            return False
        things = self.lex["code_noun"] | (self.lex["answer_word"] - {"me"})
        everywhere = tokens[at].lower_ == "everywhere"
        named = [
            t
            for t in tokens[:at]
            if t.lemma_.lower() in things
            or t.lower_ in things
            # "tabs everywhere", "UTC everywhere in the db", "snake_case everywhere": a way of writing
            or (everywhere and t._.tech is None and ((t.is_upper and len(t) > 1) or "_" in t.text))
            or (everywhere and t.lower_ in ("tabs", "spaces"))
        ]
        if not named or any(t.lemma_.lower() in _PROBLEMS for t in tokens[:at]):
            return False
        after = [t for t in tokens[at + 1 :] if not t.is_punct]
        if everywhere:
            if tokens[0].lower_ in _TASKS:
                return False  # "rename `fetchUsr` everywhere in the repo": a task, the tagger's noun
            # (with where it holds: "UTC everywhere in the db")
            return not after or (after[0].lower_ in ("in", "across") and len(after) <= 4)
        if not after or any(t._.tech is not None for t in after):
            return False  # "component tests in vitest": the stack, which its readers read
        written = after[-1].pos_ in ("NOUN", "PROPN", "ADJ", "NUM", "X")
        return written and not any(t.lower_ in _POINTING for t in after)

    def _note_label(self, sent: Span, start: int) -> str | None:
        """ "For recipes: grams, never cups": the label a note is written under."""
        colon = next((t for t in sent if t.text == ":" and t.i < start), None)
        if colon is None or colon.i - sent.start > 4:
            return None
        return plain(list(sent.doc[sent.start : colon.i])) or None

    def _labeled_rule(self, sent: Span, question_from: int | None) -> list[Fact]:
        """ "branch naming: feature/<ticket>-short-desc", "commits here: conventional commits, always":
        a convention written under a label that names it."""
        colon = next((t for t in sent if t.text == ":"), None)
        if colon is None or colon.i - sent.start > 3 or colon.i + 1 >= sent.end:
            return []
        if question_from is not None:
            return []
        label = [t for t in sent.doc[sent.start : colon.i] if not t.is_punct]
        lemmas = {t.lemma_.lower() for t in label}
        if not label or not lemmas & (_RULE_LABELS | self.lex["code_noun"]):
            return []
        if self.vocab.category_of_label(" ".join(t.lower_ for t in label)) is not None:
            return []  # "name: Mateusz", "db: postgres": a slot's label, read as such
        rest = trim([t for t in sent.doc[colon.i + 1 : sent.end] if not t.is_space])
        if len(rest) < 1 or any(
            t.dep_ in ("nsubj", "nsubjpass") and t.head.pos_ in ("VERB", "AUX") and t.head.i > colon.i
            for t in rest
        ):
            return []
        if any(t._.tech for t in rest) and not lemmas & _RULE_LABELS:
            return []  # "db: postgres": the stack
        tokens = [*label, *rest]
        scope = self.rule_scope(tokens)
        body = plain(label) + ": " + plain(rest)
        return [self.rule_fact(body, tokens, scope, list(sent), colon.i, "rules.note")]


def _a_clause(tokens: list[Token], nouns: frozenset[str] = frozenset()) -> bool:
    """Whether a piece is a clause of its own: a verb with its subject, or a finite verb (a "verb"
    without a subject is a noun the tagger took for a verb: "answers short", "no emojis in ...";
    so is a noun of the trade after "no": "no force pushes to main")."""
    kept = {t.i for t in tokens}
    named = {
        t.head.i
        for t in tokens
        if t.dep_ == "nsubj" and t.head.lower_ in nouns and any(c.lower_ == "no" for c in t.children)
    }
    tokens = [t for t in tokens if t.i not in named]
    if any(
        t.dep_ in ("nsubj", "nsubjpass")
        and t.head.i in kept
        and t.head.i not in named
        and t.head.pos_ in ("VERB", "AUX")
        # "no emojis in anything you write" (but "... but i only have npm, is that ok?": the speaker's)
        and (
            t.head.dep_ not in ("relcl", "acl", "advcl", "ccomp")
            or (t.head.dep_ == "ccomp" and t.lower_ in ("i", "we"))
        )
        for t in tokens
    ):
        return True
    return any(
        t.pos_ in ("VERB", "AUX")
        and t.tag_ in ("VBD", "VBZ", "MD")
        and (
            t.tag_ in ("MD", "VBD")
            or t.pos_ == "AUX"
            or any(c.dep_ in ("nsubj", "nsubjpass", "expl") for c in t.children)
        )
        for t in tokens
    ) or any(
        # "my shader graph looks washed out on deck only": "looks" mistagged, still a verb's helper
        t.pos_ == "AUX"
        and t.tag_ in ("NN", "NNS")
        and t.dep_ in ("aux", "auxpass")
        and t.head.tag_ in ("VBN", "VBG")
        and t.head.i in kept
        for t in tokens
    )


def _noted(
    tokens: list[Token],
    words: list[str],
    merged: bool,
    asked: bool = False,
    nouns: frozenset[str] = frozenset(),
) -> bool:
    """Whether a piece is written as a rule: no clause of its own, and a mark of one ("only", "never",
    "always", "X > Y", "X over Y", "X not Y", "from now on"). ``asked``: the piece said "pls"."""
    arrow = any(t.text == ">" and n > 0 and tokens[n - 1].text == "-" for n, t in enumerate(tokens))
    if arrow and not any(t._.tech is not None for t in tokens):
        return False  # "renamed master -> main": an arrow, not a preference
    if ">" in words[1:-1] and tokens[words.index(">") - 1].is_alpha and tokens[words.index(">") + 1].is_alpha:
        return True  # "bullets > paragraphs": however the tagger parsed it
    if len(words) < 2 or _a_clause(tokens, nouns):
        return False
    if words[0] == "no" and words[1] in _NO_PHRASES:
        return False
    if any(
        w == "only" and n > 0 and words[n - 1] in ("the", "my", "our", "an", "a") for n, w in enumerate(words)
    ):
        return False  # "the only frontend person on the team": one of a kind, not a rule
    if words[:2] == ["only", "exception"]:
        return False  # "only exception: ...": the exception reader's label
    text = " ".join(words)
    over = "over" in words and 0 < words.index("over") < len(words) - 1
    over = over and tokens[words.index("over") - 1].pos_ in ("NOUN", "PROPN", "ADJ")
    if any(t.tag_ in ("VBN", "VBG") for t in tokens) and not any(
        p in text for p in ("from now on", "going forward")
    ):
        over = False
    # "tabs not spaces", "fish not bash": one thing over another, both named
    instead = (
        "not" in words[1:-1]
        and tokens[words.index("not") + 1].pos_ in ("NOUN", "PROPN", "ADJ")
        and tokens[words.index("not") - 1].pos_ in ("NOUN", "PROPN", "ADJ")
        # "use pnpm, not npm": two products, which the stack readers read as a choice of product
        and not (tokens[words.index("not") + 1]._.tech and tokens[words.index("not") - 1]._.tech)
    )
    if words[0] in ("never", "no", "only") and (
        tokens[1].lower_ in ("a", "an")
        or tokens[1].pos_ in ("INTJ", "ADP")
        or (words[0] == "only" and tokens[1].pos_ in ("VERB", "AUX"))
    ):
        return False  # "never a dull moment", "only hello and ...": said in passing
    if (tokens[0].pos_ == "INTJ" and words[0] not in ("no", "never")) or words[0] in (
        "ugh",
        "lol",
        "haha",
        "oh",
        "well",
    ):
        return False  # "ugh, not me" (but "no emojis in commit messages", however "no" was tagged)
    marked = (
        merged
        or asked
        or instead
        or words[0] in ("no", "never", "always", "only")
        or words[-1] in ("only", "always", "never")
        or "only" in words[1:3]
        or ">" in words
        or over
        or (len(words) > 2 and words[1] in (":", "="))
        or any(p in text for p in ("from now on", "going forward", "every time", "by default"))
        or _a_limit(tokens)
        # "type hints on every function signature": a thing of the code, wanted on every one
        or (
            "every" in words[1:]
            and words[0] not in ("a", "an", "one", "the")
            and any(t.lemma_.lower() in nouns or t.lower_ in nouns for t in tokens[words.index("every") :])
        )
        # "feature flags for anything customer facing", "British spelling in anything user-facing"
        or any(
            w in ("anything", "everything")
            and words[n - 1] in ("for", "in", "on", "across")
            and words[n + 1 : n + 2] not in ([], ["else"])  # (not "for everything else")
            for n, w in enumerate(words[2:], start=2)
        )
    )
    return marked


def _a_limit(tokens: list[Token]) -> bool:
    """ "PRs max ~400 lines of diff", "functions under 50 lines max": a limit set with a number (not
    "explain monads in two sentences max", an order for this answer)."""
    return not any(t.tag_ == "VB" for t in tokens) and any(
        t.lower_ in ("max", "min", "maximum", "minimum")
        and any(u.like_num or u.text.lstrip("~<>").isdigit() for u in tokens[max(0, n - 3) : n + 3])
        for n, t in enumerate(tokens)
    )


def _no_thing_where(tokens: list[Token]) -> bool:
    """ "no dynamic allocation after init", "no mocks for the database": "no", a thing, and where or
    when it is banned (a note of the code's, when its words are the trade's)."""
    if len(tokens) < 4 or tokens[0].lower_ != "no":
        return False
    n = 1
    # ("no soft cheeses or raw fish in ...": things joined by "or")
    while (
        n < len(tokens) - 1
        and n < 8
        and (tokens[n].pos_ in ("ADJ", "NOUN", "PROPN") or (tokens[n].lower_ in ("or", "and", ",") and n > 1))
    ):
        n += 1
    thing = tokens[n - 1]
    return (
        n > 1
        # ("no LINQ in hot paths": an acronym the tagger took for an adjective)
        and (thing.pos_ in ("NOUN", "PROPN") or (thing.is_upper and len(thing) > 1))
        and thing.lemma_.lower() not in _PROBLEMS  # "no errors in the log": what was seen
        and tokens[n].lower_ in _WHERE_BANNED
    )


def _in_what_you_give(tokens: list[Token]) -> bool:
    """ "no raw fish in anything you suggest": where the thing is banned is what the assistant gives."""
    words = [t.lower_ for t in tokens]
    return any(w in ("anything", "everything") and "you" in words[n + 1 : n + 3] for n, w in enumerate(words))


# what says where or when a thing is banned: "no mocks for the db", "no allocation after init"
_WHERE_BANNED = frozenset(
    {"in", "on", "for", "after", "before", "during", "inside", "outside", "under", "within"}
)


def _outside_parentheses(tokens: list[Token]) -> list[Token]:
    """ "window seat always (i get motion sick in the aisle)": the note without its aside, which
    is a clause of its own."""
    kept, depth = [], 0
    for token in tokens:
        if token.text == "(":
            depth += 1
        elif token.text == ")" and depth:
            depth -= 1
        elif not depth:
            kept.append(token)
    return kept if kept else tokens
