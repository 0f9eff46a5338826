"""Words a page shows that are written in Python, not in a template.

`N_` marks a message for the catalog where it is defined (`pybabel extract` finds it);
it is translated where a page shows it, in that page's language (`shown`). The JSON API
answers in English: its messages are for programs and their logs as much as for people.
"""

from __future__ import annotations

from gettext import NullTranslations

from babel.numbers import format_decimal

from approvals_ui.babel_locale import locale_of
from approvals_ui.money_format import minor_text
from approvals_ui.role_words import in_order_text, role_text, roles_text
from signoff.service.languages import SOURCE_LANGUAGE
from workflows.wording import N_ as N_  # one marker for the UI and the core's sentences
from workflows.wording import AnyOf, InOrder, Money, Role, Value, Wording


def shown(message: str | Wording, words: NullTranslations, language: str) -> tuple[str, str]:
    """The message in the page's language when the catalog has it, with the language it
    is in: a message from elsewhere (the run's refusal, a payment platform's error)
    stays in English, and the page marks it `lang="en"` for screen readers. A `Wording`
    is written in the page's language with its values too: `50,00 EUR` in French."""
    template = message.template if isinstance(message, Wording) else message
    translated = words.gettext(template)
    if language != SOURCE_LANGUAGE and translated == template:
        language = SOURCE_LANGUAGE
    if not isinstance(message, Wording):
        return translated, language
    values = {name: _value(value, words, language) for name, value in message.values.items()}
    return translated % values, language


def _value(value: Value, words: NullTranslations, language: str) -> str:
    """A value inside a sentence, as the sentence's language writes it."""
    if isinstance(value, Wording):  # a clause: in the sentence's language too
        return shown(value, words, language)[0]
    if isinstance(value, InOrder):  # a chain's roles
        return in_order_text(value.names, words)
    if isinstance(value, AnyOf):  # roles any of which will do
        return roles_text(value.names, words)
    if isinstance(value, Role):
        return role_text(value.name, words)
    if isinstance(value, Money):
        return minor_text(value.minor, value.currency or None, language)
    if isinstance(value, int):
        return format_decimal(value, locale=locale_of(language))
    return value
