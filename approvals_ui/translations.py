"""The reviewer UI's message catalogs, compiled from their `.po` files when first used.

Design note. The committed `approvals_ui/locales/<language>/LC_MESSAGES/messages.po`
is the only form of a translation: the server compiles it in memory (Babel's
`write_mo`, a few milliseconds) instead of reading a `.mo` file, so a fresh clone, a
wheel and `make demo` need no build step, and no compiled file can fall behind its
source. Fuzzy entries are left out, as `pybabel compile` leaves them out: a page shows
the English text until a person has checked the translation. English is the source
language: its "catalog" gives every msgid back.
"""

from __future__ import annotations

from functools import cache
from gettext import NullTranslations
from io import BytesIO
from pathlib import Path

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.support import Translations

from signoff.service.languages import SOURCE_LANGUAGE

LOCALES_DIR = Path(__file__).parent / "locales"
DOMAIN = "messages"


def catalog_path(language: str) -> Path:
    return LOCALES_DIR / language / "LC_MESSAGES" / f"{DOMAIN}.po"


@cache
def translations(language: str) -> NullTranslations:
    """The catalog of `language`; the source language's, or a missing one, gives every
    message back as written (English)."""
    path = catalog_path(language)
    if language == SOURCE_LANGUAGE or not path.exists():
        return NullTranslations()
    with path.open("rb") as source:
        catalog = read_po(source, locale=language, domain=DOMAIN)
    compiled = BytesIO()
    write_mo(compiled, catalog)
    compiled.seek(0)
    return Translations(compiled, domain=DOMAIN)
