"""A run's books: turns taken, tokens and cost used, tool calls made, events seen.

One place that the state query, the outcome and the budget checks all read, so that
they can never disagree. Cost is Decimal and kept exact; it is rounded to
`COST_QUANTUM` only where it is shown.

This is workflow code: time only through `workflow.now()`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from workflows import policy
    from workflows.contracts import (
        EventKind,
        ModelPrice,
        RunEvent,
        ToolCallRecord,
        ToolResultBlock,
        ToolUseBlock,
        TurnUsage,
        Usage,
    )

COST_QUANTUM = Decimal("0.000001")


@dataclass
class RunBooks:
    turns: int = 0
    usage: Usage = field(default_factory=Usage)
    cost: Decimal = Decimal(0)
    turn_usage: list[TurnUsage] = field(default_factory=list)
    tool_calls: list[ToolCallRecord] = field(default_factory=list)
    events: list[RunEvent] = field(default_factory=list)

    def event(self, kind: EventKind, text: str) -> None:
        self.events.append(RunEvent(at=workflow.now(), turn=self.turns, kind=kind, text=text))

    def record_usage(self, usage: Usage, price: ModelPrice) -> None:
        cost = price.cost(usage)
        self.usage = self.usage + usage
        self.cost += cost
        self.turn_usage.append(
            TurnUsage(turn=self.turns, usage=usage, cost_usd=cost.quantize(COST_QUANTUM))
        )

    def record_tool(self, call: ToolUseBlock, content: str, is_error: bool) -> ToolResultBlock:
        """The call's one result, bounded, and its line in the trail and the events."""
        content = policy.bound_text(content)
        self.tool_calls.append(
            ToolCallRecord(
                turn=self.turns,
                tool_use_id=call.id,
                name=call.name,
                ok=not is_error,
                error=content if is_error else None,
            )
        )
        verdict = "error" if is_error else "ok"
        self.event("tool_result", f"turn {self.turns}: {call.name} -> {verdict}")
        return ToolResultBlock(tool_use_id=call.id, content=content, is_error=is_error)

    def order_tool_calls(self, first_record: int, calls: tuple[ToolUseBlock, ...]) -> None:
        """Each call was recorded as it finished (the state query shows it at once);
        the trail keeps the calls' order, as the results do."""
        position = {call.id: index for index, call in enumerate(calls)}
        self.tool_calls[first_record:] = sorted(
            self.tool_calls[first_record:], key=lambda record: position[record.tool_use_id]
        )

    def rounded_cost(self) -> Decimal:
        return self.cost.quantize(COST_QUANTUM)

    def cost_text(self) -> str:
        return str(self.rounded_cost())
