"""Cutting a sentence into clauses: one per verb that heads one (the root, verbs joined by "and",
complement and adverbial clauses), each with its own tokens, its parent, and its features."""

from __future__ import annotations

from extractors.clauses.features import FeatureReader
from extractors.clauses.model import SUBJECT_DEPS, Clause, Span, Token
from extractors.clauses.who import refers
from extractors.render import glued_symbol

_CLAUSE_DEPS = frozenset({"ROOT", "conj", "ccomp", "advcl", "parataxis"})
_BOUNDARY = frozenset({",", ";", ":", "\u2014", "\u2013", "-", "so", "but", "and", "then", "(", ")"})


class ClauseReader(FeatureReader):
    """The clauses of a sentence, described; who "he" or "she" is; where a question starts."""

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
        stray = self._noun_read_as_verb(sentence)
        if stray is not None:
            heads = [h for h in heads if h.i != stray.i]
        head_ids = {t.i for t in heads}
        clauses: dict[int, Clause] = {}
        for head in heads:
            tokens = self._own_tokens(head, head_ids)
            if not tokens:
                continue
            if stray is not None and tokens[0].i == stray.i + 1:
                tokens.insert(0, stray)
            clauses[head.i] = Clause(head=head, tokens=tokens, subject=None, about="none", mood="statement")
        for clause in clauses.values():
            parent_head = self._governing_head(clause.head, head_ids)
            if parent_head is not None and parent_head.i in clauses:
                clause.parent = clauses[parent_head.i]
                clause.parent.children.append(clause)
        ordered = sorted(clauses.values(), key=lambda c: c.start)
        question_from = self._question_segment(sentence)
        for clause in sorted(ordered, key=lambda c: _depth(c)):  # parents first: conjuncts inherit subjects
            self.describe(clause, sentence, question_from)
            # "we adopted a beagle last weekend, his name is Pickle": named earlier in the same sentence
            earlier = (
                self.kin_mention(sentence.doc[sentence.start : clause.start])
                if clause.start > sentence.start
                else None
            )
            if earlier is not None:
                referent = earlier
            if referent is not None and _names_it(clause.head):
                clause.referent = referent  # "we adopted a cat in march! named her Pixel"
            if (
                referent is not None
                and clause.subject is not None
                and (refers(clause.subject) or _named_with(referent, clause.subject))
            ):
                # "my husband flies there a lot, he's a pilot": he is the husband; "our two kids, Ada 9
                # and Tobi 4. Ada is allergic to tree nuts": Ada is one of the kids
                clause.about = "pet" if referent.lemma_.lower() in self.lex["pet_noun"] else "family"
                clause.referent = referent
                clause.reported = False
        for clause in sorted(ordered, key=lambda c: _depth(c)):
            # "thinking about moving from Heroku to Fly": what a plan or a guess governs is planned too
            parent = clause.parent
            if parent is not None and clause.head.dep_ in ("advcl", "ccomp", "xcomp"):
                if parent.subject is None and clause.head.i < parent.head.i:
                    continue  # "we adopted a beagle, so expect typos": said before an order, not under it
                if clause.head.i < parent.head.i and parent.about == "pointing":
                    continue  # "we upgraded to python 3.12 — that's probably why ...": "that" points back
                # "i hate mornings, i need two coffees to function": a plan after it does not reach back
                clause.planned |= parent.planned and clause.head.i > parent.head.i
                clause.hedged |= parent.hedged
                clause.conditional |= parent.conditional
        for clause in ordered:
            # "why does X rebuild when i touch a readme": what is asked about is asked too
            parent = clause.parent
            if parent is not None and parent.mood == "question" and clause.head.dep_ == "advcl":
                marks = {c.lower_ for c in clause.head.children if c.dep_ == "mark"}
                # ("moved to Austin last week, what's the deal with ...", "everyone calls me Seun, can
                # you help ...": told before the question, with no "when" or "if", and asking nothing)
                told_before = (
                    not marks
                    and clause.end <= parent.start
                    and (clause.head.tag_ == "VBD" or clause.subject is not None)
                )
                if not marks & {"since", "because", "as", "cause", "cuz", "coz"} and not told_before:
                    clause.mood = "question"
        return ordered

    def _noun_read_as_verb(self, sentence: Span) -> Token | None:
        """ "Commit messages follow conventional commits": the tagger took the first word for an order
        whose object is the rest; it names the subject of the clause after it."""
        root = sentence.root
        after = root.i + 1
        if root.i != sentence.start or root.tag_ not in ("VB", "VBP") or after >= sentence.end:
            return None
        if root.lower_ not in self.lex["code_noun"]:
            return None
        said = next((c for c in root.children if c.dep_ == "ccomp"), None)
        if said is None:
            return None
        subject = next((c for c in said.children if c.dep_ in SUBJECT_DEPS), None)
        if subject is None or subject.pos_ != "NOUN" or subject.left_edge.i != after:
            return None
        return root

    @staticmethod
    def _heads_clause(token: Token) -> bool:
        if token.dep_ == "ROOT":
            return True
        if token.dep_ not in _CLAUSE_DEPS:
            return False
        if token.pos_ in ("VERB", "AUX"):
            return True
        # "I'm vegan and my wife is a nurse": a conjunct with a subject of its own
        return any(c.dep_ in SUBJECT_DEPS for c in token.children)

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
            if tokens[-1].text == ")" and any(t.text == "(" for t in tokens):
                break  # "(career switcher, 39)": an aside kept whole
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

    def question_start(self, sentence: Span) -> int | None:
        found = self._question_segment(sentence)
        return found if found is not None else _unmarked_question(sentence)

    @staticmethod
    def _question_segment(sentence: Span) -> int | None:
        """Where the asked part of a sentence ending in "?" begins: after its last clause boundary."""
        tokens = [t for t in sentence if not t.is_space]
        while tokens and tokens[-1].is_punct and tokens[-1].text not in ("?",):
            tokens.pop()
        if not tokens or "?" not in tokens[-1].text:
            return None
        start: int = tokens[0].i
        before = start
        for token in tokens[:-1]:
            if (token.lower_ in _BOUNDARY and token.dep_ in ("punct", "cc", "prep")) or token.text in (
                ",",
                ";",
                "\u2014",
            ):
                before, start = start, token.i + 1
        conjoined = start - 1 > before and sentence.doc[start - 1].is_alpha
        if conjoined and _asks_a_way(sentence.doc[before : start - 1]):
            return before  # "quickest way to dedupe a list in python but keep the order?": one question
        return start


def _names_it(head: Token) -> bool:
    """ "named her Pixel", "called him Rex": a name given to someone said before."""
    return head.lemma_.lower() in ("name", "call") and any(
        c.dep_ == "dobj"
        and (c.lower_ in ("her", "him", "it") or any(p.lower_ in ("her", "his") for p in c.children))
        for c in head.children
    )


def _depth(clause: Clause) -> int:
    depth, parent = 0, clause.parent
    while parent is not None:
        depth, parent = depth + 1, parent.parent
    return depth


# how a question opens when it has no question mark ("whats the shortcut for ...")
QUESTION_WORDS = frozenset({"why", "how", "what", "whats", "what's", "which", "where", "who"})
_ASKING_AUX = frozenset({"is", "are", "do", "does", "did", "can", "could", "should", "would", "will"})
# "... any clue", "... any ideas": what ends a problem told as a question
_PLEAS = frozenset({"clue", "clues", "idea", "ideas", "thoughts", "tips", "suggestions", "pointers", "help"})
_OPENERS = frozenset(
    {
        "wait",
        "ok",
        "okay",
        "so",
        "hey",
        "hmm",
        "um",
        "btw",
        "quick",
        "q",
        "also",
        "and",
        "but",
        "ugh",
        "argh",
        "oof",
    }
)


def _asks_a_way(words: Span) -> bool:
    """ "best way to ...", "quickest way to ...", "how to ...": a question that needs no verb."""
    said = [t.lower_ for t in words if not t.is_punct]
    while said and said[0] in _OPENERS:
        said = said[1:]
    if said[:2] == ["how", "to"]:
        return True
    way = next((n for n, w in enumerate(said[:4]) if w in ("way", "ways")), None)
    return way is not None and said[way + 1 : way + 2] == ["to"] and not {"i", "we"} & set(said[:way])


def _unmarked_question(sentence: Span) -> int | None:
    """Where a question asked without "?" begins: "quick answer pls: how to undo the last commit",
    "wait is 0.1 + 0.2 == 0.3 false in every language", "why does `npm test` hang"; a problem told
    and asked about at its end ("uart dma keeps dropping bytes any clue") is asked whole."""
    tokens = [t for t in sentence if not t.is_space]
    starts = [0] + [
        n + 1 for n, t in enumerate(tokens[:-1]) if t.text in (",", ";", ":", "\u2014", "\u2013", "-")
    ]
    last = [t.lower_ for t in tokens if not t.is_punct][-3:]
    pleads = len(last) >= 2 and (
        (last[-2] == "any" and last[-1] in _PLEAS)
        or (last[-2] in ("ideas", "thoughts") and last[-1] == "anyone")
    )
    if pleads:
        return int(tokens[starts[-1]].i) if starts[-1] < len(tokens) else None
    for start in starts:
        words = [t for t in tokens[start:] if not t.is_punct]
        while words and words[0].lower_ in _OPENERS:
            words = words[1:]
        if len(words) < 3:
            continue
        first, second = words[0].lower_, words[1].lower_
        asks = (
            first in QUESTION_WORDS
            and (second in ("to", "s", "'s") or second in _ASKING_AUX or first in ("whats", "what's"))
        ) or (
            first in _ASKING_AUX
            and (words[1].pos_ in ("PRON", "NUM", "DET", "PROPN", "NOUN") or words[1]._.tech is not None)
            and second != "not"
        )
        if asks:
            return int(words[0].i)
    return None


def _named_with(referent: Token, subject: Token) -> bool:
    """A name given with the relative or pet just mentioned ("our two kids, Ada 9 and Tobi 4")."""
    return subject.pos_ == "PROPN" and any(
        t.pos_ == "PROPN" and t.text == subject.text and t.i != subject.i for t in referent.subtree
    )
