"""The approval insight page's inputs and its CSV: the period a lead asks for (UTC days
in `from` and `to`, the last 30 days by default), checked here because a person typed
it, and the same figures the page shows as rows of a spreadsheet."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date, timedelta
from urllib.parse import urlencode

from approvals_ui.words import N_
from signoff.service.approval_insight import Insight, InsightPeriod, Tally
from workflows.approval_policy import CENTS

# The period a page opens on: the last 30 UTC days, today included.
DEFAULT_DAYS = 30
# The longest period one page reads: a year and a day, so that a year ending on any
# day fits; the benchmark (bench/insight) measures the page on such a year too.
LONGEST_DAYS = 366
MILLISECONDS = 1000
CSV_COLUMNS = (
    "scope", "name", "figure", "detail", "value",
    "run_id", "action_hash", "reviewer", "decided_at_utc",
)  # fmt: skip
ROUNDING = 4  # digits of a share in the CSV


class InvalidPeriod(ValueError):
    """A period we cannot read; the message (for the catalog) says what to type."""


def parse_period(since: str | None, until: str | None, today: date) -> InsightPeriod:
    """Empty fields take the default: up to today, and DEFAULT_DAYS before the end."""
    end = _day(until) or today
    start = _day(since) or end - timedelta(days=DEFAULT_DAYS - 1)
    if start > end:
        raise InvalidPeriod(N_("The 'from' date is after the 'to' date."))
    if (end - start).days + 1 > LONGEST_DAYS:
        raise InvalidPeriod(N_("A period is at most 366 days: choose a shorter one."))
    return InsightPeriod(start, end)


def _day(text: str | None) -> date | None:
    text = (text or "").strip()
    if not text:
        return None
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise InvalidPeriod(N_("Dates must look like 2026-01-31.")) from None


def period_query(period: InsightPeriod) -> str:
    return urlencode({"from": period.since.isoformat(), "to": period.until.isoformat()})


def seconds(milliseconds: int | None) -> int | None:
    return None if milliseconds is None else round(milliseconds / MILLISECONDS)


def csv_rows(insight: Insight) -> Iterator[tuple[str, ...]]:
    """Every figure of the page, one a row; amounts as numbers (`1234.50`), waits in
    seconds, shares from 0 to 1."""
    yield from _tally_rows("tenant", insight.tenant_id, insight.total)
    for currency, minor in sorted(insight.refunded.items()):
        yield ("tenant", insight.tenant_id, "money_refunded", currency, _money(minor), *_NONE)
    for tally in insight.tools:
        yield from _tally_rows("tool", tally.name, tally)
    for tally in insight.reviewers:
        yield from _tally_rows("reviewer", tally.name, tally)
    for check in insight.shadows:
        for figure, value in (
            ("matched", check.matched),
            ("compared", check.compared),
            ("agreed", check.agreed),
            ("disagreed", check.disagreed),
        ):
            yield ("shadow_rule", check.rule_id, figure, "", str(value), *_NONE)
        share = "" if check.agreement is None else str(round(check.agreement, ROUNDING))
        yield ("shadow_rule", check.rule_id, "agreement", "", share, *_NONE)
        for disagreement in check.disagreements:
            yield (
                "disagreement",
                check.rule_id,
                disagreement.outcome,
                disagreement.category or "",
                "",
                disagreement.run_id,
                disagreement.action_hash,
                disagreement.reviewer_id or "",
                disagreement.decided_at.isoformat(),
            )


_NONE = ("", "", "", "")


def _money(minor: int) -> str:
    """`1234.50`: a spreadsheet's number, in any language."""
    return str(minor * CENTS)


def _tally_rows(scope: str, name: str, tally: Tally) -> Iterator[tuple[str, ...]]:
    for figure, value in (
        ("requests", tally.requests),
        ("approved", tally.approved),
        ("edited", tally.edited),
        ("rejected", tally.rejected_total),
        ("expired", tally.expired),
        ("by_rule", tally.by_rule),
    ):
        yield (scope, name, figure, "", str(value), *_NONE)
    for category, count in sorted(tally.rejected.items()):
        yield (scope, name, "rejected", category, str(count), *_NONE)
    share = "" if tally.rule_share is None else str(round(tally.rule_share, ROUNDING))
    yield (scope, name, "rule_share", "", share, *_NONE)
    for figure, wait in (("p50_seconds", tally.p50_ms), ("p95_seconds", tally.p95_ms)):
        shown = seconds(wait)
        yield (scope, name, figure, "", "" if shown is None else str(shown), *_NONE)
    for currency, minor in sorted(tally.money_approved.items()):
        yield (scope, name, "money_approved", currency, _money(minor), *_NONE)
