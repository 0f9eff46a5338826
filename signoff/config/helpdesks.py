"""The helpdesk files: the intake's signing secrets, and each tenant's reply connector.

Both are JSON files that only their owner may read (mode 0600), named by settings
(SIGNOFF_INTAKE_SECRETS on the server that takes webhooks, SIGNOFF_HELPDESK_CONNECTORS
on the workers), so that each process holds only the secrets it uses.

The intake file maps a tenant to its sources, each with one or more secrets: the first
is current, the others still accepted while a rotation is under way. A secret belongs
to one tenant: the tenant of a delivery is the one whose secret verified it, never a
field of the body, so the same secret under two tenants is refused at load.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, TypeAdapter, ValidationError

from signoff.config.secret_files import (
    MIN_SECRET_BYTES,
    read_private_json,
    rotation_list,
    short_secret_bytes,
)
from workflows.contract_base import tenant_id_problem
from workflows.profile_values import Duration

IntakeSource = Literal["generic", "zendesk"]
INTAKE_SOURCES: tuple[IntakeSource, ...] = ("generic", "zendesk")
URL_PATTERN = r"^https?://[^\s]+$"


class HelpdeskConfigError(ValueError):
    """A helpdesk file that cannot be used; the message says what to fix."""


@dataclass(frozen=True)
class IntakeSecret:
    tenant_id: str
    source: IntakeSource
    secret: str


@dataclass(frozen=True)
class IntakeSecrets:
    entries: tuple[IntakeSecret, ...] = ()

    def of_source(self, source: IntakeSource) -> list[IntakeSecret]:
        return [entry for entry in self.entries if entry.source == source]

    def values(self) -> list[str]:
        return [entry.secret for entry in self.entries]


class _Connector(BaseModel):
    model_config = ConfigDict(extra="forbid")

    url: Annotated[str, Field(pattern=URL_PATTERN)]
    # This connector's own timeout; None: SIGNOFF_HELPDESK_TIMEOUT_SECONDS.
    timeout_seconds: Annotated[float | None, Field(gt=0, le=50)] = None
    # How long an approved reply may wait while this helpdesk is unavailable, e.g.
    # "2h"; None: until its approval expires (workflows/effect_waits.py).
    give_up_after: Duration | None = None

    def give_up_after_seconds(self) -> int | None:
        return None if self.give_up_after is None else int(self.give_up_after.total_seconds())


class WebhookConnector(_Connector):
    """The generic one: each reply is a JSON POST to `url`, with `Authorization:
    Bearer <token>` when a token is set."""

    kind: Literal["webhook"]
    token: SecretStr | None = None


class ZendeskConnector(_Connector):
    """Zendesk's ticket-comment API at `url` (https://SUBDOMAIN.zendesk.com), as the
    agent `email` with an API token."""

    kind: Literal["zendesk"]
    email: Annotated[str, Field(min_length=3, max_length=254)]
    api_token: SecretStr


HelpdeskConnector = Annotated[WebhookConnector | ZendeskConnector, Field(discriminator="kind")]
_CONNECTORS = TypeAdapter(dict[str, HelpdeskConnector])


def load_intake_secrets(path: Path | None) -> IntakeSecrets:
    """The file's secrets; none when `path` is None (the intake then refuses every
    delivery as signed by no known secret)."""
    if path is None:
        return IntakeSecrets()
    document = read_private_json(path, "SIGNOFF_INTAKE_SECRETS", HelpdeskConfigError)
    if not isinstance(document, dict):
        raise HelpdeskConfigError(f"{path}: expected an object of tenants, e.g. {_EXAMPLE}.")
    entries: list[IntakeSecret] = []
    for tenant_id, sources in document.items():
        problem = tenant_id_problem(tenant_id) if isinstance(tenant_id, str) else "not text"
        if problem is not None:
            raise HelpdeskConfigError(f"{path}: tenant {tenant_id!r}: {problem}.")
        if not isinstance(sources, dict) or not sources:
            raise HelpdeskConfigError(
                f"{path}: tenant '{tenant_id}' needs an object of sources, e.g. {_EXAMPLE}."
            )
        for source, secrets in sources.items():
            entries += _source_secrets(path, tenant_id, source, secrets)
    seen: dict[str, str] = {}
    for entry in entries:
        other = seen.setdefault(entry.secret, entry.tenant_id)
        if other != entry.tenant_id:
            raise HelpdeskConfigError(
                f"{path}: tenants '{other}' and '{entry.tenant_id}' share a secret; a "
                "secret must name one tenant. Give each its own."
            )
    return IntakeSecrets(tuple(entries))


def load_helpdesk_connectors(path: Path | None) -> dict[str, HelpdeskConnector]:
    """Tenant -> its helpdesk connector; empty when `path` is None."""
    if path is None:
        return {}
    document = read_private_json(path, "SIGNOFF_HELPDESK_CONNECTORS", HelpdeskConfigError)
    try:
        connectors = _CONNECTORS.validate_python(document)
    except ValidationError as error:
        first = error.errors(include_url=False)[0]
        where = ".".join(str(part) for part in first["loc"])
        raise HelpdeskConfigError(f"{path}: {where}: {first['msg']}.") from None
    for tenant_id in connectors:
        problem = tenant_id_problem(tenant_id)
        if problem is not None:
            raise HelpdeskConfigError(f"{path}: tenant {tenant_id!r}: {problem}.")
    return connectors


def connector_secrets(connectors: dict[str, HelpdeskConnector]) -> list[str]:
    """Every credential the connectors hold, to be blanked from log lines."""
    found: list[str] = []
    for connector in connectors.values():
        held = connector.token if isinstance(connector, WebhookConnector) else connector.api_token
        if held is not None:
            found.append(held.get_secret_value())
    return found


_EXAMPLE = '{"acme": {"zendesk": ["SECRET"]}}'


def _source_secrets(
    path: Path, tenant_id: str, source: object, secrets: object
) -> list[IntakeSecret]:
    if source not in INTAKE_SOURCES:
        raise HelpdeskConfigError(
            f"{path}: tenant '{tenant_id}': unknown source {source!r}; use "
            f"{' or '.join(INTAKE_SOURCES)}."
        )
    listed = rotation_list(secrets)
    if listed is None:
        raise HelpdeskConfigError(
            f"{path}: tenant '{tenant_id}', source '{source}': give a secret, or a list "
            "of them (the current one first)."
        )
    short = short_secret_bytes(listed)
    if short is not None:
        raise HelpdeskConfigError(
            f"{path}: tenant '{tenant_id}', source '{source}': a secret of {short} bytes; "
            f"it needs at least {MIN_SECRET_BYTES}."
        )
    return [IntakeSecret(tenant_id, source, secret) for secret in listed]
