"""One list of the worker's activities: `signoff worker` registers it, and a test or a
bench that swaps one entry keeps the rest, by name (signoff/wiring/worker_activities.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import Engine
from temporalio import activity
from temporalio.testing import WorkflowEnvironment

from signoff.config.settings import Settings
from signoff.wiring.worker import build_worker
from signoff.wiring.worker_activities import activity_name, worker_activities
from tests.workflow.approvals import TEST_SIGNER, install_test_public_keys, store_parts
from tests.workflow.fakes import FakeModel, limited, new_task_queue
from workflows.contracts import MODEL_TURN_ACTIVITY


@activity.defn(name="not_an_activity_of_the_worker")
async def stray() -> None:
    return None


def names(listed: list[object]) -> list[str]:
    return [activity_name(entry) for entry in listed]  # type: ignore[arg-type]


def test_a_substitute_takes_the_place_of_the_entry_of_its_name(seeded_engine: Engine) -> None:
    parts = store_parts(seeded_engine, FakeModel())
    real = worker_activities(parts)

    substitute = limited(FakeModel())
    swapped = worker_activities(parts, replacing=[substitute])

    assert names(swapped) == names(real)
    assert len(set(names(real))) == len(real)
    at = names(real).index(MODEL_TURN_ACTIVITY)
    assert swapped[at] is substitute and real[at] is not substitute
    assert [e for i, e in enumerate(swapped) if i != at] == [
        e for i, e in enumerate(real) if i != at
    ]


def test_a_substitute_of_no_entry_is_refused_by_name(seeded_engine: Engine) -> None:
    with pytest.raises(ValueError, match="'not_an_activity_of_the_worker' is not one of"):
        worker_activities(store_parts(seeded_engine, FakeModel()), replacing=[stray])


async def test_signoff_worker_registers_the_list(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine, tmp_path: Path
) -> None:
    install_test_public_keys(tmp_path)
    settings = Settings(
        home=tmp_path, task_queue=new_task_queue(), trusted_key_ids=TEST_SIGNER.key_id
    )
    config = build_worker(time_skipping_env.client, settings, seeded_engine).config()

    registered = names(list(config.get("activities", [])))

    assert registered == names(worker_activities(store_parts(seeded_engine, FakeModel())))
