"""Times and progress lines as a reviewer reads them (issue 14): to the second, in UTC
with the offset named, the instant in a `datetime` attribute for the local-time
tooltip; hashes in progress lines shortened, ISO times said in words."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

from approvals_ui.readable import readable_event
from approvals_ui.time_format import utc_text, utc_time

AT = datetime(2026, 11, 30, 22, 41, 13, 123456, tzinfo=UTC)


def test_a_time_is_to_the_second_in_utc_with_its_offset() -> None:
    paris = AT.astimezone(timezone(timedelta(hours=1)))
    assert utc_text(paris) == "2026-11-30 22:41:13 UTC+00:00"
    assert str(utc_time(paris)) == (
        '<time class="utc" datetime="2026-11-30T22:41:13+00:00">'
        "Nov 30, 2026, 22:41:13 UTC+00:00</time>"
    )


def test_a_page_writes_the_date_in_its_language_and_keeps_utc() -> None:
    paris = AT.astimezone(timezone(timedelta(hours=1)))
    assert str(utc_time(paris, "fr")) == (
        '<time class="utc" datetime="2026-11-30T22:41:13+00:00">'
        "30 nov. 2026, 22:41:13 UTC+00:00</time>"
    )
    morning = AT.replace(hour=9)
    assert "Nov 30, 2026, 09:41:13 UTC+00:00" in str(utc_time(morning, "en"))


def test_progress_lines_lose_the_hex_and_the_microseconds() -> None:
    digest = "ab" * 32
    line = f"refund 9.00 EUR waits; hash {digest}, expires {AT.isoformat()}"
    assert readable_event(line) == (
        "refund 9.00 EUR waits; hash abababababab…, expires 2026-11-30 22:41:13 UTC+00:00"
    )
