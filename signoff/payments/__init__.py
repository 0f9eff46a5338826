"""Payment platforms, as a registry: declare one with `PaymentPlatform` under the
entry-point group `signoff.payments` (docs/connect-stripe.md, "Another payment platform")."""

from signoff.payments.registry import (
    ENTRY_POINT_GROUP,
    PaymentPlatform,
    PaymentSetupProblem,
    known_platforms,
    platform_tenants,
)

__all__ = [
    "ENTRY_POINT_GROUP",
    "PaymentPlatform",
    "PaymentSetupProblem",
    "known_platforms",
    "platform_tenants",
]
