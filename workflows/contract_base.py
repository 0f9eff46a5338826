"""The base every contract model shares, kept apart so that contract modules can
import it without importing each other."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

IDENTIFIER_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$"


class Contract(BaseModel):
    """Strict by default: a field nobody declared is a bug, not data."""

    model_config = ConfigDict(extra="forbid", frozen=True)


Identifier = Annotated[str, Field(pattern=IDENTIFIER_PATTERN)]
