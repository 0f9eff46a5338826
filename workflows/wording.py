"""A refusal a reviewer reads, kept as its English template and its values.

Design note. The run, the audit, the API and the CLI keep one language, English: they
read `Wording.english()`. The reviewer UI writes the same refusal in the page's
language: its catalog holds the template (marked `N_` here, and `babel.cfg` extracts
the modules that mark them), and it formats each value the way that language writes it,
an amount with its own separators. Were the sentence built with an f-string, the page
could only show it in English, or parse it back.

Pure: the workflow, the decision service and the faces share it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal

# Every amount in signoff has two decimals (minor units of a hundredth).
CENTS = Decimal("0.01")


def N_(message: str) -> str:  # noqa: N802  # gettext's own name for "mark, do not translate"
    """Marks `message` for the reviewer UI's catalog (`pybabel extract` finds it); it
    is translated where a page shows it."""
    return message


@dataclass(frozen=True)
class Money:
    """An amount in a sentence: written `12.50 EUR` in English, and by each face in its
    reader's language."""

    minor: int
    currency: str = ""  # none: the number alone (an example of how to write one)

    def __str__(self) -> str:
        number = (Decimal(self.minor) / 100).quantize(CENTS)
        return f"{number} {self.currency}" if self.currency else str(number)


@dataclass(frozen=True)
class InOrder:
    """Roles in their order (a chain's): `support_lead, then finance` in English."""

    names: tuple[str, ...]

    def __str__(self) -> str:
        return THEN.join(self.names)


@dataclass(frozen=True)
class AnyOf:
    """Roles any of which will do: `refund_approver or admin` in English."""

    names: tuple[str, ...]

    def __str__(self) -> str:
        return " or ".join(self.names)


@dataclass(frozen=True)
class Role:
    """A reviewer role in a sentence: its code in English (`refund_approver`, what the
    profiles, the CLI and the logs name), in support words on a page."""

    name: str

    def __str__(self) -> str:
        return self.name


THEN = N_(", then ")


@dataclass(frozen=True)
class Wording:
    """A sentence as a `%(name)s` template (a catalog's msgid) and the values it names;
    a value may be a sentence of its own (a clause in parentheses)."""

    template: str
    values: dict[str, Value] = field(default_factory=dict)

    def english(self) -> str:
        return self.template % {name: str(value) for name, value in self.values.items()}

    def __str__(self) -> str:
        return self.english()


Value = str | int | Money | InOrder | AnyOf | Role | Wording


def worded(template: str, **values: Value) -> Wording:
    return Wording(template, values)


class WordedError(Exception):
    """An error whose message is for a person: raised with a `Wording`, its message is
    the English sentence and `wording` keeps the template and values for another
    language; raised with text, it is that text alone."""

    def __init__(self, message: str | Wording) -> None:
        self.wording = message if isinstance(message, Wording) else None
        super().__init__(message.english() if isinstance(message, Wording) else message)
