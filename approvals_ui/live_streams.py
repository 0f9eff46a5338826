"""How many run pages may follow their run at once: each open page holds a connection
and a long poll on Temporal, so the count is bounded in all and per reviewer.

A slot is taken before the stream starts (a page past the bound gets a 503 at once,
and its browser tries again later) and given back once, however the stream ends: the
run ended, the stream's lifetime ran out, or the browser went away.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field


class TooManyStreams(Exception):
    """No slot: the server's bound, or the reviewer's own, is reached."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass
class LiveStreams:
    limit: int
    per_reviewer: int
    _open: Counter[str] = field(default_factory=Counter)

    @property
    def open(self) -> int:
        return sum(self._open.values())

    def of(self, reviewer_id: str) -> int:
        return self._open[reviewer_id]

    def take(self, reviewer_id: str) -> Slot:
        """A slot for this reviewer's stream; TooManyStreams when none is left."""
        if self._open[reviewer_id] >= self.per_reviewer:
            raise TooManyStreams(
                f"You follow as many runs live as one reviewer may ({self.per_reviewer}). "
                "Close a run page, or reload this one to see where the run is."
            )
        if self.open >= self.limit:
            raise TooManyStreams(
                "The server follows as many runs live as it may. Reload the page to see "
                "where the run is; it follows the run again when a place frees up."
            )
        self._open[reviewer_id] += 1
        return Slot(self, reviewer_id)


@dataclass
class Slot:
    streams: LiveStreams
    reviewer_id: str
    released: bool = False

    def release(self) -> None:
        if self.released:
            return
        self.released = True
        self.streams._open[self.reviewer_id] -= 1
        if self.streams._open[self.reviewer_id] <= 0:
            del self.streams._open[self.reviewer_id]
