"""Shapes of language learned in round sixteen (bench/RESULTS.md), read off blind sets written by
people typing English as a second language and by terse developers: each test has a case that must
be read one way and one that must not; all fail on the round's start (18c9f75). A greeting in any
language before a name, a name written with a hyphen, a role "of" a company, words of another
language or script that are no product, a rule whose object is only a pronoun or a list number, a
teaching order about one topic, one space that is no indentation, a language that is no product, a
product banned alone, a naming style, a language the parser took for an adjective, a Jain diet,
notes on the speaker under a label in German, what weeks away were spent doing, a verb after a
dash and a label, a job started after a label, and a complaint that is no rule."""

from __future__ import annotations

from extractors import ClauseExtractor, Turn
from tests.test_extraction import facts


def stored(extractor: ClauseExtractor, text: str, role: str = "user") -> str:
    return " | ".join(c.text_template for c in extractor.extract([Turn(role, text, 0)]))


def values(extractor: ClauseExtractor, text: str, key: str) -> list[str]:
    return [v for k, v in facts(extractor, text) if (k or "").split(":")[0] == key]


def test_a_greeting_in_any_language_before_a_name_said_with_here(extractor: ClauseExtractor) -> None:
    said = "namaskar, Vikram here, devops at an edtech in Noida."
    assert values(extractor, said, "name") == ["Vikram"]
    assert values(extractor, said, "role") == ["devops"]
    assert "namaskar" not in stored(extractor, said).lower()
    assert values(extractor, "hola, Marco here (he/him). I'm in Buenos Aires", "name") == ["Marco"]
    assert values(extractor, "Lucas aqui, from Belo Horizonte.", "name") == ["Lucas"]
    assert "Belo Horizonte" in stored(extractor, "Lucas aqui, from Belo Horizonte.")
    assert values(extractor, "Tom here. need help with a regex", "name") == ["Tom"]


def test_a_name_written_with_a_hyphen_is_one_name(extractor: ClauseExtractor) -> None:
    said = "안녕하세요, I'm Hye-jin, iOS developer at Kakao."
    assert values(extractor, said, "name") == ["Hye-jin"]
    assert "안녕하세요" not in stored(extractor, said)
    assert values(extractor, "i'm Min-jun. half of the week i work remote", "name") == ["Min-jun"]
    # a word of English before the hyphen is no name: "Built-in types only" is a rule
    assert "rule" in stored(extractor, "Built-in types only, please")


def test_a_role_of_a_company(extractor: ClauseExtractor) -> None:
    assert values(extractor, "Hello, I'm Khalid, CTO of a small agency in Doha (8 people).", "role") == [
        "CTO"
    ]
    assert values(extractor, "bom dia! Juliana here, QA lead at a bank in Rio.", "role") == ["QA lead"]


def test_words_of_another_language_are_no_product(extractor: ClauseExtractor) -> None:
    said = "bhai ek baat, in our repo no default exports allowed, only named exports"
    assert not [k for k, _ in facts(extractor, said) if (k or "").startswith("tool:")]
    said = "아 sorry, jenkins was my old company 😅 here we use gitlab ci."
    assert not [k for k, _ in facts(extractor, said) if (k or "").startswith("tool:")]
    assert ("ci", "gitlab ci") in facts(extractor, said)
    # a coined name of one word is still a product
    assert [k for k, _ in facts(extractor, "tuist + espflash for the firmware builds") if k]


def test_a_rule_about_what_a_pronoun_points_at_says_nothing(extractor: ClauseExtractor) -> None:
    said = "I remember things much better with mnemonics so please use them when possible"
    assert "rule" not in stored(extractor, said)
    assert "rule" not in stored(extractor, "pnpm test --run never skip 2, CI fails on it")
    assert "rule" not in stored(extractor, "we got hurt in 2022 by this, never again")
    assert "rule" not in stored(extractor, "never touch it")
    # the order's own object, or a condition "it" points at, still makes the rule
    assert "rule" in stored(extractor, "stop apologizing so much lol, just fix it")
    assert "rule" in stored(extractor, "please always flag it if something is off-label in kids")
    assert "rule" in stored(extractor, "never touch the generated folder")


def test_a_teaching_order_about_one_topic_is_no_rule(extractor: ClauseExtractor) -> None:
    assert "rule" not in stored(extractor, "explain the CAP theorem but short")
    assert "rule" not in stored(extractor, "so tired today 😴 anyway explain me monads in two sentences max")
    assert "rule" in stored(extractor, "explain stuff simply please, im new to this")
    assert "rule" in stored(extractor, "explain things like im a beginner pls, no jargon")
    # "pls" after the order is no topic (a regression hold-out 70 showed once it was scored)
    assert "rule" in stored(extractor, "im a hobbyist not a pro so explain like im new pls")


def test_one_space_is_no_indentation(extractor: ClauseExtractor) -> None:
    said = "oops typo, it's Aysha with y 😅 space theme sounds fun!! she loves planets"
    assert "indentation" not in [k for k, _ in facts(extractor, said)]
    assert "indentation" in [k for k, _ in facts(extractor, "use 4 space indentation")]


def test_a_language_people_speak_is_no_product(extractor: ClauseExtractor) -> None:
    said = "but code comments keep in english, because my team has foreigners"
    assert "database" not in [k for k, _ in facts(extractor, said)]
    said = "code comments and commit messages please write in english, that is our company standard"
    assert "project" in [
        c.scope_level for c in extractor.extract([Turn("user", said, 0)]) if "english" in c.text_template
    ]
    assert "rule" in stored(extractor, said)


def test_a_product_banned_alone_is_a_rule(extractor: ClauseExtractor) -> None:
    assert "rule: No jquery" in stored(extractor, "quick note so i dont have to repeat myself: no jquery.")
    assert "rule" not in stored(extractor, "no fish either")


def test_a_naming_style_is_the_codes(extractor: ClauseExtractor) -> None:
    said = "also we use snake_case in json responses, not camelCase."
    assert [c.scope_level for c in extractor.extract([Turn("user", said, 0)])] == ["project"]
    assert [c.scope_level for c in extractor.extract([Turn("user", "keep api responses short", 0)])] == [
        "project"
    ]
    assert "response_length" in [k for k, _ in facts(extractor, "keep responses short")]


def test_personal_facts_in_second_language_english(extractor: ClauseExtractor) -> None:
    spoken = values(extractor, "I speak arabic, french and english, and a little bit german.", "speaks")
    assert "arabic" in spoken
    assert values(extractor, "I'm lactose intolerant and also jain so no onion garlic please.", "diet") == [
        "jain"
    ]
    assert values(extractor, "Kurz zu mir: Stefan, 45, IT-Projektleiter at Siemens in Erlangen.", "name") == [
        "Stefan"
    ]


def test_what_weeks_away_were_spent_doing(extractor: ClauseExtractor) -> None:
    said = "just got back from 3 weeks backpacking in Peru, we did the Inca trail!!"
    assert "Peru" in stored(extractor, said)
    # after a comma it is what comes next, not what the time was spent on
    said = "just retired from the navy after 22 years, now figuring out what to do with myself."
    assert "figuring" not in stored(extractor, said)
    assert "navy" in stored(extractor, said)


def test_a_verb_after_a_label_and_a_dash(extractor: ClauseExtractor) -> None:
    said = "ok long story short — moved to Berlin last month from Toronto for my partner's job"
    assert values(extractor, said, "home_city") == ["Berlin"]


def test_a_job_started_after_a_label(extractor: ClauseExtractor) -> None:
    said = "new job news: left stripe, started at Datadog on monday 🎉"
    assert values(extractor, said, "employer") == ["Datadog"]
    assert "monitoring" not in [k for k, _ in facts(extractor, said)]
    assert "monitoring" in [k for k, _ in facts(extractor, "we use Datadog for monitoring")]


def test_a_complaint_is_no_rule(extractor: ClauseExtractor) -> None:
    said = "Unity 2022.3 LTS, C#, URP. my shader graph looks washed out on deck only"
    assert "rule" not in stored(extractor, said)
    assert "rule" in stored(extractor, "static pools only")


def test_chi_named_with_its_kind(extractor: ClauseExtractor) -> None:
    said = "go 1.22, chi router, sqlc + pgx, postgres 16."
    assert values(extractor, said, "backend_framework") == ["chi router"]


def test_a_time_zone_said_under_its_label(extractor: ClauseExtractor) -> None:
    assert values(extractor, "timezone is PST fyi, for scheduling stuff", "timezone") == ["PST"]
    assert values(extractor, "the timezone is UTC in the db", "timezone") == []


def test_pronouns_said_after_a_name(extractor: ClauseExtractor) -> None:
    assert values(extractor, "name's Sam, they/them.", "pronouns") == ["they/them"]
    assert values(extractor, "should I write he/him or they/them in the bio", "pronouns") == []


def test_a_limit_set_with_a_number(extractor: ClauseExtractor) -> None:
    assert "rule" in stored(extractor, "PRs max ~400 lines of diff. split bigger stuff up")
    assert "rule" not in stored(extractor, "the max was 400 lines yesterday")


def test_where_a_person_is_from_after_what_they_are(extractor: ClauseExtractor) -> None:
    said = "hi!! I'm Margaret, 68, retired primary teacher from Leeds 😊"
    assert values(extractor, said, "hometown") == ["Leeds"]
    assert values(extractor, "I'm Tom, 3 hours from Berlin", "hometown") == []


def test_a_pet_named_in_a_line_of_its_own(extractor: ClauseExtractor) -> None:
    said = "I keep bees! two hives at the bottom of the garden 🐝 and a very nosy beagle called Murphy"
    assert values(extractor, said, "pet") == ["Murphy"]
    assert values(extractor, "my neighbour has a beagle called Rex", "pet") == []


def test_married_to_a_name(extractor: ClauseExtractor) -> None:
    said = "I'm a night-shift paramedic in Leeds, married to Tom, and we've got twins (Ella & Finn, 6)."
    assert values(extractor, said, "family") == ["Tom", "Ella & Finn"]
    assert values(extractor, "my sister is married to Tom", "family") == []


def test_working_remote_from_a_place(extractor: ClauseExtractor) -> None:
    assert values(extractor, "I work remote from Lisbon, roughly 9-5 WET.", "home_city") == ["Lisbon"]
    assert values(extractor, "i work at Shopify as a data eng, remote from Halifax", "home_city") == [
        "Halifax"
    ]
    assert values(extractor, "i work from home mostly", "home_city") == []


def test_a_greeting_typed_long_and_a_name_before_an_emoji(extractor: ClauseExtractor) -> None:
    assert values(extractor, "heyy im Zoe, 16, doing my GCSEs this year in Glasgow", "name") == ["Zoe"]
    said = "Moin, Jana hier 👋 freelance Android dev, I live in Bremen"
    assert values(extractor, said, "name") == ["Jana"]
    assert values(extractor, "Convention here: snake_case for db columns", "name") == []


def test_a_name_with_pronouns_is_no_tool(extractor: ClauseExtractor) -> None:
    said = "Hi! Priya (she/her), PhD student in marine biology at UCSD."
    assert values(extractor, said, "name") == ["Priya"]
    assert values(extractor, said, "role") == ["PhD student"]
    assert not [k for k, _ in facts(extractor, said) if (k or "").startswith("tool:")]


def test_a_city_that_is_also_a_framework(extractor: ClauseExtractor) -> None:
    said = "so i work nights, 3x12s, as an ICU nurse in Phoenix and honestly eating healthy is impossible."
    assert values(extractor, said, "backend_framework") == []
    assert values(extractor, said, "home_city") == ["Phoenix"]
    assert values(extractor, "i build apps in Phoenix", "backend_framework") == ["Phoenix"]


def test_the_teams_change_whichever_clause_is_main(extractor: ClauseExtractor) -> None:
    said = "we rewrote the frontend in react over the summer, angular is completely gone now."
    assert [c.scope_level for c in extractor.extract([Turn("user", said, 0)])] == ["project"]


def test_an_agent_reports_a_state_it_read_off_a_file(extractor: ClauseExtractor) -> None:
    said = "Checked `template.yaml`: the function runtime is `python3.11`, so there's no mismatch."
    assert "python3.11" in stored(extractor, said, "assistant")
    said = "The prod Dockerfile uses `node:20.11-alpine`, and `.nvmrc` says 20.11.0, so they're consistent."
    assert "node:20.11-alpine" in stored(extractor, said, "assistant")
    said = "Quick question before I change anything: the Dockerfile uses Python 3.10. Which is right?"
    assert stored(extractor, said, "assistant") == ""


def test_bans_and_what_was_seen(extractor: ClauseExtractor) -> None:
    assert [c.scope_level for c in extractor.extract([Turn("user", "no dynamic allocation ever", 0)])] == [
        "project"
    ]
    assert "rule" in stored(extractor, "no warnings allowed in the build")
    assert stored(extractor, "no error in the logs") == ""
    assert stored(extractor, "no issues so far") == ""


def test_what_a_relative_always_said_is_theirs(extractor: ClauseExtractor) -> None:
    said = "my dad always said never buy a new car, only 2-3 years old. was he right financially?"
    assert stored(extractor, said) == ""
    assert "rule" in stored(extractor, "my lead said: no force pushes to main, ever")


def test_what_is_pasted_next_and_whose_librarian(extractor: ClauseExtractor) -> None:
    assert stored(extractor, "here's `npm ls --depth=0`: stuff") == ""
    said = "started my new job at the county library on monday — children's librarian!!"
    assert values(extractor, said, "family") == []
    assert values(extractor, "kids: Ava and Leo", "family") == ["Ava and Leo"]


def test_a_name_is_said_right_after_im(extractor: ClauseExtractor) -> None:
    said = "My name's Harold, I'm 74 and live in Bournemouth with my wife Pat and our springer spaniel Rufus."
    assert values(extractor, said, "name") == ["Harold"]
    assert values(extractor, "I'm Mary and Jo", "name") == ["Mary and Jo"]


def test_news_after_a_label(extractor: ClauseExtractor) -> None:
    said = "update: relocated to Edinburgh for my partner's job 🏴 so expect my weather complaints"
    assert values(extractor, said, "home_city") == ["Edinburgh"]
    said = "a bit about me: retired engineer, 68, live in Brisbane with my wife Helen"
    assert "Brisbane" in stored(extractor, said)
    said = "order pipeline: kafka (confluent cloud) -> temporal workflows written in go -> postgres."
    assert values(extractor, said, "message_queue")


def test_a_word_of_another_language_is_no_tool(extractor: ClauseExtractor) -> None:
    said = "On est passé à Django 5.0 le mois dernier, enfin !"
    assert not [k for k, _ in facts(extractor, said) if (k or "").startswith("tool:")]
    assert "Django 5.0" in stored(extractor, said)
    assert "tool:espflash" in [k for k, _ in facts(extractor, "tooling: probe-rs + defmt + espflash")]


def test_an_introduction_after_a_name_and_an_emoji(extractor: ClauseExtractor) -> None:
    said = "hi! im Oksana btw, you can call me Oks 🙂 phd student in Kraków, working on protein folding"
    assert values(extractor, said, "role") == ["phd student"]
    assert "is cooking q" not in stored(extractor, "cooking q: im vegetarian (no fish either, people ask)")


def test_learning_a_language_at_the_moment(extractor: ClauseExtractor) -> None:
    said = "I speak portuguese and italian, learning japanese atm (around N4)."
    assert values(extractor, said, "learning") == ["japanese"]
    assert stored(extractor, "im tired atm") == ""
