"""An intake source from a package outside signoff: installed, the intake secrets file
names it for a tenant, and its signed delivery becomes that tenant's ticket and triage,
with no module of signoff edited (issue 43, "every seam is a registry").

The package (tests/outside_packages, `acme_signoff.intake`) registers `acmedesk` under
the `signoff.intake` entry points: its headers and how its body reads. The signature,
the tenant it names, the time window and the ticket's bounds are signoff's.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from activities.store import make_engine, seed_demo
from activities.store.tickets import get_ticket
from signoff.config.helpdesks import HelpdeskConfigError, load_intake_secrets
from tests.clock import clock_now
from tests.intake.conftest import (
    DEMO_GENERIC,
    Intake,
    generic_body,
    generic_headers,
    sign,
    write_private,
)
from tests.outside_install import outside_package_installed

DEMO_ACME = "demo-acmedesk-signing-secret-0123456789abcd"


@pytest.fixture
def installed() -> Iterator[None]:
    with outside_package_installed():
        yield


@pytest.fixture
def home(installed: None, tmp_path: Path) -> Path:
    """The intake's home (tests/intake/conftest.py), its secrets file naming the
    installed source for `demo`."""
    engine = make_engine(f"sqlite:///{tmp_path / 'signoff.db'}")
    seed_demo(engine)
    engine.dispose()
    secrets = {"demo": {"generic": DEMO_GENERIC, "acmedesk": [DEMO_ACME]}}
    write_private(tmp_path / "intake-secrets.json", secrets)
    return tmp_path


def acme_delivery(number: int, text: str) -> tuple[bytes, dict[str, str]]:
    body = json.dumps(
        {"delivery": f"dlv-{number}", "case": {"number": number, "body": text, "customer": "Kim"}}
    ).encode()
    timestamp = str(int(clock_now().timestamp()))
    headers = {
        "Content-Type": "application/json",
        "X-Acme-Timestamp": timestamp,
        "X-Acme-Signature": sign(DEMO_ACME, timestamp, body),
    }
    return body, headers


async def test_a_delivery_from_an_installed_source_becomes_the_tenants_ticket(
    intake: Intake,
) -> None:
    body, headers = acme_delivery(17, "My parcel never came.")
    answer = await intake.post(body, headers)

    assert answer.status_code == 202, answer.text
    accepted = answer.json()
    assert accepted["tenant_id"] == "demo"
    ticket = get_ticket(intake.engine, "demo", accepted["ticket_id"])
    assert ticket is not None
    assert (ticket.text, ticket.customer_name) == ("My parcel never came.", "Kim")
    description = await intake.client.get_workflow_handle(accepted["run_id"]).describe()
    assert description.workflow_type == "TriageTicket"
    # The built-in sources are read as before, beside it.
    generic = generic_body("4512", "evt-1")
    assert (await intake.post(generic, generic_headers(DEMO_GENERIC, generic))).status_code == 202


async def test_signoffs_own_checks_hold_for_an_installed_source(intake: Intake) -> None:
    body, headers = acme_delivery(18, "Refund me.")
    forged = {**headers, "X-Acme-Signature": sign("not-the-secret-0123456789abcdef", "1", body)}
    too_long, long_headers = acme_delivery(19, "x" * 20_001)

    assert (await intake.post(body, forged)).json()["reason"] == "bad_signature"
    refused = await intake.post(too_long, long_headers)
    assert refused.status_code == 422 and "longer than" in refused.json()["detail"]
    assert intake.counts()[1] == 0  # nothing stored for either


def test_a_source_no_package_installed_is_refused_in_the_secrets_file(tmp_path: Path) -> None:
    path = write_private(tmp_path / "intake-secrets.json", {"demo": {"acmedesk": [DEMO_ACME]}})
    with pytest.raises(HelpdeskConfigError, match="unknown source 'acmedesk'; use generic or"):
        load_intake_secrets(path)
    with outside_package_installed():
        (entry,) = load_intake_secrets(path).entries
    assert (entry.tenant_id, entry.source) == ("demo", "acmedesk")
