"""The command line, stopping its own process with a signal right after its first answers reach
the score cache: ``python stopping.py SIGNAL biasatlas-arguments…`` (``KILL`` or ``INT``).

Why not a signal sent from the test once the cache holds a row: that raced a tiny run against the
test's polling (issue 46 item 20: on a fresh clone a run finished, or was interrupted at its last
commit, before the signal came). Here the run stops at a known point, whatever the machine's
speed: the commit that first wrote answers (one batch of a model scorer, one chunk of another)
has returned, nothing after it has run. SIGKILL ends the process there; SIGINT goes through
Python's own handler, as a Ctrl-C does, and the run keeps what it finished and exits 130.
"""

from __future__ import annotations

import os
import runpy
import signal
import sys
from typing import Any


def stop_after_first_answers(sig: signal.Signals) -> None:
    """Make the score cache send ``sig`` to this process once a commit has written an answer."""
    from biasatlas.cache import ScoreCache

    real = ScoreCache.put
    sent: list[bool] = []

    def put(self: ScoreCache, scorer: str, probes: Any, answers: Any) -> None:
        probes = list(probes)
        real(self, scorer, probes, answers)
        if not sent and any(p.id in answers for p in probes):
            sent.append(True)
            os.kill(os.getpid(), sig)

    ScoreCache.put = put  # type: ignore[method-assign]


if __name__ == "__main__":
    stop_after_first_answers(getattr(signal, f"SIG{sys.argv[1]}"))
    sys.argv = ["biasatlas", *sys.argv[2:]]
    runpy.run_module("biasatlas", run_name="__main__", alter_sys=True)
