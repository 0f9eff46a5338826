"""Times as reviewers read them: to the second, in UTC with the offset named.

Each time is a `<time>` element whose `datetime` attribute holds the exact instant;
`static/local-time.js` adds the reviewer's own local time as a tooltip (`title`), so
the page itself never guesses a time zone.
"""

from __future__ import annotations

from datetime import UTC, datetime

from markupsafe import Markup, escape


def utc_text(value: datetime) -> str:
    """`2026-11-30 22:41:13 UTC+00:00`: seconds, no fraction, the offset said."""
    return value.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC+00:00")


def utc_time(value: datetime) -> Markup:
    instant = value.astimezone(UTC).isoformat(timespec="seconds")
    return Markup('<time class="utc" datetime="{}">{}</time>').format(
        escape(instant), escape(utc_text(value))
    )
