"""Deciding several pending actions at once: one signed decision per action, each judged
on its own, every outcome reported beside the others.

Design note. A batch is not a transaction: each action gets its own decision, signed
over its own hash by the decision service and sent to its own run, whose validator has
the last word. One that cannot be decided (it expired, it changed since the reviewer
saw it, the same reviewer already gave the first of two approvals, it needs a passkey,
it is not in the reviewer's tenant) is a failure on its row, and the others go on: the
reviewer reads a line per action, never a silent all-or-nothing. A selection carries
each action's hash as the reviewer was shown it, so a changed action is never decided
by a batch (its hash no longer waits). What is wrong with the batch itself (too many,
duplicates, a rejection without a category or reason) is refused before anything is
sent. An approval that needs the reviewer's passkey is not batched at all: it is
decided on its own page.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass

from signoff.service.batch_summary import (
    MAX_BATCH,
    SUCCEEDED,
    BatchSummary,
    Outcome,
    summary_of,
)
from signoff.service.decisions import (
    DecisionNotAccepted,
    DecisionUnavailable,
    InvalidDecision,
    checked_category,
)
from signoff.service.passkey_step_up import PasskeyRefused, PasskeyRequired
from workflows.actions import DecisionResult, Verdict
from workflows.contract_base import IDENTIFIER_PATTERN
from workflows.wording import Wording

ACTION_HASH = re.compile(r"^[0-9a-f]{64}$")
# How the inbox's form names one selected action: `run id/action hash` ('/' is in no
# run id, nor in a hash).
KEY_SEPARATOR = "/"
NOT_IN_TENANT = "No such run waits for a decision in your tenant. Nothing was decided."
DECIDE_ALONE = (
    "This approval needs your passkey: decide it on its own page. Nothing was decided here."
)


class InvalidBatch(Exception):
    """The batch itself is malformed (empty, too large, a duplicate, a bad key or hash, a
    rejection without its category or reason): nothing was sent."""


@dataclass(frozen=True)
class BatchKey:
    """One selected action: its run and the hash the reviewer was shown."""

    run_id: str
    action_hash: str

    def text(self) -> str:
        return f"{self.run_id}{KEY_SEPARATOR}{self.action_hash}"


@dataclass(frozen=True)
class BatchOutcome:
    """What became of one action of the batch, in words for the reviewer."""

    run_id: str
    action_hash: str
    outcome: Outcome
    message: str
    status: str | None = None  # the run's DecisionResult.status when it took the decision
    # A refusal's wording, where the run sent one: a page writes it in its language.
    wording: Wording | None = None

    @property
    def succeeded(self) -> bool:
        return self.outcome in SUCCEEDED


def parse_key(text: str) -> BatchKey:
    run_id, separator, action_hash = text.strip().partition(KEY_SEPARATOR)
    if not separator:
        raise InvalidBatch(f"'{text[:80]}' is not a selected request (run id/action hash).")
    return checked_key(run_id, action_hash)


def checked_key(run_id: str, action_hash: str) -> BatchKey:
    if not re.match(IDENTIFIER_PATTERN, run_id):
        raise InvalidBatch(f"'{run_id[:80]}' is not a run id.")
    if not ACTION_HASH.match(action_hash):
        raise InvalidBatch(
            f"The action hash of {run_id} is not a full 64-character hash: reload the "
            "inbox and select again."
        )
    return BatchKey(run_id, action_hash)


def checked_keys(keys: Iterable[BatchKey]) -> list[BatchKey]:
    """The selection, in its order; InvalidBatch when empty, too large or repeated."""
    selected = list(keys)
    if not selected:
        raise InvalidBatch("Select at least one request to decide.")
    if len(selected) > MAX_BATCH:
        raise InvalidBatch(
            f"{len(selected)} requests selected; a batch decides at most {MAX_BATCH}. "
            "Select fewer and decide the rest in another batch."
        )
    repeated = [key.text() for key, count in Counter(selected).items() if count > 1]
    if repeated:
        raise InvalidBatch(f"A request is selected twice: {repeated[0]}. Select each once.")
    return selected


def checked_choice(verdict: Verdict, reason: str, category: str | None) -> str | None:
    """The batch's one reason and category, checked once for all (InvalidBatch)."""
    if verdict == "respond":
        raise InvalidBatch(
            "A response is one request's: answer each agent on its own (signoff respond)."
        )
    try:
        checked = checked_category(verdict, category or None)
    except InvalidDecision as invalid:
        raise InvalidBatch(str(invalid)) from None
    if verdict == "reject" and not reason.strip():
        raise InvalidBatch("A reason is required to reject: the agent of each run is told it.")
    return checked


def outcome_of_result(key: BatchKey, result: DecisionResult) -> BatchOutcome:
    outcome: Outcome = "recorded" if result.status == "approval_recorded" else "decided"
    return BatchOutcome(key.run_id, key.action_hash, outcome, result.message, result.status)


def failed(key: BatchKey, message: str, wording: Wording | None = None) -> BatchOutcome:
    return BatchOutcome(key.run_id, key.action_hash, "failed", message, wording=wording)


def decide_alone(key: BatchKey) -> BatchOutcome:
    return BatchOutcome(key.run_id, key.action_hash, "decide_alone", DECIDE_ALONE)


async def decide_each(
    keys: list[BatchKey], decide_one: Callable[[BatchKey], Awaitable[BatchOutcome]]
) -> list[BatchOutcome]:
    """Each key decided in turn by `decide_one`; a refusal of one is its row's outcome.

    One at a time, in the selection's order: the runs' validators and the effects' locks
    judge each decision as if it came alone, and the outcomes read in the order shown."""
    outcomes = []
    for key in keys:
        try:
            outcomes.append(await decide_one(key))
        except PasskeyRequired:
            outcomes.append(decide_alone(key))
        except DecisionNotAccepted as refused:
            outcomes.append(failed(key, refused.message, refused.wording))
        except (PasskeyRefused, DecisionUnavailable) as refused:
            outcomes.append(failed(key, refused.message))
        except InvalidDecision as invalid:
            outcomes.append(failed(key, str(invalid)))
    return outcomes


__all__ = [
    "BatchKey",
    "BatchOutcome",
    "BatchSummary",
    "DECIDE_ALONE",
    "InvalidBatch",
    "MAX_BATCH",
    "NOT_IN_TENANT",
    "checked_choice",
    "checked_key",
    "checked_keys",
    "decide_each",
    "parse_key",
    "summary_of",
]
