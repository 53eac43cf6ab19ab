"""Rule facts: standing imperatives ("always squash before merging"), the team's habits ("we squash
merge everything"), norms about code ("`any` is banned"), rules written as notes ("squash merge only"),
how answers should look (kept with the user), and exceptions ("except on hotfix branches")."""

from __future__ import annotations

import re

from extractors.clauses import Clause
from extractors.readers.common import (
    DEICTIC,
    Fact,
    ReaderBase,
    Span,
    Token,
    checkpoint_of,
    joined,
    pieces,
)
from extractors.render import SUBJECT_MARK, plain, sentence, third_person, trim

_QUANTIFIERS = frozenset({"all", "every", "each", "any", "new", "no", "everything", "anything", "only"})
_COMMAND = re.compile(r"^CMD\d+$")  # a command set aside before parsing
_PERMISSION = frozenset({"ask", "check", "tell", "confirm", "discuss", "ping", "run", "test", "asking"})
_UNIVERSAL = frozenset({"all", "every", "each", "any", "no"})
# labels of a rule written as a note: "branch naming: feature/<ticket>-desc", "commits here: ..."
_RULE_LABELS = frozenset(
    {"naming", "convention", "conventions", "style", "format", "rule", "rules", "policy", "workflow"}
)
_WHEN_MARKS = frozenset({"when", "whenever", "if", "before", "after", "once", "while", "until"})
_LENGTHS = frozenset(
    [
        "short",
        "shorter",
        "brief",
        "concise",
        "terse",
        "succinct",
        "detailed",
        "long",
        "longer",
        "thorough",
        "verbose",
        "in-depth",
        "comprehensive",
        "minimal",
        "compact",
    ]
)
_FIRST_PERSON_WORDS = re.compile(r"(?<![\w'])(?:me|my|i'm|i|myself|we're|we've|we|us|our)(?![\w'])", re.I)
# In a rule, the user the rule speaks of: "without asking me first" -> "without asking the user first".
_THIRD_PERSON = {
    "me": "the user",
    "my": "the user's",
    "i": "the user",
    "i'm": "the user is",
    "myself": "the user",
    "we": "the team",
    "we're": "the team is",
    "we've": "the team has",
    "us": "the team",
    "our": "the team's",
}
_EXCEPTION = re.compile(
    r"\b(?:except|exception|excepting|apart\s+from|other\s+than|odd\s+one\s+out|the\s+one\s+place|"
    r"caveat|the\s+only\s+place|only\s+(?:the|in|for)\b|is\s+different|are\s+different|'s\s+different|differs)"
)
# "though", "tho", "still" mark an exception only beside what it is limited to ("for tax stuff, though")
_SOFT_EXCEPTION = re.compile(r"\b(?:tho|though|although|however|still)\b")
_EXCEPTION_LEAD = re.compile(
    r"^(?:(?:one|small|only|the\s+only|big)\s+)?(?:exception|caveat)s?\s*(?:to\s+that|is)?\s*[:,\u2014\u2013-]?\s*|"
    r"^(?:but|although|though|however|heads\s+up)\s*[:,\u2014\u2013-]?\s*",
    re.I,
)


class RuleReader(ReaderBase):
    """Standing rules: imperatives meant for every time, the team's habits, norms about code,
    rules written as notes, how answers should look, and the exceptions to them."""

    def rules(self, clause: Clause) -> list[Fact]:
        """Standing rules: imperatives meant for every time ("always squash before merging"), polite
        standing requests ("could you always include type hints?"), the team's habits ("we squash
        merge everything"), and norms about code ("`any` is banned", "branch names have to be ...")."""
        request = self._request(clause)
        if request is not None:
            return request
        if clause.hedged or clause.planned or clause.conditional or clause.reported:
            return []
        if clause.head.dep_ == "advcl" and any(
            c.dep_ in ("mark", "advmod") and c.lower_ in _WHEN_MARKS for c in clause.head.children
        ):
            return []  # "whenever you make a worksheet": the clause it qualifies carries it
        tokens = _without_please(trim(_contiguous(clause) if clause.mood == "imperative" else clause.tokens))
        if len(tokens) < 2:
            return []
        body: str | None = None
        lemma = clause.head.lemma_.lower()
        if clause.mood == "question":
            # "could you always include type hints?": a standing request, asked politely
            if (
                clause.about == "you"
                and clause.modal in ("can", "ca", "could", "would", "will", "wo")
                and clause.standing
            ):
                after = clause.subject.i if clause.subject is not None else -1
                body = plain(_without_please([t for t in tokens if t.i > after]))
        elif clause.mood == "imperative":
            skipped = (
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
            )
            if lemma in self.lex["plan_verb"] or lemma in skipped:
                return []
            if not any(
                c.dep_ not in ("aux", "neg", "advmod", "punct", "intj", "discourse", "cc")
                for c in clause.head.children
            ):
                return []  # "don't ask", "never mind": no rule without something it is about
            if self._standing_imperative(clause, tokens):
                body = plain(tokens)
        elif clause.mood == "statement" and clause.tense in ("present", "perfect"):
            body = self._norm(clause, tokens)
        if not body:
            return []
        if not body.startswith(SUBJECT_MARK) and clause.mood != "question":
            tokens = _without_please(trim(_contiguous(clause)))
            body = plain(tokens)  # as said, with its asides
        # what the whole sentence is about decides whose rule it is ("assume fish when you give me commands")
        scope = self.rule_scope([t for t in clause.head.sent if not t.is_space])
        return [self._rule_fact(body, tokens, scope, clause.tokens, clause.head.i, "rules.standing")]

    def _request(self, clause: Clause) -> list[Fact] | None:
        """ "I'd like you to show the working", "I want you to always cite sources": what the speaker
        asks of the assistant, a standing rule when it is about answers or said for every time."""
        head = clause.head
        if clause.about != "speaker" or head.lemma_.lower() not in ("like", "want", "need", "prefer"):
            return None
        wanted = next((c for c in head.children if c.dep_ in ("xcomp", "ccomp") and c.pos_ == "VERB"), None)
        if wanted is None or not any(t.lower_ in ("you", "u") for t in head.subtree if t.i < wanted.i):
            return None
        tokens = _without_please(
            trim([t for t in wanted.subtree if t.lower_ not in ("to",) or t.i > wanted.i])
        )
        words = {t.lower_ for t in tokens} | {t.lemma_.lower() for t in tokens}
        answers = self.lex["answer_word"] - {"me"}
        if len(tokens) < 2 or not (clause.standing or words & (answers | {"always", "never", "every"})):
            return []
        scope = self.rule_scope(tokens)
        return [self._rule_fact(plain(tokens), tokens, scope, clause.tokens, wanted.i, "rules.request")]

    def _standing_imperative(self, clause: Clause, tokens: list[Token]) -> bool:
        words = {t.lower_ for t in tokens}
        if clause.standing or words & {"never", "always"}:
            return True
        if clause.negated and any(
            t.lower_ == "without" and any(c.lemma_.lower() in _PERMISSION for c in t.children)
            for t in clause.tokens
        ):
            return True  # "don't add new deps without asking me first": a standing permission
        if words & DEICTIC or clause.transient:
            return False  # "don't touch that file", "keep that in mind": about the task at hand
        after = [t for t in clause.tokens if t.i > clause.head.i]
        if after and (
            after[0].pos_ == "NUM"
            or (
                after[0].lower_ in ("all", "both", "each")
                and (len(after) == 1 or after[1].pos_ not in ("NOUN", "PROPN", "ADJ"))
            )
        ):
            return False  # "run all 3 after your changes", "run both": the things just listed
        if any(
            c.dep_ == "dobj" and c.lower_ in ("anything", "everything", "something") and not list(c.children)
            for c in clause.head.children
        ) and not any(c.dep_ == "prep" for c in clause.head.children):
            return False  # "don't refactor anything" (but "... anything in migrations/"): the task at hand
        if clause.negated or checkpoint_of(clause) is not None:
            return True
        if any(
            c.dep_ == "advcl" and any(m.lower_ in ("when", "whenever", "before", "after") for m in c.children)
            for c in clause.head.children
        ):
            return True
        # "keep answers short" is a standing wish; "explain how hooks work" asks for one answer
        said_of = {t.lower_ for t in tokens if t.i != clause.head.i}
        signals = (self.lex["answer_word"] - {"me"}) | self.lex["language_name"]
        if self.rule_scope(tokens) == "user" and said_of & signals:
            return True
        if words & _QUANTIFIERS:
            return True
        lemma = clause.head.lemma_.lower()
        if lemma in (
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
        ):
            obj = [
                t
                for t in clause.tokens
                if t.dep_ in ("dobj", "pobj", "attr", "xcomp", "ccomp", "oprd", "acomp")
            ]
            return bool(obj) and not any(t.lower_ in DEICTIC for t in obj)
        return False

    def _norm(self, clause: Clause, tokens: list[Token]) -> str | None:
        """A statement that is a rule: the team's habit, or a norm about the code."""
        lemma = clause.head.lemma_.lower()
        lex = self.lex
        subject = clause.subject
        universal = (
            subject is not None
            and any(c.dep_ in ("det", "predet") and c.lower_ in _UNIVERSAL for c in subject.children)
            and any(
                t.lemma_.lower() in lex["code_noun"] or t.lower_ in lex["code_noun"] for t in subject.subtree
            )
        )  # "every pub fn needs a doc comment", not "every job has its days"
        obligation = ("get", "need", "have", "be", "go", "require", "follow", "use", "live", "belong")
        if universal and clause.about in ("project", "thing") and lemma in obligation and not clause.negated:
            return plain(tokens)  # "all public functions get docstrings", "every pub fn needs a doc comment"
        verbs = lex["plan_verb"] | lex["cognition_verb"] | lex["speech_verb"] | {"have", "be", "get"}
        if clause.about in ("project", "thing") and lemma in ("need", "have"):
            verbs = verbs - {"need", "have"}  # "every PR needs two approvals": an obligation
        if lemma in verbs and not (
            lemma == "be" and any(c.dep_ in ("acomp", "auxpass") for c in clause.head.children)
        ):
            return None
        words = {t.lower_ for t in tokens}
        lemmas = {t.lemma_.lower() for t in tokens}
        if clause.subject is not None and clause.subject.lower_ in DEICTIC:
            return None
        if any(c.dep_ == "dobj" and c.lower_ in DEICTIC for c in clause.head.children):
            return None  # "we use it for everything"
        duty = clause.modal in ("must", "should", "shall") or _has_to(clause.head)
        if clause.about == "group":
            if clause.negated and "never" not in words:
                return None
            if (
                any(t._.tech for t in tokens)
                and not duty
                and not clause.standing
                and not (lemmas & lex["code_noun"])
            ):
                return None  # "we use postgres": the stack reader's
            if clause.head.tag_ not in ("VBP", "VB") and not duty:
                return None
            if not (
                lemmas & lex["code_noun"] or duty or clause.standing or words & {"everything", "all", "only"}
            ):
                return None
            return third_person(tokens, clause.subject).rstrip(".")
        if clause.about in ("project", "thing"):
            subject = clause.subject
            normed = lemma in lex["norm_verb"] or any(
                t.lemma_.lower() in lex["norm_verb"]
                for t in clause.head.children
                if t.dep_ in ("acomp", "attr")
            )
            about_code = subject is not None and any(
                t.lemma_.lower() in lex["code_noun"] for t in subject.subtree
            )
            if (duty or normed or clause.standing) and (about_code or normed):
                return plain(tokens)
            habitual = ("live", "go", "follow", "use", "stay", "need", "carry", "belong", "start", "end")
            if about_code and clause.head.tag_ in ("VBP", "VBZ") and lemma in habitual:
                return plain(tokens)
            return None
        if clause.about == "you" and clause.standing:  # "you should always ...", not "you must eat well"
            return plain(
                [t for t in tokens if t.i > clause.subject.i] if clause.subject is not None else tokens
            )
        return None

    def fragment_rules(self, sent: Span, question_from: int | None) -> list[Fact]:
        """Rules written as notes: "squash merge only", "no `any` in TS", "always conventional commits",
        "bullets > paragraphs", "aisle seat always", "halal only when suggesting restaurants"."""
        labeled = self._labeled_rule(sent, question_from)
        if labeled:
            return labeled
        facts = []
        previous: list[Token] = []  # "grams and millilitres, never cups": one rule, said in two pieces
        for piece in pieces(sent, cut_plus=False, cut_colon=True):
            if question_from is not None and piece[-1].i >= question_from:
                continue
            tokens = _without_please(trim(list(piece)))
            plain_before, previous = previous, tokens
            alone = [t.lower_ for t in tokens if not t.is_punct]
            merged = bool(
                tokens
                and (
                    tokens[0].lower_ in ("never", "no", "not")
                    or alone in (["always"], ["only"], ["every", "time"])
                )
                and plain_before
                and len(plain_before) <= 5
                and not any(t.pos_ in ("VERB", "AUX") for t in plain_before)
            )
            if merged:
                tokens = [*plain_before, *tokens]
            words = [t.lower_ for t in tokens]
            kept = {t.i for t in tokens}
            if len(words) < 2 or any(
                t.dep_ in ("nsubj", "nsubjpass") and t.head.i in kept and t.head.pos_ in ("VERB", "AUX")
                for t in tokens
            ):
                continue
            if any(t.pos_ in ("VERB", "AUX") and t.tag_ in ("VBD", "VBZ", "MD") for t in tokens):
                continue
            if words[0] == "no" and words[1] in (
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
            ):
                continue
            text = " ".join(words)
            over = "over" in words and 0 < words.index("over") < len(words) - 1
            over = over and tokens[words.index("over") - 1].pos_ in ("NOUN", "PROPN", "ADJ")
            if any(t.tag_ in ("VBN", "VBG") for t in tokens) and not any(
                p in text for p in ("from now on", "going forward")
            ):
                over = False
            marked = (
                merged
                or words[0] in ("no", "never", "always", "only")
                or words[-1] in ("only", "always", "never")
                or "only" in words[1:3]
                or ">" in words
                or over
                or (len(words) > 2 and words[1] in (":", "="))
                or any(p in text for p in ("from now on", "going forward", "every time", "by default"))
            )
            if not marked:
                continue
            scope = self.rule_scope(tokens)
            lemmas = {t.lemma_.lower() for t in tokens}
            commanded = any(_COMMAND.match(t.text) for t in tokens)
            if not commanded and not lemmas & (self.lex["code_noun"] | self.lex["answer_word"]) - {"me"}:
                if words[0] == "no" or not {"always", "only", "never"} & set(words):
                    continue  # "no fish either", "no dedicated ops person": said in passing
                scope = "user"  # "aisle seat always", "halal only": the person's own way
            body = plain(plain_before) + ", " + plain(previous) if merged else plain(tokens)
            label = self._note_label(sent, tokens[0].i)
            facts.append(
                self._rule_fact(
                    f"{label}: {body}" if label else body,
                    tokens,
                    scope,
                    list(piece),
                    tokens[0].i,
                    "rules.note",
                )
            )
        return facts

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
        return [self._rule_fact(body, tokens, scope, list(sent), colon.i, "rules.note")]

    def rule_scope(self, tokens: list[Token]) -> str:
        """A rule about how the assistant answers or talks to the user is the user's; one about the
        code, the repo or the team's work is the project's."""
        lex = self.lex
        user = 0.0
        project = 0.0
        answers = lex["answer_word"] - {"me"}
        for token in tokens:
            lemma, lower = token.lemma_.lower(), token.lower_
            if lower in answers or lemma in answers:
                user += 1.5  # how answers look is said of answers; a code word nearby is usually context
            if lower in ("i", "i'm") and token.dep_ in ("nsubj", "nsubjpass"):
                user += 1  # "on fridays i eat fish tho": about the speaker's own life
            if lower == "me":
                governor = token.head.lemma_.lower()
                user += (
                    2
                    if governor
                    in ("for", "give", "show", "write", "send", "explain", "answer", "reply", "with", "to")
                    else 0.5
                )
            if token._.tech is not None:
                if self.vocab.slot(token._.tech).scope == "user":
                    user += 2
                else:
                    project += 1
            if (
                lemma in lex["code_noun"]
                or lower in lex["code_noun"]
                or "/" in lower
                or lower.startswith("`")
                or _COMMAND.match(token.text)
            ):
                project += 1
        if any(
            t.lower_ in lex["language_name"] and t.i > 0 and t.doc[t.i - 1].lower_ in ("in", "auf")
            for t in tokens
        ):
            user += 2
        return "user" if user > project else "project"

    def _rule_fact(
        self, body: str, tokens: list[Token], scope: str, source: list[Token], anchor: int, reader: str
    ) -> Fact:
        key, value = self._rule_slot(tokens, scope)
        body = _FIRST_PERSON_WORDS.sub(lambda m: _THIRD_PERSON[m.group(0).lower()], body)
        text = body if body.startswith(SUBJECT_MARK) else f"{SUBJECT_MARK} rule: {sentence(body)}"
        return Fact(
            kind="procedural" if scope == "project" or key is None else "semantic",
            scope=scope,
            key=key,
            value=value or plain(tokens),
            text=sentence(text) if key is None else self._slot_text(key, value or "", text),
            span=plain(source),
            reader=reader,
            confidence=0.85,
            anchor=anchor,
        )

    def _rule_slot(self, tokens: list[Token], scope: str) -> tuple[str | None, str | None]:
        words = [t.lower_ for t in tokens]
        if scope == "user":
            for i, word in enumerate(words):
                if word in self.lex["language_name"] and i > 0 and words[i - 1] in ("in", "auf"):
                    return "response_language", tokens[i].text
            for token in tokens:
                if token.lower_ in _LENGTHS and token.head.lemma_.lower() in (
                    self.lex["answer_word"] | {"keep", "be"}
                ):
                    return "response_length", token.text
        for i, word in enumerate(words):
            if word in ("tabs", "spaces", "tab", "space") or re.match(r"^\d+-space", word):
                start = i
                while start > 0 and (
                    words[start - 1].isdigit() or words[start - 1] in ("-", "four", "two", "eight")
                ):
                    start -= 1
                end = i + 1
                if end < len(words) and words[end] in ("indentation", "indent", "indents", "indenting"):
                    end += 1
                return "indentation", joined(tokens[start:end])
        return None, None

    @staticmethod
    def _slot_text(key: str, value: str, text: str) -> str:
        if key == "response_language":
            return f"{SUBJECT_MARK} wants replies in {value}."
        if key == "response_length":
            return f"{SUBJECT_MARK} wants replies kept {value}."
        if key == "indentation":
            return f"{SUBJECT_MARK} indents code with {value}."
        return text

    def preference(self, clause: Clause) -> list[Fact]:
        """ "I prefer concise bullet points", "I like my answers short", "I'd rather stick to trains"."""
        head = clause.head
        rather = any(c.lower_ == "rather" for c in head.children) and clause.modal in ("'d", "d", "would")
        if rather and clause.about == "speaker" and clause.mood == "statement" and not clause.conditional:
            after = [t for t in trim(clause.tokens) if t.i > head.i]
            value = plain(after) or head.text
            text = f"{SUBJECT_MARK} prefers to {plain([head, *after])}."
            return [
                Fact(
                    "semantic",
                    "user",
                    None,
                    value,
                    text,
                    plain(clause.tokens),
                    "rules.preference",
                    0.8,
                    head.i,
                )
            ]
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
        if head.lemma_.lower() in ("like", "love", "want", "need") and not self._shapes_output(clause):
            return []
        xcomp = any(c.dep_ == "xcomp" and c.pos_ == "VERB" for c in head.children)
        if clause.tense == "future" or (xcomp and head.lemma_ != "prefer"):
            return []
        obj = [t for t in _contiguous(clause) if t.i > head.i]
        if not obj:
            return []
        value = plain(obj)
        scope = "user" if clause.about == "speaker" else "project"
        key, slot_value = self._rule_slot(obj, "user")
        text = third_person(trim(_contiguous(clause)), clause.subject)
        if key == "indentation" and slot_value is not None:
            text = self._slot_text(key, slot_value, text)
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
        soft = _SOFT_EXCEPTION.search(lowered) and (qualifier or re.match(r"^\W*(?:but\s+)?for\s", lowered))
        if text.endswith("?") or not (_EXCEPTION.search(lowered) or soft):
            return []
        if any(c.reported or c.hedged for c in clauses if c.parent is None):
            return []
        tokens = trim([t for t in sent if not t.is_space])
        if len(tokens) < 3:
            return []
        where = qualifier or _exception_scope(sent)
        body = _EXCEPTION_LEAD.sub("", joined(tokens)).strip(" ,:;\u2014\u2013-")
        if not body:
            return []
        body = _FIRST_PERSON_WORDS.sub(lambda m: _THIRD_PERSON[m.group(0).lower()], body)
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


def _has_to(head: Token) -> bool:
    """ "branch names have to be ...", "PRs need to pass CI": an obligation without a modal."""
    if head.dep_ == "xcomp" and head.head.lemma_ in ("have", "need", "got"):
        return True
    return head.lemma_ in ("have", "need") and any(c.dep_ == "xcomp" and c.i > head.i for c in head.children)


def _contiguous(clause: Clause) -> list[Token]:
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


def _without_please(tokens: list[Token]) -> list[Token]:
    return trim([t for t in tokens if t.lower_ not in ("please", "pls", "plz", "kindly")])


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
    if subject is not None and subject.lower_ not in DEICTIC and subject.pos_ != "PRON":
        return joined([t for t in subject.subtree if t.dep_ != "det"])
    return None
