"""Helpdesk connectors are a registry: an installed package declares a kind of helpdesk
under the entry-point group `signoff.helpdesks`, and the connectors file
(SIGNOFF_HELPDESK_CONNECTORS) names, for each tenant, a `kind` of the registry.

    # pyproject.toml of your package
    [project.entry-points."signoff.helpdesks"]
    acmedesk = "acme_signoff.helpdesks:ACMEDESK"

A kind declares its name (the file's `kind`), the pydantic model of a tenant's entry
(`settings`: a `ConnectorSettings` with the kind's own fields; its SecretStr fields are
the secrets the logs blank) and its delivery (`delivery`: how a reply becomes the HTTP
request the helpdesk takes, whether a reply can go to it at all), each named as
`module:attribute` and imported when used. Delivery, retries, the breaker and the
waiting of an approved reply are signoff's, the same for every kind
(activities/connectors/helpdesk.py). The built-in `webhook` and `zendesk` kinds register
the same way, through signoff's pyproject.toml.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, SecretStr

from signoff.entry_points import load_group, load_reference, reference_problem
from workflows.profile_values import Duration

ENTRY_POINT_GROUP = "signoff.helpdesks"
URL_PATTERN = r"^https?://[^\s]+$"


class ConnectorSettings(BaseModel):
    """What every kind's entry holds; a kind's model adds its own fields."""

    model_config = ConfigDict(extra="forbid")

    kind: str
    url: Annotated[str, Field(pattern=URL_PATTERN)]
    # This connector's own timeout; None: SIGNOFF_HELPDESK_TIMEOUT_SECONDS.
    timeout_seconds: Annotated[float | None, Field(gt=0, le=50)] = None
    # How long an approved reply may wait while this helpdesk is unavailable, e.g.
    # "2h"; None: until its approval expires (workflows/effect_waits.py).
    give_up_after: Duration | None = None

    def give_up_after_seconds(self) -> int | None:
        return None if self.give_up_after is None else int(self.give_up_after.total_seconds())

    def secrets(self) -> list[str]:
        """Every credential the entry holds (its SecretStr fields), for the log filter."""
        held = [getattr(self, name) for name in type(self).model_fields]
        return [value.get_secret_value() for value in held if isinstance(value, SecretStr)]


@dataclass(frozen=True)
class HelpdeskKind:
    """One kind of helpdesk, as declared under the `signoff.helpdesks` entry points."""

    name: str
    # `module:Class`: the ConnectorSettings model of a tenant's entry of this kind.
    settings: str
    # `module:object`: its `request(client, connector, reply)` returns the httpx request
    # that posts the reply (with the reply's Idempotency-Key header), `auth(connector)`
    # an httpx.Auth or None, and `target_problem(connector, reply)` why the reply cannot
    # go to this helpdesk at all, or None (activities/connectors/webhook_delivery.py).
    delivery: str

    def settings_model(self) -> type[ConnectorSettings]:
        model: type[ConnectorSettings] = load_reference(self.settings)
        return model

    def delivery_of(self) -> Any:
        return load_reference(self.delivery)


def known_kinds() -> Mapping[str, HelpdeskKind]:
    """Every kind of helpdesk installed, by name."""
    return _loaded()


def reload_kinds() -> None:
    """Read the entry points again (after a package was installed in this process)."""
    _loaded.cache_clear()


@cache
def _loaded() -> Mapping[str, HelpdeskKind]:
    return load_group(ENTRY_POINT_GROUP, HelpdeskKind, lambda kind: kind.name, _problem)


def _problem(name: str, kind: HelpdeskKind) -> str | None:
    return reference_problem(kind.settings) or reference_problem(kind.delivery)
