"""Reflections: a user turn that corrects the agent right after its reply ("No, use yarn, not npm")
also teaches a lesson, "when X, do Y, not Z", linked to the user's turn and to the reply."""

from __future__ import annotations

import re

from extractors.base import Candidate, Turn
from extractors.render import SUBJECT_MARK

_CORRECTION = re.compile(
    r"^\s*(?:no+\b|nope\b|wrong\b|actually\b|that'?s\s+(?:wrong|not\s+right|incorrect|not\s+what)|"
    r"not\s+like\s+that|stop\b|don'?t\s+do\s+that|you\s+(?:should|shouldn'?t)\s+have)",
    re.IGNORECASE,
)
_KEY_LABELS = {
    "package_manager": "installing and running JavaScript packages",
    "python_package_manager": "managing Python dependencies",
    "pre_pr_check": "getting ready to open a pull request",
    "pre_commit_check": "committing",
    "pre_push_check": "pushing or merging",
    "response_language": "replying",
    "response_length": "replying",
    "indentation": "indenting code",
}


def lessons(turns: list[Turn], found: list[Candidate], extractor: str) -> list[Candidate]:
    context = next((t for t in turns if t.role == "context"), None)
    if context is None:
        return []
    taught: list[Candidate] = []
    for candidate in found:
        if candidate.turn.role != "user" or not _CORRECTION.match(candidate.turn.text):
            continue
        if candidate.kind == "reflection" or candidate.key is None:
            continue  # a lesson says when it applies: a slot ("when installing packages, use pnpm")
        wrong = candidate.fields.get("other")
        if wrong and wrong.lower() not in context.text.lower():
            continue  # the reply did not do the wrong thing: this is no correction of it
        doing = _KEY_LABELS.get(
            candidate.key or "", f"it comes to {(candidate.key or 'this').replace('_', ' ')}"
        )
        instead = f", not {wrong}" if wrong else ""
        taught.append(
            Candidate(
                kind="reflection",
                scope_level=candidate.scope_level,
                key=None,
                value=f"{candidate.value}{instead}",
                text_template=f"{SUBJECT_MARK} lesson: when {doing}, use {candidate.value}{instead} "
                "(the user corrected the agent).",
                span=candidate.span,
                turn=candidate.turn,
                confidence=candidate.confidence,
                rule_id="reflection.correction.v1",
                extractor=extractor,
                fields={"corrects_message_index": str(context.index), "lesson_from": candidate.rule_id},
                qualifier=candidate.qualifier,
            )
        )
    return taught
