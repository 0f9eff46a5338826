"""Reading the inbox's read model: a count and one keyset page, in the order asked.

Two orders, as the inbox offers them: soonest expiry first (`time_left`; the action
hash breaks ties) and largest amount first (`amount`; the hash again). A page is the
`limit` rows after a position (the last row the reader saw), read from an index that
starts with the tenant (`ix_waiting_actions_tenant_expiry`, `..._tenant_amount`): the
first page and the hundredth cost the same, and a row decided meanwhile never makes a
reader skip another. The counts are COUNTs with the same filter, never a page's length.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from sqlalchemy import ColumnElement, Engine, Select, and_, distinct, func, or_, select, tuple_

from activities.store.database import use_session
from activities.store.schema import WaitingAction

WaitingOrder = Literal["time_left", "amount"]
# time_left: (expires_at, action_hash); amount: (-amount_minor, action_hash), where a
# row without an amount (a tool that declares none) is (None, action_hash), after all
# rows with one.
Position = tuple[datetime, str] | tuple[int | None, str]


@dataclass(frozen=True)
class WaitingQuery:
    tenant_id: str | None  # None: every tenant (the operator's `signoff pending`)
    order: WaitingOrder = "time_left"
    mode: str | None = None  # "confirm" or "review"; None: both


@dataclass(frozen=True)
class WaitingPage:
    rows: list[WaitingAction]
    total: int  # rows the query matches (its mode filter included)
    waiting_all: int  # rows of the tenant, whatever their mode
    waiting_runs: int  # runs those rows belong to
    first: int  # how many rows of the query come before this page
    more: bool  # a row follows the page


def _tenant(query: WaitingQuery) -> list[ColumnElement[bool]]:
    return [] if query.tenant_id is None else [WaitingAction.tenant_id == query.tenant_id]


def _matching(query: WaitingQuery) -> list[ColumnElement[bool]]:
    mode = [] if query.mode is None else [WaitingAction.mode == query.mode]
    return [*_tenant(query), *mode]


def _after(query: WaitingQuery, position: Position) -> ColumnElement[bool]:
    """Rows strictly after `position` in the query's order."""
    key, action_hash = position
    if query.order == "amount":
        no_amount = WaitingAction.amount_minor.is_(None)
        if key is None:
            return and_(no_amount, WaitingAction.action_hash > action_hash)
        assert isinstance(key, int)
        amount = -key
        return or_(
            WaitingAction.amount_minor < amount,
            and_(WaitingAction.amount_minor == amount, WaitingAction.action_hash > action_hash),
            no_amount,
        )
    assert isinstance(key, datetime)
    # A plain tuple on the right: its values bind as the columns' types (UtcDateTime).
    return tuple_(WaitingAction.expires_at, WaitingAction.action_hash) > (key, action_hash)


def _ordered(query: WaitingQuery, statement: Select[WaitingAction]) -> Select[WaitingAction]:
    if query.order == "amount":
        return statement.order_by(
            WaitingAction.amount_minor.desc().nulls_last(), WaitingAction.action_hash
        )
    return statement.order_by(WaitingAction.expires_at, WaitingAction.action_hash)


def waiting_page(
    source: Engine, query: WaitingQuery, after: Position | None, limit: int
) -> WaitingPage:
    """The `limit` rows after `after` (from the first when None), and the counts."""
    if limit < 1:
        raise ValueError("a page holds at least one item")
    matching = _matching(query)
    count = select(func.count()).select_from(WaitingAction)
    with use_session(source) as session:
        page = _ordered(query, select(WaitingAction).where(*matching))
        if after is not None:
            page = page.where(_after(query, after))
        rows = list(session.scalars(page.limit(limit + 1)))
        total = int(session.scalar(count.where(*matching)) or 0)
        waiting_all = (
            total if query.mode is None else int(session.scalar(count.where(*_tenant(query))) or 0)
        )
        runs = select(func.count(distinct(WaitingAction.run_id))).where(*_tenant(query))
        waiting_runs = int(session.scalar(runs) or 0)
        first = 0
        if after is not None:
            beyond = count.where(*matching, _after(query, after))
            first = total - int(session.scalar(beyond) or 0)
    return WaitingPage(
        rows=rows[:limit],
        total=total,
        waiting_all=waiting_all,
        waiting_runs=waiting_runs,
        first=first,
        more=len(rows) > limit,
    )
