"""Helpdesk connectors, as a registry: declare a kind with `HelpdeskKind` under the
entry-point group `signoff.helpdesks` (docs/connect-helpdesk.md, "Another kind of helpdesk")."""

from signoff.helpdesks.registry import (
    ENTRY_POINT_GROUP,
    ConnectorSettings,
    HelpdeskKind,
    known_kinds,
)

__all__ = ["ENTRY_POINT_GROUP", "ConnectorSettings", "HelpdeskKind", "known_kinds"]
