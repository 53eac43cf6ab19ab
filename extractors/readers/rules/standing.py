"""Standing rules in clauses: imperatives meant for every time ("always squash before merging"),
polite standing requests ("could you always include type hints?"), what the speaker asks of the
assistant ("I'd like you to show the working"), the team's habits ("we squash merge everything"),
and norms about code ("`any` is banned", "branch names have to be ...")."""

from __future__ import annotations

from extractors.clauses import PLEASE, Clause
from extractors.clauses.model import describing_a_thing_to_make, in_quotes, keeps_happening
from extractors.readers.common import DEICTIC, Fact, Token, checkpoint_of, points_elsewhere
from extractors.readers.rules.facts import paced
from extractors.readers.rules.norms import NormRules
from extractors.render import SUBJECT_MARK, plain, trim

_QUANTIFIERS = frozenset({"all", "every", "each", "any", "new", "no", "everything", "anything", "only"})
# what an order to wait waits for ("wait for CI to pass before merging"); any other "wait" opens a correction
_WAITED = frozenset({"for", "until", "till", "til", "on"})
# orders to redo work already done, once: "update any scripts you give me", "fix all the imports"
_REWORK = frozenset({"update", "fix", "rename", "convert", "migrate", "port", "adjust", "redo", "rewrite"})
_PERMISSION = frozenset({"ask", "check", "tell", "confirm", "discuss", "ping", "run", "test", "asking"})
# verbs of how the assistant sounds: "write like a human", "talk like a friend"
_VOICE_VERBS = frozenset({"write", "talk", "speak", "explain", "answer", "reply", "respond", "sound"})
_SOMEDAY = frozenset({"someday", "sometime", "eventually", "oneday"})
_WHEN_MARKS = frozenset({"when", "whenever", "if", "before", "after", "once", "while", "until"})
# imperatives that are not rules: "don't worry", "never mind", "thank you"
_NOT_RULES = frozenset(
    (
        "worry",
        "bother",
        "mind",
        "ask",
        "forget",
        "care",
        "thank",
        "remember",
        "note",
        "bear",
        "notice",
        "let",
        "sorry",  # "sorry my english": an apology, tagged as an order
        "excuse",
        "pardon",
    )
)
# verbs whose rule is in their object: "use pnpm", "avoid default exports", "name tests after ..."
_OBJECT_VERBS = frozenset(
    (
        "use",
        "prefer",
        "avoid",
        "stick",
        "keep",
        "follow",
        "put",
        "name",
        "stop",
        "favor",
        "favour",
        "assume",
        "skip",
    )
)


class StandingRules(NormRules):
    """Rules said as clauses."""

    def rules(self, clause: Clause) -> list[Fact]:
        """Standing rules: imperatives meant for every time ("always squash before merging"), polite
        standing requests ("could you always include type hints?"), the team's habits ("we squash
        merge everything"), and norms about code ("`any` is banned", "branch names have to be ...")."""
        request = self._request(clause)
        if request is not None:
            return request
        if clause.hedged or clause.planned or clause.conditional or clause.reported or clause.transient:
            return []  # ... or for one day only: "no deploys this friday"
        if clause.mood in ("statement", "imperative") and keeps_happening(clause):
            return []  # "the incremental model keeps double counting rows": a complaint
        if clause.mood == "imperative" and _keep_in_mind(clause.head):
            return []  # "allergic to penicillin btw, keep in mind": what to keep is what was said
        head = clause.head
        after = head.doc[head.i + 1] if head.i + 1 < len(head.doc) else None
        if (
            head.lower_ == "wait"
            and head.i == head.sent.start
            and (after is None or after.lower_ not in _WAITED)
        ):
            return []  # "wait no, Pepper's the neighbour's dog": a correction begins, no order
        if _rework(clause):
            return []  # "we renamed master -> main, update any scripts you wrote": one piece of work
        if clause.mood == "imperative" and clause.head._.tech is not None:
            return []  # "(it's WooCommerce) not shopify sorry": a product the tagger took for an order
        said = [t for t in clause.tokens if not t.is_punct]
        if said and said[-1].lower_ == "then" and said[-1].dep_ == "advmod":
            return []  # "im oncall that week so dont schedule anything big then": at a time said before
        if any(t.lower_ in _SOMEDAY for t in clause.head.sent):
            return []  # "we should all go someday": a wish, not a rule
        if clause.head.dep_ == "advcl" and any(
            c.dep_ in ("mark", "advmod") and c.lower_ in _WHEN_MARKS for c in clause.head.children
        ):
            return []  # "whenever you make a worksheet": the clause it qualifies carries it
        tokens = without_please(trim(contiguous(clause) if clause.mood == "imperative" else clause.tokens))
        if len(tokens) < 2:
            return []
        assured = _assured(clause)
        if assured is not None:
            # "Kindly ensure that all user-facing strings go through t()": the order and what it ensures
            tokens = without_please([t for t in clause.head.sent if assured.i <= t.i < clause.end])
            scope = self.rule_scope([t for t in clause.head.sent if not t.is_space])
            ensured = plain(tokens)
            return [self.rule_fact(ensured, tokens, scope, clause.tokens, clause.head.i, "rules.standing")]
        body: str | None = None
        if clause.mood == "question":
            # "could you always include type hints?": a standing request, asked politely
            if (
                clause.about == "you"
                and clause.modal in ("can", "ca", "could", "would", "will", "wo")
                and clause.standing
                and not any(in_quotes(t) for t in clause.tokens if t.lower_ in ("always", "never"))
            ):
                after = clause.subject.i if clause.subject is not None else -1
                body = plain(without_please([t for t in tokens if t.i > after]))
        elif clause.mood == "imperative":
            body = self._imperative(clause, tokens)
        elif clause.mood == "statement" and clause.tense in ("present", "perfect"):
            body = self._norm(clause, tokens)
        if not body or points_elsewhere(clause.tokens, clause.head, clause.subject):
            return []
        if clause.mood == "imperative" and (clause.modal is not None or not self._for_every_time(clause)):
            return []  # "must be nice": a modal is no order
        if not body.startswith(SUBJECT_MARK) and clause.mood != "question":
            tokens = without_please(trim(contiguous(clause)))
            body = plain(tokens)  # as said, with its asides
        # what the whole sentence is about decides whose rule it is ("assume fish when you give me commands")
        scope = self.rule_scope([t for t in clause.head.sent if not t.is_space])
        return [self.rule_fact(body, tokens, scope, clause.tokens, clause.head.i, "rules.standing")]

    def _for_every_time(self, clause: Clause) -> bool:
        """An order to the assistant about the person themselves ("give me a beach any day", "don't
        give me any shots") is banter, unless it is about answers or code or said for every time
        ("always put me in an aisle seat")."""
        tokens = [t for t in clause.head.sent if not t.is_space]
        if self.rule_scope(tokens) != "user" or not any(t.lower_ in ("me", "i") for t in clause.tokens):
            return True
        words = {t.lower_ for t in tokens} | {t.lemma_.lower() for t in tokens}
        if words & ((self.lex["answer_word"] - {"me"}) | self.lex["code_noun"] | self.lex["language_name"]):
            return True
        return bool(words & {"always", "never", "whenever", "every", "anymore", "default"}) or (
            "from now on" in clause.head.sent.text.lower()
        )

    def _imperative(self, clause: Clause, tokens: list[Token]) -> str | None:
        """An order that is a rule, as said; None for an order about the task at hand."""
        lemma = clause.head.lemma_.lower()
        head = clause.head
        if any(c.lower_ == "just" and c.i < head.i for c in head.children) and any(
            c.dep_ == "dobj" and any(p.lower_ == "my" for p in c.children) for c in head.children
        ):
            return None  # "just put my toddler down for a nap": what the speaker just did, "I" left out
        if lemma == "be" and any(
            c.dep_ == "acomp" and c.lower_ in self.lex["transient_adjective"] for c in head.children
        ):
            return None  # "dont be surprised i message at 3am": how to feel, not how to work
        if lemma in self.lex["plan_verb"] or (
            lemma in _NOT_RULES and not (lemma == "ask" and clause.standing)
        ):
            return None  # but "always ask before running anything on prod" is a rule
        if not any(
            c.dep_ not in ("aux", "neg", "advmod", "punct", "intj", "discourse", "cc")
            for c in clause.head.children
        ):
            return None  # "don't ask", "never mind": no rule without something it is about
        if self._standing_imperative(clause, tokens):
            return plain(tokens)
        return None

    def _request(self, clause: Clause) -> list[Fact] | None:
        """ "I'd like you to show the working", "I want you to always cite sources": what the speaker
        asks of the assistant, a standing rule when it is about answers or said for every time."""
        head = clause.head
        if clause.about != "speaker" or head.lemma_.lower() not in ("like", "want", "need", "prefer", "love"):
            return None
        wanted = next((c for c in head.children if c.dep_ in ("xcomp", "ccomp") and c.pos_ == "VERB"), None)
        if wanted is None:
            return self._liked_when(clause)
        if not any(t.lower_ in ("you", "u") for t in head.subtree if t.i < wanted.i):
            return None
        tokens = without_please(
            trim([t for t in wanted.subtree if t.lower_ not in ("to",) or t.i > wanted.i])
        )
        words = {t.lower_ for t in tokens} | {t.lemma_.lower() for t in tokens}
        answers = self.lex["answer_word"] - {"me"}
        if len(tokens) < 2 or not (clause.standing or words & (answers | {"always", "never", "every"})):
            return []
        scope = self.rule_scope(tokens)
        return [self.rule_fact(plain(tokens), tokens, scope, clause.tokens, wanted.i, "rules.request")]

    def _liked_when(self, clause: Clause) -> list[Fact] | None:
        """ "i like it when you explain the why first, then the code": what the assistant should do."""
        head = clause.head
        if not any(c.dep_ == "dobj" and c.lower_ == "it" for c in head.children):
            return None
        when = next(
            (
                c
                for c in head.children
                if c.dep_ == "advcl" and any(m.lower_ in ("when", "whenever", "if") for m in c.children)
            ),
            None,
        )
        you = next((c for c in when.children if c.dep_ == "nsubj"), None) if when is not None else None
        if you is None or you.lower_ not in ("you", "u"):
            return None
        tokens = without_please(trim([t for t in head.sent if t.i > you.i and not t.is_space]))
        if len(tokens) < 2:
            return None
        scope = self.rule_scope(tokens)
        return [self.rule_fact(plain(tokens), tokens, scope, list(head.sent), tokens[0].i, "rules.request")]

    def _standing_imperative(self, clause: Clause, tokens: list[Token]) -> bool:
        words = {t.lower_ for t in tokens}
        if clause.head.lemma_.lower() in ("ignore", "disregard", "forget") and any(
            t.lemma_.lower() in self.lex["speech_verb"] | {"say", "ask", "write"} for t in clause.head.subtree
        ):
            return False  # "ignore anything i said about metro bundler": about this talk, not the work
        described = describing_a_thing_to_make(clause)
        # "translate 'always use the back entrance' into polish": the words quoted are the task's
        marked = {t.lower_ for t in tokens if not in_quotes(t) and t.i not in described} & {"never", "always"}
        if (clause.standing and not any(in_quotes(t) for t in tokens)) or marked:
            return True
        if paced(tokens) and not any(
            t.pos_ in ("NOUN", "PROPN")
            and t.lower_ not in _IN_GENERAL | _PACE_WORDS | self.lex["answer_word"]
            and t.lemma_.lower() not in self.lex["answer_word"]
            for t in tokens
        ):
            return (
                True  # "explain things step by step", "go slow pls" (not "walk me through helm step by step")
            )
        if "again" in words and not clause.negated:
            return False  # "explain closures to me again": once more, not every time
        if clause.negated and any(
            t.lower_ == "without" and any(c.lemma_.lower() in _PERMISSION for c in t.children)
            for t in clause.tokens
        ):
            return True  # "don't add new deps without asking me first": a standing permission
        # "explain stuff like i'm a beginner": things in general, not "this stuff"
        generic = {
            t.lower_
            for t in tokens
            if t.lower_ in ("stuff", "things") and not any(c.dep_ in ("det", "poss") for c in t.children)
        }
        # "keep PRs under ~400 lines, split them otherwise": "them" is the PRs, in an aside
        # "show me the whole file when you change something": what "when" says is any time's
        aside = [
            t
            for c in clause.head.children
            if (c.dep_ in ("dep", "parataxis") and c.pos_ == "VERB" and c.i > clause.head.i)
            or (c.dep_ == "advcl" and any(m.lower_ in _WHEN_MARKS for m in c.children))
            for t in c.subtree
        ]
        # "comments that just restate the code": a relative "that" points at nothing
        relative = {t.lower_ for t in tokens if t.tag_ == "WDT"}
        # "when you give me sql make it postgres dialect": "it" is what the "when" named
        named = {"it", "them"} if any(t.dep_ == "advcl" for t in aside) else set()
        if _at_hand(
            clause, words - generic - relative - named - _whole_project(tokens) - {t.lower_ for t in aside}
        ):
            return False
        if clause.negated or checkpoint_of(clause) is not None:
            return True
        if any(
            c.dep_ == "advcl" and any(m.lower_ in ("when", "whenever", "before", "after") for m in c.children)
            for c in clause.head.children
        ):
            return True
        # "keep answers short" is a standing wish; "explain how hooks work" asks for one answer
        said_of = {t.lower_ for t in tokens if t.i != clause.head.i}
        if (
            clause.head.lemma_.lower() in self.lex["teach_verb"]
            and any(
                c.lemma_.lower() not in self.lex["answer_word"]
                and (
                    (
                        c.dep_ == "dobj"
                        and c.lower_ not in PLEASE  # ("explain like im new pls": "pls" is no topic)
                        and (_a_given_thing(c) or c.lower_ not in _IN_GENERAL)
                        and not any(p.lower_ == "your" for p in c.children)  # "explain your reasoning"
                        # said right after the verb ("explain simply bitte", "..., i'm not a dev": misparsed)
                        and not any(t.is_punct or t.pos_ == "ADV" for t in c.doc[clause.head.i + 1 : c.i])
                    )
                    or (
                        c.dep_ == "ccomp" and any(s.dep_ == "nsubj" and _a_given_thing(s) for s in c.children)
                    )
                )
                for c in clause.head.children
            )
        ):
            # "Explain the CAP theorem in 3 sentences", "explain me monads in two sentences max": this
            # answer's topic, and its length (but "explain stuff simply" is every answer's way)
            return False
        signals = (self.lex["answer_word"] - {"me"}) | self.lex["language_name"]
        if self.rule_scope(tokens) == "user" and said_of & signals:
            return True
        if any(t.lower_ in self.lex["language_name"] and t.head.lower_ == "in" for t in tokens):
            return True  # "code comments please write in english": the language a kind of text is in
        if {t.lower_ for t in tokens if t.i not in described} & _QUANTIFIERS:
            return True  # but "write a hook that runs on every push" is one hook, written once
        if clause.head.lemma_.lower() in _VOICE_VERBS and any(
            c.dep_ == "prep" and c.lower_ == "like" for c in clause.head.children
        ):
            return True  # "write like a normal teenager, not a robot": a voice to keep
        if clause.head.lemma_.lower() in _OBJECT_VERBS:
            obj = [
                t
                for t in clause.tokens
                if t.dep_ in ("dobj", "pobj", "attr", "xcomp", "ccomp", "oprd", "acomp") and t not in aside
            ]
            return bool(obj) and not any(t.lower_ in DEICTIC for t in obj)
        return False


# what "this" or "here" points at when it is the whole of the work: "don't use lodash in this codebase"
_WHOLE = frozenset(
    {"codebase", "repo", "repository", "project", "monorepo", "team", "company", "org", "workspace"}
)


# the words of a pace: "step by step", "one thing at a time", "in chunks"
_PACE_WORDS = frozenset({"step", "steps", "bit", "chunk", "chunks", "thing", "time", "terms", "pace"})


# what a teaching order is about when it is about every answer: "explain things like I'm five"
_IN_GENERAL = frozenset(
    {"things", "stuff", "concepts", "everything", "anything", "code", "it", "them", "terms", "ideas"}
    | {"jargon", "changes", "steps", "decisions", "choices", "errors", "tradeoffs", "why"}
)


def _a_given_thing(noun: Token) -> bool:
    """ "the CAP theorem", "Kafka", "my options": a topic named, not things in general."""
    return noun.pos_ == "PROPN" or any(
        d.dep_ in ("det", "poss") and d.lower_ in ("the", "this", "that", "these", "those", "my", "our")
        for d in noun.children
    )


def _rework(clause: Clause) -> bool:
    """ "update any scripts you give me", "fix all the imports": work already done, redone once
    (but "update the changelog on every PR", "always update the lockfile")."""
    words = {t.lower_ for t in clause.head.sent}
    return (
        clause.head.lemma_.lower() in _REWORK
        and not clause.standing
        and not clause.negated  # "don't rewrite sentences": a standing order
        and not words & {"every", "each", "new", "whenever", "always", "never"}
    )


def _whole_project(tokens: list[Token]) -> set[str]:
    """ "in this codebase", "here": words that point at the project itself, not at the task at hand."""
    return {
        t.lower_
        for t in tokens
        if (t.dep_ == "det" and t.lower_ == "this" and t.head.lemma_.lower() in _WHOLE)
        or (t.lower_ == "here" and t.dep_ == "advmod" and t.head.pos_ in ("VERB", "AUX"))
    }


def _at_hand(clause: Clause, words: set[str]) -> bool:
    """An order about the task at hand, not a rule: "don't touch that file", "run all 3"."""
    if words & DEICTIC or clause.transient or "accordingly" in words:
        return True  # "don't touch that file", "update the snippets accordingly": the task at hand
    if any(t.lower_ in ("last", "previous", "earlier", "above") and t.dep_ == "amod" for t in clause.tokens):
        return True  # "ignore the last message"
    after = [t for t in clause.tokens if t.i > clause.head.i]
    if after and (
        (after[0].pos_ == "NUM" and not _counts_the_object(after[0], clause.head))
        or (
            after[0].lower_ in ("all", "both", "each")
            and (len(after) == 1 or after[1].pos_ not in ("NOUN", "PROPN", "ADJ"))
        )
    ):
        return True  # "run all 3 after your changes", "run both": the things just listed
    if any(c.dep_ == "dobj" and c.text[:1].isdigit() for c in clause.head.children):
        return True  # "convert 350F to celsius": a quantity at hand
    # "don't refactor anything" (but "... anything in migrations/"): the task at hand
    return any(
        c.dep_ == "dobj" and c.lower_ in ("anything", "everything", "something") and not list(c.children)
        for c in clause.head.children
    ) and not any(c.dep_ == "prep" for c in clause.head.children)


def _counts_the_object(number: Token, head: Token) -> bool:
    """ "use 2 spaces": the number counts what the order is about, it is not the thing itself."""
    counted: Token = number.head
    return bool(number.dep_ == "nummod" and counted.dep_ == "dobj" and counted.head.i == head.i)


def contiguous(clause: Clause) -> list[Token]:
    """A clause's words from its first to its last, nested clauses inside it included, later
    clauses of the sentence not."""
    doc = clause.head.doc
    end = clause.end
    for child in clause.children:
        if child.head.dep_ not in ("conj", "parataxis"):
            end = max(end, child.end)  # "squash commits when merging": what it is said of goes with it
    for child in clause.children:
        if child.start > clause.head.i and child.head.dep_ in ("conj", "parataxis"):
            end = min(end, child.start)
    start = min(
        [clause.start, *(c.start for c in clause.children if c.head.dep_ not in ("conj", "parataxis"))]
    )
    return [t for t in doc[start:end] if not t.is_space]


def _assured(clause: Clause) -> Token | None:
    """The order a statement is what it ensures ("ensure that every migration is reversible"), when
    the statement holds of the code at all times: present, about a thing of the project."""
    parent = clause.parent
    if (
        parent is None
        or not (parent.mood == "imperative" or (parent.subject is None and parent.head.tag_ == "VB"))
        or parent.head.lemma_.lower() not in ("ensure", "assure", "guarantee")
        or clause.head.dep_ != "ccomp"
        or clause.mood != "statement"
        or clause.tense != "present"
        or clause.about not in ("project", "thing")
        or clause.negated
    ):
        return None
    return parent.head


def without_please(tokens: list[Token]) -> list[Token]:
    # (but "release-please" is a name: a "please" glued to a hyphen stays)
    return trim([t for t in tokens if t.lower_ not in PLEASE or _glued_to_hyphen(t)])


def _glued_to_hyphen(token: Token) -> bool:
    before = token.doc[token.i - 1] if token.i > 0 else None
    return before is not None and before.text == "-" and not before.whitespace_


def _keep_in_mind(head: Token) -> bool:
    """ "keep in mind for any health q", "keep that in mind": remember what the sentence said (but
    "keep in mind that we deploy on fridays" says it after)."""
    return (
        head.lemma_.lower() == "keep"
        and any(
            c.dep_ == "prep" and c.lower_ == "in" and any(g.lemma_.lower() == "mind" for g in c.children)
            for c in head.children
        )
        and not any(c.dep_ == "ccomp" for c in head.children)
    )
