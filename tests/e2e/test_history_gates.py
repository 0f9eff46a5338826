"""`signoff history gates` on the dev stack: an open run that passed a versioning gate
is listed under its patch id, and once it ends, nothing depends on the gate any more.

The run is a probe workflow of the test's own (tests/e2e/gated_probe.py): signoff's own
workflow code has no gate before its first release. The stack's other runs hold none.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from typing import Any

import pytest
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client
from temporalio.worker import Worker

from tests.e2e.cli import eventually, signoff
from tests.e2e.gated_probe import PROBE_GATE, GatedProbe

pytestmark = pytest.mark.devserver
MARKER_SECONDS = 30


def gates(env: dict[str, str]) -> dict[str, Any]:
    shown = signoff(env, "history", "gates", "--json")
    assert shown.returncode == 0, shown.stderr
    listed: dict[str, Any] = json.loads(shown.stdout)["gates"]
    return listed


async def test_an_open_run_holds_its_gate_until_it_ends(dev_stack: dict[str, str]) -> None:
    env = dev_stack
    client = await Client.connect(env["SIGNOFF_TEMPORAL_ADDRESS"])
    queue = f"gates-{uuid.uuid4().hex[:8]}"
    async with Worker(client, task_queue=queue, workflows=[GatedProbe]):
        handle = await client.start_workflow(
            GatedProbe.run, id=f"probe-{uuid.uuid4().hex[:8]}", task_queue=queue
        )
        for _ in range(int(MARKER_SECONDS / 0.2)):  # its first task wrote the marker
            events = (await handle.fetch_history()).events
            if any(e.event_type == EventType.EVENT_TYPE_MARKER_RECORDED for e in events):
                break
            await asyncio.sleep(0.2)

        # An open run that has not passed the gate (no worker polls its queue): the
        # policy's "without it", which keeps the old branch until it ends.
        behind = await client.start_workflow(
            "NeverPolled", id=f"behind-{uuid.uuid4().hex[:8]}", task_queue=f"{queue}-none"
        )

        def both_listed(found: dict[str, Any]) -> bool:
            gate = found.get(PROBE_GATE, {})
            return handle.id in gate.get("run_ids", []) and behind.id in gate.get(
                "without", {}
            ).get("run_ids", [])

        held = await asyncio.to_thread(eventually, lambda: gates(env), both_listed, "both runs")
        assert handle.id not in held[PROBE_GATE]["without"]["run_ids"]
        assert held[PROBE_GATE]["without"]["oldest_start"] is not None
        text = await asyncio.to_thread(signoff, env, "history", "gates")
        assert text.returncode == 0, text.stderr
        assert f"{PROBE_GATE}  {held[PROBE_GATE]['runs']} open run" in text.stdout
        assert "without it, the oldest started" in text.stdout
        # A gate no open run holds yet is reported when asked for: every run lacks it.
        asked = await asyncio.to_thread(
            signoff, env, "history", "gates", "--gate", "not-yet-held", "--json"
        )
        not_held = json.loads(asked.stdout)["gates"]["not-yet-held"]
        assert not_held["runs"] == 0 and behind.id in not_held["without"]["run_ids"]
        await behind.terminate(reason="test over")
        # The probe has no tenant: a tenant's listing leaves it out.
        demo = await asyncio.to_thread(signoff, env, "history", "gates", "--tenant", "demo")
        assert demo.returncode == 0 and PROBE_GATE not in demo.stdout, demo.stdout

        await handle.signal(GatedProbe.finish)
        assert await handle.result() == "done"

    await asyncio.to_thread(
        eventually,
        lambda: gates(env),
        lambda found: handle.id not in found.get(PROBE_GATE, {}).get("run_ids", []),
        "the ended run dropped",
    )


def test_an_empty_gate_id_is_bad_input(dev_stack: dict[str, str]) -> None:
    shown = signoff(dev_stack, "history", "gates", "--gate", " ")
    assert shown.returncode == 2
    assert "--gate needs a patch id" in shown.stderr and "Traceback" not in shown.stderr


def test_a_bad_tenant_is_bad_input(dev_stack: dict[str, str]) -> None:
    shown = signoff(dev_stack, "history", "gates", "--tenant", "no such tenant!")
    assert shown.returncode == 2
    assert "tenant" in shown.stderr.lower() and "Traceback" not in shown.stderr
