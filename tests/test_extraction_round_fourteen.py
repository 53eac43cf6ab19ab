"""Shapes of language learned in round fourteen (bench/RESULTS.md): each test has a case that must be
read and one that must not; all fail on the round's start (30a2832). A thing to make described by
what it will do, one answer asked in a shape, a note judged rather than ruled, an occupation said
with "here", an adjective before its noun, "nvm", a verb spelled like a product, a name after a
split "im", words of the trade where a product's name goes, a product named with its kind, a note
cut off by a dash, a program's name used as a word or talked about, where one is right now, a
failure told with "but only", what a failure lacks, a correction that allows, a product named
again without its version, a product in a hyphened word, a Java stack trace, a complaint beside a
rundown, a statement told before a question, a pet one got, a product before its aside or a colon,
a slot's own word then its product, two names set against each other, the reason after a rule,
food rules, system package managers, a label carried past a comma, a script a build tool runs,
a want said for every time, a participle under way or what one does, what a named relative is, a
move into a home in a city, a condition noted later, what is gone said of its own subject, a
command an agent replaced, and what one used to do."""

from __future__ import annotations

from extractors import ClauseExtractor, Turn
from tests.test_extraction import facts, texts


def keys(extractor: ClauseExtractor, text: str, role: str = "user") -> list[str | None]:
    return [key for key, _ in facts(extractor, text, role)]


def scopes(extractor: ClauseExtractor, text: str) -> list[str]:
    return [c.scope_level for c in extractor.extract([Turn("user", text, 0)])]


def commands(extractor: ClauseExtractor, text: str, role: str = "user") -> list[str]:
    return [value for key, value in facts(extractor, text, role) if (key or "").endswith("_command")]


def test_a_thing_to_make_is_described_by_what_it_will_do(extractor: ClauseExtractor) -> None:
    # "every" is what the action will do, not how often to write one
    assert texts(extractor, "can u write a github action that runs the staging one on every merge") == []
    assert texts(extractor, "write me a husky pre-push hook doing all 3 pls, fail fast") == []
    assert texts(extractor, "write a test for every new endpoint") == [
        "S rule: Write a test for every new endpoint."
    ]


def test_a_judgement_of_a_note_is_no_alternative(extractor: ClauseExtractor) -> None:
    said = "we never log patient identifiers. hospital policy, not negotiable"
    assert not [t for t in texts(extractor, said) if "negotiable" in t]
    assert texts(extractor, "tabs, not spaces") == ["S rule: Tabs, not spaces."]


def test_an_occupation_said_with_here_is_no_name(extractor: ClauseExtractor) -> None:
    said = "postdoc here — all our pipelines are snakemake + python 3.10 on the uni slurm cluster"
    assert ("role", "postdoc") in facts(extractor, said)
    assert "name" not in keys(extractor, said)
    assert ("name", "Priya") in facts(extractor, "Priya here — SRE at a bank")
    assert ("role", "OSS maintainer") in facts(extractor, "OSS maintainer here. what license should i pick")


def test_an_adjective_before_its_noun_is_no_product(extractor: ClauseExtractor) -> None:
    said = "quick rundown before we start: python 3.11, django rest framework, celery"
    assert "test_framework" not in keys(extractor, said)
    assert ("background_jobs", "celery") in facts(extractor, said)


def test_nvm_opening_a_clause_is_never_mind(extractor: ClauseExtractor) -> None:
    assert "tool:nvm" not in keys(extractor, "nvm, python 3.12 not 3.11")
    assert ("python_version", "3.12") in facts(extractor, "nvm, python 3.12 not 3.11")
    assert "tool:nvm" in keys(extractor, "nvm is how we pin node versions")


def test_a_verb_with_its_subject_is_no_product(extractor: ClauseExtractor) -> None:
    said = "I added 21 to the CI matrix alongside 17; the pom still targets 17 for production."
    assert "data_orchestration" not in keys(extractor, said, "assistant")


def test_a_name_after_a_split_im_is_kept(extractor: ClauseExtractor) -> None:
    said = "hi im Kenji, embedded dev at a robotics startup in Osaka."
    found = facts(extractor, said)
    assert ("name", "Kenji") in found
    assert ("role", "embedded dev") in found
    assert ("name", "Kenji") in facts(extractor, "hi im Kenji, embedded guy at a robotics startup in Osaka.")


def test_words_of_the_trade_are_no_products_named_in_a_slot(extractor: ClauseExtractor) -> None:
    assert "backend_framework" not in keys(extractor, "hi im Kenji, embedded guy at a robotics startup")
    assert "hosting" not in keys(extractor, "On PRs we run `dotnet test --filter Category!=Integration`")
    rundown = "frontend is react 18 + typescript + vite, server state w/ tanstack query"
    assert ("frontend_framework", "state") not in facts(extractor, rundown)
    said = "Please be advised that our ERP integrations run on SAP Integration Suite rather than PI/PO."
    assert ("hosting", "SAP Integration Suite") in facts(extractor, said)


def test_a_product_named_with_its_kind(extractor: ClauseExtractor) -> None:
    found = facts(extractor, "Zephyr RTOS on nRF5340, build is `west build -b nrf5340dk`.")
    assert ("platform:zephyr", "Zephyr RTOS") in found
    assert ("hardware:nrf53", "nRF5340") in found


def test_a_note_before_a_dash_and_i_is_a_sentence_of_its_own(extractor: ClauseExtractor) -> None:
    assert ("python_version", "3.12") in facts(extractor, "python 3.12 not 3.11 — I checked the Dockerfile")
    # a limit before the dash stays with what follows
    said = "except on weekends — I'm fine with longer detailed answers when I'm not at work"
    assert any(
        "exception (on weekends)" in t and "longer detailed answers" in t for t in texts(extractor, said)
    )


def test_a_programs_name_used_as_a_word_is_no_command(extractor: ClauseExtractor) -> None:
    said = "e2e tests are `npx playwright test --project=chromium`. one test is flaky on the checkout flow"
    assert commands(extractor, said) == ["npx playwright test --project=chromium"]
    assert commands(extractor, "deploy by pushing to the `production` git remote.") == []
    php = "php side: composer test runs phpunit, composer stan runs phpstan (level 8)."
    assert "phpunit" not in commands(extractor, php)
    gradle = "./gradlew check runs everything incl detekt + ktlint, ./gradlew assembleRelease builds the apk."
    assert not [c for c in commands(extractor, gradle) if "detekt" in c]
    assert "flutter tests" not in commands(
        extractor, "flutter tests: flutter test --coverage for unit/widget"
    )
    assert commands(extractor, "testing w jest.") == ["jest"]


def test_where_one_is_right_now_is_no_fact(extractor: ClauseExtractor) -> None:
    assert texts(extractor, "im at the airport, flight delayed 3 hours. recommend a podcast?") == []
    assert texts(extractor, "trying to plan meals for the week and im out of ideas") == []
    assert texts(extractor, "now i have 2000 photos to sort, whats a good workflow") == []
    assert texts(extractor, "I'm at a startup in Berlin") == ["S is at a startup in Berlin."]


def test_a_failure_said_with_but_only_is_no_exception(extractor: ClauseExtractor) -> None:
    for said in (
        "a form action returns 405 but only in prod, local is fine",
        "types from one of the workspace packages just dont resolve in vscode, tsc on cli is fine tho",
        "works on my linux laptop but on mac the port name differs, what is it usually",
    ):
        assert not [t for t in texts(extractor, said) if "exception" in t], said
    assert any("exception (for hotfixes)" in t for t in texts(extractor, "but for hotfixes we still squash"))


def test_a_correction_that_allows_is_no_permission(extractor: ClauseExtractor) -> None:
    said = "sorry, typo earlier — the allergy is to tree nuts, not peanuts. peanuts are actually fine"
    assert not [t for t in texts(extractor, said) if "rule:" in t]
    assert texts(extractor, "emojis are fine in slack drafts") == ["S rule: Emojis are fine in slack drafts."]


def test_a_product_named_again_without_its_version(extractor: ClauseExtractor) -> None:
    said = (
        "The session store now uses Redis 7 via ioredis instead of the in-memory store. REDIS_URL is read "
        "from the environment, and I added a redis service to docker-compose.yml for local dev."
    )
    found = facts(extractor, said, "assistant")
    assert ("cache", "Redis 7") in found
    assert ("cache", "redis") not in found
    assert ("home_city", "Dubai") in facts(extractor, "I am from Kerala, living in Dubai since 2019.")


def test_a_product_in_a_hyphened_word_of_kind(extractor: ClauseExtractor) -> None:
    said = "we moved off heroku to render last month, so ignore anything heroku-specific."
    assert ("hosting", "heroku") not in facts(extractor, said)
    assert ("hosting", "render") in facts(extractor, said)
    assert ("container_tool", "docker") in facts(extractor, "docker-based builds, on k8s")


def test_a_java_stack_trace_is_a_paste(extractor: ClauseExtractor) -> None:
    trace = (
        'java.lang.NullPointerException: Cannot invoke "String.length()" because "name" is null '
        "\tat com.acme.pay.Validator.check(Validator.java:42) what's going on here"
    )
    assert texts(extractor, trace) == []


def test_a_complaint_beside_a_rundown_is_no_note(extractor: ClauseExtractor) -> None:
    said = (
        "node 20, express, prisma w/ postgres, jest. "
        "the prisma client is generated in a weird place and jest can't resolve it"
    )
    assert not [t for t in texts(extractor, said) if "weird place" in t]
    assert ("database", "postgres") in facts(extractor, said)


def test_a_statement_told_before_a_question_is_still_told(extractor: ClauseExtractor) -> None:
    said = (
        "moved from Chicago to Austin over the weekend, what's the deal with texas drivers license transfer"
    )
    assert ("home_city", "Austin") in facts(extractor, said)
    nick = "hi! i'm Oluwaseun but everyone calls me Seun, can you help me plan a budget for the month"
    assert ("nickname", "Seun") in facts(extractor, nick)
    assert texts(extractor, "when i run the tests, why does jest hang") == []


def test_a_pet_one_got_is_an_episode(extractor: ClauseExtractor) -> None:
    assert texts(extractor, "We got a cat last week.") == ["S got a cat last week."]
    assert texts(extractor, "we got a new laptop last week") == []


def test_a_product_before_its_aside_is_still_used(extractor: ClauseExtractor) -> None:
    said = "we use yarn 1 (classic) for the monorepo, don't ask"
    assert ("package_manager", "yarn 1") in facts(extractor, said)
    sql = "SELECT user_id, count() FROM events WHERE ts > now() - INTERVAL 7 DAY GROUP BY user_id"
    assert facts(extractor, sql) == []


def test_a_slots_own_word_then_its_product(extractor: ClauseExtractor) -> None:
    assert ("test_framework", "jest") in facts(extractor, "our frontend tests are in jest, 400ish of them")
    assert facts(extractor, "the joke is in jest") == []


def test_two_names_of_one_kind_set_against_each_other(extractor: ClauseExtractor) -> None:
    found = facts(extractor, "we switched package managers, it's bun now instead of yarn.")
    assert ("package_manager", "bun") in found
    # the user's own shell stays a rule, and a verb is no name
    said = "when u give me shell commands assume fish not bash"
    assert any("assume fish not bash" in t for t in texts(extractor, said))
    assert ("backend_framework", "servant") in facts(
        extractor, "haskell thing, built w cabal not stack, servant for the web api."
    )


def test_the_reason_after_a_rule_does_not_decide_whose_it_is(extractor: ClauseExtractor) -> None:
    said = "pls no emojis in your replies, I paste them into work docs"
    assert [t for t in texts(extractor, said) if "emojis" in t] == ["S rule: No emojis in your replies."]
    assert scopes(extractor, said) == ["user"]
    assert scopes(extractor, "no emojis in commit messages") == ["project"]


def test_food_rules_are_the_users(extractor: ClauseExtractor) -> None:
    assert scopes(
        extractor, "severe peanut allergy here so please flag anything w peanuts or peanut oil."
    ) == ["user"]
    assert "user" in scopes(extractor, "i'm celiac so gluten free everything.")
    assert "project" in scopes(extractor, "never log eggs in prod")


def test_a_system_package_manager_is_no_javascript_one(extractor: ClauseExtractor) -> None:
    assert ("system_package_manager:apt", "apt") in facts(
        extractor, "the Dockerfile uses apt to install libpq"
    )
    assert ("package_manager", "pnpm") in facts(extractor, "we use pnpm")


def test_a_flaky_run_or_a_wait_is_no_fact(extractor: ClauseExtractor) -> None:
    said = "our e2e suite: npx playwright test --project=chromium. flaky on CI only."
    assert facts(extractor, said) == [("e2e_command", "npx playwright test --project=chromium")]
    assert (
        texts(extractor, "im at the airport waiting to board, quick: how do i undo my last git commit") == []
    )


def test_a_label_carried_past_a_comma_renames_no_product(extractor: ClauseExtractor) -> None:
    found = facts(extractor, "backend is supabase (auth + postgres), pnpm + vitest")
    assert ("package_manager", "pnpm") in found
    assert ("test_framework", "vitest") in found
    assert ("message_queue", "dramatiq and redis") in facts(extractor, "queue: dramatiq + redis")


def test_a_script_a_build_tool_runs_is_no_product(extractor: ClauseExtractor) -> None:
    said = "php side: composer test runs phpunit, composer stan runs phpstan (level 8)."
    assert not [k for k in keys(extractor, said) if (k or "").startswith("ml_framework")]
    assert ("type_checker", "phpstan") in facts(extractor, said)


def test_a_word_of_the_trade_is_no_coined_product(extractor: ClauseExtractor) -> None:
    assert keys(extractor, "bumped all services to node 22, dockerfiles + .nvmrc updated") == ["node_version"]
    assert "tool:saas" not in keys(extractor, "Lena, solo founder, Berlin. SaaS for dentists. Remix + prisma")
    assert "library:esp_hal" in keys(extractor, "loom + gradle, esp-hal")


def test_one_answer_asked_in_a_shape_is_no_rule(extractor: ClauseExtractor) -> None:
    assert texts(extractor, "summarize the meeting notes in 3 bullets") == []
    assert texts(extractor, "explain the difference between tcp and udp in two sentences") == []
    assert texts(extractor, "summarize things in bullets") == ["S rule: Summarize things in bullets."]


def test_a_want_said_for_every_time_is_a_preference(extractor: ClauseExtractor) -> None:
    said = "flying MAN to JFK in june, I always want a window seat, which side has the better view?"
    assert [v for _, v in facts(extractor, said)] == ["a window seat"]
    assert texts(extractor, "I want a window seat on this flight") == []


def test_a_bare_participle_is_what_is_under_way(extractor: ClauseExtractor) -> None:
    said = "i'm a high school physics teacher in Nairobi, making a lesson on projectile motion for form 3"
    assert not [t for t in texts(extractor, said) if "lesson" in t]
    assert ("role", "high school physics teacher") in facts(extractor, said)


def test_an_exception_word_is_a_whole_word(extractor: ClauseExtractor) -> None:
    said = "butter in baking is ok tho, tiny amounts don't bother me"
    assert any(t.startswith("S exception (tiny amounts): Butter in baking") for t in texts(extractor, said))


def test_a_program_talked_about_is_no_command(extractor: ClauseExtractor) -> None:
    said = "tests = bundle exec rspec. rspec is slow af on my m1"
    assert commands(extractor, said) == ["bundle exec rspec"]
    assert not [t for t in texts(extractor, said) if "slow" in t]


def test_moving_into_a_field_is_no_move_of_home(extractor: ClauseExtractor) -> None:
    assert "home_city" not in keys(extractor, "i'm a teacher moving into data analysis")
    assert ("home_city", "Austin") in facts(extractor, "I moved to Austin last month")


def test_a_command_one_runs_is_the_projects(extractor: ClauseExtractor) -> None:
    said = "how do i run just one test?? normally i do cargo nextest run for everything and it takes ages"
    assert scopes(extractor, said) == ["project"]


def test_what_one_is_not_and_what_one_used_to_do(extractor: ClauseExtractor) -> None:
    said = "hey, Priyanka here — PM at a fintech in Bangalore. not a dev so pls no jargon"
    # what she is not is no role; what she is (a PM, round eighteen) is
    assert [c.value for c in extractor.extract([Turn("user", said, 0)]) if c.key == "role"] == ["PM"]
    assert texts(extractor, "used to do crossfit") == []
    assert texts(extractor, "i play the violin") == ["S plays the violin."]


def test_ignoring_what_was_said_is_about_the_talk(extractor: ClauseExtractor) -> None:
    said = (
        "we rewrote the app in flutter, RN is gone as of v3.0. so ignore anything i said about metro bundler"
    )
    assert not [t for t in texts(extractor, said) if "rule:" in t]
    assert texts(extractor, "ignore the vendor folder when you grep") == [
        "S rule: Ignore the vendor folder when you grep."
    ]


def test_a_product_in_a_quoted_message_is_no_stack(extractor: ClauseExtractor) -> None:
    said = "the build step is failing ONLY in CI with 'JavaScript heap out of memory' and i dont know why"
    assert "language:javascript" not in keys(extractor, said)


def test_a_command_an_agent_replaced_is_gone(extractor: ClauseExtractor) -> None:
    said = (
        "I've migrated linting and formatting from ESLint + Prettier to Biome. `npx biome check .` now "
        "replaces both `npm run lint` and `npm run format`; I removed the old configs."
    )
    assert commands(extractor, said, "assistant") == ["npx biome check ."]


def test_what_a_failure_lacks_is_no_rule(extractor: ClauseExtractor) -> None:
    assert texts(extractor, "the queue worker keeps dying silently overnight, no logs") == []
    assert texts(extractor, "no logs in prod") == ["S rule: No logs in prod."]


def test_what_a_named_relative_is(extractor: ClauseExtractor) -> None:
    said = "my husband Daniel is coeliac so everything at home has to be gluten-free."
    assert "S's husband Daniel is coeliac." in texts(extractor, said)
    assert ("family:husband", "Daniel") in facts(extractor, said)
    assert texts(extractor, "my dog Rex is 5") == ["S's dog is called Rex."]


def test_a_move_into_a_home_in_a_city(extractor: ClauseExtractor) -> None:
    assert ("home_city", "Glasgow") in facts(extractor, "FINALLY moved into our new flat in Glasgow!!")
    village = "so we moved from manchester to a tiny village near york last month"
    assert [v for k, v in facts(extractor, village) if k == "home_city"] == ["york"]
    assert "home_city" not in keys(extractor, "we moved off ECS onto EKS in Q2, so ignore the old task defs")


def test_a_condition_noted_later_in_the_message(extractor: ClauseExtractor) -> None:
    said = (
        "about me: retired engineer, 67, live in Perth. learning Spanish on duolingo. "
        "type 2 diabetic so recipes need to be low GI."
    )
    assert "S is type 2 diabetic." in texts(extractor, said)


def test_a_product_before_a_colon_that_ends_a_clause(extractor: ClauseExtractor) -> None:
    said = (
        "I've switched the ORM from Prisma to Drizzle: replaced schema.prisma with src/db/schema.ts, "
        "ported the 14 queries in src/repositories/."
    )
    assert "orm" in keys(extractor, said, "assistant")
    assert ("test_framework", "node:test") in facts(extractor, "tests run with node:test")
    intro = "a bit about me: retired engineer, 68, live in Brisbane with my wife Helen"
    assert any("Brisbane" in t for t in texts(extractor, intro))


def test_what_is_gone_is_said_of_its_own_subject(extractor: ClauseExtractor) -> None:
    said = "we finally moved off mongo onto postgres, the mongoose models are gone."
    assert ("database", "postgres") in facts(extractor, said)
    assert ("test_framework", "vitest") in facts(extractor, "we use vitest now, jest and babel-jest are gone")
    assert "jest" not in [v for _, v in facts(extractor, "we use vitest now, jest and babel-jest are gone")]


def test_what_one_does_said_as_a_participle_is_kept(extractor: ClauseExtractor) -> None:
    # the persona-chat answer to "what do you do for fun?"; the dated or appended one is under way
    assert texts(extractor, "playing piano and going thrift shopping , i find the best stuff .") == [
        "S is playing piano; is going thrift shopping."
    ]
    said = "my two older brothers used to beat me every time ."
    assert any("two older brothers" in t for t in texts(extractor, said))
    appended = "i'm a physics teacher in Nairobi, making a lesson on projectile motion for form 3"
    assert not [t for t in texts(extractor, appended) if "lesson" in t]
