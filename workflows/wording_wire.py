"""A refusal's wording across Temporal: the run's words reach the reviewer's page whole.

Design note. The `decide` update refuses a decision with an `ApplicationError` whose
message is English (the API, the CLI and the audit read it). Its details carry the same
sentence as a template and its values (`workflows/wording.py`), each value tagged with
its kind, so that the decision service rebuilds the `Wording` and a page writes the
refusal in its own language: "Expired 3 minutes ago" in French, with the amount or the
role in that language's words. Details that do not read as a wording (an older worker's,
or none) leave the English message alone: nothing is lost, it is only not translated.

Pure: the workflow writes the details, the decision service reads them.
"""

from __future__ import annotations

from typing import Any

from workflows.wording import AnyOf, InOrder, Money, Role, Value, Wording


def wire_of(wording: Wording) -> dict[str, Any]:
    """The wording as JSON: its template and each value tagged with its kind."""
    return {
        "template": wording.template,
        "values": {name: _tagged(value) for name, value in wording.values.items()},
    }


def _tagged(value: Value) -> dict[str, Any]:
    if isinstance(value, Wording):
        return {"wording": wire_of(value)}
    if isinstance(value, Money):
        return {"money": [value.minor, value.currency]}
    if isinstance(value, InOrder):
        return {"in_order": list(value.names)}
    if isinstance(value, AnyOf):
        return {"any_of": list(value.names)}
    if isinstance(value, Role):
        return {"role": value.name}
    if isinstance(value, int):
        return {"int": value}
    return {"text": value}


def wording_of(data: object) -> Wording | None:
    """The wording `wire_of` wrote; None for anything else."""
    try:
        return _wording(data)
    except (KeyError, TypeError, ValueError):
        return None


def _wording(data: Any) -> Wording:
    template = data["template"]
    if not isinstance(template, str) or not isinstance(data["values"], dict):
        raise TypeError("not a wording")
    return Wording(template, {name: _value(tagged) for name, tagged in data["values"].items()})


def _value(tagged: Any) -> Value:
    ((kind, value),) = tagged.items()
    if kind == "wording":
        return _wording(value)
    if kind == "money":
        minor, currency = value
        return Money(int(minor), str(currency))
    if kind == "in_order":
        return InOrder(tuple(str(name) for name in value))
    if kind == "any_of":
        return AnyOf(tuple(str(name) for name in value))
    if kind == "role":
        return Role(str(value))
    if kind == "int":
        return int(value)
    if kind == "text":
        return str(value)
    raise ValueError(f"unknown kind {kind!r}")
