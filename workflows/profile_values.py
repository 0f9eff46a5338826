"""The value types of a profile file: durations and amounts, each in one written form.

A duration is a whole number and one unit, `"90s"`, `"30m"`, `"24h"` or `"2d"`: a bare
number would leave the reader to guess the unit. An amount is a decimal string,
`"200.00"`: a TOML float is binary and would round money. Both serialize back to the
same written form, so a profile read back from a run's history validates again.

`problem` builds the error every profile rule raises: its message is for the person who
wrote the file, and its optional `key` names the entry below the field that is wrong
(`tool_policy` + `refund`), which the loader appends to the key path it reports.
"""

from __future__ import annotations

import re
from datetime import timedelta
from decimal import Decimal
from types import MappingProxyType
from typing import Annotated, Any

from pydantic import BeforeValidator, Field, PlainSerializer
from pydantic_core import PydanticCustomError

PROFILE_ERROR = "profile"
DURATION_PATTERN = re.compile(r"^([1-9][0-9]{0,8})([smhd])$")
SECONDS_PER_UNIT = MappingProxyType({"d": 86_400, "h": 3_600, "m": 60, "s": 1})


def problem(message: str, key: str | None = None) -> PydanticCustomError:
    """A rule broken; `{` and `}` are escaped, since pydantic formats the message."""
    text = message.replace("{", "(").replace("}", ")")
    return PydanticCustomError(PROFILE_ERROR, text, {"key": key} if key is not None else None)


def parse_duration(value: Any) -> Any:
    if isinstance(value, timedelta):
        return value
    match = DURATION_PATTERN.match(value.strip()) if isinstance(value, str) else None
    if match is None:
        raise problem(
            f'a duration is a whole number and a unit (s, m, h or d), e.g. "24h" ({value!r} given)'
        )
    number, unit = match.groups()
    try:
        return timedelta(seconds=int(number) * SECONDS_PER_UNIT[unit])
    except OverflowError:
        raise problem(f"{value!r} is longer than any duration can be") from None


def format_duration(value: timedelta) -> str:
    """The largest unit that writes `value` exactly: 86400 seconds is `"1d"`."""
    seconds = int(value.total_seconds())
    for unit, size in SECONDS_PER_UNIT.items():
        if seconds % size == 0:
            return f"{seconds // size}{unit}"
    raise AssertionError("every whole number of seconds is a multiple of 1")


def refuse_unwritten_amount(value: Any) -> Any:
    if isinstance(value, str | Decimal):
        return value
    raise problem(f'an amount is a decimal string, e.g. "200.00" ({value!r} given)')


Duration = Annotated[
    timedelta,
    BeforeValidator(parse_duration),
    Field(gt=timedelta(0)),
    PlainSerializer(format_duration, return_type=str, when_used="json"),
]
Money = Annotated[
    Decimal,
    BeforeValidator(refuse_unwritten_amount),
    Field(ge=0, max_digits=14, decimal_places=2),
]
WholeNumber = Annotated[int, Field(strict=True, ge=1)]
