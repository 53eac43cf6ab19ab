"""Shapes of language learned in round eleven (bench/RESULTS.md), each with a case that must be read
and one that must not: passages quoted from someone else, orders about a quantity at hand, the
project pointed at as "this codebase", what a team does not do, a name asked for politely, a slot
named inside an exception, a subject borrowed by a second verb, programs the data lacks, and an
agent's choices and subjectless reports."""

from __future__ import annotations

from extractors import ClauseExtractor, Turn
from tests.test_extraction import facts, texts


def test_a_passage_quoted_from_someone_else_is_theirs(extractor: ClauseExtractor) -> None:
    for said in (
        "can you make this sound less passive aggressive: 'Hi team, as I've said before, we always use "
        "the shared drive for invoices. Please stop emailing PDFs. Thanks, Karen'",
        "from some blog: 'Senior engineers always write tests first. Never use print debugging. We use "
        "Kubernetes for everything.' is this actually good advice?",
        "my boss wrote 'we should always deploy on fridays to keep momentum' in slack. is that insane??",
    ):
        assert facts(extractor, said) == [], said
    # a short quote is the speaker's own words, and so is a rule set after a colon
    assert texts(extractor, "we say 'sign in' not 'log in' in the UI") == [
        "S says 'sign in' not 'log in' in the UI."
    ]
    assert facts(extractor, "our rule: 'never push to main'") != []


def test_an_order_about_a_quantity_is_for_now(extractor: ClauseExtractor) -> None:
    assert facts(extractor, "convert 350F to celsius") == []
    assert ("indentation", "2 spaces") in facts(extractor, "use 2 spaces for indentation")
    # a number that is not what the order counts still makes it an order for now
    assert facts(extractor, "run 3 of them") == []


def test_this_codebase_is_the_project_not_the_task_at_hand(extractor: ClauseExtractor) -> None:
    assert texts(extractor, "dont use lodash in this codebase, we ripped it out last year on purpose") == [
        "S rule: Dont use lodash in this codebase."
    ]
    assert facts(extractor, "don't touch this file") == []
    assert facts(extractor, "don't refactor this component") == []


def test_what_a_team_does_not_do_is_its_rule(extractor: ClauseExtractor) -> None:
    assert texts(extractor, "we dont use classes in python here, just plain functions + dataclasses") == [
        "S does not use classes in python here, just plain functions + dataclasses."
    ]
    assert texts(extractor, "we don't mock the database in tests") == [
        "S does not mock the database in tests."
    ]
    # a product not used, a pronoun, a consequence: no rule
    for said in (
        "we don't use docker at all so skip the dockerfile stuff",
        "no we don't use redis, where did that come from",
        "we don't use it much",
        "we don't have CI yet",
    ):
        assert facts(extractor, said) == [], said
    assert ("test_framework", "vitest") in facts(extractor, "oh we don't use jest anymore, it's vitest now")


def test_a_name_asked_for_politely(extractor: ClauseExtractor) -> None:
    assert facts(extractor, "hey actually can you call me Lexi instead? Alex felt too formal") == [
        ("name", "Lexi")
    ]
    for said in ("would you call me a genius?", "can you call me when it's done?", "what should i call you?"):
        assert facts(extractor, said) == [], said


def test_a_slot_named_after_except_holds_only_there(extractor: ClauseExtractor) -> None:
    found = extractor.extract(
        [Turn("user", "except the old invoicing service, that one's stuck on node 14 til we rewrite it", 0)]
    )
    node = [c for c in found if c.key == "node_version"]
    assert [(c.value, c.qualifier) for c in node] == [("14", "old invoicing service")]
    # before the "except", the slot is the project's
    rest = extractor.extract(
        [Turn("user", "all services run on node 20 except billing, that one is on node 16", 0)]
    )
    assert ("20", None) in [(c.value, c.qualifier) for c in rest if c.key == "node_version"]


def test_a_second_verb_borrows_the_speakers_subject(extractor: ClauseExtractor) -> None:
    said = "I usually travel with just a carry-on and prefer trains over flying whenever possible."
    assert any("prefers trains over flying" in t for t in texts(extractor, said))
    # a wish for one thing now is not a preference
    asked = "I use Xero for invoices and want a small python script to export jobs from my google sheet"
    assert not any("script" in t for t in texts(extractor, asked))


def test_a_program_the_data_lacks_runs_with_its_flags(extractor: ClauseExtractor) -> None:
    found = texts(extractor, "snakemake --cores 8 runs the whole pipeline, snakemake -n for a dry run")
    assert any("snakemake --cores 8" in t and "snakemake -n" in t for t in found)
    # a dash between words is punctuation, not a flag
    assert facts(extractor, "the build -- as usual -- broke") == []


def test_an_agents_choice_and_its_subjectless_report(extractor: ClauseExtractor) -> None:
    chose = facts(
        extractor,
        "I went with Pinia rather than Vuex since you're on Vue 3 — stores are in src/stores/.",
        role="assistant",
    )
    assert ("state_management", "Pinia") in chose
    switched = facts(
        extractor,
        "Switched to pnpm: deleted package-lock.json, generated pnpm-lock.yaml, and updated CI to run "
        "`pnpm install --frozen-lockfile`.",
        role="assistant",
    )
    assert ("install_command", "pnpm install --frozen-lockfile") in switched
    assert facts(extractor, "Went with the simplest fix.", role="assistant") == []


def test_an_aside_about_oneself_is_a_sentence_of_its_own(extractor: ClauseExtractor) -> None:
    asked = "now i need to change my surname on everything, where do i even start (im in Ireland)"
    assert ("home_city", "Ireland") in facts(extractor, asked)
    said = texts(extractor, "im retired (was an electrician 40 yrs) and now i do woodworking")
    assert "S was an electrician 40 yrs." in said
    # an aside that is not said of oneself stays where it is
    assert facts(extractor, "where do i even start (the forms are all in Irish)") == []


def test_an_opening_ing_verb_is_the_speakers_own(extractor: ClauseExtractor) -> None:
    assert "S is studying for the CPA exam." in texts(
        extractor, "studying for the CPA exam, FAR section is in 3 weeks."
    )
    assert facts(extractor, "running the tests, it fails") == []


def test_a_product_said_in_two_names_is_one_value(extractor: ClauseExtractor) -> None:
    found = facts(extractor, "infra is all terraform on aws — eks 1.29, rds postgres, argocd for deploys.")
    assert ("database", "rds postgres") in found
    assert ("database", "postgres and mysql") in facts(extractor, "we use postgres and mysql")
    # a piece of a name read whole is not a second value
    tracked = facts(extractor, "training on a single RTX 4090, tracking runs with Weights & Biases.")
    assert [v for k, v in tracked if k == "analytics"] == ["Weights & Biases"]


def test_words_that_open_a_message_are_no_product(extractor: ClauseExtractor) -> None:
    found = facts(extractor, "quick q — our backend is django 5.0 on python 3.12, postgres 16 behind it")
    assert not any(v == "quick" for _, v in found)
    assert ("backend_framework", "django 5.0") in found


def test_a_product_and_its_version_is_no_ones_name(extractor: ClauseExtractor) -> None:
    found = facts(extractor, "hey so im building a lil recipe app for my mom, its flutter 3.19 + firebase")
    assert not any((k or "").startswith("family:") for k, _ in found)
    assert ("mobile_framework", "flutter 3.19") in found
    assert ("family:son", "Ruby") in facts(extractor, "my son Ruby is 4")


def test_a_command_and_what_it_does_is_no_product(extractor: ClauseExtractor) -> None:
    found = facts(
        extractor, "the e2e tests are playwright — `yarn e2e` runs headless, `yarn e2e:ui` opens ui mode"
    )
    assert not any((k or "").startswith("tool:") for k, _ in found)
    assert ("e2e_framework", "playwright") in found


def test_people_at_work_by_name(extractor: ClauseExtractor) -> None:
    assert facts(extractor, "my manager is Priya") == [("circle:manager", "Priya")]
    assert facts(extractor, "my boss is called Tom") == [("circle:boss", "Tom")]
    assert facts(extractor, "my lead is out sick") == []


def test_a_name_said_with_here(extractor: ClauseExtractor) -> None:
    assert ("name", "Arjun") in facts(
        extractor, "Hey, Arjun here — embedded guy, STM32 + FreeRTOS, C99 only."
    )
    assert facts(extractor, "Tom here. need help with a regex") == [("name", "Tom")]
    assert not any(k == "name" for k, _ in facts(extractor, "Python here"))
    assert facts(extractor, "same here") == []


def test_what_one_is_a_fan_of(extractor: ClauseExtractor) -> None:
    said = texts(
        extractor, "huge Liverpool fan and i play five-a-side on thursdays, so dont schedule anything then"
    )
    assert "S is a huge Liverpool fan." in said
    assert facts(extractor, "the fan is loud") == []


def test_what_one_studies_named_as_a_major(extractor: ClauseExtractor) -> None:
    assert facts(extractor, "my major is psychology") == [("studies", "psychology")]
    assert ("studies", "psychology") in facts(
        extractor, "I changed my major to psychology!! parents dont know"
    )
    # a change of mind is a turn in the talk
    assert facts(extractor, "I changed my mind") == []


def test_a_library_named_as_an_ordinary_word_keeps_its_slot(extractor: ClauseExtractor) -> None:
    switched = extractor.extract([Turn("user", "we switched from moment to date-fns", 0)])
    assert [(c.key, c.value) for c in switched] == [("library:moment_js", "date-fns")]
    assert facts(extractor, "wait a moment, the build is done") == []


def test_notes_under_a_heading_of_ones_own(extractor: ClauseExtractor) -> None:
    said = "## setup\n- python 3.11\n- poetry for deps\n- CI is github actions\n\nanyway my question is async"
    found = facts(extractor, said)
    assert ("python_version", "3.11") in found and ("ci", "github actions") in found
    # the same heading over a page someone else wrote is that page's
    pasted = (
        "found this in a repo im evaluating, is the setup section clear?\n\n"
        "## Setup\nWe use Poetry. Always run `invoke lint` before committing."
    )
    assert facts(extractor, pasted) == []


def test_a_list_of_ones_own_commands_beside_a_quoted_error(extractor: ClauseExtractor) -> None:
    said = (
        "before any PR we run:\n1. `npm run lint`\n2. `npm run typecheck`\n\n"
        "CI rejects it otherwise. now can u help me fix this eslint error: "
        "'React Hook useEffect has a missing dependency'"
    )
    assert facts(extractor, said) == [("pre_pr_check", "npm run lint"), ("pre_pr_check", "npm run typecheck")]


def test_a_paste_the_speaker_wrote_is_their_own(extractor: ClauseExtractor) -> None:
    said = (
        "Team conventions + setup (pasting from our wiki page, which i wrote):\n"
        "- Stack: Django 5, Postgres 16\n- Run tests: `pytest -x`"
    )
    found = facts(extractor, said)
    assert ("test_command", "pytest -x") in found and ("backend_framework", "Django 5") in found
    assert (
        facts(extractor, "pasting from the vendor's wiki:\n- Stack: Django 5\n- Run tests: `pytest -x`") == []
    )


def test_states_and_names_written_with_their_punctuation(extractor: ClauseExtractor) -> None:
    # (since round fifteen "that's probably why" hedges nothing said before it: a statement)
    assert [t for t in texts(extractor, "i'm left-handed btw, that's probably why") if "left-handed" in t]
    kids = facts(extractor, "so we've got two kids, Leo (4) and Noor (9 months) — any travel plans")
    assert kids == [("family:kids", "Leo and Noor")]
    passed = texts(extractor, "PASSED my AWS Solutions Architect Associate exam yesterday!!! next one?")
    assert any("passed their AWS Solutions Architect Associate exam" in t for t in passed)
    # a test run's output is still a log
    assert (
        facts(extractor, "PASSED tests/test_api.py::test_login\nFAILED tests/test_api.py::test_logout") == []
    )


def test_a_home_bought_is_where_one_lives(extractor: ClauseExtractor) -> None:
    assert ("home_city", "Asheville") in facts(extractor, "Bought our first house in Asheville in June!!")
    assert ("home_city", "Lisbon") in facts(extractor, "we bought a flat in Lisbon last year")
    assert not any(k == "home_city" for k, _ in facts(extractor, "we might buy a house in Denver"))


def test_a_statement_that_says_nothing_is_not_kept(extractor: ClauseExtractor) -> None:
    assert facts(extractor, "locally it's fine because i have the db running.") == []
    assert "S skims." in texts(extractor, "pls keep answers brief, i skim")


def test_a_correction_names_the_new_value_not_the_denied_one(extractor: ClauseExtractor) -> None:
    assert facts(extractor, "no, it's not capistrano anymore, we deploy with kamal now.") == [
        ("deploy_tool", "kamal")
    ]
    assert ("database", "postgres 14") in facts(extractor, "sorry, i meant postgres 14 not 16")


def test_switching_the_reply_language(extractor: ClauseExtractor) -> None:
    found = facts(extractor, "you can switch back to english now, my colleague has left the project")
    assert found == [("response_language", "english")]
    assert not any(k == "response_language" for k, _ in facts(extractor, "I switched to english at work"))


def test_products_joined_to_an_alternative_are_alternatives(extractor: ClauseExtractor) -> None:
    found = facts(extractor, "we use Biome instead of ESLint and Prettier")
    assert ("linter", "Biome") in found and not any(v == "Prettier" for _, v in found)


def test_an_agents_sentence_that_heads_a_list(extractor: ClauseExtractor) -> None:
    said = (
        "Done. I replaced Prisma with Drizzle ORM:\n\n- removed `prisma/` and the client\n- added `schema.ts`"
    )
    assert ("orm", "Drizzle ORM") in facts(extractor, said, role="assistant")
    # a user's header over a list is still a header
    listed = facts(extractor, "pre-PR checklist for this repo:\n- make lint\n- make test")
    assert not any((k or "").startswith("tool:") for k, _ in listed)


def test_a_product_said_to_be_banned_is_not_used(extractor: ClauseExtractor) -> None:
    found = facts(extractor, "We use Playwright for e2e, Cypress is banned now.")
    assert ("e2e_framework", "Playwright") in found
    assert not any(v == "Cypress" for _, v in found)


def test_markdown_and_a_polite_order_after_a_lead(extractor: ClauseExtractor) -> None:
    assert ("name", "Hannah") in facts(extractor, "**me**: Hannah, solo dev, Berlin (CET)")
    found = texts(
        extractor, "one thing that really drives me nuts: please don't use emojis in your answers. thanks"
    )
    assert found == ["S rule: Don't use emojis in your answers."]
    # names written with stars and underscores keep them
    kept = texts(extractor, "tests live next to the code (foo.test.ts), not in a separate __tests__ folder")
    assert any("__tests__" in t for t in kept)


def test_replies_asked_for_in_a_language_however_tagged(extractor: ClauseExtractor) -> None:
    said = "i hate notebooks. reply in english pls even if i slip into dutch."
    assert ("response_language", "english") in facts(extractor, said)
    assert not any(k == "response_language" for k, _ in facts(extractor, "I speak english at work"))


def test_names_in_the_code_are_no_products(extractor: ClauseExtractor) -> None:
    said = (
        "snowflake is the warehouse, dbt core 1.7 for transforms. "
        "I need a dbt macro for an incremental merge on (customer_id + event_date)"
    )
    found = facts(extractor, said)
    assert ("data_warehouse", "snowflake") in found
    assert not any((k or "").startswith("tool:") for k, _ in found)


def test_names_however_the_tagger_reads_them(extractor: ClauseExtractor) -> None:
    assert facts(extractor, "call me Raj pls, nobody uses Rajendra except my mom") == [("name", "Raj")]
    assert facts(extractor, "call me later") == []
    assert ("name", "Zhang Wei") in facts(extractor, "My english name is Kevin, chinese name Zhang Wei.")


def test_kin_words_that_name_no_relative(extractor: ClauseExtractor) -> None:
    assert facts(extractor, "my mother tongue is Tamil") == [("native_language", "Tamil")]
    assert facts(extractor, "our border collie Biscuit is 3") == [("pet:collie", "Biscuit")]
    assert "S is a mom." in texts(extractor, "mom of 3 here (Zoe 9, Max 6, baby Ella), we live in Denver")


def test_corrections_and_wishes_that_name_a_value(extractor: ClauseExtractor) -> None:
    assert ("test_framework", "vitest") in facts(
        extractor, "sorry i meant vitest not jest, we switched months ago"
    )
    assert ("name", "Thomas") in facts(
        extractor, "hey actually I'd rather go by Thomas now, new job and all lol"
    )
    assert not any(k == "name" for k, _ in facts(extractor, "I would go by Tom if I could"))
    # an apology is no correction: the CI is what the sentence before it said
    said = "oh actually we retired jenkins in Q3, everything is on gitlab ci now. sorry, old habit"
    assert [v for k, v in facts(extractor, said) if k == "ci"] == ["gitlab ci"]


def test_notes_and_norms_about_kinds_of_code(extractor: ClauseExtractor) -> None:
    assert texts(extractor, "no ORMs. raw SQL w parameterized queries only — team decided last year") == [
        "S rule: No ORMs."
    ]
    assert texts(extractor, "commits follow conventional commits (feat:, fix:, chore: ...)") != []
    assert facts(extractor, "the kids follow a strict bedtime") == []


def test_a_problem_said_with_only_is_no_exception(extractor: ClauseExtractor) -> None:
    assert facts(extractor, "getting CORS on edge function calls only in prod") == []
    assert facts(extractor, "migration applies locally but not in the release stage, why") == []
    # an exception that gives its reason in words of trouble is still one
    kept = texts(extractor, "the legacy /admin folder is excluded from strict, it's getting deleted in Q3")
    assert any("exception" in t for t in kept)
    labeled = texts(extractor, "only exception: next.js pages/ files, they need default exports")
    assert labeled == ["S exception: Next.js pages/ files, they need default exports."]


def test_words_that_look_like_a_rule_or_a_home_but_are_not(extractor: ClauseExtractor) -> None:
    assert facts(extractor, "I'm Hannah, the only frontend person on the team.") == [("name", "Hannah")]
    assert not any(
        k == "home_city" for k, _ in facts(extractor, "we moved everything to eu-central-1 for gdpr")
    )
    assert ("home_city", "Berlin") in facts(extractor, "i moved to Berlin")
    posting = (
        "can you tailor my CV to this posting?\n\nSenior Backend Engineer. Requirements: 5+ years Go, Kafka."
    )
    assert facts(extractor, posting) == []
    said = "correction: `./deploy.sh` is deprecated, use `make release ENV=prod` instead"
    assert not any(k == "correction_command" for k, _ in facts(extractor, said))
