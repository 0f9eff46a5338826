"""The JSON API of standing rules (docs/standing-rules.md): list, make, revoke.

An administrator of the tenant only: the route refuses others at once (403), and the
store checks the administrator again in the change's own transaction, where a refusal
is an audit row. Authentication and CSRF are the API's (`api.py`): what `signoff rules`
sends is the administrator's password as `Authorization: Basic`, or their token.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Annotated, Any, get_type_hints

from fastapi import APIRouter, Depends, HTTPException, Query, Request, status
from pydantic import BaseModel, ConfigDict, Field, create_model

from approvals_ui.api_models import ApiError
from approvals_ui.deps import CurrentReviewer, EngineDep, SettingsDep
from approvals_ui.security import api_csrf_protect
from signoff.service.reviewer_access import SignedInReviewer
from signoff.service.standing_rules import (
    InvalidRule,
    RuleAlreadyRevoked,
    RuleRefused,
    UnknownRule,
    add_rule,
    revoke,
    rule_request,
    rules_of,
)
from signoff.service.standing_rules import RuleView as StoredRule

NOT_ADMIN = (
    "Standing rules are made, listed and revoked by an administrator (role `admin`) of the tenant."
)


def _errors(*codes: int) -> dict[int | str, dict[str, Any]]:
    return {code: {"model": ApiError} for code in codes}


router = APIRouter(prefix="/api/rules", tags=["standing rules"], responses=_errors(401, 403))


class RuleBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    tool: Annotated[str, Field(max_length=255)]
    tenant_id: Annotated[str | None, Field(max_length=128)] = None
    max_amount: Annotated[str | None, Field(max_length=32)] = None
    currency: Annotated[str | None, Field(max_length=8)] = None
    customer: Annotated[str | None, Field(max_length=200)] = None
    category: Annotated[str | None, Field(max_length=200)] = None
    lifetime: Annotated[str, Field(max_length=16, description="e.g. 30m, 12h, 7d")]
    max_uses: Annotated[int, Field(ge=1, le=1_000_000)]
    shadow: bool = False


# The service's rule as JSON (`StoredRule.as_json`): its fields but the summary, its
# times as ISO text. Made from the service's fields, so that the two cannot drift.
AS_TEXT = {"created_at", "expires_at"}
RULE_FIELDS: dict[str, Any] = {
    name: (str if name in AS_TEXT else hint, ...)
    for name, hint in get_type_hints(StoredRule).items()
    if name != "summary"
}
RuleView = create_model("RuleView", **RULE_FIELDS)


def admin_of_tenant(reviewer: CurrentReviewer) -> SignedInReviewer:
    if not reviewer.is_admin:
        raise HTTPException(status.HTTP_403_FORBIDDEN, NOT_ADMIN)
    return reviewer


Admin = Annotated[SignedInReviewer, Depends(admin_of_tenant)]


def view(rule: StoredRule) -> dict[str, object]:
    """The rule as the API answers it: FastAPI checks it against `RuleView`."""
    return rule.as_json()


@router.get("", summary="The tenant's standing rules, newest first", response_model=list[RuleView])
def list_rules(
    admin: Admin,
    engine: EngineDep,
    everything: Annotated[
        bool, Query(alias="all", description="Revoked, expired and used-up rules too.")
    ] = False,
) -> list[dict[str, object]]:
    return [view(rule) for rule in rules_of(engine, admin.tenant_id, everything)]


@router.post(
    "",
    summary="Make a standing rule, signed by this decision service",
    status_code=status.HTTP_201_CREATED,
    dependencies=[Depends(api_csrf_protect)],
    responses=_errors(401, 403, 415, 422),
    response_model=RuleView,
)
def create(
    request: Request, body: RuleBody, admin: Admin, engine: EngineDep, settings: SettingsDep
) -> dict[str, object]:
    now = datetime.now(UTC)
    try:
        asked = rule_request(
            tenant_id=body.tenant_id or admin.tenant_id,
            tool=body.tool,
            max_amount=body.max_amount,
            currency=body.currency,
            customer=body.customer,
            category=body.category,
            lifetime=body.lifetime,
            max_uses=body.max_uses,
            shadow=body.shadow,
            now=now,
            longest_lifetime=timedelta(days=settings.rule_max_lifetime_days),
        )
        made = add_rule(engine, request.app.state.decision_signer, admin.id, asked, now)
    except InvalidRule as invalid:
        raise HTTPException(status.HTTP_422_UNPROCESSABLE_CONTENT, str(invalid)) from None
    except RuleRefused as refused:
        raise HTTPException(status.HTTP_403_FORBIDDEN, str(refused)) from None
    return view(made)


@router.post(
    "/{rule_id}/revoke",
    summary="Revoke a standing rule at once",
    dependencies=[Depends(api_csrf_protect)],
    responses=_errors(401, 403, 404, 409, 415),
    response_model=RuleView,
)
def revoke_rule(rule_id: str, admin: Admin, engine: EngineDep) -> dict[str, object]:
    try:
        return view(revoke(engine, admin.id, admin.tenant_id, rule_id))
    except RuleRefused as refused:
        raise HTTPException(status.HTTP_403_FORBIDDEN, str(refused)) from None
    except UnknownRule as unknown:
        raise HTTPException(status.HTTP_404_NOT_FOUND, str(unknown)) from None
    except RuleAlreadyRevoked as already:
        raise HTTPException(status.HTTP_409_CONFLICT, str(already)) from None
