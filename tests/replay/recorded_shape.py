"""The history a recorded run asks for (RunRequest.history), set per scenario.

Scenarios named `*_compact` record what the factory starts now; the others the marked
shape they were written for. Its own module: `record_histories` runs as `__main__`, and
a variable there would not be the one `more_scenarios` reads through its import.
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import Literal

from workflows.contracts import HISTORY_COMPACT, HISTORY_MARKED

RECORDED_HISTORY: ContextVar[Literal[1, 2]] = ContextVar("recorded_history", default=HISTORY_MARKED)
COMPACT_SUFFIX = "_compact"


def record_as(name: str) -> None:
    """The shape of the scenario `name`, for the requests built from now on."""
    RECORDED_HISTORY.set(HISTORY_COMPACT if name.endswith(COMPACT_SUFFIX) else HISTORY_MARKED)
