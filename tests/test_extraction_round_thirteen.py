"""Shapes of language learned in round thirteen (bench/RESULTS.md): each test has a case that must be
read and one that must not; all fail on the round's start (a2b46e0). A program named in a sentence,
an event one had, a habit the tagger took for a past, names set after one's pets, a relative's
allergy, a banned thing of the trade, states said as nouns, learning with the "I" left out, a
task's word in a rundown, a companion language, a command's purpose said right before it, a second
rule beside a first, a diet noted alone, a ban on what the assistant gives, a business in a place,
kids with their ages, a product under its slot's label, a role started, how to run what an agent
set up, "that one" after an exception, being on a product, pronouns, a name allowed, a correction's
value, occupations written short, what one does with a tool, "the rest", a Bazel target, a name
right after "I'm", a possessive before a program's name, a clause denied, and a log's timestamp."""

from __future__ import annotations

from extractors import ClauseExtractor, Turn
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


def test_a_tasks_word_in_a_rundown_is_no_product(extractor: ClauseExtractor) -> None:
    said = "before merging run ./scripts/verify.sh (lint + typecheck + unit in one go)"
    assert not [k for k in keys(extractor, said) if (k or "").startswith("tool:")]
    assert "tool:espflash" in keys(extractor, "tooling: probe-rs + defmt + espflash")


def test_a_companion_language_is_not_what_the_project_is_written_in(extractor: ClauseExtractor) -> None:
    for said in ("still drowning in SQL at the new job, send help", "the release build is 9mb of wasm"):
        assert not [k for k in keys(extractor, said) if (k or "").startswith("language:")], said
    assert "language:rust" in keys(extractor, "the service is written in rust")
    # the convention keeps its note
    assert any("keywords uppercase" in t for t in texts(extractor, "SQL keywords uppercase, thats our style"))


def test_the_word_before_is_names_a_commands_purpose(extractor: ClauseExtractor) -> None:
    said = "fyi tests are `just test` and lint is `just lint`, both must pass"
    assert ("test_command", "just test") in facts(extractor, said)
    assert ("lint_command", "just lint") in facts(extractor, said)
    assert ("test_command", "just lint") not in facts(extractor, said)


def test_a_note_beside_a_rule_is_a_second_rule(extractor: ClauseExtractor) -> None:
    said = "TS everywhere, no any types, prefer unknown + narrowing. lint catches it anyway"
    assert any("no any types" in t for t in texts(extractor, said))
    assert len([t for t in texts(extractor, "always squash, plan only") if "rule" in t]) == 1


def test_a_diet_noted_alone_is_the_speakers(extractor: ClauseExtractor) -> None:
    assert ("diet", "vegan") in facts(extractor, "vegan btw, in case you suggest restaurants")
    assert ("diet", "dairy-free") in facts(extractor, "dairy-free and no caffeine.")
    assert "diet" not in keys(extractor, "vegan restaurants near the station?")


def test_a_ban_on_what_the_assistant_gives_is_the_persons_rule(extractor: ClauseExtractor) -> None:
    said = "no peanuts or sesame in anything you suggest, my son reacts badly"
    assert any("No peanuts or sesame in anything you suggest" in t for t in texts(extractor, said))
    assert texts(extractor, "no luck in anything I tried so far") == []


def test_a_business_in_a_place_and_kids_with_ages(extractor: ClauseExtractor) -> None:
    assert ("home_city", "Galway") in facts(extractor, "we run a small cafe in Galway, open 7 days")
    said = "we have 3 kids, Mia 7, Leo 5 and Zoe 2. birthday party ideas?"
    assert ("family:kids", "Mia, Leo and Zoe") in facts(extractor, said)


def test_a_product_under_the_label_of_its_slot_is_no_command(extractor: ClauseExtractor) -> None:
    assert ("test_framework", "vitest") in facts(extractor, "test runner: vitest")
    assert "test_command" not in keys(extractor, "test runner: vitest")
    assert ("test_command", "vitest run") in facts(extractor, "tests: `vitest run`")


def test_a_role_started_in_the_past_tense(extractor: ClauseExtractor) -> None:
    said = "started as a data engineer at a bank in Leeds last week"
    assert "role" in keys(extractor, said)
    assert "role" not in keys(extractor, "the project started as a side thing")


def test_how_to_run_what_the_agent_set_up(extractor: ClauseExtractor) -> None:
    report = "I've added golangci-lint with a config in .golangci.yml. Run `make lint` to check everything."
    assert "make lint" in commands(extractor, report, "assistant")
    advice = "I bumped the lockfile. If it still fails, try `npm ci` and run `npm test` again."
    assert not commands(extractor, advice, "assistant")
    order = "I've upgraded to Node 22. Always use `npm install --ignore-scripts=false` for every package."
    assert not commands(extractor, order, "assistant")  # an agent's reply lays down no rule


def test_that_one_points_at_the_exception(extractor: ClauseExtractor) -> None:
    said = "except the billing service, that one writes to dynamodb"
    assert "database" in keys(extractor, said)
    assert facts(extractor, "that one guy at work keeps talking about dynamodb") == []


def test_being_on_a_product_named_like_a_word(extractor: ClauseExtractor) -> None:
    assert ("test_framework", "mocha") in facts(extractor, "the old dashboard is on mocha")
    assert "test_framework" not in keys(extractor, "I'm on mocha number three today")


def test_pronouns_and_a_name_allowed(extractor: ClauseExtractor) -> None:
    assert ("pronouns", "he/him") in facts(extractor, "pronouns he/him, thanks")
    assert ("pronouns", "they/them") in facts(extractor, "hey, I'm Robin (they/them)")
    assert "pronouns" not in keys(extractor, "should my bio say he/him or they/them?")
    assert ("name", "Bex") in facts(extractor, "you can call me Bex")


def test_a_corrections_value_ends_at_a_comma(extractor: ClauseExtractor) -> None:
    said = [
        Turn("user", "hi! call me Joanna", 0),
        Turn("user", "scratch that, Jo is fine, Joanna feels stiff", 1),
    ]
    assert [(c.key, c.value) for c in extractor.extract(said)] == [("name", "Jo")]


def test_an_occupation_written_short_is_a_job(extractor: ClauseExtractor) -> None:
    said = "I'm Ravi, SWE at Shopify, based in Ottawa"
    assert "cms" not in keys(extractor, said)
    assert "role" not in keys(extractor, "call me at 6pm, I'm free then")


def test_what_one_does_with_a_tool(extractor: ClauseExtractor) -> None:
    assert ("r_version", "4.2") in facts(extractor, "I do my stats in R 4.2 with lme4")
    assert not [k for k in keys(extractor, "I keep the spare keys in the red box") if k and "_" in k]


def test_the_rest_is_a_word(extractor: ClauseExtractor) -> None:
    assert "api_style" not in keys(extractor, "goreleaser does the rest (tagging, changelog)")
    assert "api_style" in keys(extractor, "the public API is REST, internal calls are gRPC")


def test_a_bazel_target_is_no_code_comment(extractor: ClauseExtractor) -> None:
    said = "we build with bazel: bazel build //apps/... and tests are bazel test //apps/..."
    assert ("test_command", "bazel test //apps/...") in facts(extractor, said)
    assert ("build_command", "bazel test //apps/...") not in facts(extractor, said)
    assert ("deploy_command", "mkdocs gh-deploy") in facts(
        extractor, "the docs are deployed with mkdocs gh-deploy"
    )
    assert facts(extractor, "total = price * qty; // rounding happens later") == []


def test_a_name_comes_right_after_im(extractor: ClauseExtractor) -> None:
    said = "I'm Marta, 2nd year CS at TU Delft. For my thesis I'm doing RL with gymnasium"
    assert [value for key, value in facts(extractor, said) if key == "name"] == ["Marta"]
    assert ("name", "Priya") in facts(extractor, "I'm Priya, data analyst at a bank in Pune.")


def test_a_possessive_names_a_thing_not_a_command(extractor: ClauseExtractor) -> None:
    said = "started at a new place last week, still figuring out their airflow setup"
    assert not commands(extractor, said)
    assert "uv run pytest -q" in commands(extractor, "we use uv now so its uv run pytest -q for tests")


def test_a_clause_denied_is_no_rule(extractor: ClauseExtractor) -> None:
    said = "what happens if i delete the .git folder? just curious, not gonna do it"
    assert texts(extractor, said) == []
    assert any("never cups" in t for t in texts(extractor, "grams and millilitres, never cups"))


def test_a_bracketed_timestamp_opens_a_log_line(extractor: ClauseExtractor) -> None:
    said = "[2025-01-07 09:12:44] INFO  Using Postgres at postgres://db:5432\n\nwhy so slow??"
    assert facts(extractor, said) == []
