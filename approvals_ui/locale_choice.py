"""Which language a page speaks: the reviewer's choice, else the browser's
Accept-Language (by its q-values), else English.

Pure: no request, no store. A tag matches a language the UI speaks by its primary
subtag (`fr-CA` is French); `q=0` means "not this one"; an unknown or malformed entry
is skipped, never an error: a page always renders in some language.
"""

from __future__ import annotations

from signoff.service.languages import LANGUAGES, SOURCE_LANGUAGE

MAX_ENTRIES = 32  # a header longer than this is someone's mistake or an attack


def accepted_languages(header: str | None) -> list[str]:
    """The primary subtags of an Accept-Language header, best first (q-value, then the
    order given); entries with q=0 or a q-value that is not a number are left out."""
    weighted: list[tuple[float, int, str]] = []
    for position, entry in enumerate((header or "").split(",")[:MAX_ENTRIES]):
        tag, *parameters = (part.strip() for part in entry.split(";"))
        quality = 1.0
        for parameter in parameters:
            name, _, value = parameter.partition("=")
            if name.strip().lower() == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        if tag and 0 < quality <= 1:
            weighted.append((-quality, position, tag.split("-")[0].lower()))
    return [tag for _, _, tag in sorted(weighted)]


def page_language(preference: str | None, accept_language: str | None) -> str:
    """The language of the page: the preference if the UI speaks it, else the first
    accepted language it speaks (`*` accepts the source language), else English."""
    if preference is not None and preference in LANGUAGES:
        return preference
    for tag in accepted_languages(accept_language):
        if tag in LANGUAGES:
            return tag
        if tag == "*":
            return SOURCE_LANGUAGE
    return SOURCE_LANGUAGE
