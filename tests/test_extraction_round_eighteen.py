"""Shapes of language learned in round eighteen (bench/RESULTS.md), read off two blind sets of
everyday users and engineers: each test has a case that must be read one way and one that must not;
all fail on the round's start (a446acd). A correction that quotes the speaker's own earlier words, a
request about suggestions, symptoms told as notes, a note that goes on from the sentence before, a
version followed by when, what a slot's thing does to its object, a dotted name in code, an
introduction after a label, a parent's count and the children's names, a subject the tagger took
for a verb, a convention wanted on every thing of the code, a milestone with a name in it, and the
language code is to be written in."""

from __future__ import annotations

from extractors import ClauseExtractor, Turn


def stored(extractor: ClauseExtractor, text: str, role: str = "user") -> str:
    return " | ".join(c.text_template for c in extractor.extract([Turn(role, text, 0)]))


def values(extractor: ClauseExtractor, text: str, key: str, role: str = "user") -> list[str]:
    return [c.value for c in extractor.extract([Turn(role, text, 0)]) if (c.key or "").split(":")[0] == key]


def test_a_correction_quoting_what_the_speaker_said_before(extractor: ClauseExtractor) -> None:
    turns = [
        Turn("user", "the api runs on python 3.9", 0),
        Turn("user", "oops i said python 3.9 earlier, it's actually 3.12 on the server", 1),
    ]
    learned = [c.value for c in extractor.extract(turns) if c.key == "python_version"]
    assert learned[-1] == "3.12" and "3.9" not in learned[1:]
    # "sry" marks a correction as "sorry" does: the name is no rule of the project
    assert "rule" not in stored(extractor, "sry typo, its aleks with a k-s, not alex")


def test_a_request_about_suggestions_names_no_stack(extractor: ClauseExtractor) -> None:
    said = "please stop suggesting jquery lol. this is vanilla js only, no libraries"
    assert values(extractor, said, "frontend_framework") == []
    assert "jquery" in stored(extractor, said).lower()  # the request itself is kept, as a rule
    assert values(extractor, "just fastapi + postgres", "database") == ["postgres"]


def test_symptoms_told_as_notes_are_no_rules(extractor: ClauseExtractor) -> None:
    assert "rule" not in stored(extractor, "expo go works, dev build crashes instantly on launch. no logs.")
    assert "rule" not in stored(extractor, "vulkan renderer. linker errors ONLY on mac, undefined symbols")
    assert "rule" not in stored(
        extractor, "loss goes nan around epoch 3 every single time. bf16 if it matters"
    )
    # a ban of a failure, a kind of error and a retry rule after a failure stay rules
    assert "rule" in stored(extractor, "Two rules: no exceptions across module boundaries.")
    assert "Custom exceptions only" in stored(extractor, "custom exceptions only")
    assert "rule" in stored(extractor, "the tests hang. no retries on CI please")


def test_a_note_goes_on_from_the_sentence_before(extractor: ClauseExtractor) -> None:
    said = stored(
        extractor, "all money amounts are stored as integer cents. never floats. learned that the hard way"
    )
    assert "never floats" in said and "User" not in said
    assert "Two rules" not in stored(
        extractor, "the reporting service talks to postgres - no wait, its mysql"
    )


def test_a_version_followed_by_when(extractor: ClauseExtractor) -> None:
    said = "bumped everything to node 20 last week since 18 is EOL. anything to watch out for w/ fetch?"
    assert values(extractor, said, "node_version") == ["20"]
    assert "User" not in stored(extractor, said)  # a change to the code, no episode of a life
    assert values(extractor, "we're going to node 20 next quarter", "node_version") == []


def test_what_a_slots_thing_does_is_not_what_it_is(extractor: ClauseExtractor) -> None:
    assert values(extractor, "CI only does chromium now", "ci") == []
    assert values(extractor, "our feature flags come from flagpole", "feature_flags") == ["flagpole"]


def test_a_dotted_name_in_code_is_one_word(extractor: ClauseExtractor) -> None:
    said = stored(extractor, 'in this codebase errors are always wrapped with fmt.Errorf("...: %w", err)')
    assert "fmt.Errorf" in said
    # a stop typed without a space still ends a sentence
    assert len(list(extractor.nlp("we use python.It is great").sents)) == 2


def test_an_introduction_after_a_label(extractor: ClauseExtractor) -> None:
    said = "Quick intro: Raj, PM (not a dev) at Zendesk in Dublin."
    assert values(extractor, said, "name") == ["Raj"]
    assert values(extractor, said, "role") == ["PM"]
    assert "Project" not in stored(extractor, said)  # where Raj works is no product the project uses
    assert values(extractor, "im free after 6pm", "role") == []


def test_a_parents_count_then_the_childrens_names(extractor: ClauseExtractor) -> None:
    said = "hi i'm Marco, dad of two (Giulia 9, Luca 5), we live in Bologna"
    assert values(extractor, said, "family") == ["Giulia and Luca"]
    assert values(extractor, "my sister is a mom of 3 (Ava, Leo, Mia)", "family") == []


def test_a_subject_the_tagger_took_for_an_order(extractor: ClauseExtractor) -> None:
    said = stored(
        extractor, "Commit messages follow conventional commits (feat:, fix:) and we squash merge only."
    )
    assert "Commit messages follow conventional commits" in said
    assert "Ensure tests pass before merging" in stored(extractor, "Ensure tests pass before merging")


def test_a_convention_wanted_on_every_thing_of_the_code(extractor: ClauseExtractor) -> None:
    assert "Type hints on every function signature" in stored(
        extractor, "Type hints on every function signature."
    )
    assert "rule" not in stored(extractor, "a bug in every release lol")
    said = stored(extractor, "feature flags for anything customer facing, always. we use unleash for that")
    assert "rule: Feature flags for anything customer facing" in said


def test_a_milestone_with_a_name_in_it(extractor: ClauseExtractor) -> None:
    assert "open water cert" in stored(extractor, "got my PADI open water cert last weekend in Malta!!")
    assert "UK driving licence" in stored(extractor, "just got my UK driving licence, passed first time!!")
    assert "User" not in stored(extractor, "I started using rust last week")
    assert "User" not in stored(extractor, "got my coffee this morning")


def test_the_language_code_is_to_be_written_in(extractor: ClauseExtractor) -> None:
    assert values(extractor, "Please write the code examples with Kotlin, not Java.", "language") == [
        "Kotlin"
    ]
    assert values(extractor, "write me a script in python to rename files", "language") == []
    assert values(extractor, "write tests with pytest", "write_command") == []
    assert values(extractor, "write tests with pytest", "test_command") == ["pytest"]


def test_corrections_of_names_and_products_said_every_way(extractor: ClauseExtractor) -> None:
    def learned(before: str, said: str, key: str) -> list[str]:
        turns = [Turn("user", before, 0), Turn("user", said, 1)]
        return [c.value for c in extractor.extract(turns) if c.key == key]

    assert learned("my dog is called Max", "oops typo, his name is Mac not Max 😂", "pet:dog") == ["Mac"]
    assert (
        learned("hi im Katherine", "could you call me Kate from now on? Katherine feels formal", "name")[-1]
        == "Kate"
    )
    hosted = learned(
        "we run on heroku", "actually scratch that, we left heroku in january. it's render now", "hosting"
    )
    assert hosted[-1] == "render"
    assert values(extractor, "sorry i meant pnpm not npm", "package_manager") == ["pnpm"]
    # a correction that names a product only to deny it, or only asks, names no product meant
    assert stored(extractor, "nope, no graphql anywhere") == ""
    assert stored(extractor, "wait is 0.1 + 0.2 == 0.3 false in every language or just js") == ""
    assert "passport" not in stored(extractor, "actually pls call me Sasha, Alex is only on my passport")


def test_every_product_listed_with_the_one_replaced(extractor: ClauseExtractor) -> None:
    for said in ("replaced flake8, black and isort with ruff", "replaced flake8/black/isort with ruff"):
        learned = {c.key: c.value for c in extractor.extract([Turn("user", said, 0)]) if c.key}
        assert learned == {"linter": "ruff"}
    assert values(extractor, "dropped jest, vitest now. same api mostly", "test_framework") == ["vitest"]


def test_an_order_the_tagger_took_for_the_past_or_for_a_labels_clause(extractor: ClauseExtractor) -> None:
    assert "Always set seeds explicitly" in stored(extractor, "always set seeds explicitly pls.")
    assert "rule" not in stored(extractor, "I always set my alarm at 6")
    assert "never use GlobalScope" in stored(extractor, "coroutine rule on our team: never use GlobalScope.")


def test_a_relatives_condition_of_a_numbered_type(extractor: ClauseExtractor) -> None:
    said = "my daughter Aisha has type 1 diabetes so carb counts really matter for snack ideas"
    assert "daughter Aisha has type 1 diabetes" in stored(extractor, said)
    said = "i passed my AWS solutions architect associate exam today!!! what should i study next"
    assert "AWS solutions architect associate exam" in stored(extractor, said)


def test_the_pace_of_every_answer(extractor: ClauseExtractor) -> None:
    said = stored(extractor, "I'm not a pro at all so explain things step by step pls")
    assert "User bench-user rule: Explain things step by step" in said.replace(
        "\x00subject\x00", "User bench-user"
    )
    assert "rule: Go slow" in stored(extractor, "not great with computers so go slow please")
    # a pace for one task is the task's: the topic is named
    assert "rule" not in stored(extractor, "walk me through setting up helm step by step")
    assert "rule" not in stored(extractor, "the build is slow")


def test_where_a_build_fails_is_no_command_it_runs(extractor: ClauseExtractor) -> None:
    said = "we're a small team, flutter app. the ios build keeps failing on pod install any ideas"
    assert values(extractor, said, "build_command") == []
    said = "ios build fails on my M1 with some pod install error about the deployment target"
    assert values(extractor, said, "build_command") == []
    # a command that hangs is still the project's, and a flag's words are no error
    assert "cargo nextest run --workspace" in stored(extractor, "cargo nextest run --workspace hangs on CI")
    assert values(extractor, "lint is cargo clippy -- -D warnings", "lint_command") == [
        "cargo clippy -- -D warnings"
    ]


def test_what_others_call_the_speaker_and_what_is_still_to_come(extractor: ClauseExtractor) -> None:
    said = "pls call me Jay, not Jason lol only my mom calls me Jason"
    assert values(extractor, said, "name") == ["Jay"] and values(extractor, said, "family") == []
    assert values(extractor, "my mom is called Anna", "family") == ["Anna"]
    assert values(extractor, "im practicing my dutch, moving to utrecht soon", "home_city") == []
    assert values(extractor, "i'm moving to Utrecht", "home_city") == ["Utrecht"]


def test_the_teams_way_and_a_words_modifiers(extractor: ClauseExtractor) -> None:
    said = "in this codebase we use tabs not spaces, dont argue with me on this one lol"
    assert [c.scope_level for c in extractor.extract([Turn("user", said, 0)])] == ["project"]
    hooks = extractor.extract([Turn("user", "we dont write class components anymore, hooks only.", 0)])
    assert [(c.scope_level, c.value) for c in hooks] == [("project", "hooks only")]
    assert values(extractor, "i'm on a low sodium diet since my heart surgery", "diet") == ["low sodium"]
    assert values(extractor, "i follow a strict keto diet", "diet") == ["strict keto"]


def test_words_around_a_correction_and_a_verb_after_its_subject(extractor: ClauseExtractor) -> None:
    turns = [
        Turn("user", "my dog Rex loves the park", 0),
        Turn("user", "lol autocorrect, the dog is Rocky not Rex", 1),
    ]
    assert [(c.key, c.value) for c in extractor.extract(turns)][-1:] == [("pet:dog", "Rocky")]
    assert stored(extractor, "my manager thinks we should move everything to azure. i dunno man") == ""
    said = "no default exports anywhere in the codebase (they make refactors + grep painful)"
    assert "grep painful" not in stored(extractor, said)
    assert "make test" in stored(extractor, "we run make test before pushing")


def test_a_correction_after_a_filler_and_a_value_cut_by_the_tokenizer(extractor: ClauseExtractor) -> None:
    def last(before: str, said: str, key: str) -> str:
        turns = [Turn("user", before, 0), Turn("user", said, 1)]
        return [c.value for c in extractor.extract(turns) if c.key == key][-1]

    assert last("i live in Tallinn", "ugh I mean Tartu. autocorrect.", "home_city") == "Tartu"
    said = "ah sorry, it's eu-central-1 not us-east-1, all our stuff is in Frankfurt"
    assert last("our bucket is in us-east-1", said, "setting:bucket") == "eu-central-1"
    # a count is no version meant, and a sentence of its own is no value meant
    said = "ah actually scratch that, the team agreed on 2 spaces indent in the last meeting"
    assert last("our fortran code uses 4 spaces", said, "indentation") != "team"
