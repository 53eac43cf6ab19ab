"""Scope resolution and visibility: pure functions."""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.errors import BadRequest
from core.scope import (
    LOCAL_PRINCIPAL,
    UNSET_TAG,
    Mode,
    Principal,
    Scope,
    ScopeInputs,
    derive_session_id,
    infer_project,
    is_visible,
    resolve_scope,
    scope_key,
    scope_tag,
    visible_scope_keys,
)


def test_header_beats_path_and_body_for_each_level() -> None:
    scope = resolve_scope(
        ScopeInputs(
            header_project="h",
            path_project="p",
            header_user="hu",
            body_user="bu",
            header_session="hs",
            derived_session="ds",
        ),
        LOCAL_PRINCIPAL,
    )
    assert scope == Scope(org="local", project="h", user="hu", session="hs")


def test_fallbacks_path_body_default_user_and_derived_session() -> None:
    principal = Principal(name="p", org="acme", default_user="ops")
    assert resolve_scope(
        ScopeInputs(path_project="p", body_user="bu", derived_session="ds"), principal
    ) == Scope(org="acme", project="p", user="bu", session="ds")
    assert resolve_scope(ScopeInputs(), principal) == Scope(
        org="acme", project=None, user="ops", session=None
    )


def test_blank_values_count_as_unset_and_overlong_ones_are_refused() -> None:
    assert resolve_scope(ScopeInputs(header_project="  "), LOCAL_PRINCIPAL).project is None
    with pytest.raises(BadRequest, match="X-Mnemo-Project"):
        resolve_scope(ScopeInputs(header_project="x" * 5000), LOCAL_PRINCIPAL)


def test_org_never_comes_from_the_request() -> None:
    principal = Principal(name="p", org="acme", default_user="u")
    assert resolve_scope(ScopeInputs(header_project="beta"), principal).org == "acme"


@pytest.mark.parametrize(
    ("memory", "request_scope", "visible"),
    [
        (Scope("a"), Scope("a", "p", "u", "s"), True),
        (Scope("a", project="p"), Scope("a", "p", "u", "s"), True),
        (Scope("a", project="p"), Scope("a", "q", "u", "s"), False),
        (Scope("a", project="p"), Scope("a", None, "u", "s"), False),
        (Scope("a", user="u"), Scope("a", "any", "u", None), True),
        (Scope("a", user="u"), Scope("a", "any", "v", None), False),
        (Scope("a", user="u", session="s"), Scope("a", None, "u", "t"), False),
        (Scope("b"), Scope("a", "p", "u", "s"), False),
    ],
)
def test_visibility_rule(memory: Scope, request_scope: Scope, visible: bool) -> None:
    assert is_visible(memory, request_scope) is visible


@given(st.text(min_size=1, max_size=300), st.text(min_size=1, max_size=300))
def test_scope_tags_never_collide_or_carry_syntax(a: str, b: str) -> None:
    tag = scope_tag(a)
    assert len(tag) == 32 and all(c in "0123456789abcdef" for c in tag)
    assert tag != UNSET_TAG
    assert (scope_tag(a) == scope_tag(b)) == (a == b)


def test_tags_are_case_sensitive() -> None:
    assert scope_tag("Acme") != scope_tag("acme")


def test_mode_parsing() -> None:
    assert Mode.parse(None) is Mode.READWRITE
    assert Mode.parse("OFF") is Mode.OFF
    assert (Mode.parse("read").recalls, Mode.parse("read").learns) == (True, False)
    assert (Mode.parse("write").recalls, Mode.parse("write").learns) == (False, True)
    with pytest.raises(BadRequest):
        Mode.parse("maybe")


def test_session_ids_are_stable_per_conversation_opening() -> None:
    assert derive_session_id("system:x\nuser:hi") == derive_session_id("system:x\nuser:hi")
    assert derive_session_id("system:x\nuser:hi") != derive_session_id("system:x\nuser:hello")
    assert derive_session_id("") is None


@given(
    st.tuples(
        st.text(max_size=5),
        st.none() | st.text(max_size=5),
        st.none() | st.text(max_size=5),
        st.none() | st.text(max_size=5),
    ),
    st.tuples(
        st.text(max_size=5),
        st.none() | st.text(max_size=5),
        st.none() | st.text(max_size=5),
        st.none() | st.text(max_size=5),
    ),
)
def test_visible_scope_keys_say_exactly_what_is_visible(
    memory: tuple[str, str | None, str | None, str | None],
    request: tuple[str, str | None, str | None, str | None],
) -> None:
    record, asking = Scope(*memory), Scope(*request)
    assert (scope_key(record) in visible_scope_keys(asking)) is is_visible(record, asking)


def test_at_most_eight_keys_and_none_for_unset_levels() -> None:
    assert len(visible_scope_keys(Scope("o", "p", "u", "s"))) == 8
    assert len(visible_scope_keys(Scope("o"))) == 1
    assert scope_key(Scope("o", project="p")) != scope_key(Scope("o", user="p"))


@pytest.mark.parametrize(
    ("prompt", "project"),
    [
        (
            "x-billing\nPrimary working directory: /home/dana/src/acme-web\nIs a git repository: true",
            "acme-web",
        ),
        (
            "<environment_context><cwd>/work/beta-api</cwd><shell>bash</shell></environment_context>",
            "beta-api",
        ),
        ("workspaces: origin git@github.com:acme/acme-web.git", "acme-web"),
        ("Remote: https://github.com/acme/widgets.git (fetch)\nPrimary working directory: /tmp/x", "widgets"),
        ("You are a helpful assistant.", None),
        ("", None),
    ],
)
def test_project_inferred_from_the_agents_own_prompt(prompt: str, project: str | None) -> None:
    assert infer_project(prompt) == project


def test_headers_and_path_beat_an_inferred_project() -> None:
    inputs = ScopeInputs(path_project="from-path", inferred_project="from-prompt")
    assert resolve_scope(inputs, LOCAL_PRINCIPAL).project == "from-path"
    assert (
        resolve_scope(ScopeInputs(inferred_project="from-prompt"), LOCAL_PRINCIPAL).project == "from-prompt"
    )


def test_effective_mode_under_controls() -> None:
    from core.scope import effective_mode

    assert effective_mode(Mode.READWRITE, set()) is Mode.READWRITE
    assert effective_mode(Mode.READWRITE, {"paused"}) is Mode.READ
    assert effective_mode(Mode.WRITE, {"paused"}) is Mode.OFF
    assert effective_mode(Mode.READ, {"paused", "disabled"}) is Mode.OFF


def test_a_scope_value_holding_the_keys_own_marks_is_no_other_scope() -> None:
    # hypothesis found these: a session of "\x00" read as no session, a user of "a\x1fb" as two levels
    assert scope_key(Scope("", None, None, "\x00")) != scope_key(Scope("", None, None, None))
    assert scope_key(Scope("o", "a\x1fb", None, None)) != scope_key(Scope("o", "a", "b", None))
    # every real value keeps the key stores already hold: the levels joined by "\x1f", unset as "\x00"
    old = hashlib.sha256(b"o\x1fp\x1f\x00\x1fs").hexdigest()[:32]
    assert scope_key(Scope("o", "p", None, "s")) == old
