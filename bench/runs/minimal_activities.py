"""The minimal baseline's activities: a scripted model and the shop, on the same SQLite
ledger as signoff's (its `orders`, `tickets` and `refunds` tables), with `sqlite3` alone.

The refund is written as signoff's ledger writes one: under the write lock (`BEGIN
IMMEDIATE`), the order's refunded total is read and the new row refused past the amount
paid; the run and the action make the idempotency key, so a retried attempt finds its
own row instead of refunding twice.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import uuid
from datetime import UTC, datetime
from typing import Any

from temporalio import activity
from temporalio.exceptions import ApplicationError

from bench.runs.minimal_workflow import (
    EXECUTE_REFUND,
    GET_ORDER,
    MODEL_TURN,
    READ_ACTION_STATE,
    READ_TICKET,
    OrderRef,
    RefundOrder,
    Reply,
    TicketRef,
    Turn,
)

# SQLAlchemy's text form of a datetime on SQLite, so that signoff's store reads the row.
STORED_TIME = "%Y-%m-%d %H:%M:%S.%f"
BUSY_MILLISECONDS = 30_000


def database_path(database_url: str) -> str:
    if not database_url.startswith("sqlite:///"):
        raise SystemExit(f"the minimal baseline runs on SQLite, not {database_url}")
    return database_url.removeprefix("sqlite:///")


class MinimalShop:
    def __init__(self, database_url: str) -> None:
        self._path = database_path(database_url)

    def _connect(self) -> sqlite3.Connection:
        # Autocommit mode: the transactions below are begun by hand.
        connection = sqlite3.connect(self._path, isolation_level=None)
        connection.execute(f"PRAGMA busy_timeout = {BUSY_MILLISECONDS}")
        return connection

    def _one(self, sql: str, *parameters: object) -> dict[str, Any]:
        connection = self._connect()
        try:
            connection.row_factory = sqlite3.Row
            row = connection.execute(sql, parameters).fetchone()
        finally:
            connection.close()
        if row is None:
            raise ApplicationError("not found", type="NotFound", non_retryable=True)
        return dict(row)

    @activity.defn(name=MODEL_TURN)
    async def model_turn(self, turn: Turn) -> Reply:
        return scripted_reply(turn.messages)

    @activity.defn(name=READ_TICKET)
    async def read_ticket(self, ref: TicketRef) -> dict[str, Any]:
        return await asyncio.to_thread(
            self._one,
            "SELECT id, order_id, customer_name, text FROM tickets WHERE tenant_id = ? AND id = ?",
            ref.tenant_id,
            ref.ticket_id,
        )

    @activity.defn(name=GET_ORDER)
    async def get_order(self, ref: OrderRef) -> dict[str, Any]:
        return await asyncio.to_thread(
            self._one,
            "SELECT id, amount_paid_minor, currency, status FROM orders "
            "WHERE tenant_id = ? AND id = ?",
            ref.tenant_id,
            ref.order_id,
        )

    @activity.defn(name=READ_ACTION_STATE)
    async def read_action_state(self, ref: OrderRef) -> dict[str, Any]:
        return await asyncio.to_thread(
            self._one,
            "SELECT o.amount_paid_minor - COALESCE(SUM(r.amount_minor), 0) AS remaining_minor, "
            "o.currency AS currency FROM orders o LEFT JOIN refunds r "
            "ON r.tenant_id = o.tenant_id AND r.order_id = o.id "
            "WHERE o.tenant_id = ? AND o.id = ? GROUP BY o.tenant_id, o.id",
            ref.tenant_id,
            ref.order_id,
        )

    @activity.defn(name=EXECUTE_REFUND)
    async def execute_refund(self, order: RefundOrder) -> dict[str, Any]:
        return await asyncio.to_thread(self.refund, order)

    def refund(self, order: RefundOrder) -> dict[str, Any]:
        key = f"{order.run_id}:refund:{order.action_hash}"
        connection = self._connect()
        try:
            connection.execute("BEGIN IMMEDIATE")
            found = connection.execute(
                "SELECT id FROM refunds WHERE idempotency_key = ?", (key,)
            ).fetchone()
            if found is not None:
                connection.execute("ROLLBACK")
                return {"status": "refunded", "refund_id": found[0]}
            paid, refunded = connection.execute(
                "SELECT o.amount_paid_minor, COALESCE(SUM(r.amount_minor), 0) FROM orders o "
                "LEFT JOIN refunds r ON r.tenant_id = o.tenant_id AND r.order_id = o.id "
                "WHERE o.tenant_id = ? AND o.id = ? GROUP BY o.tenant_id, o.id",
                (order.tenant_id, order.order_id),
            ).fetchone()
            if refunded + order.amount_minor > paid:
                connection.execute("ROLLBACK")
                return {"status": "refused", "reason": "more than was paid"}
            refund_id = f"R-{uuid.uuid4().hex[:12]}"
            connection.execute(
                "INSERT INTO refunds (id, tenant_id, order_id, amount_minor, currency, "
                "idempotency_key, run_id, action_hash, approvers, reason, created_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    refund_id,
                    order.tenant_id,
                    order.order_id,
                    order.amount_minor,
                    order.currency,
                    key,
                    order.run_id,
                    order.action_hash,
                    order.approver,
                    order.reason,
                    datetime.now(UTC).strftime(STORED_TIME),
                ),
            )
            connection.execute("COMMIT")
        except BaseException:
            if connection.in_transaction:
                connection.execute("ROLLBACK")
            raise
        finally:
            connection.close()
        return {"status": "refunded", "refund_id": refund_id}


def scripted_reply(messages: list[dict[str, Any]]) -> Reply:
    """The demo agent's four turns, by how many it has taken in the conversation."""
    turn = sum(1 for message in messages if message["role"] == "assistant")
    if turn == 0:
        return Reply(text="Let me read your ticket.", tool="read_ticket")
    if turn == 1:
        return Reply(text="Now let me look the order up.", tool="get_order")
    last = json.loads(messages[-1]["content"])
    if turn == 2:
        return Reply(
            text="The parcel arrived damaged: I propose a refund.",
            tool="refund",
            arguments={
                "amount_minor": str(last["amount_paid_minor"]),
                "reason": "Damaged in transit.",
            },
        )
    return Reply(text=f"Your refund is {last['status']}.")
