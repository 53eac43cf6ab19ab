"""Preferences ("I prefer concise bullet points", "I'd rather stick to trains") and exceptions to a
rule said before ("except release/* branches - those get a merge commit")."""

from __future__ import annotations

import re

from extractors.clauses import PLEASE, QUESTION_WORDS, Clause
from extractors.readers.common import DEICTIC, Fact, Span, Token, goes_wrong, joined, with_borrowed_subject
from extractors.readers.rules.facts import in_third_person
from extractors.readers.rules.notes import NoteRules
from extractors.readers.rules.standing import contiguous
from extractors.render import SUBJECT_MARK, plain, sentence, third_person, trim

_EXCEPTION = re.compile(
    r"(?<!\bno\s)\b(?:except\b|exception|excepting|apart\s+from|other\s+than|odd\s+one\s+out|the\s+one\s+place|"
    r"caveat|the\s+only\s+place|only\s+(?:the|in|for)\b|is\s+different|are\s+different|'s\s+different|differs|"
    # "save for", "excluding", "everywhere but", "but not for", "the one thing that ... is", "X is exempt"
    r"save\s+for|excluding|aside\s+from|everywhere\s+but|but\s+not\s+(?:for|in|on|when)\b|"
    r"the\s+(?:one|only)\s+(?:thing|time|case|module|service|repo|folder|file)s?\s+(?:that|which|where|we)\b|"
    r"(?:is|are)\s+exempt\b|"
    # "AudioManager is allowed to be a singleton", "the /admin folder is excluded from strict"
    r"(?:is|are)\s+(?:allowed|permitted)\s+to|(?:excluded|exempt(?:ed)?)\s+from)"
    # "unless its a sev1 hotfix, then ship it": opening the sentence, it limits a rule said before
    r"|^\W*(?:oh\s+|but\s+|and\s+)?unless\b"
    # "for code reviews only, write it as prose": what follows holds there alone
    r"|^\W*(?:but\s+)?for\s+(?:[\w/.-]+\s+){1,4}?only\s*[,:\u2014-]"
)
# "though", "tho", "still" mark an exception only beside what it is limited to ("for tax stuff, though")
_SOFT_EXCEPTION = re.compile(r"\b(?:tho|though|although|however|still)\b")
_EXCEPTION_LEAD = re.compile(
    r"^(?:(?:one|small|only|the\s+only|big)\s+)?(?:exception|caveat)s?\s*(?:to\s+that|is)?\s*[:,\u2014\u2013-]?\s*|"
    r"^(?:but|although|though|however|heads\s+up)\b\s*[:,\u2014\u2013-]?\s*",
    re.I,
)


class RuleReader(NoteRules):
    """Standing rules: imperatives meant for every time, the team's habits, norms about code,
    rules written as notes, how answers should look, and the exceptions to them."""

    def permission(self, clause: Clause) -> list[Fact]:
        """A standing permission, often the exception to a rule said before: "hotfixes tagged sev1
        can go straight to main", "docs-only PRs can skip it", "emojis are fine in slack drafts"."""
        head, subject = clause.head, clause.subject
        if subject is None or subject.pos_ not in ("NOUN", "PROPN") or subject.lemma_.lower() in _PEOPLE:
            return []  # said of a thing of the work, not of someone ("my boss can ...")
        if subject.lemma_.lower() in self.lex["person_noun"] | self.lex["kin_noun"] | self.lex["pet_noun"]:
            return []
        if any(c.dep_ in ("det", "poss") for c in subject.children):
            return []  # "the build can take 10 minutes": this one thing; a permission is said of a kind
        if {t.lower_ for t in clause.tokens} & {"now", "again", "today", "anymore", "yet", "actually"}:
            return []  # "tests are fine now": how things stand; "peanuts are actually fine": a correction
        if clause.mood != "statement" or clause.negated or clause.hedged or clause.conditional:
            return []
        if clause.reported or clause.planned or clause.transient or clause.tense not in ("present", None):
            return []
        modal = next((c for c in head.children if c.dep_ == "aux" and c.lower_ in ("can", "ca", "may")), None)
        if (modal is not None and modal.i < subject.i) or head.sent.text.rstrip().endswith("?"):
            return []  # "can Temporal workflows read flags": asked, not allowed
        fine = head.lemma_ == "be" and any(c.dep_ == "acomp" and c.lower_ in _ALLOWED for c in head.children)
        qualified = any(c.dep_ == "prep" and c.lower_ == "for" for c in head.subtree)
        if fine and subject.tag_ != "NNS" and not qualified:
            return []  # "android is fine", "the build is fine": how one thing is; "emojis are fine" allows
        if modal is None and not fine:
            return []
        tokens = trim(contiguous(clause))
        if len(tokens) < 3:
            return []
        scope = self.rule_scope(tokens)
        return [self.rule_fact(plain(tokens), tokens, scope, clause.tokens, head.i, "rules.permission")]

    def _wished_of_you(self, clause: Clause) -> list[Fact]:
        """ "i'd rather you ask before running anything on staging", "id rather u not touch the
        migrations": a standing order, said as a wish."""
        if clause.mood == "question" or clause.hedged or clause.conditional or clause.transient:
            return []
        order = _wished(clause)
        if len(order) < 2:
            return []
        body = plain(order)
        if clause.negated:
            body = "don't " + re.sub(r"^(?:not|never)\s+", "", body)
        scope = self.rule_scope(order)
        return [self.rule_fact(body, order, scope, clause.tokens, clause.head.i, "rules.standing")]

    def preference(self, clause: Clause) -> list[Fact]:
        """ "I prefer concise bullet points", "I like my answers short", "I'd rather stick to trains"."""
        head = clause.head
        better = self._better_for_me(clause)
        if better is not None:
            return [better]
        rather = any(c.lower_ == "rather" for c in head.children) and clause.modal in ("'d", "d", "would")
        if rather and clause.about == "speaker" and clause.mood == "statement" and not clause.conditional:
            return [_rather(clause)]
        if any(c.lower_ == "rather" for c in head.children) and clause.about == "you":
            return self._wished_of_you(clause)  # "i'd rather you ask before touching staging"
        if head.lemma_.lower() not in ("prefer", "like", "love", "want", "need") or clause.about not in (
            "speaker",
            "group",
        ):
            return []
        if (
            clause.mood == "question"
            or clause.hedged
            or clause.reported
            or clause.conditional
            or clause.negated
        ):
            return []
        if (
            head.lemma_.lower() in ("like", "love", "want", "need")
            and not self._shapes_output(clause)
            and not (clause.standing and head.lemma_.lower() in ("want", "need"))
        ):
            return []  # (but "I always want a window seat": a want said for every time is a preference)
        wished = next((c for c in head.children if c.dep_ == "dobj"), None)
        if (
            (clause.modal in ("'d", "d", "would", "would-prefer") or _a_thing_to_make(head, wished))
            and not clause.standing
            and wished is not None
            and any(c.lower_ in ("a", "an", "this", "that") for c in wished.children)
        ):
            return []  # "I'd like a simple recipe for apple crumble": one thing, asked for now
        xcomp = any(c.dep_ == "xcomp" and c.pos_ == "VERB" for c in head.children)
        if clause.tense == "future" or (xcomp and head.lemma_ != "prefer"):
            return []
        said = contiguous(clause)
        # "I always want a window seat, which side has the better view?": the question is not the want
        asked = next(
            (
                t.i
                for t in said
                if t.text == "," and t.i + 1 < len(t.doc) and t.doc[t.i + 1].lower_ in _ASKING
            ),
            None,
        )
        said = [t for t in said if asked is None or t.i < asked]
        obj = [t for t in said if t.i > head.i]
        if not obj:
            return []
        value = plain(obj)
        scope = "user" if clause.about == "speaker" else "project"
        key, slot_value = self.rule_slot(obj, "user")
        text = with_borrowed_subject(clause, third_person(trim(said), clause.subject))
        if key in ("indentation", "response_length") and slot_value is not None:
            text = self.slot_text(key, slot_value, text)
            value = slot_value
        else:
            key = None  # "I'd prefer answers in German": kept as said
        answers = self._shapes_output(clause) and scope == "user"
        return [
            Fact(
                # how the user wants answers is a standing rule of theirs, given on every request
                kind="procedural" if scope == "project" or answers else "semantic",
                scope=scope,
                key=key,
                value=value,
                text=text,
                span=plain(clause.tokens),
                reader="rules.preference",
                confidence=0.85,
                anchor=obj[0].i,
            )
        ]

    def _better_for_me(self, clause: Clause) -> Fact | None:
        """ "short sentences are better for me", "bullet lists work best for me": what suits the
        person, a preference of theirs."""
        head, subject = clause.head, clause.subject
        if subject is None or head.lemma_.lower() not in ("be", "work") or clause.negated:
            return None
        if clause.mood != "statement" or clause.hedged or clause.conditional or clause.reported:
            return None
        better = next((c for c in head.children if c.lower_ in ("better", "best", "easier")), None)
        for_me = any(
            c.dep_ == "prep" and c.lower_ == "for" and any(g.lower_ in ("me", "us") for g in c.children)
            for c in [*head.children, *(better.children if better is not None else [])]
        )
        if better is None or not for_me or subject.lower_ in DEICTIC or subject.pos_ == "PRON":
            return None
        said = plain([t for t in subject.subtree])
        from_subject = [t for t in trim(contiguous(clause)) if t.i >= subject.left_edge.i]
        return Fact(
            kind="procedural" if self._shapes_output(clause) else "semantic",
            scope="user",
            key=None,
            value=said,
            text=sentence(f"{SUBJECT_MARK} prefers {said} ({in_third_person(plain(from_subject))})"),
            span=plain(clause.tokens),
            reader="rules.preference",
            confidence=0.8,
            anchor=subject.i,
        )

    def reply_language(self, sent: Span) -> list[Fact]:
        """ "Bitte antworte immer auf Deutsch", "responde siempre en español": a request, in the language
        itself, for replies in it (the parser reads English only; the words are data)."""
        words = [t.lower_ for t in sent]
        switched = self._switched_to_language(sent) or self._asked_in_language(sent)
        named = switched or next((t for t in sent if t.lower_ in self.lex["language_endonym"]), None)
        if named is None or sent.text.rstrip().endswith("?"):
            return []
        asked = (
            switched is not None
            or set(words) & self.lex["reply_verb_foreign"]
            or (
                set(words) & (self.lex["answer_word"] - {"me"})
                and named.i > 0
                and sent.doc[named.i - 1].lower_ == "in"
            )
        )
        if not asked:
            return []
        said = sent.text.strip()
        if switched is not None:  # what was asked, without the rest of the sentence ("my colleague has left")
            verb = next(
                t
                for t in reversed(sent.doc[sent.start : switched.i])
                if t.lemma_.lower() in self.lex["switch_verb"] | _REPLY
            )
            said = sent.doc[verb.i : switched.i + 1].text
        return [
            Fact(
                kind="semantic",
                scope="user",
                key="response_language",
                value=named.text,
                text=f'{SUBJECT_MARK} wants replies in {named.text} (as asked: "{said}").',
                span=said,
                reader="rules.reply_language",
                confidence=0.85,
                anchor=named.i,
            )
        ]

    def _switched_to_language(self, sent: Span) -> Token | None:
        """ "you can switch back to english now", "switch to german pls": replies in that language."""
        for token in sent:
            if (
                token.lower_ not in self.lex["language_name"]
                or token.i < 2
                or sent.doc[token.i - 1].lower_ != "to"
            ):
                continue
            verb = sent.doc[token.i - 2] if sent.doc[token.i - 2].lower_ != "back" else sent.doc[token.i - 3]
            if verb.lemma_.lower() in self.lex["switch_verb"] and not any(
                t.lower_ in ("i", "we", "my", "our") for t in sent if t.i < verb.i
            ):
                return token  # (but "I switched to english at work": the speaker's own move)
        return None

    def _asked_in_language(self, sent: Span) -> Token | None:
        """ "reply in english pls even if i slip into dutch" (however the tagger reads "reply"): replies
        asked for in a language, by a sentence that opens with the asking."""
        opening = next((t for t in sent if not (t.is_punct or t.lower_ in PLEASE)), None)
        if opening is None or opening.lemma_.lower() not in _REPLY:
            return None
        for token in sent:
            if token.lower_ in self.lex["language_name"] and sent.doc[token.i - 1].lower_ == "in":
                return token if token.i - opening.i <= 3 else None
        return None

    def _shapes_output(self, clause: Clause) -> bool:
        """ "I like my answers short", "I want responses in German": about the assistant's output."""
        words = {t.lower_ for t in clause.tokens} | {t.lemma_.lower() for t in clause.tokens}
        if words & (self.lex["answer_word"] - {"me"}) or words & {"tabs", "spaces"}:
            return True
        return any(t.dep_ == "dobj" and t.lemma_.lower() in self.lex["code_noun"] for t in clause.tokens)

    def exception(self, sent: Span, clauses: list[Clause], qualifier: str | None) -> list[Fact]:
        """An exception to a rule said before: "except release/* branches — those get a merge commit",
        "the CLI tool is the odd one out, it logs plain text", "for tax stuff, though, give me the
        full detail". Kept as said, with what it is limited to, beside the general rule."""
        text = sent.text.strip()
        lowered = text.lower()
        # "release branches get a real merge commit though": limited to a thing of the code it names
        of_code = any(
            c.subject is not None
            and c.parent is None
            and not (c.head.lemma_ == "be" and any(x.dep_ == "acomp" for x in c.head.children))
            and any(t.lemma_.lower() in self.lex["code_noun"] for t in c.subject.subtree)
            for c in clauses
        )
        soft = _SOFT_EXCEPTION.search(lowered) and (
            qualifier or of_code or re.match(r"^\W*(?:but\s+)?for\s", lowered)
        )
        if text.endswith("?") or not (_EXCEPTION.search(lowered) or soft):
            return []
        if (
            _TROUBLE.search(lowered)
            or any(goes_wrong(c.head) for c in clauses)
            or any(c.mood == "question" for c in clauses)
        ) and not re.search(r"\bexcept|\bexception|\bexclud|\bexempt", lowered):
            return []  # "getting CORS on edge calls only in prod", "a form action returns 405 only in prod"
        # ("only exception: next.js pages/ files, they need default exports": "they" are the files)
        labeled = re.match(r"^\W*(?:(?:the\s+)?(?:only|one)\s+)?exception\s*[:\-\u2014]", lowered)
        if not labeled and any(c.reported or c.hedged for c in clauses if c.parent is None):
            return []
        if any(_of_people(c) for c in clauses if any(t.lower_ in ("except", "apart") for t in c.tokens)):
            return []  # "nobody uses Rafael except my mom": who does what, not an exception to a rule
        tokens = trim([t for t in sent if not t.is_space])
        if len(tokens) < 3:
            return []
        where = qualifier or _exception_scope(sent)
        where = in_third_person(where) if where else where  # "(when i write in korean)"
        if where and where.lower().startswith("only "):
            where = where[5:]  # "only the old billing package uses unittest": the package is where
        body = _EXCEPTION_LEAD.sub("", joined(tokens)).strip(" ,:;\u2014\u2013-")
        if not body:
            return []
        body = in_third_person(body)
        scope = self.rule_scope(tokens)
        return [
            Fact(
                kind="procedural" if scope == "project" else "semantic",
                scope=scope,
                key=None,
                value=body,
                text=f"{SUBJECT_MARK} exception{f' ({where})' if where else ''}: {sentence(body)}",
                span=text,
                reader="rules.exception",
                confidence=0.75,
                anchor=sent.start,
                fields={"exception_for": where} if where else {},
            )
        ]


def _a_thing_to_make(head: Token, wished: Token | None) -> bool:
    """ "(I) want a small python script to export jobs", "need a PromQL query for p95 latency": one
    thing asked for now, described by what it is to do (but "I want a window" on long flights)."""
    return (
        wished is not None
        and head.lemma_.lower() in ("want", "need")
        and any(c.dep_ in ("acl", "relcl", "prep") for c in wished.children)
    )


# a sentence that tells of a problem, not of where a rule does not hold
_TROUBLE = re.compile(
    r"\b(?:why|getting|error|errors|bug|broken|fails?|failing|(?:doesn'?t|does\s+not|won'?t|isn'?t)\s+work\w*)\b"
)
_REPLY = frozenset({"reply", "answer", "respond", "write", "talk", "speak"})
_ASKING = QUESTION_WORDS | {"any"}  # "..., any tips?"


def _wished(clause: Clause) -> list[Token]:
    """The words of what the speaker would rather the assistant did, as an order: "ask before ..."
    (with the clauses under it: "ask before you run anything")."""
    head = clause.head
    return [
        t
        for t in trim(list(head.subtree))
        if t.i >= head.i and t.lower_ != "rather" and not (t.dep_ == "nsubj" and t.head.i == head.i)
    ]


def _rather(clause: Clause) -> Fact:
    """ "I'd rather stick to trains": what the speaker prefers to do."""
    head = clause.head
    after = [t for t in trim(clause.tokens) if t.i > head.i]
    value = plain(after) or head.text
    text = f"{SUBJECT_MARK} prefers to {plain([head, *after])}."
    return Fact("semantic", "user", None, value, text, plain(clause.tokens), "rules.preference", 0.8, head.i)


_PEOPLE = frozenset({"nobody", "everyone", "everybody", "anyone", "anybody", "noone", "someone"})
# what makes "X is ..." a permission: "emojis are fine in slack drafts"
_ALLOWED = frozenset({"fine", "ok", "okay", "allowed", "acceptable", "alright", "permitted", "exempt"})


def _of_people(clause: Clause) -> bool:
    return clause.subject is not None and clause.subject.lower_ in _PEOPLE


def _exception_scope(sent: Span) -> str | None:
    """What an exception is limited to: the words after "except (for|in)", or the subject of "is the
    odd one out" / "is different"."""
    tokens = list(sent)
    for n, token in enumerate(tokens):
        if token.lower_ in ("except", "excepting") or (token.lower_ == "apart" and n + 1 < len(tokens)):
            words: list[Token] = []
            for t in tokens[n + 1 :]:
                if t.is_punct or t.lower_ in ("which", "where", "those", "that", "there", "because", "since"):
                    break
                if t.lower_ in ("for", "in", "from", "the", "of") and not words:
                    continue
                words.append(t)
                if len(words) >= 5:
                    break
            if words:
                return joined(words)
    root = sent.root
    subject = next((c for c in root.children if c.dep_ in ("nsubj", "nsubjpass")), None)
    named = next((t for t in tokens if t.lemma_.lower() == "exception" and t.dep_ == "attr"), None)
    if named is not None:
        # "note that the analytics workload is the exception — it runs on BigQuery"
        subject = next((c for c in named.head.children if c.dep_ == "nsubj"), subject)
    led = subject if subject is not None else root
    if any(t.lemma_.lower() == "exception" for t in led.subtree if t.i <= led.i):
        # "one exception to note: the document archive uses MongoDB": what the colon introduces
        colon = next((t.i for t in tokens if t.text == ":"), None)
        subject = next(
            (t for t in tokens if colon is not None and t.i > colon and t.dep_ in ("nsubj", "nsubjpass")),
            None,
        )
    if subject is not None and subject.lower_ not in DEICTIC and subject.pos_ != "PRON":
        return joined([t for t in subject.subtree if t.dep_ != "det"])
    return None
