"""Pydantic's errors on a profile file, as (key path, message) a person can act on.

No pydantic dump reaches the user: each error becomes the TOML key path it is about
(`agents.support.tool_policy.refund.approval`) and one sentence that says what is wrong
and, where the set is closed, what is allowed (the keys of a table, the values of a
mode).
"""

from __future__ import annotations

import json
import re
import types
from collections.abc import Sequence
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

from workflows.profile_contracts import ProfileSet
from workflows.profile_values import PROFILE_ERROR

BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")
DICT_KEY_MARKER = "[key]"
MAX_SHOWN_INPUT = 60
NAME_RULE = "use letters, digits, '.', '_', ':' or '-', starting with a letter or digit"
# What a missing key is for, where the bare "required" would leave the reader guessing.
REQUIRED = {
    "system_prompt": "give system_prompt (the text) or system_prompt_file (a file path, "
    "relative to this file)",
    "default_agent": "with several agents, name the one a run gets when it names none",
    "agents": "a profile file declares at least one agent, as [agents.NAME]",
}


def key_path(parts: Sequence[str | int]) -> str:
    """TOML's spelling of a key path: `tenants."acme.eu".deny_tools`, `tools[1]`."""
    text = ""
    for part in parts:
        if isinstance(part, int):
            text += f"[{part}]"
            continue
        word = part if BARE_KEY.match(part) else json.dumps(part)
        text = f"{text}.{word}" if text else word
    return text


def problems_of(error: ValidationError) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    for item in error.errors(include_url=False):
        problem = (_where(item), _what(item))
        if problem not in found:
            found.append(problem)
    return found


def _where(item: ErrorDetails) -> str:
    parts = [part for part in item["loc"] if part != DICT_KEY_MARKER]
    context = item.get("ctx") or {}
    if item["type"] == PROFILE_ERROR and "key" in context:
        parts.extend(str(context["key"]).split("."))
    return key_path(parts)


def _what(item: ErrorDetails) -> str:
    kind, loc, context = item["type"], item["loc"], item.get("ctx") or {}
    given = _shown(item["input"])
    if loc and loc[-1] == DICT_KEY_MARKER:
        return _value_error(item["msg"], f"{given} is not a valid name: {NAME_RULE}")
    if kind == "extra_forbidden":
        keys = _keys_at(loc[:-1])
        return f"unknown key; allowed: {', '.join(keys)}" if keys else "unknown key"
    if kind == "missing":
        why = REQUIRED.get(str(loc[-1])) if loc else None
        return f"missing: {why}" if why else "missing: this key is required"
    if kind == "literal_error":
        values = str(context.get("expected", "")).replace("'", "").replace(" or ", ", ")
        return f"{given} is not allowed; allowed: {values}"
    if kind in ("model_type", "dict_type"):
        return f"must be a table, not {given}"
    if kind == "string_pattern_mismatch":
        return f"{given} is not a valid name: {NAME_RULE}"
    if kind in (PROFILE_ERROR, "value_error"):
        return _value_error(item["msg"], "")
    return f"{item['msg'][:1].lower()}{item['msg'][1:]} ({given} given)"


def _value_error(message: str, fallback: str) -> str:
    text = message.removeprefix("Value error, ")
    return text if text and not text.startswith("String should match") else fallback


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= MAX_SHOWN_INPUT else text[: MAX_SHOWN_INPUT - 3] + "..."


def _keys_at(loc: Sequence[str | int]) -> list[str]:
    """The keys the table at `loc` takes, walking the contract types from the file's top."""
    current: Any = ProfileSet
    for part in loc:
        current = _unwrapped(current)
        if isinstance(current, type) and issubclass(current, BaseModel):
            field = current.model_fields.get(str(part))
            if field is None:
                return []
            current = field.annotation
        elif get_origin(current) in (dict, tuple):
            current = get_args(current)[-1 if get_origin(current) is dict else 0]
        else:
            return []
    current = _unwrapped(current)
    if isinstance(current, type) and issubclass(current, BaseModel):
        return list(current.model_fields)
    return []


def _unwrapped(annotation: Any) -> Any:
    """`X`, from `Annotated[X, ...]` and `X | None`."""
    while True:
        origin = get_origin(annotation)
        if origin is Annotated:
            annotation = get_args(annotation)[0]
        elif origin in (Union, types.UnionType):
            others = [arg for arg in get_args(annotation) if arg is not type(None)]
            if len(others) != 1:
                return annotation
            annotation = others[0]
        else:
            return annotation
