"""Rule facts: standing imperatives ("always squash before merging"), the team's habits ("we squash
merge everything"), norms about code ("`any` is banned"), rules written as notes ("squash merge only"),
how answers should look (kept with the user), and exceptions ("except on hotfix branches").

- ``facts``: whose a rule is, the slot it fills, the fact it makes;
- ``standing``: rules said as clauses (orders, requests, habits, norms);
- ``notes``: rules written as notes;
- ``preferences``: preferences, and exceptions to a rule said before.
"""

from __future__ import annotations

from extractors.readers.rules.preferences import RuleReader

__all__ = ["RuleReader"]
