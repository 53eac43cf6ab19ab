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
from policies.loader import PolicyHolder, load_policy, parse_policy
from policies.model import DEFAULT_POLICY, Policy
from policies.schema import PolicyError

__all__ = [
    "DEFAULT_POLICY",
    "Action",
    "Decision",
    "Policy",
    "PolicyError",
    "PolicyHolder",
    "Reconciliation",
    "Refusal",
    "decide",
    "fingerprint",
    "load_policy",
    "parse_policy",
    "reconcile",
    "reinforced",
    "subject_label",
    "write_scope",
]
