"""Shapes of language learned in round thirteen (bench/RESULTS.md): each test has a case that must be
read and one that must not. A program named in a sentence, an event one had, a habit the tagger
took for a past, names set after one's pets, a relative's allergy, a banned thing of the trade,
states said as nouns, and learning with the "I" left out."""

from __future__ import annotations

from extractors import ClauseExtractor
from tests.test_extraction import facts, texts


def keys(extractor: ClauseExtractor, text: str, role: str = "user") -> list[str | None]:
    return [key for key, _ in facts(extractor, text, role)]


def commands(extractor: ClauseExtractor, text: str, role: str = "user") -> list[str]:
    return [value for key, value in facts(extractor, text, role) if (key or "").endswith("_command")]


def test_a_program_named_in_a_sentence_is_no_command(extractor: ClauseExtractor) -> None:
    for said in (
        "the android build is black screen after the splash, no idea why",
        "make lint runs ruff and mypy together and it passes on my machine",
        "we still use jest, the vitest move keeps slipping",
        "eslint enforces that already so dont bother",
    ):
        found = commands(extractor, said)
        assert not [c for c in found if c.split()[-1] in ("screen", "together", "move", "enforces")], said
    assert "black --check ." in commands(extractor, "format check is `black --check .`")
    assert ("deploy_command", "./scripts/release.sh prod") in facts(
        extractor, "to deploy we run ./scripts/release.sh prod from main"
    )


def test_an_event_one_had_is_an_episode(extractor: ClauseExtractor) -> None:
    said = "I had hip surgery in november so no hiking for a while"
    assert any(t.endswith("had hip surgery in november.") for t in texts(extractor, said))
    assert texts(extractor, "we had a meeting in march about the schema") == []


def test_a_habit_is_the_present(extractor: ClauseExtractor) -> None:
    # the tagger takes "book" after "always" for a past tense
    said = "I always book window seats on long flights, helps me sleep"
    assert any("always books window seats" in t for t in texts(extractor, said))
    assert texts(extractor, "I always forget my keys") == []


def test_names_set_after_ones_pets_are_theirs(extractor: ClauseExtractor) -> None:
    said = "we rescued two greyhounds last spring, Pepper and Juno, and they hog the couch"
    assert ("pet:greyhounds", "Pepper and Juno") in facts(extractor, said)
    dash = "adopted 3 hens from a farm in may — Dotty, Mabel and Fern. coop tips?"
    assert ("pet:hens", "Dotty, Mabel and Fern") in facts(extractor, dash)
    assert not [k for k in keys(extractor, "our dog, Biscuit loves the beach") if k == "pet:dog"]
    # a product spelled like a pet's name is still a product where no pet is named
    assert "infrastructure_tool" in keys(extractor, "we moved our infra code from terraform to tofu")


def test_a_relatives_allergy_is_theirs(extractor: ClauseExtractor) -> None:
    said = "my husband Tom is allergic to shellfish so we never cook it"
    allergies = [k for k in keys(extractor, said) if (k or "").endswith("allergy:shellfish")]
    assert allergies and all(k.startswith("husband") for k in allergies if k)


def test_a_banned_thing_of_the_trade_is_a_rule(extractor: ClauseExtractor) -> None:
    said = "no heap allocation inside ISRs - hard rule on this firmware"
    assert any("No heap allocation inside ISRs" in t for t in texts(extractor, said))
    assert texts(extractor, "no luck with the usb driver on linux") == []


def test_a_state_said_as_a_noun_is_no_fact(extractor: ClauseExtractor) -> None:
    for said in ("honestly I'm a total wreck before exams", "my calendar is pure chaos this month"):
        assert texts(extractor, said) == [], said
    assert any("is a night owl" in t for t in texts(extractor, "I'm a night owl"))


def test_learning_with_the_i_left_out(extractor: ClauseExtractor) -> None:
    said = "learning portuguese before our move. can you drill me on verbs"
    assert ("learning:portuguese", "portuguese") in facts(extractor, said)
    assert texts(extractor, "still learning the repo layout, where do tests live") == []
