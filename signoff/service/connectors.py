"""What `signoff connectors` shows and resets: each write connector's breaker, from the
store that every worker writes it to (a worker's own memory would tell one worker's
story, and forget it at a restart)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from activities.connectors.breaker import BreakerStateName, state_name
from activities.connectors.helpdesk import connector_name
from activities.payments.breaker_gate import payments_connector_name
from activities.store.connector_breakers import breaker_rows, reset_breaker, state_of
from signoff.config.helpdesks import HelpdeskConfigError, load_helpdesk_connectors
from signoff.config.settings import Settings
from signoff.payments.registry import PaymentSetupProblem, platform_tenants
from signoff.service.handles import Store, engine_of


@dataclass(frozen=True)
class ConnectorStatus:
    name: str
    state: BreakerStateName
    consecutive_failures: int
    open_until: datetime | None
    last_error: str
    configured: bool

    def as_json(self) -> dict[str, object]:
        return {
            "name": self.name,
            "state": self.state,
            "consecutive_failures": self.consecutive_failures,
            "open_until": self.open_until.isoformat() if self.open_until else None,
            "last_error": self.last_error,
            "configured": self.configured,
        }


class UnknownConnector(ValueError):
    """A name that is neither configured nor has a breaker in the store."""


def configured_connectors(settings: Settings) -> list[str]:
    """The connectors the settings name (the helpdesks file and the payment platforms'
    configurations, where this process can read them); raises HelpdeskConfigError for a
    helpdesks file it cannot use."""
    helpdesks = [
        connector_name(tenant) for tenant in load_helpdesk_connectors(settings.helpdesk_connectors)
    ]
    try:
        platforms = [payments_connector_name(tenant) for tenant in platform_tenants(settings)]
    except PaymentSetupProblem:
        platforms = []  # another host's file: the store still tells every breaker
    return helpdesks + platforms


def connector_statuses(store: Store, settings: Settings, now: datetime) -> list[ConnectorStatus]:
    """Every configured connector and every breaker in the store, by name."""
    engine = engine_of(store)
    try:
        configured = set(configured_connectors(settings))
    except HelpdeskConfigError:
        configured = set()  # another host's file: the store still tells every breaker
    rows = {row.name: row for row in breaker_rows(engine)}
    statuses = []
    for name in sorted(configured | set(rows)):
        row = rows.get(name)
        state = state_of(row) if row is not None else None
        statuses.append(
            ConnectorStatus(
                name=name,
                state=state_name(state, now) if state is not None else "closed",
                consecutive_failures=state.consecutive_failures if state else 0,
                open_until=state.open_until if state else None,
                last_error=state.last_error if state else "",
                configured=name in configured,
            )
        )
    return statuses


def reset_connector(store: Store, settings: Settings, name: str) -> bool:
    """Close the breaker now; False when it was closed already. UnknownConnector for a
    name neither configured nor in the store."""
    engine = engine_of(store)
    if reset_breaker(engine, name):
        return True
    try:
        known = name in configured_connectors(settings)
    except HelpdeskConfigError:
        known = False
    if not known:
        raise UnknownConnector(
            f"No connector is named '{name}'. `signoff connectors` lists them "
            "(a helpdesk's is helpdesk:TENANT, a payment platform's payments:TENANT)."
        )
    return False
