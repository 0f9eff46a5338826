"""`signoff keys list|init|rotate|retire`: the decision service's Ed25519 signing keys.

`init`, `rotate` and `retire` change the key ring and the public key set in place
(signoff/config/decision_keys.py), and only where a decision service is configured
(it holds the ring, or SIGNOFF_DECISION_SIGNING_KEYS_FILE says where it goes):
elsewhere they refuse and say where to run them. After a rotation, pin the new id in
the workers' SIGNOFF_TRUSTED_KEY_IDS, give them the new public key set and restart
them (docs/operating/decision-keys.md).
"""

from __future__ import annotations

from typing import Annotated

import typer

from signoff.cli.support import JsonOption, emit_json, fail, say, settings
from signoff.config.decision_keys import (
    DecisionKeyError,
    PublicKeyEntry,
    ensure_key_ring,
    pinned_key_ids,
    public_entries,
    require_decision_service,
    retire,
    rotate,
    signing_key_id,
)

keys = typer.Typer(help="Decision keys: the decision service's signing keys, and their rotation.")


def register(app: typer.Typer) -> None:
    app.add_typer(keys, name="keys")


def _row(
    entry: PublicKeyEntry, signing: str | None, pinned: frozenset[str] | None = None
) -> dict[str, str | None]:
    state = "retired" if entry.retired_at else "signing" if entry.key_id == signing else "verifying"
    if pinned is not None and entry.key_id not in pinned:
        state = "unpinned"  # in the set, but this host's configuration trusts it not
    return {
        "key_id": entry.key_id,
        "state": state,
        "created_at": entry.created_at.isoformat(),
        "retired_at": entry.retired_at.isoformat() if entry.retired_at else None,
        "public_key": entry.public_key,
    }


@keys.command("list")
def list_command(json_output: JsonOption = False) -> None:
    """List the decision keys: which one signs, which verify, which are retired."""
    current = settings()
    try:
        signing, pinned = signing_key_id(current), pinned_key_ids(current)
        rows = [_row(entry, signing, pinned) for entry in public_entries(current)]
    except DecisionKeyError as error:
        fail(str(error))
    if json_output:
        emit_json(rows)
        return
    if not rows:
        say(f"No decision keys in {current.public_keys_path}. Make one with `signoff keys rotate`.")
        return
    for row in rows:
        retired = f", retired {row['retired_at']}" if row["retired_at"] else ""
        say(f"{row['key_id']}  {row['state']:<9}  created {row['created_at']}{retired}")


@keys.command("init")
def init_command() -> None:
    """Make the first signing key unless there is one; safe to repeat (a deploy step)."""
    current = settings()
    try:
        require_decision_service(current)
        signer = ensure_key_ring(current)
    except DecisionKeyError as error:
        fail(str(error))
    say(
        f"signing key {signer.key_id}; public keys in {current.public_keys_path}. Workers "
        "trust it once their SIGNOFF_TRUSTED_KEY_IDS names it."
    )


@keys.command("rotate")
def rotate_command(json_output: JsonOption = False) -> None:
    """Make a new signing key; the old keys keep verifying until retired."""
    current = settings()
    try:
        require_decision_service(current)
        entry = rotate(current)
    except DecisionKeyError as error:
        fail(str(error))
    if json_output:
        emit_json(_row(entry, entry.key_id))
        return
    say(f"signing key {entry.key_id} made; decisions are signed with it from the next start.")
    say(
        "Add its id to the workers' SIGNOFF_TRUSTED_KEY_IDS, give them "
        f"{current.public_keys_path} and restart them, then restart the decision service "
        "(`signoff ui`)."
    )


@keys.command("retire")
def retire_command(
    key_id: Annotated[str, typer.Argument(help="The key id `signoff keys list` shows.")],
    json_output: JsonOption = False,
) -> None:
    """Retire a key: decisions it signed no longer verify; refused for the signing key."""
    current = settings()
    try:
        require_decision_service(current)
        entry = retire(current, key_id.strip().lower())
    except DecisionKeyError as error:
        fail(str(error))
    if json_output:
        emit_json(_row(entry, None))
        return
    say(
        f"decision key {entry.key_id} retired: it verifies nothing from now on. Give the "
        f"workers {current.public_keys_path} and restart them."
    )
