"""Tools a team adds as Python functions: `@tool(...)` on a function of pydantic arguments.

    from pydantic import BaseModel
    from signoff.tools import ToolContext, tool

    class LookupArguments(BaseModel):
        sku: str

    @tool(name="lookup_stock", risk="read", description="Returns ... Use it when ...")
    def lookup_stock(arguments: LookupArguments, context: ToolContext) -> dict:
        ...

A profile names the modules that hold such functions (`python_tools = ["team.tools"]`);
the profile loader imports them, so the worker, `signoff profiles check` and the run
factory all see the same tools. Registration is where a tool is judged: its
description must pass the definition linter (`tool_description_lint.py`), its first
parameter must be a pydantic model, and its name must be new. Anything wrong raises
`ToolRegistrationError` at import, a load error that stops the worker.

A read tool runs in the tool-gateway activity. An irreversible tool runs only in the
effect activity, after the gate, with `context.idempotency_key`: it must pass that key
to whatever it calls, so that a retried activity never acts twice.

The registry holds references to the functions but never calls them: the workflow
reads only the definitions (name, description, schema, risk), and the activities call.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Literal, get_type_hints

from pydantic import BaseModel

from workflows.tool_catalog import CATALOG, ToolDefinition
from workflows.tool_description_lint import description_problems

Risk = Literal["read", "irreversible"]
_RISK_CLASS: Mapping[Risk, Literal["read", "irreversible_write"]] = MappingProxyType(
    {"read": "read", "irreversible": "irreversible_write"}
)


class ToolRegistrationError(Exception):
    """A tool that cannot be registered; the message says which and why."""


@dataclass(frozen=True)
class ToolContext:
    """What a tool function learns of its call. Targets come from the run, never from
    the model: a tool acts on `tenant_id` and `ticket_id`, not on ids in its arguments."""

    run_id: str
    tenant_id: str
    ticket_id: str
    tool_use_id: str
    # From the run and the logical action, never from the attempt: pass it on.
    idempotency_key: str


_REGISTERED: dict[str, ToolDefinition] = {}


def tool(
    *, name: str, description: str, risk: Risk = "irreversible"
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register the decorated function as a tool. `risk` defaults to irreversible: a
    tool is gated unless its author says it only reads."""

    def register(function: Callable[..., Any]) -> Callable[..., Any]:
        arguments = _arguments_model(name, function)
        problems = description_problems(description)
        if problems:
            raise ToolRegistrationError(
                f"tool {name!r} ({function.__module__}.{function.__qualname__}): its "
                f"description fails the linter: {'; '.join(problems)}"
            )
        if name in CATALOG:
            raise ToolRegistrationError(f"tool {name!r} is a built-in tool; choose another name")
        registered = _REGISTERED.get(name)
        if registered is not None and registered.implementation is not function:
            raise ToolRegistrationError(
                f"tool {name!r} is registered twice; names are unique across modules"
            )
        _REGISTERED[name] = ToolDefinition(
            name=name,
            description=description,
            arguments=arguments,
            risk=_RISK_CLASS[risk],
            implementation=function,
        )
        return function

    return register


def known_tools() -> Mapping[str, ToolDefinition]:
    """Every tool an agent profile may offer, by name: the built-in catalog and the
    registered Python tools. The profile loader, `signoff profiles check`, the run
    factory and the worker all ask here, so they agree on what exists."""
    return MappingProxyType({**CATALOG, **_REGISTERED})


def _arguments_model(name: str, function: Callable[..., Any]) -> type[BaseModel]:
    parameters = list(inspect.signature(function).parameters)
    if len(parameters) != 2:
        raise ToolRegistrationError(
            f"tool {name!r}: the function takes (arguments, context), not ({', '.join(parameters)})"
        )
    hints = get_type_hints(function)
    model = hints.get(parameters[0])
    if not (isinstance(model, type) and issubclass(model, BaseModel)):
        raise ToolRegistrationError(
            f"tool {name!r}: annotate its first parameter with a pydantic model "
            "(the tool's arguments)"
        )
    return model
