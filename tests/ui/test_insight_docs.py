"""docs/ui/approval-insight.md runs as written: in a new SIGNOFF_HOME, its commands seed
the demo and give lena the role `lead`; lena then opens the insight and its CSV, and a
reviewer who only decides is refused (no Temporal is needed)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from approvals_ui.main import create_app
from signoff.config.settings import Settings
from tests.docs.shell_commands import REPO_ROOT, shell_commands
from tests.ui.test_admin_rules_routes import CSRF_MARK

PAGE = REPO_ROOT / "docs" / "ui" / "approval-insight.md"
LENA_PASSWORD = "lena-reads-figures"  # the one the page types


async def unreachable_connect(_: Settings) -> Any:
    raise RuntimeError("no Temporal in this test")


def sign_in(client: TestClient, name: str, password: str) -> None:
    token = client.get("/signin").text.split(CSRF_MARK)[1].split('"')[0]
    answer = client.post(
        "/signin", data={"csrf_token": token, "username": name, "password": password}
    )
    assert answer.status_code == 303, answer.text


def test_the_pages_commands_make_a_lead_who_reads_the_insight(tmp_path: Path) -> None:
    (tmp_path / ".venv").symlink_to(REPO_ROOT / ".venv")
    env = {key: value for key, value in os.environ.items() if not key.startswith("SIGNOFF_")}
    env["SIGNOFF_HOME"] = str(tmp_path / "home")
    commands = shell_commands(PAGE)
    assert len(commands) == 2, commands
    for command in commands:
        ran = subprocess.run(
            ["bash", "-c", command], env=env, cwd=tmp_path, capture_output=True, text=True
        )
        assert ran.returncode == 0, (command, ran.stdout, ran.stderr)
    assert LENA_PASSWORD in commands[1]
    app = create_app(Settings(home=tmp_path / "home"), temporal_connect=unreachable_connect)
    with TestClient(app, follow_redirects=False) as client:
        sign_in(client, "lena", LENA_PASSWORD)
        assert client.get("/insight").status_code == 200
        assert client.get("/insight?from=2026-11-01&to=2026-11-30").status_code == 200
        assert client.get("/insight.csv").text.startswith("scope,name,figure")
    with TestClient(app, follow_redirects=False) as client:
        sign_in(client, "alice", "demo-alice")
        assert client.get("/insight").status_code == 403
