"""`signoff approve --token-stdin` on a real run: one request, and the token's own reviewer
or nothing.

The CLI sends the decision at once, naming the reviewer `--as` gave, and the decision
service (the reviewer UI, served over HTTP) refuses it unless the token proves that
reviewer; the run (real Temporal, real worker, real store) then still waits on the same
action with no decision. A token of another tenant's reviewer, of a reviewer without
the approver role, or one revoked, decides nothing either; the token's own reviewer,
however they type their name, decides, and the trail names them.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine
from typer.testing import CliRunner, Result

from activities.store import issue_token, revoke_token
from signoff.config.settings import get_settings
from signoff.wiring.app import app
from tests.admin import ADMIN
from tests.ui.conftest import DevStack, RefundCase, wait_until_pending

pytestmark = pytest.mark.devserver
DAY = timedelta(days=1)


@pytest.fixture
def cli(live_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[CliRunner]:
    """A CLI host with no key and no store of its own: it reaches the service alone."""
    monkeypatch.setenv("SIGNOFF_HOME", str(tmp_path))
    monkeypatch.setenv("SIGNOFF_DECISION_SERVICE_URL", live_url)
    monkeypatch.delenv("SIGNOFF_TOKEN", raising=False)
    get_settings.cache_clear()
    yield CliRunner()
    get_settings.cache_clear()


def token_of(store: Engine, name: str) -> str:
    _, _, token = issue_token(store, ADMIN, name, DAY)
    return token


def approve(cli: CliRunner, run_id: str, action_hash: str, name: str, token: str) -> Result:
    args = ["approve", run_id, "--hash", action_hash, "--as", name, "--token-stdin", "--json"]
    return cli.invoke(app, args, input=token + "\n")


def run_seen_by(ui: TestClient, run_id: str, token: str) -> dict[str, Any]:
    answer = ui.get(f"/api/approvals/{run_id}", headers={"Authorization": f"Bearer {token}"})
    assert answer.status_code == 200, answer.text
    detail: dict[str, Any] = answer.json()
    return detail


def test_a_token_decides_only_as_its_own_reviewer(
    cli: CliRunner, ui: TestClient, dev_stack: DevStack, store: Engine, pending_case: RefundCase
) -> None:
    run_id = pending_case.run_id
    action_hash = wait_until_pending(dev_stack, pending_case)
    bobs = token_of(store, "bob")
    _, row, revoked = issue_token(store, ADMIN, "alice", DAY)
    revoke_token(store, ADMIN, row.id)

    as_alice = approve(cli, run_id, action_hash, "alice", bobs)
    assert as_alice.exit_code == 2, as_alice.stderr
    assert "is 'bob''s, not 'alice''s. Nothing was decided" in as_alice.stderr
    refused = {
        "a revoked token": (approve(cli, run_id, action_hash, "alice", revoked), "was revoked"),
        "another tenant's reviewer": (
            approve(cli, run_id, action_hash, "carol", token_of(store, "carol")),
            "no such run in your tenant",
        ),
        "a reviewer without the role": (
            approve(cli, run_id, action_hash, "dave", token_of(store, "dave")),
            "You do not have the refund_approver role",
        ),
    }
    for case, (answer, words) in refused.items():
        assert answer.exit_code == 2 and words in answer.stderr, (case, answer.stderr)
    # Nothing of the above reached the run: it still waits on the same action.
    before = run_seen_by(ui, run_id, bobs)
    assert [action["action_hash"] for action in before["pending_actions"]] == [action_hash]
    assert before["decisions"] == []

    # bob's own token, his name typed another way: decided, and the trail names bob.
    as_bob = approve(cli, run_id, action_hash, "BOB", bobs)
    assert as_bob.exit_code == 0, as_bob.stderr
    assert json.loads(as_bob.stdout)["status"] == "approved"
    after = run_seen_by(ui, run_id, bobs)
    approvals = [d for d in after["decisions"] if d["action_hash"] == action_hash]
    assert [(d["kind"], d["reviewer_id"]) for d in approvals] == [("approved", "bob")]
