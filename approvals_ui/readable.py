"""Progress lines as a person reads them: the run writes them for machines and people
alike, with full 64-hex hashes and ISO times to the microsecond. On a page a hash is
cut to its first characters (the full value is in the decision trail and the technical
details) and a time is said to the second, in UTC."""

from __future__ import annotations

import re
from datetime import datetime

from approvals_ui.time_format import utc_text

SHORT_HASH = 12
HASH = re.compile(r"\b[0-9a-f]{64}\b")
ISO_TIME = re.compile(r"\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[+-]\d{2}:\d{2}|Z)")


def _time(match: re.Match[str]) -> str:
    try:
        return utc_text(datetime.fromisoformat(match.group(0).replace("Z", "+00:00")))
    except ValueError:
        return match.group(0)


def readable_event(text: str) -> str:
    text = HASH.sub(lambda match: match.group(0)[:SHORT_HASH] + "…", text)
    return ISO_TIME.sub(_time, text)
