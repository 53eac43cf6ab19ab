"""Learning off the hot path, in four modules:

- ``queue``: the Redis Stream of extraction jobs (``ExtractionJob``, ``JobQueue``), its dead
  letters and the learning counters every worker adds to;
- ``learner``: extract -> decide -> write for a batch of jobs (``Learner``, ``WriteReport``);
- ``loop``: the worker loop (``run_worker``) and what it does with a job that fails;
- ``held``: jobs held in the process while the store is away, written when it is back.
"""
