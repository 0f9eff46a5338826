"""The keys a verifier trusts are pinned in its configuration (SIGNOFF_TRUSTED_KEY_IDS),
and nothing run on a worker's or CLI host adds one (signoff/config/decision_keys.py).

The attacks: `signoff keys init`/`rotate` run on a worker's host, a key written by hand
into its public key set, a key ring written beside it; each is refused or ignored, and
the decision service's own host (`signoff dev`) keeps working unpinned.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from signoff.config.decision_keys import (
    DecisionKeyError,
    ensure_key_ring,
    load_audit_keys,
    load_verification_keys,
    public_entries,
)
from signoff.config.decision_signatures import DecisionSigner
from signoff.config.settings import Settings, get_settings
from signoff.wiring.app import app
from signoff.wiring.local_stack import SIGNOFF, free_port
from tests.store.test_pinned_decision_keys import written_in_by_hand


def service_and_worker(tmp_path: Path, pinned: str | None) -> tuple[DecisionSigner, Settings]:
    """The decision service's signer, and a worker host holding its public key set,
    with `pinned` as its SIGNOFF_TRUSTED_KEY_IDS."""
    signer = ensure_key_ring(Settings(home=tmp_path / "service"))
    worker = Settings(home=tmp_path / "worker", trusted_key_ids=pinned)
    worker.home.mkdir(parents=True)
    shutil.copy2(Settings(home=tmp_path / "service").public_keys_path, worker.public_keys_path)
    return signer, worker


def test_a_key_written_into_the_set_by_hand_is_ignored_where_it_is_not_pinned(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    signer, worker = service_and_worker(tmp_path, None)
    worker = worker.model_copy(update={"trusted_key_ids": signer.key_id})
    own = DecisionSigner.generate()
    written_in_by_hand(worker, own)

    assert set(load_verification_keys(worker).keys) == {signer.key_id}
    assert set(load_audit_keys(worker).keys) == {signer.key_id}
    assert f"decision key {own.key_id}" in caplog.text and "not pinned" in caplog.text


def test_keys_list_on_a_pinned_host_shows_what_it_does_not_trust(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    signer, worker = service_and_worker(tmp_path, None)
    own = DecisionSigner.generate()
    written_in_by_hand(worker, own)
    monkeypatch.setenv("SIGNOFF_HOME", str(worker.home))
    monkeypatch.setenv("SIGNOFF_TRUSTED_KEY_IDS", signer.key_id)
    get_settings.cache_clear()
    try:
        listed = CliRunner().invoke(app, ["keys", "list", "--json"])
    finally:
        get_settings.cache_clear()
    assert listed.exit_code == 0, listed.output
    states = {row["key_id"]: row["state"] for row in json.loads(listed.stdout)}
    assert states == {signer.key_id: "verifying", own.key_id: "unpinned"}


def test_an_unpinned_worker_host_trusts_no_key_and_says_what_to_set(tmp_path: Path) -> None:
    _, worker = service_and_worker(tmp_path, None)
    written_in_by_hand(worker, DecisionSigner.generate())
    for load in (load_verification_keys, load_audit_keys):
        with pytest.raises(DecisionKeyError, match="SIGNOFF_TRUSTED_KEY_IDS is not set"):
            load(worker)


def test_pins_that_name_no_key_of_the_set_or_no_key_id_are_refused(tmp_path: Path) -> None:
    _, worker = service_and_worker(tmp_path, "0123456789abcdef")
    with pytest.raises(DecisionKeyError, match="None of the decision keys"):
        load_verification_keys(worker)
    with pytest.raises(DecisionKeyError, match="not a decision key id"):
        load_verification_keys(worker.model_copy(update={"trusted_key_ids": "alice"}))


def test_the_decision_services_own_host_trusts_its_set_unpinned(tmp_path: Path) -> None:
    """`signoff dev` and `make demo`: the one process that signs also verifies."""
    settings = Settings(home=tmp_path)
    signer = ensure_key_ring(settings)
    assert set(load_verification_keys(settings).keys) == {signer.key_id}


@pytest.mark.parametrize("command", [["init"], ["rotate"], ["retire", "0123456789abcdef"]])
def test_keys_commands_are_refused_where_no_decision_service_is_configured(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: list[str]
) -> None:
    signer, worker = service_and_worker(tmp_path, None)
    before = worker.public_keys_path.read_text()
    monkeypatch.setenv("SIGNOFF_HOME", str(worker.home))
    monkeypatch.delenv("SIGNOFF_DECISION_SIGNING_KEYS_FILE", raising=False)
    get_settings.cache_clear()
    try:
        refused = CliRunner().invoke(app, ["keys", *command])
    finally:
        get_settings.cache_clear()
    assert refused.exit_code == 2, refused.output
    assert "No decision service is configured on this host" in refused.stderr
    assert "SIGNOFF_DECISION_SIGNING_KEYS_FILE" in refused.stderr
    assert not worker.signing_keys_path.exists()
    assert worker.public_keys_path.read_text() == before
    assert [entry.key_id for entry in public_entries(worker)] == [signer.key_id]


def test_signoff_worker_will_not_start_unpinned_even_beside_a_key_ring(tmp_path: Path) -> None:
    """A ring someone wrote on the worker's host would make it "the decision service's
    host"; `signoff worker` trusts only its configuration's pins."""
    ensure_key_ring(Settings(home=tmp_path))
    env = {key: value for key, value in os.environ.items() if not key.startswith("SIGNOFF_")}
    env.update(SIGNOFF_HOME=str(tmp_path), SIGNOFF_TEMPORAL_ADDRESS=f"127.0.0.1:{free_port()}")
    ran = subprocess.run([SIGNOFF, "worker"], env=env, capture_output=True, text=True, timeout=120)
    assert ran.returncode == 2, ran.stderr
    assert "The worker will not start: This host trusts no decision key" in ran.stderr
    assert "SIGNOFF_TRUSTED_KEY_IDS" in ran.stderr and "Traceback" not in ran.stderr
