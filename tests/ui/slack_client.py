"""A reviewer UI whose tenants have Slack apps, and Slack pressing its buttons: signed
as Slack signs, in Slack's block_actions format (tests/slack_requests.py)."""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from approvals_ui.main import create_app
from signoff.config.settings import Settings
from tests.clock import clock_now
from tests.slack_requests import (
    DEMO_SECRET,
    DEMO_TEAM,
    apps_document,
    form_body,
    press_payload,
    signed_headers,
)
from tests.ui.conftest import csrf_of, sign_in

LINK = re.compile(r"<(http[^|>]+/slack/link\?code=([^|>]+))\|")


@dataclass
class SlackFront:
    """Slack, as seen by the UI: it signs and posts presses."""

    client: TestClient
    settings: Settings

    def post(
        self, body: bytes, secret: str = DEMO_SECRET, at: datetime | None = None
    ) -> Any:  # starlette answers with httpx or httpx2, whichever it found
        headers = signed_headers(secret, body, at or clock_now())
        return self.client.post("/api/slack/actions", content=body, headers=headers)

    def press(
        self, action_id: str, run_id: str, action_hash: str = "", **kwargs: Any
    ) -> Any:  # starlette answers with httpx or httpx2, whichever it found
        secret = kwargs.pop("secret", DEMO_SECRET)
        return self.post(form_body(press_payload(action_id, run_id, action_hash, **kwargs)), secret)

    def link(self, reviewer: str, slack_user: str, team: str = DEMO_TEAM, **kwargs: Any) -> None:
        """The reviewer links `slack_user`: an unlinked press gets a link, which the
        reviewer opens signed in (GET changes nothing) and confirms (POST)."""
        asked = self.press(
            "signoff_approve", "run-linking", "0" * 64, user=slack_user, team=team, **kwargs
        )
        assert asked.status_code == 200, asked.text
        found = LINK.search(asked.json()["text"])
        assert found is not None, asked.json()
        code = found.group(2)
        with TestClient(create_app(self.settings), follow_redirects=False) as browser:
            sign_in(browser, reviewer)
            page = browser.get(f"/slack/link?code={code}")
            assert page.status_code == 200 and slack_user in page.text, page.text
            linked = browser.post(
                "/slack/link", data={"csrf_token": csrf_of(page.text), "code": code}
            )
            assert linked.status_code == 200 and 'id="slack-linked"' in linked.text, linked.text

    def client_for(self, reviewer: str) -> TestClient:
        """A signed-in reviewer's browser on the same app (closed with the front)."""
        browser = TestClient(self.client.app, follow_redirects=False)
        sign_in(browser, reviewer)
        return browser


def slack_user() -> str:
    return "U" + uuid.uuid4().hex[:10].upper()


@contextmanager
def slack_front(
    settings: Settings, tmp_path: Path, bot_token: str | None = None, **changes: Any
) -> Iterator[SlackFront]:
    """The UI with the tenants' Slack apps; `bot_token`, the demo tenant's app's."""
    document = apps_document()
    if bot_token is not None:
        document["demo"]["bot_token"] = bot_token
    apps = tmp_path / "slack-apps.json"
    apps.write_text(json.dumps(document))
    apps.chmod(0o600)
    configured = settings.model_copy(update={"slack_apps": apps, **changes})
    with TestClient(create_app(configured), follow_redirects=False) as client:
        yield SlackFront(client, configured)
