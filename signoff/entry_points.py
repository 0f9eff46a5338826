"""Registries read from installed packages' entry points: model providers
(`signoff.models`) and payment platforms (`signoff.payments`).

An installed package declares an object under a group; each registry loads the group
once per process and judges every entry here the same way: it must load, be of the
registry's kind, be named as its entry point, and be the only one of its name. Anything
wrong is a `RegistrationError` naming the entry point, which stops the process that
reads the registry (a worker, a command) with what to fix, rather than a refund or a
model turn failing later.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from importlib import import_module
from importlib.metadata import entry_points
from types import MappingProxyType
from typing import Any, TypeVar

Declared = TypeVar("Declared")


class RegistrationError(Exception):
    """An entry point that cannot be used; the message says which and why."""


def load_group(
    group: str,
    kind: type[Declared],
    name_of: Callable[[Declared], str],
    check: Callable[[str, Declared], str | None] = lambda name, declared: None,
) -> Mapping[str, Declared]:
    """Every entry of `group`, by name, each checked (`check` returns a problem or None)."""
    found: dict[str, Declared] = {}
    for point in entry_points(group=group):
        where = f"entry point {point.name!r} = {point.value!r} of group '{group}'"
        try:
            declared = point.load()
        except Exception as error:  # any import failure of a package: name it
            raise RegistrationError(f"{where}: cannot load it ({error})") from None
        if not isinstance(declared, kind):
            raise RegistrationError(f"{where}: it is not a {kind.__module__}.{kind.__name__}")
        if name_of(declared) != point.name:
            raise RegistrationError(
                f"{where}: it is named {name_of(declared)!r}; name the entry point the same"
            )
        if point.name in found:
            # Two installed packages claim one name: neither may silently win.
            raise RegistrationError(f"{where}: the name {point.name!r} is registered twice")
        problem = check(point.name, declared)
        if problem is not None:
            raise RegistrationError(f"{where}: {problem}")
        found[point.name] = declared
    return MappingProxyType(dict(sorted(found.items())))


def load_reference(reference: str) -> Any:
    """The object a declaration names as `module:attribute`, imported now: a registry
    names what it would build that way, so that a heavy SDK loads only when it is used."""
    module, _, attribute = reference.partition(":")
    return getattr(import_module(module), attribute)


def reference_problem(reference: str) -> str | None:
    module, colon, attribute = reference.partition(":")
    if module and colon and attribute:
        return None
    return f"{reference!r} is not 'module:attribute'"
