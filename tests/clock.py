"""Times for test fixtures, taken from the clock the code under test reads.

A fixture dated on the calendar (an expiry on 2026-12-01 at noon) passes until that
moment and fails on every machine after it. One built from the clock's own now passes
on any date, which `make test-calendar` checks 400 days ahead under faketime. Whole
seconds, so that a time written to either store reads back equal.
"""

from __future__ import annotations

from datetime import UTC, datetime


def clock_now() -> datetime:
    """Now, as `datetime.now(UTC)` in the code under test reads it, to the second."""
    return datetime.now(UTC).replace(microsecond=0)
