"""The effects of one turn's irreversible calls happen in the order the model gave them.

Each gated call of a turn waits for its own decision at once (a reviewer may decide the
second before the first), but its effect waits until every earlier write of the turn
has ended: carried out, refused, rejected, expired or denied. Reads are not ordered:
they run at the same time.

This is workflow code: `wait_condition` only, no timer and no activity.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from temporalio import workflow


@dataclass
class WriteOrder:
    issued: int = 0
    ended: set[int] = field(default_factory=set)

    def ticket(self) -> int:
        """The next write's place in the turn."""
        place = self.issued
        self.issued += 1
        return place

    async def wait_turn(self, place: int) -> None:
        """Until every write before `place` has ended."""
        await workflow.wait_condition(lambda: all(p in self.ended for p in range(place)))

    def end(self, place: int) -> None:
        self.ended.add(place)
