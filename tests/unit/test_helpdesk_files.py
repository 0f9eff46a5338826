"""The helpdesk files: the intake's secrets and the reply connectors load when sound,
are refused with what to fix when not (readable by others, a secret too short or
shared by two tenants, an unknown source or kind), and every secret they hold is
blanked from log lines."""

from __future__ import annotations

import io
import json
import logging
import os
from pathlib import Path
from typing import Any

import pytest

from signoff.config.helpdesks import (
    HelpdeskConfigError,
    load_helpdesk_connectors,
    load_intake_secrets,
)
from signoff.config.logs import configure_logging
from signoff.config.settings import Settings
from signoff.helpdesks.zendesk_kind import ZendeskConnector

CURRENT = "acme-current-signing-secret-0123456789abcdef"
OLD = "acme-previous-signing-secret-0123456789abcdef"
API_TOKEN = "zendesk-api-token-0123456789abcdefghijkl"


def private(path: Path, document: Any, mode: int = 0o600) -> Path:
    path.write_text(json.dumps(document) if not isinstance(document, str) else document)
    os.chmod(path, mode)
    return path


def test_a_tenant_may_hold_several_secrets_while_it_rotates(tmp_path: Path) -> None:
    path = private(tmp_path / "s.json", {"acme": {"zendesk": [CURRENT, OLD]}})
    secrets = load_intake_secrets(path)
    assert [(e.tenant_id, e.secret) for e in secrets.of_source("zendesk")] == [
        ("acme", CURRENT),
        ("acme", OLD),
    ]
    assert secrets.of_source("generic") == []
    assert load_intake_secrets(None).entries == ()


@pytest.mark.parametrize(
    ("document", "said"),
    [
        ({"acme": {"zendesk": "short"}}, "it needs at least 32"),
        ({"acme": {"freshdesk": CURRENT}}, "unknown source 'freshdesk'"),
        ({"acme": {"generic": CURRENT}, "globex": {"zendesk": CURRENT}}, "share a secret"),
        ({"ac-me": {"generic": CURRENT}}, "may not contain '-'"),
        ({"acme": {"generic": []}}, "give a secret"),
        ("[1, 2", "is not valid JSON"),
        (["acme"], "expected an object of tenants"),
    ],
)
def test_a_bad_secrets_file_is_refused_saying_what_to_fix(
    tmp_path: Path, document: Any, said: str
) -> None:
    with pytest.raises(HelpdeskConfigError, match=said) as refused:
        load_intake_secrets(private(tmp_path / "s.json", document))
    assert CURRENT not in str(refused.value)


def test_a_file_others_can_read_is_refused(tmp_path: Path) -> None:
    path = private(tmp_path / "s.json", {"acme": {"generic": CURRENT}}, mode=0o644)
    with pytest.raises(HelpdeskConfigError, match=f"chmod 600 {path}"):
        load_intake_secrets(path)
    with pytest.raises(HelpdeskConfigError, match="does not exist"):
        load_intake_secrets(tmp_path / "missing.json")


def test_connectors_load_by_kind_and_refuse_what_they_cannot_use(tmp_path: Path) -> None:
    good = {
        "acme": {
            "kind": "zendesk",
            "url": "https://acme.zendesk.com",
            "email": "agent@acme.example",
            "api_token": API_TOKEN,
            "timeout_seconds": 5,
        },
        "globex": {"kind": "webhook", "url": "https://hooks.globex.example/replies"},
    }
    connectors = load_helpdesk_connectors(private(tmp_path / "c.json", good))
    assert isinstance(connectors["acme"], ZendeskConnector)
    assert connectors["acme"].timeout_seconds == 5 and connectors["globex"].kind == "webhook"
    no_token = {"acme": {**good["acme"], "api_token": None}}
    with pytest.raises(HelpdeskConfigError, match="acme.zendesk.api_token") as refused:
        load_helpdesk_connectors(private(tmp_path / "c.json", no_token))
    unknown = {"acme": {"kind": "freshdesk", "url": "https://x.example"}}
    with pytest.raises(HelpdeskConfigError, match="acme"):
        load_helpdesk_connectors(private(tmp_path / "c.json", unknown))
    slow = {"acme": {**good["acme"], "timeout_seconds": 600}}
    with pytest.raises(HelpdeskConfigError, match="timeout_seconds") as refused:
        load_helpdesk_connectors(private(tmp_path / "c.json", slow))
    assert API_TOKEN not in str(refused.value)


def test_the_helpdesk_secrets_are_blanked_from_log_lines(tmp_path: Path) -> None:
    intake = private(tmp_path / "s.json", {"acme": {"zendesk": [CURRENT, OLD]}})
    connectors = private(
        tmp_path / "c.json",
        {
            "acme": {
                "kind": "zendesk",
                "url": "https://acme.zendesk.com",
                "email": "agent@acme.example",
                "api_token": API_TOKEN,
            }
        },
    )
    stream = io.StringIO()
    settings = Settings(home=tmp_path, intake_secrets=intake, helpdesk_connectors=connectors)
    handler = configure_logging(settings, stream)
    try:
        logging.getLogger("signoff.test").warning("keys %s %s %s", CURRENT, OLD, API_TOKEN)
    finally:
        logging.getLogger().removeHandler(handler)
    written = stream.getvalue()
    assert "keys [redacted] [redacted] [redacted]" in written
    assert CURRENT not in written and OLD not in written and API_TOKEN not in written


def test_a_connector_may_say_how_long_an_approved_reply_waits_for_it(tmp_path: Path) -> None:
    webhook = {"kind": "webhook", "url": "https://hooks.globex.example/replies"}
    patient = {"globex": {**webhook, "give_up_after": "2h"}}
    connectors = load_helpdesk_connectors(private(tmp_path / "c.json", patient))
    assert connectors["globex"].give_up_after_seconds() == 2 * 3600
    plain = load_helpdesk_connectors(private(tmp_path / "c.json", {"globex": webhook}))
    assert plain["globex"].give_up_after_seconds() is None  # until the approval expires
    for unwritten in (7200, "2 hours", "0h"):
        bad = {"globex": {**webhook, "give_up_after": unwritten}}
        with pytest.raises(HelpdeskConfigError, match="globex.webhook.give_up_after") as refused:
            load_helpdesk_connectors(private(tmp_path / "c.json", bad))
        assert 'a whole number and a unit (s, m, h or d), e.g. "24h"' in str(refused.value)
