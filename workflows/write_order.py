"""One turn's writes: their effects one at a time, in the order the model gave them.

Reads run at the same time. A write's effect starts only when no other effect of the
turn is running and every earlier write of the turn has ended or waits for a
reviewer: a write that waits for a decision holds no later one back (a confirmed
refund does not wait for a four-eyes one beside it to find its second reviewer), and
writes that need none (`auto`) take effect in the model's order.

This is workflow code: `wait_condition` only, no timer and no activity.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from temporalio import workflow

Phase = Literal["preparing", "waiting", "effect", "ended"]
# What lets a later write's effect go before this one.
OUT_OF_THE_WAY: tuple[Phase, ...] = ("waiting", "ended")


@dataclass
class WriteOrder:
    phases: list[Phase] = field(default_factory=list)

    def ticket(self) -> WriteTurn:
        """The next write's place in the turn."""
        self.phases.append("preparing")
        return WriteTurn(self, len(self.phases) - 1)


@dataclass
class WriteTurn:
    order: WriteOrder
    place: int

    def waiting(self) -> None:
        """The write waits for a reviewer's decision."""
        self.order.phases[self.place] = "waiting"

    async def before_effect(self) -> None:
        """Until this write's effect may start; then it runs."""
        phases = self.order.phases

        def may_start() -> bool:
            return "effect" not in phases and all(
                phase in OUT_OF_THE_WAY for phase in phases[: self.place]
            )

        await workflow.wait_condition(may_start)
        phases[self.place] = "effect"

    def after_effect(self) -> None:
        """The effect answered (it may have voided the approval: the write goes on)."""
        self.order.phases[self.place] = "preparing"

    def end(self) -> None:
        self.order.phases[self.place] = "ended"


class NoOrder:
    """A write outside any turn's order (the gate's default)."""

    def waiting(self) -> None:
        pass

    async def before_effect(self) -> None:
        pass

    def after_effect(self) -> None:
        pass
