"""Which connector pays for a tenant: Stripe for the tenants the keys file names, the
embedded ledger (None here) for every other.

Connectors are built on first use and kept, one per tenant: a key is read once per
process, and a tenant whose key is unusable fails its own refunds with a message that
says what to fix, never another tenant's. To rotate a key, replace its file (or
variable) and restart the worker (docs/connect-stripe.md).
"""

from __future__ import annotations

import threading

from activities.payments.connector import PaymentRefused, PaymentsConnector
from signoff.config.settings import Settings
from signoff.config.stripe_keys import KeySource, StripeKeyProblem, read_key, stripe_tenants


class PaymentConnectors:
    def __init__(self, settings: Settings) -> None:
        self._settings = settings
        self._sources: dict[str, KeySource] = stripe_tenants(settings)
        self._built: dict[str, PaymentsConnector] = {}
        self._lock = threading.Lock()

    @classmethod
    def ledger_only(cls) -> PaymentConnectors:
        return cls(Settings(stripe_keys_file=None))

    def is_remote(self, tenant_id: str) -> bool:
        return tenant_id in self._sources

    def give_up_after(self, tenant_id: str) -> int | None:
        """How long, in seconds, an approved refund of the tenant may wait for its
        platform (its keys file's `give_up_after`); None: until its approval expires."""
        source = self._sources.get(tenant_id)
        return None if source is None else source.give_up_after_seconds

    def for_tenant(self, tenant_id: str) -> PaymentsConnector | None:
        """The tenant's connector; None for the embedded ledger. Raises PaymentRefused
        when the tenant's key is unusable (the message says what to fix)."""
        source = self._sources.get(tenant_id)
        if source is None:
            return None
        with self._lock:
            built = self._built.get(tenant_id)
            if built is None:
                built = self._built[tenant_id] = self._stripe(source)
            return built

    def _stripe(self, source: KeySource) -> PaymentsConnector:
        try:
            key = read_key(source)
        except StripeKeyProblem as problem:
            raise PaymentRefused(str(problem)) from None
        # Imported here: a worker with no Stripe tenant never loads the SDK.
        from activities.payments.stripe_connector import StripeConnector

        return StripeConnector(
            key,
            api_base=self._settings.stripe_api_base,
            timeout_seconds=self._settings.stripe_timeout_seconds,
        )
