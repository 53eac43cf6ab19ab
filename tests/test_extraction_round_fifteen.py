"""Shapes of language learned in round fifteen (bench/RESULTS.md): each test has a case that must be
read one way and one that must not; all fail on the round's start (82c1f13). A kind of product people
name in passing (a language, a linter, a type checker, a container tool, object storage) is kept in
the record of the product or command named beside it, or in the sentence's note, and is a record of
its own when said on purpose: the object of the main verb, under its own label, after the slot's
own phrase, in a change, or alone. Products set against each other with "vs", a question opened by
"ugh", boys and girls as family, a hyphened diet, a speaker inside what describes a subject, a
plural's names listed before the sentence ends, a lowercase word with an object after "my kids",
products run together by slashes, "keep getting" told without a subject, "keep in mind", a name given
after a greeting, what a change names, a config named after a product, a database under another
slot's label, the new product in the slot of the one it replaced, a language as a place, a dog's
breed before its name, a web server, "that's probably" pointing back, a question after a dash, and
"let's" proposing, and a note said on after a statement of a thing."""

from __future__ import annotations

from extractors import ClauseExtractor, Turn
from tests.test_extraction import facts, texts


def keys(extractor: ClauseExtractor, text: str, role: str = "user") -> list[str | None]:
    return [key for key, _ in facts(extractor, text, role)]


def kinds(extractor: ClauseExtractor, text: str, role: str = "user") -> list[str]:
    return [(key or "").split(":")[0] for key in keys(extractor, text, role)]


def stored(extractor: ClauseExtractor, text: str, role: str = "user") -> str:
    return " | ".join(c.text_template for c in extractor.extract([Turn(role, text, 0)]))


def test_tools_a_command_runs_are_kept_in_the_commands_record(extractor: ClauseExtractor) -> None:
    said = "to run tests we do `make test` and lint is `make lint` (ruff + mypy under the hood)"
    assert "linter" not in kinds(extractor, said)
    assert "type_checker" not in kinds(extractor, said)
    lint = [t for t in texts(extractor, said) if "make lint" in t]
    assert lint and "ruff" in lint[0] and "mypy" in lint[0]
    # across the sentences of an agent's report
    report = (
        "Added mypy --strict to CI and fixed 73 type errors. `make check` now runs ruff, mypy and pytest."
    )
    assert "linter" not in kinds(extractor, report, "assistant")
    assert "ruff" in stored(extractor, report, "assistant")


def test_a_container_tool_in_passing_is_a_detail(extractor: ClauseExtractor) -> None:
    said = "the full suite needs the docker db up first, we run it with `make test`"
    assert "container_tool" not in kinds(extractor, said)
    assert [t for t in texts(extractor, said) if "make test" in t and "docker" in t]
    assert ("container_tool", "podman") in [
        (k.split(":")[0], v) for k, v in facts(extractor, "we use podman, not docker") if k
    ]


def test_a_language_beside_a_product_is_a_detail(extractor: ClauseExtractor) -> None:
    said = "our game server is C# on .NET 6 (yes, old, i know), clients are Godot 4.2"
    assert "language" not in kinds(extractor, said)
    assert "C#" in stored(extractor, said)
    assert "language" in kinds(extractor, "my code is mostly python")


def test_a_detail_said_in_a_note_is_left_to_the_note(extractor: ClauseExtractor) -> None:
    said = "indentation: 2 spaces for yaml/json/js, 4 for python"
    assert "language" not in kinds(extractor, said)
    assert "python" in stored(extractor, said)
    # said on purpose, a detail keeps its slot: the object of the main verb, after the slot's own
    # phrase, in a change, under its own label, what the speakers do
    assert ("api_style", "REST") in facts(extractor, "we use REST for the mobile api, versioned /v1 /v2")
    assert ("linter", "eslint") in facts(extractor, "we lint with eslint + prettier, run npm run lint")
    assert ("linter", "biome") in facts(
        extractor, "we replaced eslint+prettier with biome, so `npx biome check .` is the lint command now"
    )
    assert ("linter", "flake8") in facts(extractor, "Python linting: flake8 + isort + black.")
    assert ("object_storage", "s3") in facts(extractor, "we store all user uploads in s3")


def test_object_storage_named_in_passing_is_a_detail(extractor: ClauseExtractor) -> None:
    said = "training w/ pytorch 2.1 + lightning, tracking in wandb, data sits in s3 as parquet shards"
    assert "object_storage" not in kinds(extractor, said)
    assert "s3" in stored(extractor, said)


def test_products_set_against_each_other_are_weighed(extractor: ClauseExtractor) -> None:
    assert texts(extractor, "postgres vs mysql for a small hobby forum, which would you pick and why") == []
    assert ("database", "postgres") in facts(
        extractor, "switched from mysql to postgres vs the old setup it's faster"
    )


def test_a_question_opened_by_ugh(extractor: ClauseExtractor) -> None:
    said = "ugh why is webpack SO slow on a cold build, like 90 seconds for a medium sized app."
    assert texts(extractor, said) == []
    assert ("build_tool", "webpack") in facts(extractor, "we build with webpack, it's slow on a cold build")


def test_boys_are_family_and_a_name_is_no_product(extractor: ClauseExtractor) -> None:
    said = "i homeschool my two boys, Eli (9) and Sam (7). need a fun hands-on way to teach fractions"
    assert facts(extractor, said) == [("family:boys", "Eli and Sam")]
    assert ("infrastructure_tool", "AWS SAM") in facts(extractor, "we deploy the lambdas with AWS SAM")


def test_a_hyphened_diet_is_kept_whole(extractor: ClauseExtractor) -> None:
    said = "had a heart attack last year so I'm on a low-sodium diet now."
    assert ("diet", "low-sodium") in facts(extractor, said)


def test_a_speaker_inside_what_describes_the_subject(extractor: ClauseExtractor) -> None:
    said = "no new dependencies without checking with me first, every new package needs a license review here"
    assert [t for t in texts(extractor, said) if "rule: No new dependencies without checking" in t]
    assert ("home_city", "Manchester") in facts(
        extractor, "quick rundown of me: nurse, night shifts, live in Manchester with my partner Sam"
    )


def test_what_relatives_do_is_no_name(extractor: ClauseExtractor) -> None:
    said = "my grandchildren Wanjiru and Kip visit on sundays"
    assert facts(extractor, said) == [("family:grandchildren", "Wanjiru and Kip")]
    assert ("home_city", "vancouver") in facts(
        extractor, "i moved to vancouver in june, still not used to the rain"
    )


def test_products_run_together_by_slashes(extractor: ClauseExtractor) -> None:
    said = "php 8.2/laravel 10/mysql 8, forge for deploys. queue workers keep dying overnight"
    got = facts(extractor, said)
    assert ("backend_framework", "laravel 10") in got
    assert ("database", "mysql 8") in got
    assert ("frontend_framework", "hotwire") in facts(extractor, "rails 7.1/hotwire, sidekiq, on heroku")
    # a path, pronouns: no rundown
    assert texts(extractor, "edit src/app/page.tsx pls") == []
    assert ("pronouns", "she/her") in facts(extractor, "pronouns she/her")


def test_what_keeps_happening_said_without_a_subject(extractor: ClauseExtractor) -> None:
    assert texts(extractor, "keep getting an NCCL timeout on all_reduce around step 3k") == []
    assert texts(extractor, "keep using tabs in the makefile") == ["S rule: Keep using tabs in the makefile."]


def test_keep_in_mind_asks_to_remember_what_was_said(extractor: ClauseExtractor) -> None:
    said = "allergic to penicillin btw, keep in mind for any health q"
    assert facts(extractor, said) == [("allergy:penicillin", "penicillin")]


def test_a_name_given_after_a_greeting(extractor: ClauseExtractor) -> None:
    assert ("name", "Tomasz") in facts(
        extractor, "hi its Tomasz, embedded guy from Gdańsk. im vegetarian btw"
    )
    assert texts(extractor, "hi, it's Monday again and the build is red") == []


def test_what_a_change_names_is_no_detail(extractor: ClauseExtractor) -> None:
    turns = [
        Turn("user", "replace flake8 and black with ruff", 0),
        Turn(
            "assistant",
            "Switched linting and formatting to ruff: removed flake8, black and isort from the dev deps.",
            1,
        ),
    ]
    assert ("linter", "ruff") in [(c.key, c.value) for c in extractor.extract(turns)]
    # what a label names first is what it names: the tools after it are the command's
    said = "lint is `make lint` (ruff + mypy under the hood)"
    assert "linter" not in kinds(extractor, said)
    assert ("linter", "eslint") in facts(extractor, "linting is eslint with the airbnb config")


def test_a_config_named_after_the_new_product_is_not_the_product(extractor: ClauseExtractor) -> None:
    said = "heads up we switched CI from circleci to github actions, circle config is deleted."
    assert ("ci", "github actions") in facts(extractor, said)
    assert ("ci", "circleci") not in facts(extractor, said)


def test_a_database_under_another_label_stays_the_database(extractor: ClauseExtractor) -> None:
    said = "backend is express + mongodb w/ mongoose, how do i do a transaction"
    assert ("database", "mongodb") in facts(extractor, said)
    assert ("message_queue", "dramatiq and redis") in facts(extractor, "queue: dramatiq + redis")


def test_the_new_product_takes_the_slot_of_the_one_it_replaced(extractor: ClauseExtractor) -> None:
    said = "the team replaced sentry with datadog for error tracking last month fwiw."
    assert ("error_tracking", "datadog") in facts(extractor, said)


def test_a_language_is_no_home_and_a_breed_names_a_pet(extractor: ClauseExtractor) -> None:
    said = "about me: Lukas, 34, living in Vienna, I speak german + english, I'm gluten intolerant"
    homes = [value for key, value in facts(extractor, said) if key == "home_city"]
    assert homes == ["Vienna"]
    said = "retired mechanical engineer here, 71, live in Adelaide with my wife Margaret and our kelpie Ruby."
    assert "language" not in kinds(extractor, said)


def test_a_web_server_is_no_infrastructure_tool(extractor: ClauseExtractor) -> None:
    assert ("web_server", "nginx") in facts(extractor, "we run django behind nginx on a hetzner box")


def test_that_pointing_back_hedges_nothing_before_it(extractor: ClauseExtractor) -> None:
    said = "we upgraded to python 3.12 over the weekend — that's probably why the build broke"
    assert ("python_version", "3.12") in facts(extractor, said)
    assert texts(extractor, "i think we use postgres") == []


def test_a_question_after_a_dash_starts_anew(extractor: ClauseExtractor) -> None:
    said = "before opening a PR we run `pnpm lint && pnpm test` — can you write me a husky hook that does it"
    assert ("pre_pr_check", "pnpm lint && pnpm test") in facts(extractor, said)


def test_a_proposal_is_no_fact_until_it_is_decided(extractor: ClauseExtractor) -> None:
    assert texts(extractor, "sure, let's just rewrite the whole thing in COBOL over the weekend") == []
    assert ("package_manager", "pnpm") in facts(extractor, "let's use pnpm from now on")


def test_a_note_said_on_after_a_statement_of_a_thing_is_the_projects(extractor: ClauseExtractor) -> None:
    said = "money is always integer cents, never floats. learned that the hard way"
    assert [(c.scope_level, c.value) for c in extractor.extract([Turn("user", said, 0)])] == [
        ("project", "never floats")
    ]
    assert ("user", "never fish") in [
        (c.scope_level, c.value) for c in extractor.extract([Turn("user", "im vegetarian, never fish", 0)])
    ]
