"""What `python -m bench.chaos` breaks: a Temporal dev server it restarts, workers it kills.

The dev server is `temporal server start-dev` on a SQLite file (as `signoff dev` starts
it), so that a restart on the same file and port keeps every run. A worker is either
`signoff worker`, as an operator starts it, or `bench/chaos/worker.py`, the same worker
with a kill hook. Either is ready once its heartbeat file exists (the worker touches it
once it polls).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from temporalio.client import Client

from bench.common.paths import ROOT
from signoff.config.settings import Settings
from signoff.config.temporal_client import connect
from signoff.wiring.dev import server_command
from signoff.wiring.local_stack import SIGNOFF, free_port
from signoff.wiring.search_attributes import ensure_search_attributes

# A fresh process takes seconds to import everything; more on a busy machine.
READY_SECONDS = 90
STOP_SECONDS = 30


def wait_until(condition: Callable[[], object], what: str, within: float = READY_SECONDS) -> None:
    """Poll `condition` until it holds, or give up saying what did not happen."""
    deadline = time.monotonic() + within
    while not condition():
        if time.monotonic() > deadline:
            raise SystemExit(f"gave up waiting for {what}")
        time.sleep(0.2)


class DevServer:
    """`temporal server start-dev` on `home/temporal.db`, on a port it keeps across restarts."""

    def __init__(self, home: Path) -> None:
        self.settings = Settings(
            home=home,
            temporal_address=f"127.0.0.1:{free_port()}",
            temporal_ui_port=free_port(),
        )
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def address(self) -> str:
        return self.settings.temporal_address

    def start(self) -> None:
        host, port = self.address.split(":")
        with (self.settings.home / "temporal.log").open("ab") as log:
            self.process = subprocess.Popen(
                server_command(self.settings, host, int(port)),
                stdout=log,
                stderr=log,
                start_new_session=True,
            )

    async def client(self) -> Client:
        """A client once the server answers, with signoff's search attributes registered."""
        deadline = time.monotonic() + READY_SECONDS
        while True:
            if self.process is not None and self.process.poll() is not None:
                raise SystemExit(f"the dev server exited; see {self.settings.home}/temporal.log")
            try:
                client = await connect(self.settings)
                await ensure_search_attributes(client, self.settings.temporal_namespace)
                return client
            except Exception:
                if time.monotonic() > deadline:
                    raise
                await asyncio.sleep(0.5)

    def stop(self) -> None:
        """SIGTERM, as a restart by an operator or a supervisor does; SIGKILL if it hangs."""
        if self.process is None or self.process.poll() is not None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=STOP_SECONDS)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def worker_environment(settings: Settings, **extra: str) -> dict[str, str]:
    """This process's environment without any model key, plus the worker's settings."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("ANTHROPIC")}
    env.update(
        SIGNOFF_HOME=str(settings.home),
        SIGNOFF_TEMPORAL_ADDRESS=settings.temporal_address,
        SIGNOFF_TASK_QUEUE=settings.task_queue,
        SIGNOFF_DATABASE_URL=settings.resolved_database_url,
        SIGNOFF_LOG_LEVEL="WARNING",
    )
    if settings.trusted_key_ids:  # a worker trusts only the decision keys it is given
        env["SIGNOFF_TRUSTED_KEY_IDS"] = settings.trusted_key_ids
    env.update(extra)
    return env


@contextmanager
def worker_process(
    env: dict[str, str], name: str, kill_at: str | None = None, kill_after: int = 0
) -> Iterator[subprocess.Popen[bytes]]:
    """A polling worker: `signoff worker`, or the chaos worker when `kill_at` names a
    phase (it dies by SIGKILL once `kill_after` activities are held there). Killed on
    the way out if it still runs."""
    home = Path(env["SIGNOFF_HOME"])
    alive = home / f"{name}-alive"
    alive.unlink(missing_ok=True)
    env = {**env, "SIGNOFF_WORKER_HEARTBEAT_FILE": str(alive)}
    command = [SIGNOFF, "worker"]
    if kill_at is not None:
        command = [sys.executable, "-m", "bench.chaos.worker"]
        env.update(SIGNOFF_CHAOS_KILL_AT=kill_at, SIGNOFF_CHAOS_KILL_AFTER=str(kill_after))
    with (home / f"{name}.log").open("w") as log:
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=log)
        try:
            wait_until(lambda: alive.exists() or process.poll() is not None, f"{name} to poll")
            if process.poll() is not None:
                raise SystemExit(f"{name} exited at start; see {home}/{name}.log")
            yield process
        finally:
            if process.poll() is None:
                process.kill()
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=STOP_SECONDS)
