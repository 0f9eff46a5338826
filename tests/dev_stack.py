"""A `signoff dev` stack for tests, as a user starts it: the Temporal dev server, a
worker, the demo data and the reviewer UI, on free ports and a private home.

`shared_dev_stack` (tests/conftest.py) starts one per test process, for every module
that can use the default settings (tests/ui, tests/e2e, ...): each test there works on
its own orders, tickets, run ids, tenants or reviewers, never on the stack's. A module
that needs other settings (profiles, passkeys, a PostgreSQL store) starts its own with
`started_dev_stack`.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from signoff.config.settings import Settings
from signoff.wiring.local_stack import SIGNOFF, signoff_dev_stack

CLEAN_STOP = "Stopped the worker and the Temporal dev server"


@dataclass(frozen=True)
class DevStack:
    env: dict[str, str]
    home: Path
    ui_url: str

    def settings(self) -> Settings:
        return Settings(
            home=self.home,
            temporal_address=self.env["SIGNOFF_TEMPORAL_ADDRESS"],
            task_queue=self.env["SIGNOFF_TASK_QUEUE"],
            ui_secret=None,
        )

    def signoff(self, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [SIGNOFF, *args], env=self.env, input=stdin, capture_output=True, text=True, timeout=120
        )


@contextmanager
def started_dev_stack(
    home: Path, task_queue: str, ready_seconds: float, **extra: str
) -> Iterator[DevStack]:
    """A private stack, ready, its UI answering; it must stop cleanly on Ctrl-C after."""
    log = home / "dev.log"
    with signoff_dev_stack(home, task_queue, ready_seconds=ready_seconds, **extra) as (
        env,
        launcher,
    ):
        ui_url = f"http://127.0.0.1:{env['SIGNOFF_UI_PORT']}"
        assert f"Reviewer UI on {ui_url}/" in log.read_text()
        yield DevStack(env=env, home=home, ui_url=ui_url)
    assert launcher.returncode == 0, log.read_text()
    assert CLEAN_STOP in log.read_text()
