"""Which connector pays for a tenant: the payment platform that names it (the registry
of `signoff.payments`: Stripe's keys file, or an installed platform's configuration),
the embedded ledger (None here) for every other.

Connectors are built on first use and kept, one per tenant: credentials are read once
per process, and a tenant whose credentials are unusable fails its own refunds with a
message that says what to fix, never another tenant's. To rotate a key, replace its
file (or variable) and restart the worker (docs/connect-stripe.md).
"""

from __future__ import annotations

import threading
from collections.abc import Mapping

from activities.payments.connector import PaymentRefused, PaymentsConnector
from signoff.config.settings import Settings
from signoff.payments.registry import (
    PaymentSetupProblem,
    TenantPlatform,
    build_connector,
    platform_tenants,
    refund_call_seconds,
)


class PaymentConnectors:
    def __init__(
        self, settings: Settings, tenants: Mapping[str, TenantPlatform] | None = None
    ) -> None:
        """`tenants`: which platform each tenant refunds through; None: as the
        platforms' configurations say (raises PaymentSetupProblem when one cannot be
        used)."""
        self._settings = settings
        self._tenants = dict(platform_tenants(settings) if tenants is None else tenants)
        self._built: dict[str, PaymentsConnector] = {}
        self._lock = threading.Lock()

    @classmethod
    def ledger_only(cls) -> PaymentConnectors:
        return cls(Settings(), tenants={})

    def is_remote(self, tenant_id: str) -> bool:
        return tenant_id in self._tenants

    def give_up_after(self, tenant_id: str) -> int | None:
        """How long, in seconds, an approved refund of the tenant may wait for its
        platform (its configuration's `give_up_after`); None: until its approval expires."""
        tenant = self._tenants.get(tenant_id)
        return None if tenant is None else tenant.give_up_after_seconds

    def refund_call_seconds(self, tenant_id: str) -> float:
        """How long one refund attempt of the tenant may wait on its platform (its calls
        times each call's timeout, as the platform declares them); 0 for the ledger."""
        tenant = self._tenants.get(tenant_id)
        return 0.0 if tenant is None else refund_call_seconds(self._settings, tenant.platform)

    def for_tenant(self, tenant_id: str) -> PaymentsConnector | None:
        """The tenant's connector; None for the embedded ledger. Raises PaymentRefused
        when the tenant's credentials are unusable (the message says what to fix)."""
        tenant = self._tenants.get(tenant_id)
        if tenant is None:
            return None
        with self._lock:
            built = self._built.get(tenant_id)
            if built is None:
                try:
                    built = self._connector(tenant)
                except PaymentSetupProblem as problem:
                    raise PaymentRefused(str(problem)) from None
                self._built[tenant_id] = built
            return built

    def _connector(self, tenant: TenantPlatform) -> PaymentsConnector:
        """Built as its platform declares (tests build one on another transport)."""
        connector: PaymentsConnector = build_connector(self._settings, tenant)
        return connector
