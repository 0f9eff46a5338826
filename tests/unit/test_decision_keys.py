"""Decision keys: only the decision service's host can sign; every other host verifies.

A worker host gets the public key set and nothing else. It checks what the service
signed, refuses a key it does not know or that was retired with words that say so, and
cannot sign at all: asking it to is a clear error, not a traceback. Rotation keeps the
old keys verifying until they are retired.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import Engine
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Worker
from typer.testing import CliRunner

from activities.decision_verifier import DecisionVerifier
from activities.store import make_engine
from signoff.config.decision_keys import (
    DecisionKeyError,
    ensure_key_ring,
    load_signer,
    load_verification_keys,
    public_entries,
    retire,
    rotate,
)
from signoff.config.settings import Settings, get_settings
from signoff.service.decisions import Decider, signed_decision
from signoff.wiring.app import app
from signoff.wiring.local_stack import SIGNOFF, free_port
from signoff.wiring.worker import build_worker
from tests.workflow.approvals import signed_by_an_impostor
from workflows.decision_check import DecisionCheck
from workflows.decision_proof import key_id_of

ALICE = Decider("alice", "demo", ("refund_approver",))
HASH = "ab" * 32


def service(tmp_path: Path) -> Settings:
    return Settings(home=tmp_path / "service")


def worker_host(tmp_path: Path, service_settings: Settings) -> Settings:
    """A host given only the service's public key set and its key ids pinned in its
    configuration, as docs/operating/decision-keys.md says to."""
    pinned = ",".join(entry.key_id for entry in public_entries(service_settings))
    settings = Settings(home=tmp_path / "worker", trusted_key_ids=pinned)
    settings.home.mkdir(parents=True, exist_ok=True)
    shutil.copy2(service_settings.public_keys_path, settings.public_keys_path)
    return settings


def check(run_id: str, decision_signed: object, verifier_now: datetime) -> DecisionCheck:
    return DecisionCheck.model_validate(
        {
            "run_id": run_id,
            "update_id": "u-1",
            "decision": decision_signed,
            "run_tenant_id": "demo",
            "run_actor_id": "ops",
            "now": verifier_now,
        }
    )


def test_a_worker_host_verifies_but_cannot_sign(tmp_path: Path, seeded_engine: Engine) -> None:
    signer = ensure_key_ring(service(tmp_path))
    worker = worker_host(tmp_path, service(tmp_path))
    assert sorted(path.name for path in worker.home.iterdir()) == ["decision-public-keys.json"]

    with pytest.raises(DecisionKeyError, match="holds no decision signing key"):
        load_signer(worker)
    keys = load_verification_keys(worker)
    decision = signed_decision(signer, "run-demo-1", ALICE, HASH, "approve", "")
    verifier = DecisionVerifier(seeded_engine, keys, timedelta(minutes=5))
    proof = verifier.verify(check("run-demo-1", decision, datetime.now(UTC)))
    assert proof.accepted, proof.message

    # What the worker host could make itself: the right key id, a signature of its own.
    forged = signed_by_an_impostor(
        signed_decision(signer, "run-demo-1", ALICE, HASH, "approve", ""), "run-demo-1"
    )
    refused = verifier.verify(check("run-demo-1", forged, datetime.now(UTC)))
    assert not refused.accepted and "no signoff front end signed" in refused.message


def test_rotation_keeps_old_keys_verifying_until_retired(tmp_path: Path) -> None:
    settings = service(tmp_path)
    old = ensure_key_ring(settings)
    before = signed_decision(old, "run-demo-1", ALICE, HASH, "approve", "")
    new_entry = rotate(settings)
    new = load_signer(settings)
    assert new.key_id == new_entry.key_id != old.key_id
    after = signed_decision(new, "run-demo-1", ALICE, HASH, "approve", "")
    assert after.key_id == new.key_id

    keys = load_verification_keys(worker_host(tmp_path, settings))
    for decision in (before, after):
        assert decision.key_id is not None and decision.signature is not None
        document = decision.signed_document("run-demo-1")
        assert keys.matches(document, decision.key_id, decision.signature)

    with pytest.raises(DecisionKeyError, match="signs decisions now"):
        retire(settings, new.key_id)
    retire(settings, old.key_id)
    retired_keys = load_verification_keys(worker_host(tmp_path / "again", settings))
    assert before.key_id is not None and before.signature is not None
    assert not retired_keys.matches(
        before.signed_document("run-demo-1"), before.key_id, before.signature
    )
    assert "was retired" in (retired_keys.key_problem(old.key_id) or "")
    # The ring no longer holds the retired private key either.
    assert old.key_id not in settings.signing_keys_path.read_text()


def test_key_ids_are_the_public_keys_own(tmp_path: Path) -> None:
    signer = ensure_key_ring(service(tmp_path))
    raw = signer.private_key.public_key().public_bytes_raw()
    assert signer.key_id == key_id_of(raw) and len(signer.key_id) == 16


def test_an_unknown_key_is_refused_with_what_to_do(tmp_path: Path) -> None:
    keys = load_verification_keys(worker_host(tmp_path, _with_ring(service(tmp_path))))
    problem = keys.key_problem("0123456789abcdef")
    assert problem is not None and "unknown here" in problem and "public keys" in problem


def test_a_worker_without_public_keys_is_told_what_to_copy(tmp_path: Path) -> None:
    with pytest.raises(DecisionKeyError, match="decision-public-keys.json"):
        load_verification_keys(Settings(home=tmp_path))


def test_key_files_others_can_change_are_refused(tmp_path: Path) -> None:
    settings = _with_ring(service(tmp_path))
    settings.public_keys_path.chmod(0o666)
    with pytest.raises(DecisionKeyError, match="can be written by other users"):
        load_verification_keys(settings)
    settings.signing_keys_path.chmod(0o644)
    with pytest.raises(DecisionKeyError, match="can be read or written by other users"):
        load_signer(settings)


def test_the_keys_commands(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SIGNOFF_HOME", str(tmp_path))
    # The decision service's host: its configuration says where its key ring goes.
    ring = tmp_path / "decision-signing-keys.json"
    monkeypatch.setenv("SIGNOFF_DECISION_SIGNING_KEYS_FILE", str(ring))
    get_settings.cache_clear()
    runner = CliRunner()
    try:
        empty = runner.invoke(app, ["keys", "list"])
        assert empty.exit_code == 0 and "signoff keys rotate" in empty.stdout
        first = runner.invoke(app, ["keys", "rotate", "--json"])
        second = runner.invoke(app, ["keys", "rotate", "--json"])
        assert first.exit_code == second.exit_code == 0
        listed = runner.invoke(app, ["keys", "list"])
        assert "verifying" in listed.stdout and "signing" in listed.stdout
        signing = load_signer(Settings(home=tmp_path)).key_id
        [other] = set(load_verification_keys(Settings(home=tmp_path)).keys) - {signing}
        refused = runner.invoke(app, ["keys", "retire", signing])
        assert refused.exit_code == 2 and "rotate" in refused.stderr
        retired = runner.invoke(app, ["keys", "retire", other])
        assert retired.exit_code == 0 and "retired" in retired.stdout
        unknown = runner.invoke(app, ["keys", "retire", "ffff"])
        assert unknown.exit_code == 2 and "no decision key 'ffff'" in unknown.stderr
    finally:
        get_settings.cache_clear()


def _with_ring(settings: Settings) -> Settings:
    ensure_key_ring(settings)
    return settings


async def test_a_worker_is_built_from_the_public_keys_alone(
    tmp_path: Path, time_skipping_env: WorkflowEnvironment
) -> None:
    worker_settings = worker_host(tmp_path, _with_ring(service(tmp_path)))
    engine = make_engine(worker_settings.resolved_database_url)
    try:
        built = build_worker(time_skipping_env.client, worker_settings, engine)
        assert isinstance(built, Worker)
    finally:
        engine.dispose()
    assert not worker_settings.signing_keys_path.exists()


def test_a_worker_without_public_keys_does_not_start(tmp_path: Path) -> None:
    env = {key: value for key, value in os.environ.items() if not key.startswith("SIGNOFF_")}
    env.update(SIGNOFF_HOME=str(tmp_path), SIGNOFF_TEMPORAL_ADDRESS=f"127.0.0.1:{free_port()}")
    ran = subprocess.run([SIGNOFF, "worker"], env=env, capture_output=True, text=True, timeout=120)
    assert ran.returncode == 2, ran.stderr
    assert "The worker will not start: No decision public keys" in ran.stderr
    assert "Traceback" not in ran.stderr
