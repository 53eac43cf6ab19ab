"""Counters for `/metrics` in the Prometheus text format (DESIGN §4).

Kept in process, one ``Metrics`` per app (on ``Services``), updated by the relay; gauges that live
in the store (queue length, record count) are read when scraped. No client library: the text
format is a few lines.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

# Upper bounds of the overhead histogram, in milliseconds.
OVERHEAD_BUCKETS_MS = (1.0, 2.5, 5.0, 10.0, 25.0, 50.0, 100.0, 250.0, 500.0, 1000.0)


@dataclass(slots=True)
class Metrics:
    requests: Counter[tuple[str, str]] = field(default_factory=Counter)  # (api, X-Mnemo-Status)
    recalled: Counter[str] = field(default_factory=Counter)  # by api
    forgotten: int = 0
    overhead_buckets: list[int] = field(default_factory=lambda: [0] * len(OVERHEAD_BUCKETS_MS))
    overhead_sum_ms: float = 0.0
    overhead_count: int = 0
    secrets_cut: int = 0  # secrets cut from text queued for learning (a re-sent conversation counts again)

    def observe_request(
        self, api: str, status: str, recalled: int, forgotten: int, overhead_ms: float
    ) -> None:
        self.requests[(api, status)] += 1
        self.recalled[api] += recalled
        self.forgotten += forgotten
        self.overhead_sum_ms += overhead_ms
        self.overhead_count += 1
        for i, bound in enumerate(OVERHEAD_BUCKETS_MS):
            if overhead_ms <= bound:
                self.overhead_buckets[i] += 1

    def render(
        self, gauges: Iterable[tuple[str, str, float]], counters: Iterable[tuple[str, str, float]] = ()
    ) -> str:
        """The exposition text; ``gauges`` and ``counters`` are (name, help, value) read at scrape time."""
        lines = [
            "# HELP mnemo_requests_total Proxied model calls by API and X-Mnemo-Status.",
            "# TYPE mnemo_requests_total counter",
            *(
                f'mnemo_requests_total{{api="{api}",status="{status}"}} {count}'
                for (api, status), count in sorted(self.requests.items())
            ),
            "# HELP mnemo_recalled_memories_total Memories injected into prompts.",
            "# TYPE mnemo_recalled_memories_total counter",
            *(
                f'mnemo_recalled_memories_total{{api="{api}"}} {n}'
                for api, n in sorted(self.recalled.items())
            ),
            "# HELP mnemo_forgotten_memories_total Records deleted by in-chat forget requests.",
            "# TYPE mnemo_forgotten_memories_total counter",
            f"mnemo_forgotten_memories_total {self.forgotten}",
            "# HELP mnemo_overhead_seconds Time Mnemo spent before relaying a call.",
            "# TYPE mnemo_overhead_seconds histogram",
            *(
                f'mnemo_overhead_seconds_bucket{{le="{bound / 1000:g}"}} {count}'
                for bound, count in zip(OVERHEAD_BUCKETS_MS, self.overhead_buckets, strict=True)
            ),
            f'mnemo_overhead_seconds_bucket{{le="+Inf"}} {self.overhead_count}',
            f"mnemo_overhead_seconds_sum {self.overhead_sum_ms / 1000:.6f}",
            f"mnemo_overhead_seconds_count {self.overhead_count}",
        ]
        counters = [
            *counters,
            (
                "mnemo_secrets_cut_total",
                "Secrets cut from text queued for learning, by this process.",
                self.secrets_cut,
            ),
        ]
        for name, help_text, value in counters:
            lines += [f"# HELP {name} {help_text}", f"# TYPE {name} counter", f"{name} {value:g}"]
        for name, help_text, value in gauges:
            lines += [f"# HELP {name} {help_text}", f"# TYPE {name} gauge", f"{name} {value:g}"]
        return "\n".join(lines) + "\n"
