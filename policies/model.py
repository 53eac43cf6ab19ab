"""The policy an operator sets. Built-in default here; policy files load into the same object."""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field


@dataclass(frozen=True, slots=True)
class Policy:
    name: str = "default"
    # Which message roles may produce which evidence; a role not listed produces nothing,
    # so system and tool text are never stored.
    role_evidence: dict[str, str] = field(default_factory=lambda: {"user": "stated", "assistant": "inferred"})
    min_confidence: float = 0.5
    # Extra regular expressions whose matches make a candidate refused as a secret.
    secret_patterns: tuple[str, ...] = ()
    # Free-form records of one scope and kind this similar (cosine) are the same fact in other words.
    near_duplicate_similarity: float = 0.9
    # Inferred records start at the rule's confidence times this.
    inferred_confidence_factor: float = 0.6
    # A tool seen in the user's commands in this many sessions of one project becomes an inference.
    behaviour_sessions: int = 3
    behaviour_window_days: int = 90

    @property
    def digest(self) -> str:
        """Identifies exactly this policy's content; stored on every record it admits."""
        canonical = json.dumps(asdict(self), sort_keys=True, default=list)
        return hashlib.sha256(canonical.encode()).hexdigest()[:16]

    @property
    def label(self) -> str:
        return f"{self.name}@{self.digest}"


DEFAULT_POLICY = Policy()
