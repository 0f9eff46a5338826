"""A kind of helpdesk from a package outside signoff: installed, a tenant's connectors
file names it, and a reply goes there once, under its idempotency key, with no module
of signoff edited (issue 43, "every seam is a registry").

The package (tests/outside_packages, `acme_signoff.helpdesks`) registers `acmedesk`
under the `signoff.helpdesks` entry points; delivery, its retries and the breaker are
signoff's. The run is the real workflow and effect activity on a time-skipping server,
against the local helpdesk of tests/connectors.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine
from temporalio.testing import WorkflowEnvironment

from signoff.config.helpdesks import HelpdeskConfigError, load_helpdesk_connectors
from signoff.config.logs import settings_secrets
from signoff.config.settings import Settings
from signoff.service.connectors import configured_connectors
from tests.connectors.helpdesk_server import helpdesk_server
from tests.connectors.replies import helpdesk_effects
from tests.connectors.test_reply_delivery import BUILT_IN, DRAFT, REPLY, effect_key_of
from tests.outside_install import outside_package_installed
from tests.store.outbox import replies_of
from tests.workflow.approvals import gate_run
from tests.workflow.fakes import FakeModel, text_reply, tool_reply

ACME_DESK_KEY = "acmedesk-key-for-the-tests-only-93d1"


@pytest.fixture
def installed() -> Iterator[None]:
    with outside_package_installed():
        yield


def connectors_file(tmp_path: Path, url: str, **entry: object) -> Path:
    path = tmp_path / "helpdesks.json"
    document = {"demo": {"kind": "acmedesk", "url": url, "api_key": ACME_DESK_KEY, **entry}}
    path.write_text(json.dumps(document))
    os.chmod(path, 0o600)
    return path


async def test_a_reply_goes_once_to_a_helpdesk_installed_from_outside(
    installed: None, time_skipping_env: WorkflowEnvironment, seeded_engine: Engine, tmp_path: Path
) -> None:
    model = FakeModel().enqueue(tool_reply(REPLY), text_reply("Replied."))
    with helpdesk_server() as helpdesk:
        helpdesk.fail_next(503)  # one outage: retried under the same key, posted once
        (connector,) = load_helpdesk_connectors(connectors_file(tmp_path, helpdesk.url)).values()
        effects, _ = helpdesk_effects(seeded_engine, connector)
        async with gate_run(
            time_skipping_env, model, seeded_engine, effects=effects, **BUILT_IN
        ) as handle:
            assert (await handle.result()).status == "completed"
    key = effect_key_of(seeded_engine)
    assert [request.path for request in helpdesk.requests] == ["/acme/replies"] * 2
    assert {request.headers["Idempotency-Key"] for request in helpdesk.requests} == {key}
    assert helpdesk.requests[-1].headers["X-Acme-Key"] == ACME_DESK_KEY
    assert helpdesk.posted == {key: {"ticket": "T-1042", "message": DRAFT}}
    (sent,) = replies_of(seeded_engine, "demo", "T-1042")
    assert sent.delivered_to == "acmedesk" and sent.idempotency_key == key


def test_what_the_kind_declares_is_what_signoff_uses(installed: None, tmp_path: Path) -> None:
    path = connectors_file(tmp_path, "https://desk.acme.example")
    settings = Settings(home=tmp_path, helpdesk_connectors=path)
    assert ACME_DESK_KEY in settings_secrets(settings)  # its key is blanked from logs
    assert "helpdesk:demo" in configured_connectors(settings)  # `signoff connectors`
    with pytest.raises(HelpdeskConfigError, match="demo.acmedesk.api_key") as refused:
        load_helpdesk_connectors(connectors_file(tmp_path, "https://x.example", api_key=None))
    assert ACME_DESK_KEY not in str(refused.value)


def test_without_the_package_the_kind_is_refused_saying_what_is_installed(
    tmp_path: Path,
) -> None:
    with pytest.raises(HelpdeskConfigError, match="'acmedesk' is not a kind of helpdesk"):
        load_helpdesk_connectors(connectors_file(tmp_path, "https://desk.acme.example"))
