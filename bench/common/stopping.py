"""A benchmark stopped with SIGTERM (`kill`, a CI timeout) still stops its dev stack.

Python's default SIGTERM ends the process without unwinding, so the `with` blocks that
stop the private Temporal server and worker never run, and both live on, orphaned,
loading the machine. Turned into SystemExit, the signal unwinds like Ctrl-C does.
"""

from __future__ import annotations

import signal
import sys
from types import FrameType

TERMINATED = 128 + signal.SIGTERM


def stop_cleanly_on_sigterm() -> None:
    def leave(_signum: int, _frame: FrameType | None) -> None:
        sys.exit(TERMINATED)

    signal.signal(signal.SIGTERM, leave)
