"""The policy model and its pure decisions: what is kept, as what evidence, and in which scope."""

from policies.decisions import (
    Decision,
    Refusal,
    decide,
    fingerprint,
    subject_label,
    write_scope,
)
from policies.model import DEFAULT_POLICY, Policy

__all__ = [
    "DEFAULT_POLICY",
    "Decision",
    "Policy",
    "Refusal",
    "decide",
    "fingerprint",
    "subject_label",
    "write_scope",
]
