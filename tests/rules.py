"""Standing rules for tests: made through the service as the demo administrator, signed
with the tests' decision key (tests/workflow/approvals.TEST_SIGNER), as the decision
service makes them."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Engine
from sqlalchemy.orm import Session

from activities.store.passwords import hash_password
from activities.store.schema import Reviewer
from signoff.config.decision_signatures import DecisionSigner
from signoff.service.handles import Store
from signoff.service.standing_rules import RuleView, add_rule, rule_request
from tests.clock import clock_now

LONGEST = timedelta(days=90)


def make_rule(
    engine: Engine,
    signer: DecisionSigner,
    *,
    admin: str = "admin",
    now: datetime | None = None,
    **asked: Any,
) -> RuleView:
    """A refund rule of tenant demo up to 50.00 EUR for 7 days and 5 uses, unless
    `asked` says otherwise."""
    moment = now or clock_now()
    terms: dict[str, Any] = {
        "tenant_id": "demo",
        "tool": "refund",
        "max_amount": "50.00",
        "currency": "EUR",
        "customer": None,
        "category": None,
        "lifetime": "7d",
        "max_uses": 5,
        "shadow": False,
    }
    terms.update(asked)
    request = rule_request(**terms, now=moment, longest_lifetime=LONGEST)
    return add_rule(Store(engine), signer, admin, request, moment)


def add_admin(engine: Engine, tenant_id: str, name: str) -> None:
    """Another administrator (the seed has one, of demo), with the demo password
    `demo-NAME`."""
    with Session(engine) as session, session.begin():
        session.add(
            Reviewer(
                id=name,
                tenant_id=tenant_id,
                display_name=name,
                roles="admin",
                password_hash=hash_password(f"demo-{name}"),
            )
        )
