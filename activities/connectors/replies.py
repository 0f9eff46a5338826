"""`send_reply` through the tenant's helpdesk connector, behind its breaker.

Design note. The outbox row (activities/store/customer_replies.py) stays the record:
it is written first, under the effect's idempotency key, and the delivery follows
under the same key; once the helpdesk accepts it, the row says where and when. A
worker that dies between the two, or a delivery that timed out, is retried by Temporal
with the same key: the outbox finds its row, and the helpdesk, which honours the key,
posts the reply once.

The breaker is looked at before the effect claims its key: while it is open a new
reply is refused at once with a tool result that says why, and nothing is written. A
retry of a reply already claimed (an earlier attempt may have reached the helpdesk)
is never called refused: it fails again, quickly, until Temporal's attempts run out
and the run reports the outcome as unknown, for a person to check.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Engine
from temporalio import activity
from temporalio.exceptions import ApplicationError

from activities.connectors.breaker import BreakerState
from activities.connectors.breakers import Breakers, policy_from_settings
from activities.connectors.helpdesk import (
    HelpdeskRefused,
    HelpdeskUnavailable,
    OutgoingReply,
    connector_name,
    deliver,
    target_problem,
)
from activities.store.customer_replies import mark_delivered, send_reply
from activities.store.intake_deliveries import source_ticket_of
from activities.store.tool_effects import STARTED, effect_status
from signoff.config.helpdesks import HelpdeskConnector, load_helpdesk_connectors
from signoff.config.settings import Settings
from signoff.tools import ToolContext
from workflows.actions import ToolActionCommand
from workflows.connector_waits import ConnectorWait
from workflows.contracts import ToolResult

# Ends no sentence: the run's error result goes on "... did not happen: <this>. Do not
# retry it."
NOT_SENT = "the reply was not sent"


@dataclass(frozen=True)
class HelpdeskReplies:
    engine: Engine
    connectors: dict[str, HelpdeskConnector]
    breakers: Breakers
    timeout_seconds: float

    @classmethod
    def from_settings(cls, engine: Engine, settings: Settings) -> HelpdeskReplies:
        """Raises HelpdeskConfigError on a connectors file the worker cannot use."""
        return cls(
            engine,
            load_helpdesk_connectors(settings.helpdesk_connectors),
            Breakers(engine, policy_from_settings(settings)),
            settings.helpdesk_timeout_seconds,
        )

    def connected(self, tenant_id: str) -> bool:
        return tenant_id in self.connectors

    async def refusal(self, command: ToolActionCommand) -> str | None:
        """Why this reply is refused before anything is written; None to go on.
        ConnectorClosed when the helpdesk's breaker is open and nothing was tried yet:
        the approved reply waits for it (workflows/effect_waits.py)."""
        connector = self.connectors[command.tenant_id]
        reply = await self._outgoing(command.tenant_id, command.ticket_id, "", "", "")
        problem = target_problem(connector, reply)
        if problem is not None:
            return f"{problem}; {NOT_SENT}"
        name = connector_name(command.tenant_id)
        state_name, state = await self.breakers.state(name)
        if state_name != "open":
            return None
        claimed = await asyncio.to_thread(effect_status, self.engine, command.idempotency_key)
        if claimed == STARTED:
            raise _unavailable(f"the {name} connector is switched off (its breaker is open)")
        if claimed is not None:
            return None  # it ended already: the claim answers what it answered
        wait = ConnectorWait(
            connector=name,
            retry_after_seconds=state.seconds_left(self.breakers.clock()),
            give_up_after_seconds=connector.give_up_after_seconds(),
        )
        raise ConnectorClosed(_open_message(name, state), wait)

    async def send(self, arguments: Any, context: ToolContext) -> dict[str, str] | ToolResult:
        connector = self.connectors[context.tenant_id]
        reply_id = await asyncio.to_thread(
            send_reply,
            self.engine,
            context.tenant_id,
            context.ticket_id,
            arguments.text,
            context.idempotency_key,
        )
        reply = await self._outgoing(
            context.tenant_id, context.ticket_id, reply_id, arguments.text, context.idempotency_key
        )
        name = connector_name(context.tenant_id)
        admission = await self.breakers.admit(name)
        if not admission.allowed:
            raise _unavailable(f"the {name} connector is switched off (its breaker is open)")
        try:
            await deliver(connector, reply, self.timeout_seconds)
        except HelpdeskUnavailable as error:
            state = await self.breakers.failed(name, str(error))
            activity.logger.warning(
                "%s failed (%d in a row): %s", name, state.consecutive_failures, error
            )
            raise _unavailable(f"the helpdesk did not take the reply: {error}") from None
        except HelpdeskRefused as error:
            await self.breakers.succeeded(name)  # it answered: the connector works
            return ToolResult(
                tool_use_id=context.tool_use_id,
                content=f"the helpdesk refused the reply ({error}); {NOT_SENT}",
                is_error=True,
            )
        await self.breakers.succeeded(name)
        delivered_at = self.breakers.clock()
        key = context.idempotency_key
        await asyncio.to_thread(mark_delivered, self.engine, key, connector.kind, delivered_at)
        return {"status": "sent", "reply_id": reply_id, "helpdesk": connector.kind}

    async def _outgoing(
        self, tenant_id: str, ticket_id: str, reply_id: str, text: str, key: str
    ) -> OutgoingReply:
        source = await asyncio.to_thread(source_ticket_of, self.engine, tenant_id, ticket_id)
        return OutgoingReply(
            reply_id=reply_id,
            tenant_id=tenant_id,
            ticket_id=ticket_id,
            source_ticket_id=None if source is None else source[1],
            text=text,
            idempotency_key=key,
        )


class ConnectorClosed(Exception):
    """The helpdesk's breaker is open and this reply was never tried: nothing was
    written or sent, and its approval stands while the run waits (`wait`)."""

    def __init__(self, message: str, wait: ConnectorWait) -> None:
        super().__init__(message)
        self.wait = wait


def _open_message(name: str, state: BreakerState) -> str:
    until = state.open_until.strftime("%H:%M:%S UTC") if state.open_until else "later"
    return (
        f"the {name} connector is switched off after {state.consecutive_failures} failures "
        f"in a row (last: {state.last_error or 'unknown'}) until {until}; {NOT_SENT} yet: "
        "the run sends it when the helpdesk is back"
    )


def _unavailable(message: str) -> ApplicationError:
    # Retryable on purpose: an earlier attempt may have reached the helpdesk, so this is
    # never "refused"; the same key is tried again, and after the last attempt the run
    # reports the outcome as unknown.
    return ApplicationError(message, type="HelpdeskUnavailable")
