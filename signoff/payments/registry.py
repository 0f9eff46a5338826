"""Payment platforms are a registry: an installed package declares one under the
entry-point group `signoff.payments`, and the refund, `signoff order link`,
`signoff reconcile`, `signoff connectors`, the worker's start and the log redaction
ask here which tenants refund through which platform.

    # pyproject.toml of your package
    [project.entry-points."signoff.payments"]
    acmepay = "acme_signoff.payments:ACMEPAY"

A platform declares its name (the provider a payment link records), which tenants it
pays for and how long an approved refund of each may wait for it (`tenants`, read from
the platform's own configuration), how a tenant's connector is built (`connector`, with
the tenant's credentials, read where it is built) and which secrets the logs blank
(`secrets`), and how long one refund attempt may wait on it (`refund_calls`, the most
calls one attempt makes, measured; `call_timeout`, the seconds each may take). Each
function is named as `module:function`, imported only when used: a worker with no
Stripe tenant never loads the Stripe SDK. Its configuration problems are
`PaymentSetupProblem`s, whose message says what to fix and quotes no secret.

The built-in Stripe platform registers the same way, through signoff's pyproject.toml.
A tenant no platform claims refunds through the embedded ledger.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any, Protocol

from signoff.entry_points import load_group, load_reference, reference_problem

ENTRY_POINT_GROUP = "signoff.payments"


class PaymentSetupProblem(ValueError):
    """A platform's configuration, or a tenant's credentials in it, cannot be used; the
    message says what to fix and never quotes a secret."""


class TenantSource(Protocol):
    """What a platform's `tenants` gives for each tenant it pays for: the connector's
    builder takes it back; signoff reads only these two fields."""

    @property
    def tenant_id(self) -> str: ...

    # How long an approved refund may wait for the platform; None: until its approval
    # expires (workflows/effect_waits.py).
    @property
    def give_up_after_seconds(self) -> int | None: ...


@dataclass(frozen=True)
class PaymentPlatform:
    """One payment platform, as declared under the `signoff.payments` entry points."""

    name: str
    # (settings) -> Mapping[tenant id, TenantSource]; raises PaymentSetupProblem.
    tenants: str
    # (settings, TenantSource) -> PaymentsConnector (activities/payments/connector.py);
    # raises PaymentSetupProblem for credentials it cannot use.
    connector: str
    # (settings) -> list of secret values to blank from logs; never raises.
    secrets: str | None = None
    # Where a tenant is named to refund through it, for messages: `SIGNOFF_STRIPE_KEYS_FILE`.
    configured_by: str = ""
    # The most calls one refund attempt makes to the platform (count them, as
    # tests/payments/test_stripe_calls.py does), and (settings) -> float, the seconds one
    # call may take before the connector gives up on it. Together they bound how long
    # the refund activity may run (`refund_call_seconds`); undeclared: no time for calls.
    refund_calls: int = 0
    call_timeout: str | None = None


@dataclass(frozen=True)
class TenantPlatform:
    """The platform a tenant refunds through, and its entry there."""

    platform: PaymentPlatform
    source: Any  # the platform's TenantSource

    @property
    def give_up_after_seconds(self) -> int | None:
        seconds: int | None = self.source.give_up_after_seconds
        return seconds


def known_platforms() -> Mapping[str, PaymentPlatform]:
    """Every payment platform installed, by name."""
    return _loaded()


def reload_platforms() -> None:
    """Read the entry points again (after a package was installed in this process)."""
    _loaded.cache_clear()


def platform_tenants(settings: Any) -> dict[str, TenantPlatform]:
    """Each tenant a platform pays for, with its platform. Raises PaymentSetupProblem for
    a configuration a platform cannot use, or a tenant two platforms claim."""
    found: dict[str, TenantPlatform] = {}
    for platform in known_platforms().values():
        for tenant, source in load_reference(platform.tenants)(settings).items():
            other = found.get(tenant)
            if other is not None:
                raise PaymentSetupProblem(
                    f"Tenant '{tenant}' is named by two payment platforms, "
                    f"{other.platform.configured_by or other.platform.name} and "
                    f"{platform.configured_by or platform.name}; name it in one."
                )
            found[tenant] = TenantPlatform(platform, source)
    return found


def build_connector(settings: Any, tenant: TenantPlatform) -> Any:
    """The tenant's connector, built with its credentials. Raises PaymentSetupProblem."""
    return load_reference(tenant.platform.connector)(settings, tenant.source)


def refund_call_seconds(settings: Any, platform: PaymentPlatform) -> float:
    """How long one refund attempt may wait on the platform: its calls, each for as long
    as the connector lets one take. The run gives the refund activity this much more
    than the store's own part (workflows/gate_store.py)."""
    if platform.call_timeout is None or platform.refund_calls <= 0:
        return 0.0
    each = float(load_reference(platform.call_timeout)(settings))
    return platform.refund_calls * each


def platform_secrets(settings: Any) -> list[str]:
    """Every secret the platforms' configurations hold, for the log filter."""
    found: list[str] = []
    for platform in known_platforms().values():
        if platform.secrets is not None:
            found += load_reference(platform.secrets)(settings)
    return found


def where_configured() -> str:
    """Where a tenant is named to refund through a platform, for messages."""
    return ", ".join(
        platform.configured_by or platform.name for platform in known_platforms().values()
    )


@cache
def _loaded() -> Mapping[str, PaymentPlatform]:
    return load_group(ENTRY_POINT_GROUP, PaymentPlatform, lambda platform: platform.name, _problem)


def _problem(name: str, platform: PaymentPlatform) -> str | None:
    if platform.refund_calls < 0:
        return f"refund_calls is {platform.refund_calls}; give the most calls a refund makes"
    for reference in (
        platform.tenants,
        platform.connector,
        platform.secrets,
        platform.call_timeout,
    ):
        problem = None if reference is None else reference_problem(reference)
        if problem is not None:
            return problem
    return None
