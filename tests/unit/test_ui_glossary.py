"""The French catalog against the glossary of docs/ui/languages.md.

The glossary's table names, for each thing, the French word the pages use and the words
they must not use ("locataire" for tenant, "relecteur" for reviewer). The table is the
one list: a word added to its last column is checked here without editing this test.
Words inside `code`, an HTML tag, a placeholder or an address (`/passkeys`) are not
French prose and are left out.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from approvals_ui.translations import catalog_path

ROOT = Path(__file__).resolve().parents[2]
GLOSSARY_DOC = ROOT / "docs" / "ui" / "languages.md"
GLOSSARY_HEADING = "## Glossary"
# Code, a tag, a placeholder, or an address of the UI (`/passkeys`): not French prose.
NOT_PROSE = re.compile(r"`[^`]*`|<[^>]+>|%\([a-z_]+\)s|\{[a-z_]*\}|(?<![\w/])/[\w/-]+")


def glossary() -> dict[str, list[str]]:
    """English term → the French words the glossary rejects for it."""
    section = GLOSSARY_DOC.read_text().split(GLOSSARY_HEADING, 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| ")]
    rejected = {}
    for row in rows[2:]:  # after the header and its --- line
        english, _french, never, _why = (cell.strip() for cell in row.strip("|").split("|"))
        rejected[english] = [word.strip() for word in never.split(",") if word.strip()]
    return rejected


def french_prose() -> list[str]:
    with catalog_path("fr").open("rb") as source:
        catalog = read_po(source, locale="fr")
    texts = []
    for message in catalog:
        if not message.id:
            continue
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        texts += [NOT_PROSE.sub(" ", text) for text in strings]
    return texts


def uses(text: str, word: str) -> bool:
    """`word` as a word of `text`, or its plural (`relecteurs`)."""
    found = re.search(rf"(?<!\w){re.escape(word)}(?:e?s)?(?!\w)", text, re.IGNORECASE)
    return found is not None


def test_the_glossary_names_the_terms_support_staff_read() -> None:
    terms = glossary()
    for term in ("tenant", "reviewer", "approve, approval", "reject, rejection", "run"):
        assert term in terms, f"the glossary of {GLOSSARY_DOC} has no row for {term!r}"
    assert "locataire" in terms["tenant"]
    assert "relecteur" in terms["reviewer"]


@pytest.mark.parametrize(
    ("term", "word"), [(term, word) for term, words in glossary().items() for word in words]
)
def test_the_french_catalog_never_uses_a_word_the_glossary_rejects(term: str, word: str) -> None:
    found = [text for text in french_prose() if uses(text, word)]
    assert not found, (
        f"the French catalog says {word!r} for {term!r}, which docs/ui/languages.md's "
        f"glossary rejects; use its French word instead: {found[:3]}"
    )


def test_the_check_finds_a_rejected_word_as_a_word_not_inside_code() -> None:
    assert uses("Règles de votre locataire", "locataire")
    assert uses("Un second Relecteur doit approuver", "relecteur")
    assert uses("deux relecteurs différents", "relecteur")
    assert not uses("une relecturette", "relecture")  # another word, not this one
    assert not NOT_PROSE.sub(" ", "lancez `signoff run` avec %(tenant)s").count("tenant")
    assert not uses(NOT_PROSE.sub(" ", "la page Clés d’accès (/passkeys)"), "passkey")
    assert uses(NOT_PROSE.sub(" ", "votre passkey (/passkeys)"), "passkey")
