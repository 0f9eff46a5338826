"""Chain heads, exported signed and checked again: `signoff audit heads` and
`signoff audit verify --expect-heads FILE`.

A heads file is one JSON object: `document` (what is signed: its purpose, when it was
exported, and each tenant's head as tenant, seq and row hash), `algorithm` and
`signature` (`head_signature.py`). Keep it where the application's database role cannot
write: with it, a rewrite of the audit that rehashes the chain, or the removal of rows
up to a head, is found (`activities/store/chain_heads.py`).
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from activities.store import chain_heads
from activities.store.chain_heads import HeadProblem
from activities.store.decision_chain import ChainHead, ChainReport
from signoff.config.decision_signatures import DecisionSigner, VerificationKeys
from signoff.service.handles import on_store
from signoff.service.head_signature import ALGORITHM, heads_signature_matches, sign_heads

__all__ = [
    "ChainHead",
    "HeadProblem",
    "HeadsFileInvalid",
    "HeadsSignatureInvalid",
    "head_problems",
    "read_heads_file",
    "signed_heads",
]

# The store layer's calls, each taking the face's Store (handles.py).
head_problems = on_store(chain_heads.head_problems)
PURPOSE = "signoff-audit-heads-v1"
HEX_HASH = r"^[0-9a-f]{64}$"


class HeadsFileInvalid(ValueError):
    """A heads file that is not one: the message says what is wrong with it."""


class HeadsSignatureInvalid(ValueError):
    """A heads file whose signature does not hold: altered, or signed with another key."""


class _Head(BaseModel):
    model_config = ConfigDict(extra="forbid")
    tenant_id: str = Field(min_length=1)
    seq: int = Field(ge=1)
    row_hash: str = Field(pattern=HEX_HASH)


class _Document(BaseModel):
    model_config = ConfigDict(extra="forbid")
    purpose: str
    key_id: str  # the decision service key that signed it
    exported_at: str
    heads: list[_Head]


class _HeadsFile(BaseModel):
    document: dict[str, Any]
    algorithm: str
    signature: str


def signed_heads(
    report: ChainReport, exported_at: datetime, signer: DecisionSigner
) -> dict[str, Any]:
    """The heads of the chains in `report`, as a signed heads file."""
    document = {
        "purpose": PURPOSE,
        "key_id": signer.key_id,
        "exported_at": exported_at.isoformat(),
        "heads": [
            {"tenant_id": head.tenant_id, "seq": head.seq, "row_hash": head.row_hash}
            for head in report.chain_heads()
        ],
    }
    return {
        "document": document,
        "algorithm": ALGORITHM,
        "signature": sign_heads(document, signer),
    }


def read_heads_file(text: str, keys: VerificationKeys) -> list[ChainHead]:
    """The heads a file holds, once its signature holds. Raises HeadsFileInvalid for a
    file that is not a heads file, HeadsSignatureInvalid for one that does not verify."""
    try:
        signed = _HeadsFile.model_validate(json.loads(text))
    except (ValueError, ValidationError):
        raise HeadsFileInvalid(
            "it is not a heads file (a JSON object with document, algorithm and "
            "signature); make one with `signoff audit heads --output FILE`"
        ) from None
    if signed.algorithm != ALGORITHM:
        raise HeadsFileInvalid(
            f"it is signed with {signed.algorithm!r}; this signoff checks {ALGORITHM!r}"
        )
    if not heads_signature_matches(signed.document, signed.signature, keys):
        raise HeadsSignatureInvalid(
            "its signature does not hold: the file was altered, or signed with a decision "
            "key this deployment's public keys do not hold (`signoff keys list`)"
        )
    try:
        document = _Document.model_validate(signed.document)
    except ValidationError:
        raise HeadsFileInvalid("its document does not hold heads of the audit") from None
    if document.purpose != PURPOSE:
        raise HeadsFileInvalid(f"its purpose is {document.purpose!r}, not {PURPOSE!r}")
    return [ChainHead(head.tenant_id, head.seq, head.row_hash) for head in document.heads]
