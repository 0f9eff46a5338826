"""The page language as Babel's `Locale`, parsed once per language.

Babel parses a language code given as text on every call that formats with it: the
inbox's 50 rows asked for about a thousand parses a page. Every formatter of the UI
takes its `Locale` from here.
"""

from __future__ import annotations

from functools import cache

from babel import Locale


@cache
def locale_of(language: str) -> Locale:
    """The parsed `Locale` of a language the UI speaks (`en`, `fr`)."""
    return Locale.parse(language)
