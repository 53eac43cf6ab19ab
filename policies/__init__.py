"""The policy model and its pure decisions: what is kept, as what evidence, and in which scope."""

from policies.decisions import (
    Action,
    Decision,
    Reconciliation,
    Refusal,
    decide,
    fingerprint,
    reconcile,
    reinforced,
    subject_label,
    write_scope,
)
from policies.model import DEFAULT_POLICY, Policy

__all__ = [
    "DEFAULT_POLICY",
    "Action",
    "Decision",
    "Policy",
    "Reconciliation",
    "Refusal",
    "decide",
    "fingerprint",
    "reconcile",
    "reinforced",
    "subject_label",
    "write_scope",
]
