"""A team's own tools, added the documented way (docs/configuration/add-a-tool.md): the test
profile `team_profile.toml` names this module in `python_tools`.

`issue_voucher` honours its idempotency key as the docs require of an irreversible
tool: a key it has seen returns the voucher it made then. `VOUCHERS` (key -> voucher)
and `CALLS` (every call, repeats included) let a test count the effects. A test makes
`lookup_stock` as slow as a warehouse that does not answer by setting `STOCK_GATE`: each
call then waits for it, counted in `STOCK_WAITING`.
"""

from __future__ import annotations

import threading
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from signoff.tools import ToolContext, tool

VOUCHERS: dict[str, dict[str, object]] = {}
CALLS: list[str] = []
STOCK_GATE: threading.Event | None = None
STOCK_WAITING: list[str] = []


class StockArguments(BaseModel):
    model_config = ConfigDict(extra="forbid")
    sku: Annotated[str, Field(min_length=1, max_length=40, description="The item's SKU.")]


@tool(
    name="lookup_stock",
    risk="read",
    description=(
        "Returns how many units of one item the warehouse holds, by its SKU. Use it when "
        "the customer asks whether a replacement can ship. Do not use it for order facts: "
        "use get_order for those. It returns JSON with the sku and the units in stock."
    ),
)
def lookup_stock(arguments: StockArguments, context: ToolContext) -> dict[str, object]:
    gate = STOCK_GATE
    if gate is not None:
        STOCK_WAITING.append(arguments.sku)
        gate.wait()
    return {"sku": arguments.sku, "in_stock": 7, "tenant": context.tenant_id}


class VoucherArguments(BaseModel):
    model_config = ConfigDict(extra="forbid")
    value: Annotated[int, Field(gt=0, le=100, description="Voucher value, whole units.")]
    reason: Annotated[
        str, Field(min_length=1, max_length=300, description="Why, for the reviewer.")
    ]


@tool(
    name="issue_voucher",
    description=(
        "Issues a store voucher to the customer of this run's ticket. Use it when a "
        "delay or a small fault deserves a goodwill gesture and no refund is due. Do not "
        "use it instead of a refund. It returns JSON with the voucher code once a "
        "reviewer approves, or an error saying it did not happen."
    ),
)
def issue_voucher(arguments: VoucherArguments, context: ToolContext) -> dict[str, object]:
    CALLS.append(context.idempotency_key)
    made = VOUCHERS.get(context.idempotency_key)
    if made is None:
        made = {"code": f"V-{len(VOUCHERS) + 1:04d}", "value": arguments.value}
        VOUCHERS[context.idempotency_key] = made
    return made
