"""The Slack apps file: each tenant its own workspace and secrets; a file others can
read, a shared secret or workspace, a short secret or a bad workspace id is refused
with what to fix."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from signoff.config.slack_apps import SlackApp, SlackConfigError, load_slack_apps
from tests.slack_requests import DEMO_SECRET, DEMO_TEAM, apps_document


def written(tmp_path: Path, document: Any, mode: int = 0o600) -> Path:
    path = tmp_path / "slack-apps.json"
    path.write_text(json.dumps(document))
    path.chmod(mode)
    return path


def test_the_file_gives_each_tenant_its_app(tmp_path: Path) -> None:
    apps = load_slack_apps(written(tmp_path, apps_document()))
    assert apps[0] == SlackApp("demo", DEMO_TEAM, (DEMO_SECRET,))
    assert load_slack_apps(None) == ()


def test_a_bot_token_is_optional_and_kept_for_its_tenant(tmp_path: Path) -> None:
    document = apps_document()
    document["globex"]["bot_token"] = "xoxb-1234-5678-abcdEFGH"
    demo, globex = load_slack_apps(written(tmp_path, document))
    assert (demo.bot_token, globex.bot_token) == (None, "xoxb-1234-5678-abcdEFGH")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"globex": {"team_id": DEMO_TEAM, "signing_secrets": ["z" * 32]}}, "share a workspace"),
        (
            {"globex": {"team_id": "TGLOBEX01", "signing_secrets": [DEMO_SECRET]}},
            "share a signing secret",
        ),
        (
            {"globex": {"team_id": "TGLOBEX01", "signing_secrets": ["short"]}},
            "a signing secret of 5 bytes",
        ),
        (
            {"globex": {"team_id": "globex", "signing_secrets": ["z" * 32]}},
            "not a Slack workspace id",
        ),
        ({"globex": {"team_id": "TGLOBEX01"}}, "needs team_id and signing_secrets"),
        (
            {"globex": {"team_id": "TGLOBEX01", "signing_secrets": ["z" * 32], "name": "x"}},
            "may have a bot_token, nothing else",
        ),
        (
            {"globex": {"team_id": "TGLOBEX01", "signing_secrets": ["z" * 32], "bot_token": "t"}},
            "bot_token is not a Slack bot token",
        ),
        ({"globex": {"team_id": "TGLOBEX01", "signing_secrets": []}}, "signing_secrets is a list"),
        ({"bad tenant!": {"team_id": "TGLOBEX01", "signing_secrets": ["z" * 32]}}, "tenant"),
    ],
)
def test_a_bad_file_says_what_to_fix(tmp_path: Path, change: dict[str, Any], message: str) -> None:
    document = {"demo": apps_document()["demo"], **change}
    with pytest.raises(SlackConfigError, match=message):
        load_slack_apps(written(tmp_path, document))


def test_a_file_others_can_read_is_refused(tmp_path: Path) -> None:
    with pytest.raises(SlackConfigError, match="chmod 600"):
        load_slack_apps(written(tmp_path, apps_document(), mode=0o644))
    with pytest.raises(SlackConfigError, match="does not exist"):
        load_slack_apps(tmp_path / "missing.json")
