"""`POST /api/approvals/batch`: the JSON face of deciding several at once.

One request, one result per item in the request's order: the answer is 200 whenever the
batch itself was well formed, and each item says what became of it (the same outcomes
as the inbox's batch page). A malformed batch (more than MAX_BATCH items, a repeated
item, a rejection without category or reason) is a 422 and nothing is sent.
"""

from __future__ import annotations

from fastapi import APIRouter, Depends, HTTPException, Request, status

from approvals_ui.api_models import (
    ApiError,
    BatchDecisionBody,
    BatchDecisionResult,
    BatchItemResult,
)
from approvals_ui.batch import decide_batch
from approvals_ui.deps import CurrentReviewer
from approvals_ui.security import api_csrf_protect
from signoff.service.batch_decisions import (
    MAX_BATCH,
    InvalidBatch,
    checked_choice,
    checked_key,
    checked_keys,
)

router = APIRouter(prefix="/api", tags=["api"])


@router.post(
    "/approvals/batch",
    summary="Approve or reject several pending actions, each named by its hash",
    description=f"At most {MAX_BATCH} items. Each gets its own signed decision, sent to "
    "its own run: one that expired, changed, is not in the reviewer's tenant or needs a "
    "passkey fails on its own line while the others are decided. 422 (nothing sent) when "
    "the batch itself is malformed. With the session cookie, send X-CSRF-Token.",
    dependencies=[Depends(api_csrf_protect)],
    responses={code: {"model": ApiError} for code in (401, 403, 415, 422, 503)},
)
async def decide_several(
    request: Request, body: BatchDecisionBody, reviewer: CurrentReviewer
) -> BatchDecisionResult:
    try:
        keys = checked_keys(checked_key(item.run_id, item.action_hash) for item in body.items)
        category = checked_choice(body.verdict, body.reason, body.category)
    except InvalidBatch as invalid:
        raise HTTPException(status.HTTP_422_UNPROCESSABLE_CONTENT, str(invalid)) from None
    outcomes = await decide_batch(request, reviewer, keys, body.verdict, body.reason, category)
    succeeded = sum(1 for outcome in outcomes if outcome.succeeded)
    return BatchDecisionResult(
        succeeded=succeeded,
        failed=len(outcomes) - succeeded,
        results=[
            BatchItemResult(
                run_id=outcome.run_id,
                action_hash=outcome.action_hash,
                outcome=outcome.outcome,
                status=outcome.status,
                message=outcome.message,
            )
            for outcome in outcomes
        ],
    )
