"""Real parts that the tests and the benchmarks run Mnemo against, in one place: an upstream
provider stand-in listening on a port (``harness.upstream``), Mnemo served on a port
(``harness.serving``), and waits on conditions and readers of what reached the upstream
(``harness.helpers``). Not part of the product's package; neither tests/ nor bench/ is imported
from here.
"""
