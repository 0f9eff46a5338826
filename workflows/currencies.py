"""Which currency codes are money: the ISO 4217 codes that some territory uses as legal
tender today, as Babel's copy of Unicode CLDR records them.

Design note. ISO 4217 also lists codes that are no money to refund or cap: XXX (no
currency), XTS (kept for tests), the precious metals (XAU, XAG, XPT, XPD), the IMF's XDR
and other units of account (XSU, XUA, the bond-market X codes), the funds codes (BOV,
CLF, USN, ...), and every code withdrawn (DEM, HRK). CLDR's territory data names the
currencies each territory has used, when, and whether each was legal tender; the codes
still in use (no end date) and tender are the list. It changes with the Babel version
alone, never with the date, so that a check answers the same on every day.

Babel is imported when a check is first asked, never when a workflow loads this
module; the faces, the store and the standing rules ask, a workflow never does.
"""

from __future__ import annotations

from functools import cache

CURRENCY_EXAMPLE = "EUR"


@cache
def money_currencies() -> frozenset[str]:
    """The currency codes that are money (see the design note)."""
    from babel.core import get_global

    return frozenset(
        code
        for used in get_global("territory_currencies").values()
        for code, _start, end, tender in used
        if end is None and tender
    )


def currency_problem(code: str) -> str | None:
    """Why `code` is not a currency money can be counted in, in words; None when it is."""
    if code in money_currencies():
        return None
    return (
        f"{code!r} is not the ISO 4217 code of a currency in use (three capitals, e.g. "
        f"{CURRENCY_EXAMPLE}; codes such as XXX, XTS or XAU are not money)."
    )
