"""With SIGNOFF_PAYLOAD_KEYS set, Temporal holds no ticket text, and the run still reads.

One refund run (T-1042: proposed, approved by alice, refunded, answered) on the
production worker, whose client carries `data_converter_for(settings)` with key k1,
against the time-skipping server. Then:
- the history as the server holds it (fetched and exported without the codec) holds
  none of the ticket's words nor the customer's name, and every payload names k1;
- it replays with the codec, and does not without it;
- after rotation (k2 in front, k1 kept) it still replays; with k1 gone it does not,
  and the failure names the missing key;
- `signoff replay` of the exported file passes with the keys in the environment and
  fails without them; `history export --tenant` finds the run's tenant through the keys.
"""

from __future__ import annotations

import asyncio
import base64
import json
import re
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine
from temporalio.client import Client, WorkflowHistory
from temporalio.worker import Replayer
from typer.testing import CliRunner

from activities.store import get_ticket, use_session
from signoff.config.data_converter import data_converter, data_converter_for
from signoff.config.payload_keys import ENCRYPTED_ENCODING, KEY_ID_METADATA
from signoff.config.settings import Settings, get_settings
from signoff.service.handles import Runs, Store
from signoff.service.history_export import (
    RunNotFound,
    history_document,
    history_json,
    write_private,
)
from signoff.service.run_requests import new_run_request
from signoff.service.runs import start_run
from signoff.wiring.app import app
from signoff.wiring.worker import build_worker
from tests.conftest import SharedTimeSkippingServer, fresh_demo_store
from tests.workflow.approvals import decide, decision, pending_actions
from tests.workflow.observed_run import DEMO_MODEL, observed_settings
from workflows.registered import WORKFLOW_TYPES

KEY_1 = "k1:" + base64.b64encode(bytes(range(32))).decode()
KEY_2 = "k2:" + base64.b64encode(bytes(range(100, 132))).decode()
WORD = re.compile(r"[A-Za-z]{5,}")


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory, demo_store_template: Path) -> Iterator[Engine]:
    home = tmp_path_factory.mktemp("encrypted")
    engine = fresh_demo_store(demo_store_template, home / "signoff.db")
    yield engine
    engine.dispose()


def settings_with(engine: Engine, keys: str) -> Settings:
    home = Path(str(engine.url.database)).parent
    return observed_settings(home, payload_keys=keys, metrics_port=None, log_format="text")


@pytest.fixture(scope="module")
async def history(
    shared_time_skipping: SharedTimeSkippingServer, engine: Engine
) -> AsyncIterator[WorkflowHistory]:
    env = await shared_time_skipping.current()
    settings = settings_with(engine, KEY_1)
    config = env.client.config()
    config["data_converter"] = data_converter_for(settings)
    client = Client(**config)
    now = await env.get_current_time()
    request = new_run_request(
        settings, Store(engine), tenant_id="demo", ticket_id="T-1042", model=DEMO_MODEL, now=now
    )
    async with build_worker(client, settings, engine):
        handle, _ = await start_run(Runs(client), request, settings.task_queue, now=now)
        [action] = await pending_actions(handle)
        await decide(handle, decision(engine, "alice", action.action_hash))
        outcome = await handle.result()
    assert outcome.status == "completed"
    # The test server's own client has no codec: it reads what Temporal stores.
    yield await env.client.get_workflow_handle(handle.id).fetch_history()


def ticket_words(engine: Engine) -> set[str]:
    with use_session(engine) as session:
        ticket = get_ticket(session, "demo", "T-1042")
        assert ticket is not None
        return {w.lower() for w in WORD.findall(f"{ticket.text} {ticket.customer_name}")}


def every_payload(document: Any) -> Iterator[dict[str, Any]]:
    if isinstance(document, dict):
        if "metadata" in document and "data" in document:
            yield document
        for value in document.values():
            yield from every_payload(value)
    elif isinstance(document, list):
        for value in document:
            yield from every_payload(value)


def words_in(document: Any, words: set[str]) -> list[str]:
    """The words found in a history document: in each payload's bytes, decoded (a clear
    payload holds its JSON there), and in the text around the payloads. The payloads'
    base64 is not searched as text: sealed bytes spell a five-letter word there, folded
    to lower case, about once in twenty histories."""
    document = json.loads(json.dumps(document))  # a copy whose payloads can be emptied
    found: set[str] = set()
    for payload in every_payload(document):
        data = base64.b64decode(payload["data"]).lower()
        found |= {word for word in words if word.encode() in data}
        payload["data"] = ""
    around = json.dumps(document).lower()
    found |= {word for word in words if word in around}
    return sorted(found)


async def test_the_stored_history_holds_no_ticket_text(
    history: WorkflowHistory, engine: Engine, shared_time_skipping: SharedTimeSkippingServer
) -> None:
    env = await shared_time_skipping.current()
    exported = history_json(await history_document(Runs(env.client), history.workflow_id))
    words = ticket_words(engine)
    assert words  # the ticket has words to look for
    assert words_in(json.loads(exported), words) == []
    assert words_in(history.to_json_dict(), words) == []
    # Every payload our code wrote is sealed under k1 (patch markers, written by the
    # SDK's core after our codec, are the only clear ones, and hold a patch id).
    encodings = [
        (base64.b64decode(p["metadata"].get("encoding", "")), p["metadata"].get(KEY_ID_METADATA))
        for p in every_payload(history.to_json_dict())
    ]
    sealed = [e for e in encodings if e[0] == ENCRYPTED_ENCODING]
    assert len(sealed) > 10
    assert {base64.b64decode(key).decode() for _, key in sealed} == {"k1"}


async def replay_with(history: WorkflowHistory, converter: Any) -> Exception | None:
    replayer = Replayer(workflows=list(WORKFLOW_TYPES), data_converter=converter)
    result = await replayer.replay_workflow(history, raise_on_replay_failure=False)
    return result.replay_failure


async def test_it_replays_with_the_key_and_not_without(
    history: WorkflowHistory, engine: Engine
) -> None:
    assert await replay_with(history, data_converter_for(settings_with(engine, KEY_1))) is None
    assert await replay_with(history, data_converter) is not None


async def test_after_rotation_the_old_key_still_decrypts(
    history: WorkflowHistory, engine: Engine
) -> None:
    rotated = data_converter_for(settings_with(engine, f"{KEY_2},{KEY_1}"))
    assert await replay_with(history, rotated) is None
    # A payload the rotated codec writes is sealed under k2, and reads back.
    codec = rotated.payload_codec
    assert codec is not None
    [payload] = await rotated.encode(["new"])
    assert payload.metadata[KEY_ID_METADATA] == b"k2"
    assert await rotated.decode([payload], [str]) == ["new"]
    dropped = data_converter_for(settings_with(engine, KEY_2))
    failure = await replay_with(history, dropped)
    assert failure is not None and "'k1'" in str(failure)


async def test_signoff_replay_reads_an_exported_file_with_the_keys(
    history: WorkflowHistory,
    shared_time_skipping: SharedTimeSkippingServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    env = await shared_time_skipping.current()
    exported = tmp_path / "run.json"
    write_private(
        exported, history_json(await history_document(Runs(env.client), history.workflow_id))
    )

    async def replay(keys: str | None) -> int:
        if keys is None:
            monkeypatch.delenv("SIGNOFF_PAYLOAD_KEYS", raising=False)
        else:
            monkeypatch.setenv("SIGNOFF_PAYLOAD_KEYS", keys)
        get_settings.cache_clear()
        try:
            # In a thread: the command runs its own event loop.
            invoke = CliRunner().invoke
            result = await asyncio.to_thread(invoke, app, ["replay", str(exported)])
            return result.exit_code
        finally:
            get_settings.cache_clear()

    assert await replay(f"{KEY_2},{KEY_1}") == 0
    assert await replay(None) == 1
    assert await replay("not a key") == 2  # a setting it cannot use: bad input, said so


async def test_the_tenant_filter_reads_the_encrypted_request(
    history: WorkflowHistory, engine: Engine, shared_time_skipping: SharedTimeSkippingServer
) -> None:
    env = await shared_time_skipping.current()
    config = env.client.config()
    config["data_converter"] = data_converter_for(settings_with(engine, KEY_1))
    with_keys = Client(**config)
    found = await history_document(Runs(with_keys), history.workflow_id, tenant_id="demo")
    assert found["events"]
    # Without the keys the request cannot be read: not provably the tenant's, not found.
    with pytest.raises(RunNotFound):
        await history_document(Runs(env.client), history.workflow_id, tenant_id="demo")
