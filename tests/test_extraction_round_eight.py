"""Shapes of language learned in round eight (bench/RESULTS.md), each with a case that must be read
and one that must not: where every one of a kind goes, people in a person's life, a diagnosis told
in the past, a time frame said first, a precondition that is no command."""

from __future__ import annotations

from extractors import ClauseExtractor, Turn
from tests.test_extraction import SUBJECT, facts, texts


def test_where_every_one_of_a_kind_goes_is_a_rule(extractor: ClauseExtractor) -> None:
    assert texts(extractor, "all async work goes through dramatiq actors.") == [
        "S rule: All async work goes through dramatiq actors."
    ]
    assert texts(extractor, "all the gameplay numbers (hp, dmg, cooldowns) go in balance.json") == [
        "S rule: All the gameplay numbers (hp, dmg, cooldowns) go in balance.json."
    ]
    # where people go, or what goes wrong, is no rule
    assert texts(extractor, "all my tests go red on CI") == []
    assert not any("rule" in t for t in texts(extractor, "all the kids go to school in Leeds"))


def test_a_lead_in_before_a_colon_plans_nothing(extractor: ClauseExtractor) -> None:
    found = texts(extractor, "ok so how it works here: PRs need two approvals, and one from platform")
    assert len(found) == 1 and "PRs need two approvals" in found[0]
    # but a wish still is one
    assert texts(extractor, "we need to try out bun at some point") == []


def test_people_in_a_persons_life_are_named(extractor: ClauseExtractor) -> None:
    assert ("circle:coach", "Ingrid") in facts(
        extractor, "my coach Ingrid caps me at 2 quality sessions a week. she's strict tbh"
    )
    assert ("circle:advisor", "Prof. Hoffmann") in facts(
        extractor, "I map with QGIS 3.34 and my advisor Prof. Hoffmann wants everything in EPSG:31982"
    )
    # what they think is theirs, and no name is no record
    assert facts(extractor, "my boss thinks we should use k8s") == []
    assert facts(extractor, "my therapist said I should journal") == []


def test_a_diagnosis_told_in_the_past_still_holds(extractor: ClauseExtractor) -> None:
    assert ("health:type_1_diabetes", "type 1 diabetes") in facts(
        extractor, "dx'd with type 1 diabetes at 12, so yeah food plans need grams of carbs per serving"
    )
    assert ("health:adhd", "ADHD") in facts(extractor, "was diagnosed with ADHD last year, so bear with me")


def test_a_time_frame_said_first_and_an_emoji_flag_that_ends_a_sentence(
    extractor: ClauseExtractor,
) -> None:
    assert texts(extractor, "evenings i play chess online") == ["Evenings, S plays chess online."]
    assert ("home_city", "Tallinn") in facts(
        extractor, "just moved to Tallinn from Riga for the new job 🇪🇪 how do i register my address"
    )


def test_what_must_be_running_first_is_no_command(extractor: ClauseExtractor) -> None:
    assert facts(
        extractor, "tests here run with `just test` — the integration ones need docker up first tho"
    ) == [("test_command", "just test")]


def test_a_profile_note_in_the_third_person_is_the_speakers_own(extractor: ClauseExtractor) -> None:
    assert facts(extractor, "User lives in Porto") == [("home_city", "Porto")]
    assert ("name", "Katarzyna Nowak") in facts(extractor, "User's name is Katarzyna Nowak.")
    # the product's users are not the speaker
    assert facts(extractor, "User sessions expire after 30 minutes") == []


def test_what_an_agent_removed_or_gave_as_a_reason_is_not_used(extractor: ClauseExtractor) -> None:
    said = (
        "Done — migrated all 142 test files from Jest to Vitest 1.6. `npm test` now runs `vitest run`,"
        " jest.config.js and babel-jest are gone from devDependencies."
    )
    found = [c for c in extractor.extract([Turn("assistant", said, 0)]) if c.key]
    assert sorted((c.key, c.value) for c in found) == [
        ("test_command", "npm test"),
        ("test_framework", "Vitest 1.6"),
    ]
    # the command one types and the one it runs are one fact
    command = next(c for c in found if c.key == "test_command")
    assert command.text_template.endswith("npm test, which runs vitest run.")
    reason = "I also pinned `fastapi==0.99.1`, because every later FastAPI release requires pydantic v2."
    assert not any(c.key for c in extractor.extract([Turn("assistant", reason, 0)]))
    # a list going on is gone with it; a new clause after a comma is not
    assert facts(extractor, "mysql and redis are gone, everything is on postgres now")[0] == (
        "database",
        "postgres",
    )
    assert ("test_framework", "vitest") in facts(extractor, "we moved to vitest a while ago, jest is gone")


def test_exceptions_said_with_more_markers(extractor: ClauseExtractor) -> None:
    for said in (
        "the one thing that lands on main without a PR is the CHANGELOG bump the release bot makes",
        "typed python everywhere but the notebooks folder",
        "docs/ is exempt, nobody reads it",
        "always squash, but not for release branches",
        "save for the billing service, everything deploys on fridays",
    ):
        found = texts(extractor, said)
        assert len(found) == 1 and " exception" in found[0], (said, found)


def test_what_a_thing_always_does_is_a_rule_and_what_goes_wrong_is_not(
    extractor: ClauseExtractor,
) -> None:
    assert texts(extractor, "releases always go out on tuesdays") == [
        "S rule: Releases always go out on tuesdays."
    ]
    assert texts(extractor, "the app never logs PII") == ["S rule: The app never logs PII."]
    assert texts(extractor, "the build always fails on arm") == []
    assert texts(extractor, "the tests always take forever") == []
    assert texts(extractor, "pants keeps re-resolving the lockfile every time i switch branches") == []
    assert texts(extractor, "my car always uses premium fuel") == []


def test_a_loose_label_names_no_slot_for_an_unknown_name(extractor: ClauseExtractor) -> None:
    assert not any(
        key in ("frontend_framework", "package_manager")
        for key, _ in facts(extractor, "client is northwind coffee. i'm the only dev on it, pm is ana")
    )
    assert ("feature_flags", "flagpole") in facts(extractor, "our feature flags come from flagpole")


def test_named_things_of_a_person_and_of_a_project(extractor: ClauseExtractor) -> None:
    assert facts(extractor, "our bakery is called Crumb & Co") == [("named:bakery", "Crumb & Co")]
    assert facts(extractor, "my band is called The Loose Ends") == [("named:band", "The Loose Ends")]
    assert ("project_name", "Tea Garden Expanded") in facts(
        extractor, "I mod Stardew Valley with SMAPI (C#), my mod is called Tea Garden Expanded."
    )
    assert ("project_name", "Moss & Marrow") in facts(
        extractor, "i'm making a roguelike called Moss & Marrow in unity"
    )
    # a product's word inside a name is no product
    found = facts(extractor, "the restaurant's called Salt & Ember, 42 covers, down in Leith. I'm Rafa btw")
    assert ("named:restaurant", "Salt & Ember") in found
    assert not any(key == "frontend_framework" for key, _ in found)


def test_a_condition_said_without_i_have(extractor: ClauseExtractor) -> None:
    assert texts(extractor, "severe peanut allergy btw (epipen level) so any satay suggestions are out") == [
        "S has severe peanut allergy."
    ]
    assert texts(extractor, "migraines again today, ugh") == []


def test_a_list_typed_on_one_line_and_what_every_one_of_a_kind_does(extractor: ClauseExtractor) -> None:
    found = facts(
        extractor, "- name's Jonas / - backend dev at a fintech in Vilnius / - keep answers short pls"
    )
    assert ("name", "Jonas") in found and len(found) == 3
    assert texts(extractor, "each service owns its own schema") == [
        "S rule: Each service owns its own schema."
    ]
    assert texts(extractor, "all tests pass") == []


def test_pasted_git_log_and_words_quoted_from_a_source_are_not_the_speakers(
    extractor: ClauseExtractor,
) -> None:
    log = "what changed last week?\n\na41c9e2 chore: switch to pnpm\n0c3d5e1 docs: we now deploy with kamal"
    assert facts(extractor, log) == []
    assert (
        facts(
            extractor,
            'found this on a forum: "Always run apt full-upgrade before installing anything." legit?',
        )
        == []
    )


def test_names_of_places_and_employers_whole(extractor: ClauseExtractor) -> None:
    assert ("home_city", "Ho Chi Minh City") in facts(extractor, "i live in Ho Chi Minh City")
    assert ("employer", "University of Bergen") in facts(extractor, "I'm at the University of Bergen")


def test_a_slot_label_and_a_product_in_an_aside(extractor: ClauseExtractor) -> None:
    # "manager" names a person, but "package manager" a slot
    assert facts(extractor, "our package manager is bun now") == [("package_manager", "bun")]
    # the label says what the model is, not what the language in brackets is (a language in an
    # aside is kept in the sentence's note since round fifteen, not as a record of its own)
    got = facts(extractor, "the model is NorESM (Fortran plus some C), we run on Betzy via Slurm")
    assert not [key for key, value in got if value == "Fortran" and not (key or "").startswith("language")]
    assert any("Fortran" in value for _, value in got)
    # a product named in an aside is no command; a command in brackets is, without them
    assert not any(
        key == "test_command" and value.startswith("(")
        for key, value in facts(extractor, "tests in vitest (jest was way too slow for us)")
    )
    assert texts(extractor, "run the tests (npm test) before pushing") == [
        "S: always run npm test before pushing or merging."
    ]


def test_notes_said_everywhere_and_rules_after_a_lead_in(extractor: ClauseExtractor) -> None:
    assert texts(extractor, "tabs everywhere") == ["S rule: Tabs everywhere."]
    assert texts(extractor, "UTC everywhere in the db, convert at the edge") == [
        "S rule: UTC everywhere in the db."
    ]
    assert texts(extractor, "rename `fetchUsr` to `fetchUser` everywhere in the repo, incl tests") == []
    assert texts(extractor, "mud everywhere after the rain") == []
    found = extractor.extract([Turn("user", "In our team the rule is: all comments must be in English.", 0)])
    assert [(c.scope_level, c.text_template.replace(SUBJECT, "S")) for c in found] == [
        ("project", "S rule: All comments must be in English.")
    ]
    # a day is no host; a time zone said with "not" is the one it is not
    assert facts(extractor, "no deploys on friday") == [(None, "no deploys on friday")]
    assert facts(extractor, "SGT not CET") == [("timezone", "SGT")]
    assert ("test_command", "dotnet test --filter Category!=Integration") in facts(
        extractor, "Tests: dotnet test --filter Category!=Integration (the integration ones need docker)."
    )


def test_a_relatives_diet_a_question_after_now_and_an_order_for_now(extractor: ClauseExtractor) -> None:
    assert ("family:partner", "Ines") in facts(
        extractor, "my partner's vegan and I'm not, so dinners need to work both ways. her name's Ines btw"
    )
    assert "S's partner is vegan." in texts(extractor, "my partner's vegan and I'm not")
    assert texts(extractor, "now what do i do with my mornings haha") == []
    assert facts(
        extractor,
        "fyi we ditched jest, everything runs with `bun test` now"
        " - update the snippets you give me accordingly",
    ) == [("test_command", "bun test")]


def test_a_teams_change_kept_as_said_is_the_projects(extractor: ClauseExtractor) -> None:
    found = extractor.extract(
        [
            Turn(
                "user",
                "our allocation moved to levante at DKRZ so the slurm partitions are all different now",
                0,
            )
        ]
    )
    assert [(c.scope_level, c.key) for c in found] == [("project", None)]
    assert "levante" in found[0].text_template


def test_where_one_lives_said_after_but_and_a_correction_its_x_not_y(extractor: ClauseExtractor) -> None:
    assert ("home_city", "Fukuoka") in facts(
        extractor, "Sam desu, 34, from Nottingham but living in Fukuoka since last year teaching english."
    )
    found = facts(extractor, "hello i am from izmir but living in berlin since 2 years")
    assert ("hometown", "izmir") in found and ("home_city", "berlin") in found
    assert facts(extractor, "Its WooCommerce not shopify sorry if I wasnt clear") == [("cms", "WooCommerce")]
    # the tagger takes the name for a verb after "is"; the label says what it is
    assert facts(extractor, "Our package manager is bun now.") == [("package_manager", "bun")]


def test_a_correction_teaches_a_lesson_only_about_a_slot(extractor: ClauseExtractor) -> None:
    turns = [
        Turn("context", "Since you're on .NET 6, use the older hosting model.", 0),
        Turn("user", "no — net 8. we upgraded over christmas", 1),
    ]
    assert not any("when it comes to this" in c.text_template for c in extractor.extract(turns))


def test_a_duty_said_with_no_before_its_subject(extractor: ClauseExtractor) -> None:
    assert texts(extractor, "no PHI ever leaves our VPC") == ["S rule: No PHI ever leaves the team's VPC."]
    assert texts(extractor, "no secret goes into git") == ["S rule: No secret goes into git."]
    assert texts(extractor, "no kid likes broccoli") == []
    assert texts(extractor, "no one cares") == []


def test_a_flag_a_month_and_a_wish_in_shorthand(extractor: ClauseExtractor) -> None:
    found = facts(
        extractor, "hola! i'm Marisol, freelance wp dev in oaxaca 🇲🇽 — most clients are on woocommerce"
    )
    assert ("name", "Marisol") in found and not any(key == "dev_command" for key, _ in found)
    assert not any(
        key == "home_city" for key, _ in facts(extractor, "i'm back at work in jan as a paramedic")
    )
    assert facts(extractor, "one day i wanna build a tiny house up in the hills lol") == []
    assert ("age", "52") in facts(extractor, "I'm 52 and just started learning to code")


def test_a_sentence_naming_a_call_is_prose_and_kinds_that_sit_somewhere(extractor: ClauseExtractor) -> None:
    assert texts(
        extractor, "every migration is reversible here. we dont merge one without a working down()"
    ) == ["S rule: Every migration is reversible here."]
    assert facts(extractor, "app.listen(3000)") == []
    said = "tests sit next to the source file (foo.ts + foo.test.ts), not in a separate tests/ dir"
    assert len(texts(extractor, said)) == 1
    assert texts(extractor, "allergic to shellfish (like epipen allergic) so please flag it") == [
        "S is allergic to shellfish."
    ]


def test_a_dash_ends_what_is_said_and_rules_named_as_such(extractor: ClauseExtractor) -> None:
    said = "lint is `ruff check . && ruff format --check .` — hmm it says 3 files would be reformatted"
    assert facts(extractor, said) == [("lint_command", "ruff check . && ruff format --check .")]
    assert facts(extractor, "Tom said they use yarn") == []
    assert texts(extractor, "our convention is snake_case for json fields in the api") == [
        "S rule: The team's convention is snake_case for json fields in the api."
    ]
    assert texts(extractor, "the rule is simple") == []
    assert ("name", "Rizky") in facts(
        extractor, "halo, my name Rizky from Surabaya, working in software house."
    )
    assert ("family:daughter", "Freya") in facts(
        extractor, "Name's Gareth. A350 captain out of Heathrow, mostly Asia rotations, daughter Freya is 4."
    )
