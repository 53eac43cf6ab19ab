"""Who in the speaker's life a clause is about, when it is not the speaker: "my son Leo has a severe
peanut allergy" is the son's allergy, kept in the user's scope under the son's name."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from extractors.clauses import Clause
from extractors.readers.common import Token, slug


@dataclass(frozen=True, slots=True)
class Relative:
    noun: str  # "son", "dog"
    name: str | None  # "Leo"

    @property
    def phrase(self) -> str:
        return self.noun if self.name is None else f"{self.noun} {self.name}"

    @property
    def slot(self) -> str:
        """A key prefix of the relative's own: the son's allergy does not take the speaker's slot, nor
        one kid's the other's."""
        return self.noun if self.name is None else f"{self.noun}:{slug(self.name)}"


def relative_of(clause: Clause, lex: Any) -> Relative | None:
    """The relative or pet a family or pet clause speaks of, with their name when it is said."""
    token = clause.referent or clause.subject
    if token is None:
        return None
    kin = lex["kin_noun"] | lex["pet_noun"]

    def is_kin(t: Token) -> bool:
        return t.lemma_.lower() in kin or t.lower_ in kin

    subject = clause.subject
    if clause.referent is not None and subject is not None and subject.pos_ == "PROPN" and is_kin(token):
        return Relative(token.lemma_.lower(), subject.text)  # "our two kids, Ada and Tobi. Ada is ..."
    if is_kin(token):
        name = next(
            (c for c in token.children if c.dep_ in ("appos", "compound") and c.pos_ == "PROPN"), None
        )
        return Relative(token.lower_, name.text if name is not None else None)
    # "our dog Rex is allergic to chicken": the parser makes the name the subject, the kind its compound
    kind = next((c for c in token.children if c.dep_ in ("compound", "appos", "nmod") and is_kin(c)), None)
    if kind is not None and token.pos_ == "PROPN":
        return Relative(kind.lower_, token.text)
    return None
