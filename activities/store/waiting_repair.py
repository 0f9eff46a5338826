"""Mending the inbox's read model from what waiting runs say.

The rows of `waiting_actions` are written by activities (`waiting_actions.py`); this
makes them match the truth read from Temporal's visibility by
`signoff/service/waiting_reconcile.py`, in one write transaction. The design note there
says when it runs and why each guard is needed.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Engine, delete, select
from sqlalchemy.orm import Session

from activities.store.database import use_session, write_transaction
from activities.store.schema import DecisionRow, WaitingAction
from activities.store.waiting_actions import WAIT_ENDED_KINDS, new_row, set_action
from workflows.actions import PendingAction

# Run ids per `IN (...)` of the audit lookup: under every database's parameter limit.
RUN_ID_BATCH = 500


@dataclass(frozen=True)
class WaitingTruth:
    """An action a run says is waiting (its memo or its `state` query)."""

    tenant_id: str
    run_id: str
    ticket_id: str
    action: PendingAction


@dataclass(frozen=True)
class ReconcileCounts:
    added: int = 0
    removed: int = 0
    updated: int = 0

    def __add__(self, other: ReconcileCounts) -> ReconcileCounts:
        return ReconcileCounts(
            self.added + other.added, self.removed + other.removed, self.updated + other.updated
        )


def _batches(run_ids: Collection[str]) -> Iterator[list[str]]:
    ordered = sorted(run_ids)
    for start in range(0, len(ordered), RUN_ID_BATCH):
        yield ordered[start : start + RUN_ID_BATCH]


def stored_hashes(engine: Engine, run_ids: Collection[str]) -> dict[str, set[str]]:
    """The hashes of the rows of these runs: what the read model says each waits on."""
    found: dict[str, set[str]] = {}
    with use_session(engine) as session:
        for batch in _batches(run_ids):
            for run_id, action_hash in session.execute(
                select(WaitingAction.run_id, WaitingAction.action_hash).where(
                    WaitingAction.run_id.in_(batch)
                )
            ):
                found.setdefault(run_id, set()).add(action_hash)
    return found


def reconcile_rows(
    engine: Engine,
    truth: Iterable[WaitingTruth],
    unknown_runs: set[str],
    listed_from: datetime,
    now: datetime,
    runs: Collection[str],
) -> ReconcileCounts:
    """Make the rows of `runs` (a page of the listing, `truth` being theirs) match
    `truth`, read from visibility from `listed_from` on: a reconcile holds one page of
    rows at a time, not the whole table (`remove_unlisted` ends it).

    A row whose action the truth lacks is deleted, unless its run could not be read
    (`unknown_runs`) or it was written at or after `listed_from` (visibility lags: a run
    that started waiting just before the listing may not be in it yet; the caller moves
    `listed_from` back by a grace period for that). An action the
    truth has without a row gets one, unless the audit already holds the event that
    ended its wait (the listing was older than the decision). A row with fewer
    approvals than the truth takes the truth's.
    """
    wanted = {(item.run_id, item.action.action_hash): item for item in truth}
    added = removed = updated = 0
    with write_transaction(engine) as session:
        rows = {
            (row.run_id, row.action_hash): row
            for batch in _batches(runs)
            for row in session.scalars(select(WaitingAction).where(WaitingAction.run_id.in_(batch)))
        }
        for key, row in rows.items():
            if key in wanted or row.run_id in unknown_runs or row.created_at >= listed_from:
                continue
            session.delete(row)
            removed += 1
        missing = [key for key in wanted if key not in rows]
        ended = _wait_ended(session, missing)
        for key in missing:
            if key in ended:
                continue
            new = wanted[key]
            session.add(new_row(new.tenant_id, new.run_id, new.ticket_id, new.action, now))
            added += 1
        for key, row in rows.items():
            told = wanted.get(key)
            if told is not None and len(told.action.approvals) > row.approvals_given:
                set_action(row, told.action)
                updated += 1
    return ReconcileCounts(added=added, removed=removed, updated=updated)


def remove_unlisted(engine: Engine, listed: set[str], listed_from: datetime) -> int:
    """Delete the rows of runs the listing did not hold (no longer waiting), unless
    written at or after `listed_from` (see `reconcile_rows`); how many were deleted."""
    with use_session(engine) as session:
        stored = set(session.scalars(select(WaitingAction.run_id).distinct()))
    removed = 0
    with write_transaction(engine) as session:
        for batch in _batches(stored - listed):
            result = session.execute(
                delete(WaitingAction).where(
                    WaitingAction.run_id.in_(batch), WaitingAction.created_at < listed_from
                )
            )
            removed += int(getattr(result, "rowcount", 0) or 0)
    return removed


def remove_rows_of(engine: Engine, run_ids: Collection[str]) -> int:
    """Delete every row of these runs (runs that have closed: none waits any more);
    how many were deleted."""
    removed = 0
    with write_transaction(engine) as session:
        for batch in _batches(run_ids):
            result = session.execute(delete(WaitingAction).where(WaitingAction.run_id.in_(batch)))
            removed += int(getattr(result, "rowcount", 0) or 0)
    return removed


def _wait_ended(session: Session, keys: list[tuple[str, str]]) -> set[tuple[str, str]]:
    """Of `keys`, those whose wait the audit says has ended."""
    if not keys:
        return set()
    found: set[tuple[str, str]] = set()
    for batch in _batches({run_id for run_id, _ in keys}):
        rows = session.execute(
            select(DecisionRow.run_id, DecisionRow.action_hash).where(
                DecisionRow.run_id.in_(batch),
                DecisionRow.kind.in_(WAIT_ENDED_KINDS),
            )
        )
        found.update((run_id, action_hash) for run_id, action_hash in rows)
    return found & set(keys)
