"""How a reviewer sees one tool's action: its card, as the tool's profile policy names it.

Design note. A reviewer decides on what a page shows, so a tool's card is part of its
policy: the title in the words of support ("Send a reply to the customer"), what
approving does ("The reply below is e-mailed to the customer on this ticket, once."),
and which arguments come first and how each reads: short `text`, `long_text` (wrapped,
readable on a phone), `money`, `order` (a link to the order), or `json`. Every argument
the card does not name is still shown after them: a reviewer never approves an argument
they could not see. A tool without a card gets the default card: its name as the title,
and every argument readably. Pure contract: the faces read it from their own profiles.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from workflows.wire_contract import WireContract

ArgumentView = Literal["text", "long_text", "money", "order", "json"]
CardTitle = Annotated[str, Field(min_length=1, max_length=120)]
CardEffect = Annotated[str, Field(min_length=1, max_length=400)]


class ReviewCard(WireContract):
    """A tool's card: `title`, `effect` (what approving does) and `arguments` (the ones to
    show first, in this order, each with how it reads)."""

    WIRE_OMITS = ("effect",)

    title: CardTitle
    effect: CardEffect | None = None
    arguments: dict[str, ArgumentView] = Field(default_factory=dict)
