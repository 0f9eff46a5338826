"""Times as reviewers read them: to the second, in UTC with the offset named.

Each time is a `<time>` element whose `datetime` attribute holds the exact instant;
`static/local-time.js` adds the reviewer's own local time as a tooltip (`title`), so
the page itself never guesses a time zone. On a page the date and the time of day are
written in the page's language (Babel: `30 nov. 2026, 22:41:13 UTC+00:00` in French),
and so is the time left to decide (`il reste 3 h 12 min`); `utc_text` is the
language-free form the audit and the CLI print.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from functools import cache
from gettext import NullTranslations
from typing import Literal

from babel.dates import format_date, format_time, format_timedelta
from markupsafe import Markup, escape

from approvals_ui.babel_locale import locale_of

OFFSET = "UTC+00:00"
TIME_OF_DAY = "HH:mm:ss"  # 24 hours, two digits each, in every language the UI speaks
# "3 hr" / "3 h": in English and French the same word for one and for many.
DURATION_FORMAT: Literal["short"] = "short"
SAMPLE = 7  # a count whose digits appear nowhere else in a unit's words


def utc_text(value: datetime) -> str:
    """`2026-11-30 22:41:13 UTC+00:00`: seconds, no fraction, the offset said."""
    return value.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC+00:00")


def local_text(value: datetime, language: str) -> str:
    """`Nov 30, 2026, 22:41:13 UTC+00:00` (en), `30 nov. 2026, 22:41:13 UTC+00:00` (fr):
    the language's medium date and its 24-hour time to the second, in UTC."""
    instant = value.astimezone(UTC)
    locale = locale_of(language)
    date = format_date(instant, "medium", locale=locale)
    time = format_time(instant, TIME_OF_DAY, tzinfo=UTC, locale=locale)
    joined = str(locale.datetime_formats["medium"])
    return joined.replace("{1}", date).replace("{0}", time) + f" {OFFSET}"


def utc_time(value: datetime, language: str = "en") -> Markup:
    instant = value.astimezone(UTC).isoformat(timespec="seconds")
    return Markup('<time class="utc" datetime="{}">{}</time>').format(
        escape(instant), escape(local_text(value, language))
    )


@cache
def _unit(amount: int, unit: str, language: str) -> str:
    """`3 hr` (en), `3 h` (fr). Kept: a page asks for the same few hours and minutes
    on every row, and each answer is the same for a given language."""
    span = timedelta(**{unit: amount})
    return format_timedelta(span, threshold=1, format=DURATION_FORMAT, locale=locale_of(language))


def duration_text(seconds: int, language: str) -> str:
    """`3 hr 12 min`, `12 min`, `40 sec` (en); `3 h 12 min`, `40 s` (fr)."""
    if seconds < 60:
        return _unit(seconds, "seconds", language)
    hours, minutes = divmod(seconds // 60, 60)
    if not hours:
        return _unit(minutes, "minutes", language)
    return f"{_unit(hours, 'hours', language)} {_unit(minutes, 'minutes', language)}"


def time_left_text(
    expires_at: datetime,
    now: datetime,
    language: str,
    words: NullTranslations,
    *,
    bare: bool = False,
) -> str:
    """What a countdown says, as `static/countdown.js` goes on saying it each second:
    `23 hr 58 min left`; `bare`, the duration alone (`23 hr 58 min`), where a label
    already says "Time left" (its `data-bare` tells countdown.js the same)."""
    seconds = int((expires_at - now).total_seconds())
    if seconds <= 0:
        ago = -seconds
        if ago < 60:
            return words.gettext("expired moments ago")
        duration = _unit(ago // 60, "minutes", language)
        return words.gettext("expired %(duration)s ago") % {"duration": duration}
    left = duration_text(seconds, language)
    return left if bare else words.gettext("%(duration)s left") % {"duration": left}


def countdown_words(language: str, words: NullTranslations) -> dict[str, object]:
    """The words `countdown.js` and `local-time.js` write with, as the server writes
    them: each unit as Babel spells it for one and for many (`{0}` for the count), and
    the phrases from the catalog (`{0}` for the duration or the time)."""
    units = {}
    for unit in ("hours", "minutes", "seconds"):
        units[unit] = [
            _unit(count, unit, language).replace(str(count), "{0}") for count in (1, SAMPLE)
        ]
    duration = {"duration": "{0}"}
    return {
        "units": units,
        "left": words.gettext("%(duration)s left") % duration,
        "ago": words.gettext("expired %(duration)s ago") % duration,
        "moments": words.gettext("expired moments ago"),
        "local": words.gettext("Your local time: %(time)s") % {"time": "{0}"},
    }
