"""A run waiting for its customer: the one record of the question it has open.

Design note. Once `ask_customer` sent its question (through the gate, like any message
that leaves the company), the run waits on a durable condition for the
`customer_reply` update, at most the profile's `reply_within` days; a worker restart or
days of waiting change nothing, the wait is in the history. One question at a time: a
second `ask_customer` while one is open is refused to the model, so that a reply always
answers exactly one call.

The time spent waiting is the customer's, not the agent's: the run's deadline moves on
by it (`wait` returns the request with its deadline moved), so a three-day wait does not
spend a 48-hour deadline, and the deadline's timer, firing during a wait, is put off
until the wait ends (`put_off`). Every wait still ends: at the latest `reply_within`
later.

Anyone who reaches Temporal can send the update, so the validator takes a reply only
for the run's own tenant and ticket while its question is out and unanswered; what it
says is the customer's kind of text either way (unverified, marked so for the model),
and whoever forges one can do no more than the customer could by answering.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from temporalio import workflow
from temporalio.exceptions import ApplicationError

from workflows.contracts import RunRequest, RunStatus
from workflows.customer_questions import (
    DEFAULT_REPLY_WITHIN_DAYS,
    REPLY_REFUSED,
    CustomerReply,
    CustomerReplyTaken,
    no_reply,
    replied,
)
from workflows.gate_results import GateResult
from workflows.run_books import RunBooks


@dataclass
class CustomerWait:
    books: RunBooks
    # Called when the run starts or stops waiting: the run publishes its status.
    status_changed: Callable[[], None]
    # The `ask_customer` call whose question is open, and since when the run waits.
    asking: str | None = None
    since: datetime | None = None
    reply: CustomerReply | None = None
    # The run's deadline, moved on by the time it waited for its customer; None while
    # it never waited.
    deadline: datetime | None = None
    # Called when the deadline's timer fired during the wait: the timer, to set again.
    _deadline: Callable[[], None] | None = None

    def claim(self, tool_use_id: str) -> str | None:
        """Open the question of `tool_use_id`; or why not, for the model."""
        if self.asking is not None:
            return (
                "You already asked the customer a question that is still open; wait for "
                "its answer before you ask another. Nothing was sent."
            )
        self.asking = tool_use_id
        return None

    def status(self, approval_waiting: bool) -> RunStatus:
        """The live run's status: a reviewer's request first, then the customer."""
        if approval_waiting:
            return "waiting_for_approval"
        return "waiting_for_customer" if self.since is not None else "running"

    def release(self) -> None:
        """The question was not sent (refused, rejected, expired): nothing is open."""
        self.asking, self.since, self.reply = None, None, None

    def check(self, reply: CustomerReply, request: RunRequest, ended: bool) -> None:
        """The `customer_reply` validator: an ApplicationError of type REPLY_REFUSED for
        a reply this run cannot take (anyone who reaches Temporal may send one)."""
        if (reply.tenant_id, reply.ticket_id) != (request.tenant_id, request.ticket_id):
            raise _refused("This run works on another tenant's or another ticket's case.")
        if ended:
            raise _refused("The run that asked has ended.")
        if self.since is None:  # none asked, or not sent yet (a reviewer has it)
            raise _refused("This run has no question open for the customer.")
        if self.reply is not None:
            raise _refused("The customer already answered this run's question.")

    def take(self, reply: CustomerReply) -> CustomerReplyTaken:
        """The reply answers the open question (the validator checked there is one)."""
        assert self.asking is not None and self.since is not None
        self.reply = reply
        self.books.event("customer", f"the customer replied ({reply.source}, {reply.event_id})")
        return CustomerReplyTaken(run_id=workflow.info().workflow_id, tool_use_id=self.asking)

    async def answer(self, sent: GateResult, request: RunRequest) -> tuple[str, RunRequest]:
        """`ask_customer`'s result once its question went out (what the gate said when it
        did not), and the request with its deadline moved on by the wait."""
        if sent.is_error:
            self.release()
            return sent.content, request
        self.books.event("customer", "question sent; waiting for the customer's reply")
        return await self.wait(sent.content, request)

    async def wait(self, sent: str, request: RunRequest) -> tuple[str, RunRequest]:
        """The call's result once the customer answered or `reply_within` passed, and
        the request with its deadline moved on by the time waited."""
        days = reply_within(request)
        started = self.since = workflow.now()
        self.status_changed()
        try:
            await workflow.wait_condition(
                lambda: self.reply is not None, timeout=timedelta(days=days)
            )
            assert self.reply is not None
            content = replied(sent, self.reply)
        except TimeoutError:
            content = no_reply(sent, days)
        except asyncio.CancelledError:
            self.release()  # the run is cancelled: it waits for no one any more
            raise
        waited = workflow.now() - started
        moved = request.model_copy(update={"deadline": request.deadline + waited})
        self.deadline = moved.deadline
        self.release()
        self.books.event("customer", "the wait for the customer ended")
        self.status_changed()
        deadline, self._deadline = self._deadline, None
        if deadline is not None:
            deadline()
        return content, moved

    def put_off(self, deadline: Callable[[], None]) -> bool:
        """Whether the deadline's timer, firing now, is put off: until the wait ends, or
        until the deadline as moved by the waits before."""
        if self.since is not None:
            self._deadline = deadline
            return True
        if self.deadline is None:
            return False  # a run that never waited keeps its timer as it was
        left = (self.deadline - workflow.now()).total_seconds()
        if left <= 0:
            return False
        asyncio.get_running_loop().call_later(left, deadline)
        return True


def _refused(why: str) -> ApplicationError:
    # Non-retryable: the same reply would be refused for the same reason.
    return ApplicationError(why, type=REPLY_REFUSED, non_retryable=True)


def reply_within(request: RunRequest) -> int:
    """The profile's `reply_within`, in days (the default for a run without one)."""
    profile = request.profile
    return DEFAULT_REPLY_WITHIN_DAYS if profile is None else profile.agent.reply_within
