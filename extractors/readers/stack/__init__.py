"""Stack facts: what a project uses ("we're on rails 7 w/ sidekiq", "db: postgres 16", "next 14 /
tailwind / supabase"); "switched from X to Y" keeps X as the value replaced; a name the vocabulary
lacks still fills the slot its sentence names ("our feature flags come from flagpole").

- ``products``: products in clauses, with the value replaced and the alternative named;
- ``versions``: the version of a language or runtime, in its own slot;
- ``names``: names the vocabulary lacks;
- ``settings``: a setting said as what it is ("our default branch is master");
- ``lines``: labeled lines and rundowns, item by item.
"""

from __future__ import annotations

from extractors.readers.stack.lines import StackReader

__all__ = ["StackReader"]
