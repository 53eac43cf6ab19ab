"""Shapes of language learned in round nine (bench/RESULTS.md), each with a case that must be read
and one that must not: whose allergy or diagnosis a clause tells, a role given beside a name, a
name given in an aside, a product that takes the slot of the one it replaced, short forms the parser
reads spelled out."""

from __future__ import annotations

from extractors import ClauseExtractor, Turn
from extractors.vocabulary import category_of_key
from tests.test_extraction import facts, texts


def test_a_relatives_allergy_is_theirs_not_the_speakers(extractor: ClauseExtractor) -> None:
    said = texts(extractor, "my son Leo has a severe peanut allergy and I'm planning his party")
    assert "S's son Leo has a severe peanut allergy." in said
    assert not any(t.startswith("S has") or t.startswith("S is allergic") for t in said)
    assert texts(extractor, "our dog Rex is allergic to chicken")[-1] == "S's dog Rex is allergic to chicken."
    # the relative's slot is their own: it never supersedes the speaker's allergy
    (own,) = [k for k, _ in facts(extractor, "I'm allergic to peanuts") if k]
    (sons,) = [k for k, _ in facts(extractor, "my son is allergic to peanuts") if k]
    assert own == "allergy:peanuts" and sons == "son.allergy:peanuts"
    # ... and still an allergy, which a request about a recipe asks for
    assert category_of_key(sons) == category_of_key(own) == "allergy"
    # a severity is no allergen
    assert [v for k, v in facts(extractor, "I have a severe peanut allergy") if k] == ["severe peanut"]


def test_a_name_given_with_a_relative_points_back_at_them(extractor: ClauseExtractor) -> None:
    said = texts(
        extractor, "it's me, my husband Olu and our two kids, Ada 9 and Tobi 4. Ada is allergic to tree nuts."
    )
    assert "S's kid Ada is allergic to tree nuts." in said
    # "Ada 9" is a child's age, not a language version
    assert not any("Ada 9" in t for t in said)


def test_whose_diet_a_coordinated_clause_tells(extractor: ClauseExtractor) -> None:
    found = facts(
        extractor, "I'm lactose intolerant and my partner is vegan, so dinner ideas for both of us?"
    )
    assert ("diet", "vegan") not in found  # the partner's
    assert ("allergy:lactose", "lactose") in found


def test_a_role_or_a_name_said_beside_the_speaker(extractor: ClauseExtractor) -> None:
    # the role with where it is held (round 10: "a PhD student in marine biology at University of Bergen")
    assert ("role", "cardiologist at St. Mary's") in facts(
        extractor, "I am Dr. Aisha Rahman, a cardiologist at St. Mary's."
    )
    assert ("name", "Hannah") in facts(extractor, "for the trip planning: it's me (Hannah) and my husband")
    # a description in the same place is no name
    assert not any(k == "name" for k, _ in facts(extractor, "- me: solo dev, ex-ubisoft"))


def test_a_shift_is_no_home(extractor: ClauseExtractor) -> None:
    assert not any(
        k == "home_city" for k, _ in facts(extractor, "got moved to day shift finally!! 7am to 3pm")
    )
    assert ("home_city", "austin") in facts(extractor, "just moved to austin last month")


def test_a_product_takes_the_slot_of_the_one_it_replaced(extractor: ClauseExtractor) -> None:
    (board,) = [
        c for c in extractor.extract([Turn("user", "we swapped the esp8266 for an esp32-c3", 0)]) if c.key
    ]
    assert (board.key, board.value, board.previous_value) == ("hardware:esp8266", "esp32-c3", "esp8266")
    # a product named with the device it is ("the nrf52840 dongle") is still the board
    assert ("hardware:nrf52", "nrf52840") in facts(
        extractor, "moved from the nrf52832 to the nrf52840 dongle"
    )
    # what was dropped is not what is used
    assert facts(extractor, "dropped yarn, pnpm now across all packages") == [("package_manager", "pnpm")]
    # a bare product that runs the tests is the test framework, so a change of framework replaces it
    assert facts(extractor, "tests run w/ jest") == [("test_framework", "jest")]
    assert ("test_command", "pytest") in facts(extractor, "run tests with pytest")


def test_a_stack_label_is_no_person_and_a_described_word_no_product(extractor: ClauseExtractor) -> None:
    assert facts(extractor, "package manager: pnpm") == [("package_manager", "pnpm")]
    assert ("circle:manager", "Tom") in facts(extractor, "my manager Tom uses vim")
    assert not any(k == "runtime" for k, _ in facts(extractor, "The sensor node uses an ESP8266."))


def test_short_forms_are_parsed_spelled_out_and_kept_as_typed(extractor: ClauseExtractor) -> None:
    # the tagger reads "db" in "all db access" as a verb unless told it is "database"
    assert texts(extractor, "all db access goes through the repository layer.") == [
        "S rule: All db access goes through the repository layer."
    ]


def test_an_intolerance_said_as_one_word_before_it(extractor: ClauseExtractor) -> None:
    assert ("allergy:lactose", "lactose") in facts(extractor, "I'm lactose intolerant.")
    assert not any(k and k.startswith("allergy") for k, _ in facts(extractor, "I'm very intolerant of noise"))


def test_off_a_host_is_gone(extractor: ClauseExtractor) -> None:
    said = "We're off Heroku as of this sprint; everything is on Render now."
    assert [(k, v) for k, v in facts(extractor, said) if k] == [("hosting", "Render")]


def test_an_agent_reports_what_it_set_up_and_the_command_it_named(extractor: ClauseExtractor) -> None:
    wired = facts(extractor, "Sentry is wired up for the Flask API.", role="assistant")
    assert ("error_tracking", "Sentry") in wired
    # how a product is configured, explained, is no report
    said = "Sentry is configured through the SENTRY_DSN variable, you can set it in your .env"
    assert facts(extractor, said, role="assistant") == []
    report = (
        "I added Prettier with printWidth 100 and reformatted the repo. The check is `npm run format:check`."
    )
    assert ("check_command", "npm run format:check") in facts(extractor, report, role="assistant")
    # a setting named as a thing to check runs nothing
    advice = "The main things to check are the removed `USE_L10N` setting. I haven't upgraded anything."
    assert not any(k == "check_command" for k, _ in facts(extractor, advice, role="assistant"))


def test_what_an_order_ensures_is_the_rule(extractor: ClauseExtractor) -> None:
    said = "Kindly ensure that all user-facing strings are passed through the i18n helper."
    assert texts(extractor, said) == [
        "S rule: Ensure that all user-facing strings are passed through the i18n helper."
    ]
    # what is to be ensured now, once, is the task at hand
    assert texts(extractor, "ensure that the server is running and try again") == []


def test_nothing_going_somewhere_is_a_rule_nothing_working_is_not(extractor: ClauseExtractor) -> None:
    assert texts(extractor, "nothing goes to prod after thursday 4pm") == [
        "S rule: Nothing goes to prod after thursday 4pm."
    ]
    assert texts(extractor, "nothing works on arm") == []
    assert texts(extractor, "nothing goes right on mondays") == []


def test_a_layout_of_the_code_is_the_projects(extractor: ClauseExtractor) -> None:
    (rule,) = extractor.extract([Turn("user", "style: 4 spaces, no tabs, max line length 100", 0)])
    assert (rule.key, rule.scope_level) == ("indentation", "project")


def test_a_setting_said_as_what_it_is_fills_its_own_slot(extractor: ClauseExtractor) -> None:
    assert facts(extractor, "Our default branch is master") == [("setting:default_branch", "master")]
    assert facts(extractor, "the region is eu-west-1") == [("setting:region", "eu-west-1")]
    assert texts(extractor, "The staging URL is staging.acme.dev.") == [
        "S's staging URL is staging.acme.dev."
    ]
    # a judgement is no setting, nor someone else's
    assert facts(extractor, "your branch is a mess") == []
    assert not any(k and k.startswith("setting") for k, _ in facts(extractor, "the queue is really slow"))


def test_a_correction_that_names_the_slot_first_keeps_the_value_after_it(extractor: ClauseExtractor) -> None:
    earlier = Turn("user", "the staging url is staging.kraken-app.io", 0)
    for said, value in (
        ("scratch that, staging is stg.kraken-app.io now, old one decommissioned", "stg.kraken-app.io"),
        ("scratch that, staging moved to stg.acme.internal last week", "stg.acme.internal"),
    ):
        found = [c for c in extractor.extract([earlier, Turn("user", said, 1)]) if c.turn.index == 1]
        assert [(c.key, c.value) for c in found] == [("setting:staging_url", value)], said


def test_a_participle_after_the_speakers_clause_is_still_theirs(extractor: ClauseExtractor) -> None:
    said = facts(extractor, "i speak tagalog and english, learning japanese (N4 level-ish)")
    assert ("learning:japanese", "japanese") in said
    assert ("home_city", "Dubai") in facts(extractor, "I am from Kerala, living in Dubai since 2019.")
    # but not after someone else's
    assert not any(
        k == "learning:japanese" for k, _ in facts(extractor, "my sister speaks french, learning japanese")
    )


def test_the_slots_own_purpose_narrows_nothing(extractor: ClauseExtractor) -> None:
    (ci,) = extractor.extract([Turn("user", "we use circleci for ci, the config's a mess", 0)])
    assert (ci.key, ci.qualifier) == ("ci", None)
    # a part of the project still narrows it
    (db,) = extractor.extract([Turn("user", "we use postgres for the billing service", 0)])
    assert db.qualifier == "for the billing service"


def test_an_order_the_tagger_read_as_a_noun_still_names_the_product(extractor: ClauseExtractor) -> None:
    # "use" tagged as a noun before "yarn" is no description of a word "yarn"
    assert ("package_manager", "yarn") in facts(extractor, "No, use yarn, not npm.")
