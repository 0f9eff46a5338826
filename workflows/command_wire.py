"""An effect's command names, on the wire, what it would otherwise carry twice.

A refund's command carries its proof: the action (with its approvals), the reviewers'
signed decisions, and the run's decision trail not in the audit yet, which the effect
writes beside the refund. An approval's trail event holds the same signed decision as
`proofs` and the same record as the action's `approvals`: half a kilobyte and more per
approval, twice in every refund's history. On the wire (the data converter's context,
workflows/wire_contract.py) such an event names the copy instead (`proof_at`, the index
in `proofs`; `record_at`, the index in the action's approvals), and reading the payload
back puts the very same values in their place before anything is validated. So the
effect receives, and checks, exactly the command the workflow built: nothing it checks
is dropped, and a sender that names a copy gets the same checks as one that inlines it.
Off the wire (`model_dump`, logs, the API) nothing changes.
"""

from __future__ import annotations

from typing import Any

from pydantic import (
    SerializationInfo,
    SerializerFunctionWrapHandler,
    model_serializer,
    model_validator,
)

from workflows.contract_base import Contract
from workflows.wire_contract import on_the_wire

PROOF_AT = "proof_at"
RECORD_AT = "record_at"


class TrailCommand(Contract):
    """A command with `proofs`, an `action` and a `trail` of decision events."""

    # No return annotation on purpose (see WireContract): the schema stays the fields'.
    @model_serializer(mode="wrap")
    def _name_the_copies_on_the_wire(  # type: ignore[no-untyped-def]
        self, handler: SerializerFunctionWrapHandler, info: SerializationInfo
    ):
        data = handler(self)
        if not on_the_wire(info) or not isinstance(data, dict) or not data.get("trail"):
            return data
        proofs = data.get("proofs") or []
        action = data.get("action")
        approvals = (action.get("approvals") if isinstance(action, dict) else None) or []
        data["trail"] = [_named(event, proofs, approvals) for event in data["trail"]]
        return data

    @model_validator(mode="before")
    @classmethod
    def _put_the_copies_back(cls, data: Any) -> Any:
        if not isinstance(data, dict) or not isinstance(data.get("trail"), list):
            return data
        trail = data["trail"]
        if not any(
            isinstance(event, dict) and (PROOF_AT in event or RECORD_AT in event) for event in trail
        ):
            return data
        action = data.get("action")
        approvals = action.get("approvals", []) if isinstance(action, dict) else []
        return {
            **data,
            "trail": [_restored(event, data.get("proofs", []), approvals) for event in trail],
        }


def _named(event: Any, proofs: list[Any], approvals: list[Any]) -> Any:
    if not isinstance(event, dict):
        return event
    named = dict(event)
    proof = named.get("proof")
    if proof is not None and proof in proofs:
        del named["proof"]
        named[PROOF_AT] = proofs.index(proof)
    record = named.get("record")
    if record is not None and record in approvals:
        del named["record"]
        named[RECORD_AT] = approvals.index(record)
    return named


def _restored(event: Any, proofs: list[Any], approvals: list[Any]) -> Any:
    """The event with each copy it names put back; an index that names nothing is left
    for validation to refuse (the event then lacks its record, or its key is unknown)."""
    if not isinstance(event, dict):
        return event
    restored = dict(event)
    for key, field, source in ((PROOF_AT, "proof", proofs), (RECORD_AT, "record", approvals)):
        index = restored.get(key)
        if isinstance(index, int) and 0 <= index < len(source):
            del restored[key]
            restored[field] = source[index]
    return restored
