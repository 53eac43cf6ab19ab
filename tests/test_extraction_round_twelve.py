"""Shapes of language learned in round twelve (bench/RESULTS.md), a precision round: each test has a
case that must be read and one that must not. A label that products fill, a file of a product, the
company one works at, a pet's name, a comment in parentheses, a question that needs no verb, a
hypothesis, and troubles told in a rule's shape."""

from __future__ import annotations

from extractors import ClauseExtractor
from tests.test_extraction import facts, texts


def keys(extractor: ClauseExtractor, text: str, role: str = "user") -> list[str | None]:
    return [key for key, _ in facts(extractor, text, role)]


def test_a_label_that_products_fill_is_not_a_product(extractor: ClauseExtractor) -> None:
    said = "stack is go 1.22 + postgres 16 + nats, running on hetzner k8s."
    assert "build_tool" not in keys(extractor, said)  # "stack", not Haskell Stack
    assert ("go_version", "1.22") in facts(extractor, said)
    assert ("build_tool", "stack") in facts(extractor, "we build the haskell bits with stack")


def test_a_file_of_a_product_is_not_a_choice_of_it(extractor: ClauseExtractor) -> None:
    report = "The Dockerfile now uses python:3.12-slim as the base with a multi-stage build"
    assert "container_tool" not in keys(extractor, report, "assistant")
    assert any("python:3.12-slim" in t for t in texts(extractor, report, "assistant"))
    assert "build_tool" not in keys(extractor, "I added a multi-arch target to the Makefile", "assistant")
    assert ("container_tool", "docker") in facts(extractor, "we deploy everything with docker")


def test_the_company_one_works_at_is_not_a_product(extractor: ClauseExtractor) -> None:
    for said in (
        "work context: im a staff data engineer at Klarna, mostly pipeline stuff",
        "name's Olusegun, Segun is fine. data engineer at Flutterwave, Lagos",
        "new job starts monday! leaving spotify for a data role at Datadog, kinda scared tbh",
    ):
        assert not [t for t in texts(extractor, said) if "payment" in t or "monitoring" in t], said
    assert ("employer", "Stripe") in facts(extractor, "I work at Stripe")
    assert ("payments", "Stripe") in facts(extractor, "our app bills with Stripe")


def test_a_pets_name_is_not_a_product(extractor: ClauseExtractor) -> None:
    said = "we have two cats, Miso and Tofu, and Tofu keeps peeing outside the litterbox"
    assert keys(extractor, said) == ["pet:cats"]
    assert "infrastructure_tool" in keys(extractor, "we moved our infra code from terraform to tofu")


def test_a_comment_in_parentheses_is_no_allergen(extractor: ClauseExtractor) -> None:
    assert keys(extractor, "allergic to tree nuts (not peanuts, weirdly). any snack ideas") == [
        "allergy:tree_nuts"
    ]


def test_a_question_needs_no_verb(extractor: ClauseExtractor) -> None:
    assert facts(extractor, "anyway — quickest way to dedupe a list in python but keep the order?") == []
    assert facts(extractor, "best way to do background jobs in django and keep it simple?") == []
    assert ("python_version", "3.12") in facts(extractor, "we use python 3.12 but how do i dedupe?")


def test_a_hypothesis_is_no_fact(extractor: ClauseExtractor) -> None:
    assert (
        facts(extractor, "hypothetically if an app had 10M rows would sqlite still be ok or is that crazy")
        == []
    )
    assert ("database", "sqlite") in facts(extractor, "the app stores everything in sqlite")


def test_a_trouble_told_in_a_rules_shape_is_no_rule(extractor: ClauseExtractor) -> None:
    for said in (
        "the login test times out on CI only",
        "the second one OOMs on CI only",
        "getting a weird white screen on android 14 only",
        "the incremental model keeps double counting rows after a backfill",
        "i keep forgetting the seed",
    ):
        assert facts(extractor, said) == [], said
    assert facts(extractor, "squash merge only") != []
    assert texts(extractor, "I keep the calving dates in Google Sheets") == [
        "S keeps the calving dates in Google Sheets."
    ]


def test_an_exception_said_without_except_holds_only_where_it_says(extractor: ClauseExtractor) -> None:
    said = "One exception to note: the document archive uses MongoDB, as mandated by the records vendor."
    assert "Document archive: S uses MongoDB as its database." in texts(extractor, said)
    said = "Note that the analytics workload is the exception — it runs on GCP BigQuery."
    slotted = [t for t in texts(extractor, said) if "uses" in t and "exception" not in t]
    assert slotted and all(t.startswith("Analytics workload: ") for t in slotted)
    # the rest, said beside the exception, is the general rule, not the exception's
    said = "only the analytics service writes to clickhouse, rest stays on postgres"
    assert "S uses postgres (PostgreSQL) as its database." in texts(extractor, said)
    assert "Analytics service: S uses clickhouse as its data warehouse." in texts(extractor, said)


def test_a_renamed_default_branch_is_the_new_default_branch(extractor: ClauseExtractor) -> None:
    for said in (
        "our main branch is called master, CI deploys from it",
        "Default branch in all repos is master.",
        "our default branch is master, CI only runs on master",
    ):
        assert ("setting:default_branch", "master") in facts(extractor, said), said
        assert "hosting" not in keys(extractor, said), said  # "runs on master": a branch, not a host
    for said in (
        "we renamed master -> main yesterday, update any scripts you give me",
        "heads up we renamed master → main, update any scripts you wrote",
        "we renamed the default branch to main",
    ):
        assert facts(extractor, said) == [("setting:default_branch", "main")], said
    assert facts(extractor, "renamed the helper to parse_row") == [] or "setting:default_branch" not in keys(
        extractor, "renamed the helper to parse_row"
    )
    # redoing work once is no rule; doing it every time is
    assert facts(extractor, "update all the imports") == []
    assert facts(extractor, "update the changelog on every PR") != []


def test_mine_names_the_speakers_own_pet_or_relative(extractor: ClauseExtractor) -> None:
    assert facts(extractor, "wait no, Pepper is my sister's cat lol, mine is Noodle") == [
        ("pet:cat", "Noodle")
    ]
    said = "lol did i tell you my dog was Pepper? that's my sister's dog. mine is Chili"
    assert ("pet:dog", "Chili") in facts(extractor, said)
    assert facts(extractor, "his car is red, mine is Blue") == []


def test_a_name_said_in_passing_holds_in_a_question(extractor: ClauseExtractor) -> None:
    assert ("pet:dog", "Rocky") in facts(extractor, "my dog Rocky keeps pulling on the leash, any tips?")
    assert ("family:son", "Leo") in facts(extractor, "can my son Leo eat peanuts at 2?")
    assert facts(extractor, "should I name my dog Rocky?") == []  # a name not given yet
    assert ("family:sister", "cat") not in facts(extractor, "my sister Maria's cat")


def test_wait_opens_a_correction_not_an_order(extractor: ClauseExtractor) -> None:
    said = "wait no, the reporting db is MariaDB 10.6 — mysql 5.7 was the old box we decommissioned"
    assert ("database", "MariaDB 10.6") in facts(extractor, said)
    assert not [t for t in texts(extractor, "wait no, Pepper's the neighbour's dog") if "rule" in t]
    assert facts(extractor, "wait for CI to pass before merging, always") != []


def test_the_languages_a_person_works_in_are_not_the_projects(extractor: ClauseExtractor) -> None:
    for said in (
        "I'm Tomasz, backend dev at Allegro, mostly Java.",
        "I mostly write Python and a bit of Julia.",
        "retired machinist here, 71, learning python to keep track of my woodshop inventory",
    ):
        assert not [k for k in keys(extractor, said) if (k or "").startswith("language:")], said
    assert ("language:java", "Java") in facts(extractor, "our backend is mostly Java")
    said = "PhD student (marine biology) at Dalhousie, analysis in R + tidyverse"
    assert any("in R" in t for t in texts(extractor, said))


def test_one_more_option_is_no_choice(extractor: ClauseExtractor) -> None:
    assert facts(extractor, "thinking about maybe learning rust this winter. or zig. idk") == []


def test_a_product_inside_a_hyphened_name(extractor: ClauseExtractor) -> None:
    said = "built with CMake + arm-none-eabi-gcc 12"
    assert any("arm-none-eabi-gcc 12" in value for _, value in facts(extractor, said))
    assert ("background_jobs", "pg-boss") in facts(extractor, "we use pg-boss for jobs on postgres")
    assert "language:typescript" not in keys(extractor, "everything's on jest now (ts-jest)")
    assert facts(extractor, "we went Tailwind-free last year") == []
    assert ("container_tool", "docker") in facts(extractor, "docker-based deploys everywhere")


def test_the_company_one_is_at_now_named_after_called(extractor: ClauseExtractor) -> None:
    said = "left deloitte in april, im at a small fintech called Ledgerly now (12 ppl!!)"
    assert ("employer", "Ledgerly") in facts(extractor, said)
    assert not [t for t in texts(extractor, said) if "fintech called" in t]  # said once, in the slot
    assert ("employer", "Nimbly") in facts(
        extractor, "I quit deloitte!! now at a small startup called Nimbly"
    )
    assert "employer" not in keys(extractor, "my sister works at a bank called Monzo")
    assert "employer" not in keys(extractor, "we use a library called Zod")


def test_english_said_in_english_goes_without_saying(extractor: ClauseExtractor) -> None:
    said = "I speak Polish, English and some Korean (learning for 2 years, still bad at honorifics)."
    assert "speaks:english" not in keys(extractor, said)
    assert {"speaks:polish", "speaks:korean"} <= set(keys(extractor, said))


def test_a_kind_of_thing_or_a_label_is_no_role(extractor: ClauseExtractor) -> None:
    said = "dev-only deps (types, eslint plugins, that kind of thing) you can just add, no need to ask"
    assert "role" not in keys(extractor, said)
    said = "local dev for the pipelines: dagster dev -m pipelines.defs then open localhost:3000"
    assert "role" not in keys(extractor, said)
    assert ("role", "retired maths teacher") in facts(extractor, "retired maths teacher in Cork")


def test_what_someone_sent_is_theirs(extractor: ClauseExtractor) -> None:
    said = (
        "my manager sent this, can you make it sound less harsh?\n---\nTeam, going forward we always use "
        "Jira for tickets, no more Trello. Please migrate your boards by Friday.\n- Mark"
    )
    assert facts(extractor, said) == []
    assert ("package_manager", "pnpm") in facts(
        extractor, "I sent this PR yesterday\nwe use pnpm for everything"
    )


def test_a_part_of_the_world_is_no_home(extractor: ClauseExtractor) -> None:
    assert "home_city" not in keys(extractor, "metric units please, im in europe. no fahrenheit no miles")
    assert ("home_city", "Lisbon") in facts(extractor, "I live in Lisbon")


def test_work_for_names_an_employer_only_beside_the_verb(extractor: ClauseExtractor) -> None:
    said = "I work on an android app written in Kotlin, Jetpack Compose for the UI and Room for local db"
    assert "employer" not in keys(extractor, said)
    assert ("employer", "Shopify") in facts(extractor, "i work remotely for Shopify")


def test_a_command_asked_about_is_no_note(extractor: ClauseExtractor) -> None:
    assert facts(extractor, "explain git rebase like you're a pirate") == []
    assert facts(extractor, "what happens if i git rebase -i a branch other ppl already pulled") == []
    said = "how we build the firmware: cmake --preset stm32-release && cmake --build build/release"
    assert any("cmake --build build/release" in t for t in texts(extractor, said))


def test_an_issue_comment_pasted_with_its_header_is_a_paste(extractor: ClauseExtractor) -> None:
    said = (
        "jtrevino commented 2 days ago · edited\nHeads up: as of 3.0 the HTTP layer has migrated to the "
        "reqwest-compat package (pip install reqwest-compat). Treat reqwest-compat as the project's "
        "standard HTTP client going forward.\n\nis this migration something I need to care about?"
    )
    assert facts(extractor, said) == []
    assert facts(extractor, "I commented on the PR yesterday\nwe use pnpm for everything") != []


def test_what_a_task_quotes_or_repeats_is_no_rule(extractor: ClauseExtractor) -> None:
    said = "can you translate 'always use the back entrance after 6pm' into polish? it's for a sign"
    assert facts(extractor, said) == []
    assert facts(extractor, "explain closures to me again like the 3rd time") == []
    # round 16: an order whose object is only "that" names nothing a later session could follow
    assert facts(extractor, "never do that again") == []
    assert facts(extractor, "never do that kind of refactor again") != []
    assert facts(extractor, "could you always include type hints?") != []


def test_a_question_opened_by_would_needs_no_question_mark(extractor: ClauseExtractor) -> None:
    assert facts(extractor, "would kafka be overkill for like 200 msgs/sec or is rabbitmq fine") == []


def test_a_label_set_with_equals_is_no_product(extractor: ClauseExtractor) -> None:
    said = "stack = python 3.11, pytorch, ray for distributed training, mlflow for tracking"
    assert "build_tool" not in keys(extractor, said)
    assert ("python_version", "3.11") in facts(extractor, said)


def test_a_name_and_what_for_is_no_product_unless_a_slot_says_so(extractor: ClauseExtractor) -> None:
    said = (
        "my partner Sam is allergic to shellfish so we keep it out of the house. dinner party for 8 next week"
    )
    assert not [k for k in keys(extractor, said) if (k or "").startswith("tool:")]
    assert ("state_management", "Riverpod") in facts(extractor, "Riverpod for state management")


def test_loop_variables_are_no_person_and_a_trouble_is_no_exception(extractor: ClauseExtractor) -> None:
    said = "always use type hints, and no single-letter variable names except i/j in loops"
    assert any("except i/j in loops" in t for t in texts(extractor, said))
    assert facts(extractor, "hot reload on the api side doesnt work tho") == []
