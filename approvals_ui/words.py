"""Words a page shows that are written in Python, not in a template.

`N_` marks a message for the catalog where it is defined (`pybabel extract` finds it);
it is translated where a page shows it, in that page's language (`shown`). The JSON API
answers in English: its messages are for programs and their logs as much as for people.
"""

from __future__ import annotations

from gettext import NullTranslations

from signoff.service.languages import SOURCE_LANGUAGE


def N_(message: str) -> str:  # noqa: N802  # gettext's own name for "mark, do not translate"
    return message


def shown(message: str, words: NullTranslations, language: str) -> tuple[str, str]:
    """The message in the page's language when the catalog has it, with the language it
    is in: a message from elsewhere (the run's refusal, a payment platform's error)
    stays in English, and the page marks it `lang="en"` for screen readers."""
    translated = words.gettext(message)
    if language == SOURCE_LANGUAGE or translated != message:
        return translated, language
    return message, SOURCE_LANGUAGE
