"""An agent's report, read as a whole sentence: "I migrated the test config from jest to vitest",
"Checked the schema: user ids are ULIDs, not UUIDs", "renovate is set up now — it batches updates
weekly". The clause readers give the slots a report fills (the test runner, the ORM); this reader
keeps what the sentence says beside them, in the agent's words, so the detail that fills no slot
(a prefix, a threshold, a target SDK) is not lost. Advice, plans, questions, explanations and the
outcome of this session's run give nothing."""

from __future__ import annotations

import re

from extractors.agent_turns import VERIFIED, advises, past_of
from extractors.clauses import Clause
from extractors.readers.common import DEICTIC, Fact, ReaderBase, Span, Token, joined
from extractors.render import SUBJECT_MARK, sentence, trim

# what opens a report and says nothing itself: "Done.", "ok,", "All set —", "Good news:"
_LEAD = re.compile(
    r"^(?:(?:ok(?:ay)?|done|alright|all\s+set|all\s+done|good\s+news|update|great|sure|perfect|"
    r"fixed|finished|yep|yes)\s*[.,:!\u2014\u2013-]+\s*)+",
    re.I,
)
# a verification that heads a state: "Checked the schema: ...", "Verified that ..."
# changes an agent makes to how a project is set up (the lexicon's report verbs, and these)
_CHANGES = frozenset(
    {
        "create",
        "delete",
        "drop",
        "enforce",
        "extract",
        "split",
        "merge",
        "refactor",
        "rewrite",
        "standardize",
        "standardise",
        "consolidate",
        "register",
        "schedule",
        "raise",
        "lower",
        "increase",
        "decrease",
        "limit",
        "turn",
        "hook",
        "gate",
        "route",
        "store",
        "version",
        "lock",
        "cap",
        "tag",
        "document",
    }
)
# one-off work on the task at hand, not a change of how the project is
_ONE_OFF = frozenset({"fix", "debug", "investigate", "look", "find", "notice", "see", "try", "reproduce"})
_PLAN = frozenset({"will", "'ll", "gonna", "shall", "next", "later", "plan", "going"})
_ADVICE = frozenset({"recommend", "suggest", "consider", "option", "alternatively", "alternative", "if"})
_MODALS = frozenset({"should", "could", "might", "may", "would", "can", "must", "'d"})
# the session's own run: "All 142 tests pass", "Build is green"
_OUTCOME = frozenset({"pass", "passes", "passing", "green", "red", "fail", "fails", "failing", "succeed"})
_STATE_MARKS = ("now", "no longer", "anymore", "set up", "in place", "from now")


class ReportSentences(ReaderBase):
    """Whole-sentence reports of an agent's changes and checks (assistant turns only)."""

    def report_sentence(self, sent: Span, clauses: list[Clause]) -> list[Fact]:
        tokens = [t for t in sent if not t.is_space]
        text = sent.text.strip()
        if len(tokens) < 4 or text.endswith("?"):
            return []
        # what follows "; ", " — " or ", so" is a consequence ("..., so the upload should be accepted"):
        # its modals and conditions do not make the report advice
        said = _before_consequence(tokens)
        words = {t.lower_ for t in said}
        if words & _PLAN or advises(said, _ADVICE | self.lex["advice_word"]):
            return []
        if {"you", "u"} & words and "now" not in words:
            return []  # "you can run ...", "if you want ...": advice to the user
        main = [c for c in clauses if c.parent is None] or clauses
        before = [c for c in clauses if c.head.i <= said[-1].i]
        if not main or main[0].mood in ("question", "imperative") or any(c.modal for c in before):
            return []
        start = _after_lead(tokens)
        verified = self._verified_at(tokens[start:])
        if verified is not None:
            body = tokens[start + verified :]
            did = False
        else:
            body = tokens[start:]
            did = self._agent_did(body, clauses)
            if not did and not self._says_state(body, main):
                return []
        if len(body) < 3 or _only_outcome(body) or not self._says_something(body):
            return []
        if did and _counted_work(body):
            return []  # "Updated 14 downstream refs", "fixed three deprecated APIs": the task's chores
        if _still_works(sent):
            return []  # "the export presets still work": checked unchanged, nothing new to keep
        return [_report_fact(body, did)]

    def _verified_at(self, tokens: list[Token]) -> int | None:
        """Where the state starts after "Checked the schema:" / "Confirmed that"; None without one."""
        if len(tokens) > 1 and tokens[0].lower_ in ("i", "i've", "we"):
            tokens = tokens[1:]  # "I checked the Dockerfile: ..."
            skipped = 1
        else:
            skipped = 0
        if not tokens or not (
            (tokens[0].lemma_.lower() in VERIFIED and tokens[0].tag_ in ("VBD", "VBN"))
            or past_of(tokens[0].lower_, VERIFIED)  # ("Checked `template.yaml`:", tagged a name)
        ):
            return None
        for n, token in enumerate(tokens[:12]):
            if token.text in (":", "\u2014", "-", "\u2013") or (token.lower_ == "that" and n <= 2):
                return skipped + n + 1
        return None

    def _agent_did(self, body: list[Token], clauses: list[Clause]) -> bool:
        """ "I migrated ...", "Upgraded X to 3.2", "we've moved ...": a change the agent made."""
        first = body[0] if body else None
        if first is not None and first.tag_ in ("VBD", "VBN") and self._change_verb(first.lemma_):
            return True  # "Added Biome as the linter ...", however it parsed
        for clause in clauses:
            head = clause.head
            if head.lemma_.lower() in _ONE_OFF or clause.negated or clause.mood == "question" or clause.modal:
                continue
            subject = clause.subject
            by_agent = subject is None or subject.lower_ in ("i", "we")
            if by_agent and self._change_verb(head.lemma_) and head.tag_ in ("VBD", "VBN"):
                return True
        return False

    def _change_verb(self, lemma: str) -> bool:
        lemma = lemma.lower()
        return lemma in self.lex["report_verb"] or lemma in _CHANGES

    def _says_state(self, body: list[Token], main: list[Clause]) -> bool:
        """ "the API now versions by URL prefix", "renovate is set up now", "no longer in .env"."""
        said = " ".join(t.lower_ for t in body)
        if not any(re.search(rf"\b{mark}\b", said) for mark in _STATE_MARKS):
            return False
        if "from now" in said:
            return False  # "from now on, ...": an order
        clause = main[0]
        subject = clause.subject
        if subject is not None and subject.lower_ in ("you", "u", "i"):
            return False
        return clause.tense in ("present", "perfect") or any(
            c.dep_ == "auxpass" for c in clause.head.children
        )

    def _says_something(self, body: list[Token]) -> bool:
        """Something a later session can use: a product, a name, a number, a path, a setting."""
        content = [t for t in body if not t.is_punct and t.lower_ not in DEICTIC]
        if not any(t.pos_ in ("NOUN", "PROPN", "NUM", "X") for t in content):
            return False
        return (
            any(
                t._.tech is not None
                or t.pos_ in ("PROPN", "NUM")
                or any(ch.isdigit() for ch in t.text)
                or re.search(r"[./_`:=%]", t.text)
                or (t.pos_ == "NOUN" and t.lower_ not in self.known_words)
                for t in content
            )
            or len(content) >= 6
        )


def _report_fact(body: list[Token], did: bool) -> Fact:
    """The report in the third person: the agent is "the agent", the user's project "the project's"."""
    body = trim(body)
    said = joined(body)
    if said.count("(") > said.count(")"):
        said += ")"  # "stored as CHAR(26)": the close was trimmed as punctuation
    said = re.sub(r"\b(?:I've|I have)\b", "the agent has", said)
    said = re.sub(r"\b(?:I'd|I)\b", "the agent", said)
    said = re.sub(r"\b(?:we've|we have)\b", "the agent has", said, flags=re.I)
    said = re.sub(r"^we\b", "the agent", said, flags=re.I)
    said = re.sub(r"\byour\b", "the project's", said, flags=re.I)
    said = re.sub(r"\bmy\b", "the agent's", said, flags=re.I)
    first = body[0]
    if did and first.tag_ in ("VBD", "VBN"):
        said = f"the agent {said[:1].lower()}{said[1:]}"  # "Upgraded Spring Boot to 3.2"
    elif (
        first.pos_ not in ("PROPN",) and not first.text.isupper() and first.text[1:] == first.text[1:].lower()
    ):
        said = said[:1].lower() + said[1:]
    return Fact(
        kind="semantic",
        scope="project",
        key=None,
        value=said.rstrip(" .;,"),
        text=sentence(f"{SUBJECT_MARK}: {said}"),
        span=joined(body),
        reader="report.sentence",
        confidence=0.7,
        anchor=first.i,
    )


def _after_lead(tokens: list[Token]) -> int:
    """The index after an opening "Done." / "ok," / "All set —"."""
    text = "".join(t.text_with_ws for t in tokens)
    match = _LEAD.match(text)
    if not match:
        return 0
    consumed = match.end()
    for n, token in enumerate(tokens):
        if token.idx - tokens[0].idx >= consumed:
            return n
    return len(tokens)


def _before_consequence(tokens: list[Token]) -> list[Token]:
    for n, token in enumerate(tokens[3:], start=3):
        if token.text in (";", "\u2014", "\u2013") or (
            token.text == "," and n + 1 < len(tokens) and tokens[n + 1].lower_ in ("so", "which")
        ):
            return tokens[:n]
    return tokens


def _only_outcome(body: list[Token]) -> bool:
    """ "All 142 tests pass", "Build is green": the outcome of this run, nothing lasting."""
    words = {t.lower_ for t in body}
    return bool(words & _OUTCOME) and len([t for t in body if not t.is_punct]) <= 6


def _still_works(sent: Span) -> bool:
    """ "USB flashing still works", "the old presets still build": what a check found unchanged."""
    root = sent.root
    return root.lemma_.lower() in ("work", "pass", "build", "run", "compile") and any(
        c.lower_ == "still" for c in root.children
    )


def _counted_work(tokens: list[Token]) -> bool:
    """An action whose object is counted and names nothing lasting: "updated 14 downstream refs"."""
    objects = [
        t
        for t in tokens
        if (t.dep_ == "dobj" and t.head.pos_ == "VERB") or (t.dep_ == "ROOT" and t.pos_ == "NOUN")
    ]  # ("Updated 14 downstream refs": parsed as a noun phrase)
    return bool(objects) and all(
        any(c.dep_ == "nummod" for c in o.children) and not any(t._.tech for t in o.subtree) for o in objects
    )
