"""A key someone adds on a worker's host proves nothing there (signoff/config/decision_keys.py).

The attack: a shell on a worker's host, with a key of its own written into that host's
public key set (by hand: `signoff keys init` refuses there), signs "alice approved" and
has the refund's effect act on it. The worker trusts only the ids its configuration
pins, so the effect refuses the approval, refunds nothing and leaves its audit row;
the decision service's genuine approval still refunds.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from sqlalchemy import Engine, select

from activities.refunds import RefundActivities
from activities.store.database import use_session
from activities.store.refunds import list_refunds
from activities.store.schema import DecisionRow
from signoff.config.decision_keys import load_verification_keys
from signoff.config.decision_signatures import DecisionSigner, raw_public_key
from signoff.config.settings import Settings
from tests.store.proofs import (
    PROOF_SIGNER,
    RUN_ID,
    as_run,
    proven_action,
    proven_command,
    signed_approval,
)
from tests.workflow.approvals import install_test_keys


def pinned_worker_host(tmp_path: Path) -> Settings:
    """A worker host as the docs set one up: the decision service's public key set,
    and the service's key id pinned in the worker's configuration."""
    service = Settings(home=tmp_path / "service")
    install_test_keys(service)  # the decision service signs with the tests' key
    worker = Settings(home=tmp_path / "worker", trusted_key_ids=PROOF_SIGNER.key_id)
    worker.home.mkdir(parents=True)
    shutil.copy2(service.public_keys_path, worker.public_keys_path)
    return worker


def written_in_by_hand(settings: Settings, signer: DecisionSigner) -> None:
    """The key's public half added to the host's public key set, as anyone who can
    write that file could."""
    document = json.loads(settings.public_keys_path.read_text())
    document["keys"].append(
        {
            "key_id": signer.key_id,
            "public_key": raw_public_key(signer.private_key.public_key()).hex(),
            "created_at": "2026-01-01T00:00:00+00:00",
            "retired_at": None,
        }
    )
    settings.public_keys_path.write_text(json.dumps(document))


async def test_a_key_added_to_a_worker_hosts_public_set_is_refused_at_the_effect(
    store: Engine, tmp_path: Path
) -> None:
    worker = pinned_worker_host(tmp_path)
    own = DecisionSigner.generate()
    written_in_by_hand(worker, own)
    keys = load_verification_keys(worker)
    assert set(keys.keys) == {PROOF_SIGNER.key_id}  # the added entry is ignored
    refunds = RefundActivities(store, keys)

    action = proven_action(store, 2000)
    forged = proven_command(action, [signed_approval(store, action, "alice", signer=own)])
    refused = await as_run(RUN_ID).run(refunds.execute_refund, forged)

    assert refused.status == "refused" and "Nothing was refunded" in refused.message
    assert list_refunds(store, "demo", "C-2210") == []
    with use_session(store) as session:
        (row,) = session.scalars(select(DecisionRow).where(DecisionRow.kind == "refused"))
    assert row.action_hash == action.action_hash

    genuine = proven_command(action, [signed_approval(store, action, "alice")])
    refunded = await as_run(RUN_ID).run(refunds.execute_refund, genuine)
    assert refunded.status == "refunded", refunded.message
    assert len(list_refunds(store, "demo", "C-2210")) == 1
