"""Rules said as statements: the team's habits ("we squash merge everything"), norms about the code
("`any` is banned", "branch names have to be ..."), what every one of a kind must do or does ("every
alert must link a runbook", "each service owns its own schema", "no PHI ever leaves our VPC") and
where it goes ("all async work goes through dramatiq")."""

from __future__ import annotations

import re

from extractors.clauses import Clause
from extractors.readers.common import DEICTIC, Token, goes_wrong
from extractors.readers.rules.facts import RuleBase
from extractors.render import plain, third_person

_UNIVERSAL = frozenset({"all", "every", "each", "any", "no"})
# what no one does that is no rule: "nobody notices", "nobody cares", "nobody's asked"
_NOT_DONE_TO_CODE = frozenset(
    {"be", "have", "notice", "care", "like", "want", "use", "read", "ask", "get", "need"}
)
# how work is routed: "all async work goes through dramatiq", "raw sql lives in /queries"
_ROUTING_VERBS = frozenset({"go", "live", "ship", "belong", "stay", "run", "land", "sit", "flow"})
_ROUTES = frozenset(
    {"in", "into", "through", "via", "to", "behind", "under", "on", "next", "beside", "alongside"}
)


# what a rule is called when it is said to be one: "our convention is snake_case for json fields"
_RULE_NOUNS = frozenset({"convention", "rule", "policy", "standard", "requirement", "norm", "guideline"})


class NormRules(RuleBase):
    """Rules said as statements rather than orders."""

    def _norm(self, clause: Clause, tokens: list[Token]) -> str | None:
        """A statement that is a rule: the team's habit, or a norm about the code."""
        lemma = clause.head.lemma_.lower()
        if lemma == "be" and not clause.negated and self.rule_slot(tokens, "project")[0] == "indentation":
            return plain(tokens)  # "the python code is 4 spaces": how the code is written
        named_rule = (
            clause.subject is not None
            and clause.subject.lemma_.lower() in _RULE_NOUNS
            # what the rule is, named: "snake_case", "conventional commits" (not "the rule is simple")
            and any(c.dep_ == "attr" or (c.dep_ == "acomp" and not c.is_alpha) for c in clause.head.children)
        )
        if lemma == "be" and named_rule and clause.about in ("project", "thing", "group"):
            return plain(tokens)  # "our convention is snake_case for json fields in the api"
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
        # "every PR links a Linear ticket": what every one of a kind does, said in the present
        done = clause.head.tag_ in ("VBZ", "VBP") and lemma not in (
            self.lex["trouble_verb"] | lex["cognition_verb"] | {"pass", "succeed", "work", "look", "seem"}
        )  # (not "all tests pass": how a run went)
        if (
            universal
            and clause.about in ("project", "thing")
            and (lemma in obligation or done)
            and not clause.negated
        ):
            return plain(tokens)  # "all public functions get docstrings", "every pub fn needs a doc comment"
        if self._said_of_all(clause) and (not clause.negated or _no_subject(clause)):
            return plain(tokens)  # "every alert must link a runbook", "nobody merges their own PR"
        if (
            clause.about == "group"
            and lemma in ("say", "write", "spell", "call")
            and clause.head.tag_ == "VBP"
            and not clause.negated
            and sum(t.text in ("'", '"', "`", "\u2018", "\u2019", "\u201c", "\u201d") for t in tokens) >= 2
        ):
            return third_person(tokens, clause.subject).rstrip(".")  # "we say 'sign in' not 'log in'"
        verbs = lex["plan_verb"] | lex["cognition_verb"] | lex["speech_verb"] | {"have", "be", "get"}
        if clause.about in ("project", "thing") and lemma in ("need", "have"):
            verbs = verbs - {"need", "have"}  # "every PR needs two approvals": an obligation
        if lemma in verbs and not (
            lemma == "be" and any(c.dep_ in ("acomp", "auxpass") for c in clause.head.children)
        ):
            return None
        if clause.subject is not None and clause.subject.lower_ in DEICTIC:
            return None
        if any(c.dep_ == "dobj" and c.lower_ in DEICTIC for c in clause.head.children):
            return None  # "we use it for everything"
        duty = clause.modal in ("must", "should", "shall") or _has_to(clause.head)
        if duty and clause.subject is None:
            return None  # "must be nice": said of nothing
        if clause.about == "group":
            return self._habit(clause, tokens, duty)
        if clause.about in ("project", "thing"):
            return self._code_norm(clause, tokens, duty)
        if clause.about == "you" and clause.standing:  # "you should always ...", not "you must eat well"
            return plain(
                [t for t in tokens if t.i > clause.subject.i] if clause.subject is not None else tokens
            )
        return None

    def _said_of_all(self, clause: Clause) -> bool:
        """A duty said of every one of a kind, whatever the kind: "every alert must link a runbook",
        "anything under billing/ needs two approvals", "each service needs its own dashboard"; or of
        no one: "nobody merges their own PR"."""
        subject = clause.subject
        if subject is None or clause.about not in ("project", "thing") or clause.head.tag_ == "VBD":
            return False
        lemma = clause.head.lemma_.lower()
        of_code = any(
            t._.tech is not None or "/" in t.text or t.lemma_.lower() in self.lex["code_noun"]
            for t in clause.tokens
        )
        if subject.lower_ in ("nobody", "noone") or (
            subject.lower_ == "one" and any(c.lower_ == "no" for c in subject.children)
        ):
            # "nobody merges their own PR"; not "nobody notices for weeks", "nobody has touched it since"
            return (
                clause.head.tag_ == "VBZ"
                and lemma not in self.lex["cognition_verb"] | self.lex["speech_verb"] | _NOT_DONE_TO_CODE
                and (of_code or any(c.dep_ == "prep" for c in clause.head.children))
            )
        if subject.lower_ == "nothing":
            # "nothing goes to prod after thursday 4pm", "nothing merges without a green build"; not
            # "nothing works on arm", "nothing happens"
            return (
                clause.head.tag_ == "VBZ"
                and lemma in _ROUTING_VERBS | {"merge", "deploy", "get"}
                and (of_code or any(t.lower_ in self.lex["project_noun"] for t in clause.tokens))
                and any(c.dep_ == "prep" for c in clause.head.children)
            )
        if subject.lemma_.lower() in self.lex["person_noun"] | self.lex["kin_noun"]:
            return False  # "every kid needs a nap"
        if (
            any(c.dep_ == "det" and c.lower_ == "no" for c in subject.children)
            and clause.head.tag_ in ("VBZ", "VBP")
            and lemma not in self.lex["cognition_verb"] | _NOT_DONE_TO_CODE | self.lex["trouble_verb"]
            and of_code
        ):
            return True  # "no PHI ever leaves our VPC", "no secret goes into git"
        every = any(c.dep_ in ("det", "predet") and c.lower_ in _UNIVERSAL - {"no"} for c in subject.children)
        # "PRs over 400 lines get bounced": a kind of the code said in the plural, without an article
        kind = (
            subject.tag_ == "NNS"
            and subject.lemma_.lower() in self.lex["code_noun"]
            and not any(c.dep_ in ("det", "poss") for c in subject.children)
        )
        if subject.lower_ in ("everything", "anything"):
            # "anything under billing/ needs two approvals", not "everything has to be gluten free"
            every = of_code
        duty = clause.modal in ("must", "should", "shall") or _has_to(clause.head)
        # "anything over 300 lines of diff gets split": what is done to every one of a kind
        done_to = clause.head.tag_ == "VBN" and any(
            c.dep_ == "auxpass" and c.lemma_.lower() == "get" and c.tag_ in ("VBZ", "VBP")
            for c in clause.head.children
        )
        return (every and (duty or done_to or lemma in ("need", "require"))) or (kind and done_to)

    def _habit(self, clause: Clause, tokens: list[Token], duty: bool) -> str | None:
        """ "we squash merge everything", "we never push to main": the team's habit, as a rule."""
        lex = self.lex
        words = {t.lower_ for t in tokens}
        lemmas = {t.lemma_.lower() for t in tokens}
        # "we don't use classes in python here": what the team does not do, as a matter of course
        # (but "we don't use docker at all", "we dont use jest anymore": a product not used is no rule,
        # and "not that we use either", "we dont merge otherwise" say nothing of their own)
        practice = (
            clause.negated
            and clause.head.lemma_.lower() in lex["practice_verb"]
            and not any(t._.tech for c in clause.head.children if c.dep_ == "dobj" for t in c.subtree)
            and not {t.lower_ for t in clause.tokens}
            & {"anymore", "otherwise", "either", "it", "that", "them", "this"}
        )
        if clause.negated and not words & {"never", "ever"} and not practice:
            return None  # ("we don't ever force-push to main": never)
        if clause.head.lemma_.lower() in ("follow", "adhere") and clause.head.tag_ in ("VBP", "VB"):
            return third_person(tokens, clause.subject).rstrip(".")  # "we follow standard js style"
        if (
            any(t._.tech for t in tokens)
            and not duty
            and not clause.standing
            and not practice
            and not (lemmas & lex["code_noun"])
        ):
            return None  # "we use postgres": the stack reader's
        if clause.head.tag_ not in ("VBP", "VB") and not duty:
            return None
        if not (
            lemmas & lex["code_noun"]
            or duty
            or clause.standing
            or practice
            or words & {"everything", "all", "only"}
            or naming_style(tokens)
        ):
            return None
        return third_person(tokens, clause.subject).rstrip(".")

    def _code_norm(self, clause: Clause, tokens: list[Token], duty: bool) -> str | None:
        """ "`any` is banned", "branch names have to be ...": a norm about the code."""
        lemma = clause.head.lemma_.lower()
        lex = self.lex
        subject = clause.subject
        normed = lemma in lex["norm_verb"] or any(
            t.lemma_.lower() in lex["norm_verb"] for t in clause.head.children if t.dep_ in ("acomp", "attr")
        )
        # ("commit messages follow ...": the tagger took "commit" for a verb, but it names the subject)
        named_before = [subject.doc[subject.i - 1]] if subject is not None and subject.i > 0 else []
        about_code = subject is not None and any(
            t.lemma_.lower() in lex["code_noun"] or t.lower_ in lex["code_noun"]
            for t in [*subject.subtree, *named_before]
            if t.is_alpha
        )
        passive = any(c.dep_ == "auxpass" for c in clause.head.children)
        named = subject is not None and any(
            t._.tech is not None
            or re.search(r"[/*_.`]", t.text)
            or t.lemma_.lower() in lex["code_noun"]
            or t.lower_ in lex["code_noun"]
            for t in subject.subtree
        )
        # "the build always fails on arm", "pants keeps re-resolving the lockfile": a complaint
        trouble = (
            (lemma in self.lex["trouble_verb"] or goes_wrong(clause.head)) and not (duty or normed)
        ) or (lemma == "keep" and any(c.dep_ == "xcomp" and c.tag_ == "VBG" for c in clause.head.children))
        # "`any` is banned", "secrets are kept in vault", "prettier enforces it"; not "the kids keep me busy"
        if (
            (duty or normed or clause.standing)
            and not trouble
            and (about_code or (normed and (passive or named)))
        ):
            return plain(tokens)
        permitted = (
            clause.modal in ("can", "may")
            and subject is not None
            and not clause.negated
            and lemma not in ("be", "get", "have", "take", "break", "fail", "crash", "hang")
        )  # a permission to do, not what may happen ("the tests can be flaky")
        if permitted and named:
            return plain(
                tokens
            )  # "branches named hotfix/* can go straight to main", "the boot parser may malloc"
        habitual = ("live", "go", "follow", "use", "stay", "need", "carry", "belong", "start", "end")
        if about_code and clause.head.tag_ in ("VBP", "VBZ") and lemma in habitual:
            return plain(tokens)
        owned = subject is not None and any(
            c.lower_ in ("my", "his", "her", "their") for c in subject.children
        )
        # (not "default is fine": how a thing is; not "the build always fails on arm": a complaint)
        if (
            clause.standing
            and clause.head.tag_ in ("VBP", "VBZ")
            and subject is not None
            and not (owned or trouble or lemma == "be")
            and not self._asks_for_help(clause)
        ):
            return plain(tokens)  # "UI texts always use informal du", "releases always go out on tuesdays"
        if clause.head.tag_ in ("VBP", "VBZ") and self._routed(clause):
            return plain(tokens)  # "all async work goes through dramatiq actors", "raw sql lives in /queries"
        return None

    def _asks_for_help(self, clause: Clause) -> bool:
        """ "the remote cache never hits on the build step, am i missing something": what a thing
        always or never does, told on a line that asks for help with it, is the problem, not a rule."""
        return any(t.text == "?" or t.lower_ in self.lex["help_word"] for t in clause.head.doc)

    def _routed(self, clause: Clause) -> bool:
        """Where every one of a kind goes, said of a named place in the code or the stack: "all the
        gameplay numbers go in balance.json"; not "the kids go to school", "my tests go red"."""
        subject = clause.subject
        if subject is None or clause.head.lemma_.lower() not in _ROUTING_VERBS:
            return False
        every = subject.lower_ in ("everything", "anything") or any(
            c.dep_ in ("det", "predet") and c.lower_ in _UNIVERSAL - {"no"} and c.i < subject.i
            for c in subject.subtree  # ("all async work": the parser hangs "all" on "async")
        )
        named = any(t._.tech is not None or re.search(r"[/`]", t.text) for t in subject.subtree)
        # "tests sit next to the source file": a kind of the code, in the plural, without an article
        kind = (
            subject.tag_ == "NNS"
            and subject.lemma_.lower() in self.lex["code_noun"]
            and not any(c.dep_ in ("det", "poss") for c in subject.children)
        )
        if not (every or named or kind):
            return False
        return any(
            c.dep_ == "prep"
            and c.lower_ in _ROUTES
            and any(
                t._.tech is not None
                or re.search(r"[/`]|\w\.\w", t.text)
                or t.lemma_.lower() in self.lex["code_noun"]
                for t in c.subtree
            )
            for c in clause.head.children
        )


def _no_subject(clause: Clause) -> bool:
    """ "no PHI ever leaves our VPC": negated by its subject's "no", a rule all the same."""
    subject = clause.subject
    return subject is not None and any(c.dep_ == "det" and c.lower_ == "no" for c in subject.children)


def _has_to(head: Token) -> bool:
    """ "branch names have to be ...", "PRs need to pass CI": an obligation without a modal."""
    if head.dep_ == "xcomp" and head.head.lemma_ in ("have", "need", "got"):
        return True
    return head.lemma_ in ("have", "need") and any(c.dep_ == "xcomp" and c.i > head.i for c in head.children)


# the ways to write a name: "snake_case", "camelCase", "kebab-case", "PascalCase"
_CASES = frozenset({"snake", "camel", "kebab", "pascal", "screaming", "lower", "upper", "title"})
_STYLED = frozenset({"snake_case", "camelcase", "pascalcase", "kebabcase", "screaming_snake_case"})


def naming_style(tokens: list[Token]) -> bool:
    """Whether the words name a way of writing names ("we use snake_case in json responses")."""
    doc = tokens[0].doc if tokens else None
    for t in tokens:
        if t.lower_ in _STYLED:
            return True
        if doc is not None and t.lower_ == "case" and t.i > 1:
            before = doc[t.i - 2] if doc[t.i - 1].text in ("-", "_") else doc[t.i - 1]
            if before.lower_ in _CASES:
                return True
    return False
