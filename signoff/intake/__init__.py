"""Intake sources, as a registry: declare one with `IntakeSource` under the entry-point
group `signoff.intake` (docs/connect-helpdesk.md, "Another intake source")."""

from signoff.intake.registry import (
    ENTRY_POINT_GROUP,
    IncomingTicket,
    IntakeRefused,
    IntakeSource,
    SourceId,
    Text,
    known_sources,
)

__all__ = [
    "ENTRY_POINT_GROUP",
    "IncomingTicket",
    "IntakeRefused",
    "IntakeSource",
    "SourceId",
    "Text",
    "known_sources",
]
