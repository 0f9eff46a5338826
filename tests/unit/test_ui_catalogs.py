"""The reviewer UI's catalogs against its templates and code.

`pybabel extract` over babel.cfg (the same mapping the docs' commands use) must find
exactly the messages each catalog holds: a string added to a template and not to the
catalog, or left in the catalog after the template dropped it, fails here, with the
commands that mend it (docs/ui/languages.md). Every message is translated, not fuzzy,
and keeps the placeholders of its msgid.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.pofile import read_po

from approvals_ui.decision_words import REJECT_LABELS, RUN_STATUSES
from approvals_ui.translations import LOCALES_DIR, catalog_path, translations
from signoff.service.languages import LANGUAGES, SOURCE_LANGUAGE
from workflows.contracts import RunStatus
from workflows.reject_reasons import LABELS

ROOT = Path(__file__).resolve().parents[2]
TRANSLATED = sorted(set(LANGUAGES) - {SOURCE_LANGUAGE})
MEND = (
    "Update the catalogs: pybabel extract -F babel.cfg -o approvals_ui/locales/messages.pot "
    "--no-location --sort-output . && pybabel update -i approvals_ui/locales/messages.pot "
    "-d approvals_ui/locales --no-fuzzy-matching --ignore-obsolete, then translate "
    "(docs/ui/languages.md)"
)


def extracted() -> set[str | tuple[str, ...]]:
    with (ROOT / "babel.cfg").open() as config:
        method_map, options_map = parse_mapping_cfg(config)
    found: Iterator[tuple[str, int, str | tuple[str, ...], list[str], str | None]]
    found = extract_from_dir(str(ROOT), method_map, options_map)
    return {message for _file, _line, message, _comments, _context in found}


def catalog(language: str) -> Catalog:
    with catalog_path(language).open("rb") as source:
        return read_po(source, locale=language)


def test_each_language_the_ui_offers_has_a_catalog_and_no_catalog_is_left_out() -> None:
    on_disk = {path.name for path in LOCALES_DIR.iterdir() if path.is_dir()}
    assert on_disk == set(TRANSLATED)


@pytest.mark.parametrize("language", TRANSLATED)
def test_the_catalog_holds_exactly_what_the_templates_and_code_say(language: str) -> None:
    in_code = {message if isinstance(message, str) else message[0] for message in extracted()}
    in_catalog = {
        message.id if isinstance(message.id, str) else message.id[0]
        for message in catalog(language)
        if message.id
    }
    assert not in_code - in_catalog, f"not in the {language} catalog. {MEND}"
    assert not in_catalog - in_code, f"in the {language} catalog, used nowhere. {MEND}"
    assert not catalog(language).obsolete, f"obsolete entries (#~) are left. {MEND}"


@pytest.mark.parametrize("language", TRANSLATED)
def test_every_message_is_translated_and_keeps_its_placeholders(language: str) -> None:
    held = catalog(language)
    for message in held:
        if not message.id:
            continue
        assert "fuzzy" not in message.flags, f"fuzzy: {message.id!r}; check it, drop the flag"
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        assert all(strings), f"untranslated: {message.id!r}"
    problems = [(message.id, errors) for message, errors in held.check() if errors]
    assert not problems, problems


def test_a_catalog_compiles_and_the_page_reads_it() -> None:
    assert translations("fr").gettext("Sign in") == "Se connecter"
    assert translations("en").gettext("Sign in") == "Sign in"


def test_the_pages_words_for_codes_cover_every_code() -> None:
    assert REJECT_LABELS == dict(LABELS)  # the English labels every face shows
    assert set(RUN_STATUSES) == set(RunStatus.__args__)
