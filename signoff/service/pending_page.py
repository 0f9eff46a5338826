"""A page of the pending listing with its counts: what every face prints of it.

Apart from the listing itself (`waiting_listing.py`, through the store's ORM) so that
`signoff pending`'s driver-only read (`pending_quick.py`) gives the same thing without
importing SQLAlchemy.
"""

from __future__ import annotations

from dataclasses import dataclass

from signoff.service.paging import Page
from signoff.service.pending_item import PendingItem


@dataclass(frozen=True)
class PendingPage:
    page: Page[PendingItem]
    waiting_all: int  # pending actions of the tenant, whatever the mode filter
    waiting_runs: int  # runs those actions belong to
    # Waiting runs whose actions could not be read: always 0 from the read model (a run
    # without a row is mended by the reconciliation); kept so the faces' shape holds.
    unread_runs: int = 0
