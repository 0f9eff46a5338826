"""The languages the reviewer UI speaks, and each reviewer's choice among them.

English is the source language (the templates' msgids); every other language has a
catalog under approvals_ui/locales/ (tests/ui/test_catalogs.py holds the two lists
together). A reviewer's choice is read by every page they open; none means the
browser's Accept-Language decides, then English.
"""

from __future__ import annotations

from activities.store.credentials import Credential
from activities.store.reviewer_languages import change_language, language_of, set_language
from signoff.service.handles import Store, engine_of

SOURCE_LANGUAGE = "en"
LANGUAGES: dict[str, str] = {"en": "English", "fr": "Français"}  # each in its own words


class UnknownLanguage(ValueError):
    def __init__(self, language: str) -> None:
        super().__init__(
            f"'{language}' is not a language of the reviewer UI: use one of "
            f"{', '.join(LANGUAGES)}, or 'auto' to follow the browser."
        )


def supported(language: str) -> str:
    """The tag, lower-cased, if the UI speaks it; raises UnknownLanguage otherwise."""
    tag = language.strip().lower()
    if tag not in LANGUAGES:
        raise UnknownLanguage(language)
    return tag


def preferred_language(store: Store, reviewer_id: str) -> str | None:
    """The reviewer's chosen language, if it is still one the UI speaks."""
    engine = engine_of(store)
    chosen = language_of(engine, reviewer_id)
    return chosen if chosen in LANGUAGES else None


def choose_language(store: Store, name: str, language: str | None) -> str:
    """Sets the reviewer's language (None: follow the browser); returns their id.
    Raises UnknownLanguage, or UnknownReviewer for a name the store does not know."""
    engine = engine_of(store)
    return set_language(engine, name, None if language is None else supported(language))


def administer_language(
    store: Store, admin: Credential | None, name: str, language: str | None
) -> str:
    """An administrator sets a reviewer's language (None: follow the browser); returns
    their id. Raises UnknownLanguage, NotAdministrator or UnknownReviewer."""
    engine = engine_of(store)
    tag = None if language is None else supported(language)
    return change_language(engine, admin, name, tag)


__all__ = [
    "administer_language",
    "LANGUAGES",
    "SOURCE_LANGUAGE",
    "UnknownLanguage",
    "choose_language",
    "preferred_language",
    "supported",
]
