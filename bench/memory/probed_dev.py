"""`signoff dev`, with a probe beside it that answers `python -m bench.memory`.

The same launcher a user runs (`signoff/wiring/dev.py`: the Temporal dev server, the
worker and the embedded reviewer UI in this one process), plus a task that reads
requests from `$SIGNOFF_HOME/probe/request-<n>.json` and writes each answer to
`answer-<n>.json`:

- `snapshot`: this process's memory (`bench/memory/heap_probe.py`);
- `reconcile`: one round of the inbox read model's reconcile (the worker's own code,
  `reconcile_waiting`), with the memory before, the peak during it and after;
- `trim`: glibc's `malloc_trim`, then the memory: how much RSS was freed but kept.

A file, not a signal or a port: nothing to clash with another stack on the machine.
"""

from __future__ import annotations

import asyncio
import json
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import Engine
from temporalio.client import Client

from bench.memory.heap_probe import malloc_trim, reset_peak, snapshot, status_fields
from signoff.config.settings import Settings, get_settings
from signoff.config.temporal_client import connect
from signoff.service.waiting_reconcile import reconcile_waiting
from signoff.wiring.dev import run_dev
from signoff.wiring.observability import start_observability

POLL_SECONDS = 0.5


def probe_dir(home: Path) -> Path:
    return home / "probe"


class Probe:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.client: Client | None = None
        self.engine: Engine | None = None

    async def reconcile(self) -> dict[str, Any]:
        if self.client is None or self.engine is None:
            from activities.store import make_engine

            self.client = await connect(self.settings)
            self.engine = make_engine(self.settings.resolved_database_url)
        before = snapshot()
        peak_reset = reset_peak()
        began = time.monotonic()
        counts = await reconcile_waiting(
            self.client, self.engine, timedelta(seconds=self.settings.read_model_grace_seconds)
        )
        seconds = time.monotonic() - began
        peak_kib = status_fields(Path("/proc/self/status").read_text())["VmHWM"]
        return {
            "before": before,
            "peak_kib": peak_kib if peak_reset else None,
            "seconds": seconds,
            "counts": vars(counts),
            "after": snapshot(),
        }

    async def answer(self, request: dict[str, Any]) -> dict[str, Any]:
        match request.get("do"):
            case "snapshot":
                return snapshot()
            case "reconcile":
                return await self.reconcile()
            case "trim":
                return {"trimmed": malloc_trim(), "after": snapshot()}
        return {"error": f"unknown request {request!r}"}

    async def serve(self) -> None:
        folder = probe_dir(self.settings.home)
        folder.mkdir(parents=True, exist_ok=True)
        while True:
            for request_path in sorted(folder.glob("request-*.json")):
                number = request_path.stem.removeprefix("request-")
                request = json.loads(request_path.read_text())
                request_path.unlink()
                try:
                    answer = await self.answer(request)
                except Exception as error:  # the bench reads it and stops with it
                    answer = {"error": repr(error)}
                written = folder / f"answer-{number}.tmp"
                written.write_text(json.dumps(answer))
                written.rename(folder / f"answer-{number}.json")
            await asyncio.sleep(POLL_SECONDS)


async def main() -> None:
    settings = get_settings()
    start_observability(settings, "dev")
    probing = asyncio.create_task(Probe(settings).serve())
    try:
        await run_dev(settings)
    finally:
        probing.cancel()


if __name__ == "__main__":
    asyncio.run(main())
