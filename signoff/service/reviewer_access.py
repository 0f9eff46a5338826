"""Who is asking, as the faces hold it: the reviewer a session, a token, a password or an
auth proxy proves, as plain frozen data, and what their roles let them do.

The store's rows never reach a face. A face gets a `SignedInReviewer` (id, tenant,
name, roles) read from the store for each request, so that a changed role or tenant
applies at once, and asks it, not the row, whether its reviewer may decide an action or
read a run's payloads; the run's validator and the effect's proofs have the last word.
A password sign-in gets a `ReviewerAccount`: whether it is active, and the password it
was checked against, held for `open_session` alone (a session ends when it changes).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from activities.store import ADMIN_ROLE, Credential, Reviewer
from signoff.service.accounts import (
    authenticated,
    check_token,
    get_reviewer,
    password_holder,
    session_reviewer,
    start_session,
)
from signoff.service.store import Store
from workflows.actions import REFUND_APPROVER_ROLE, PendingAction
from workflows.approval_requirements import may_move_forward


@dataclass(frozen=True)
class SignedInReviewer:
    id: str
    tenant_id: str
    display_name: str
    roles: tuple[str, ...]

    @property
    def can_decide(self) -> bool:
        return REFUND_APPROVER_ROLE in self.roles

    @property
    def is_admin(self) -> bool:
        return ADMIN_ROLE in self.roles

    def may_decide(self, action: PendingAction | None) -> bool:
        """Whether this reviewer holds a role the action's tool policy lets approve it
        (the refund's `refund_approver` for an action this page cannot find); the run's
        validator has the last word."""
        roles = [REFUND_APPROVER_ROLE] if action is None else action.approver_roles
        return bool(set(roles) & set(self.roles))

    def may_move_forward(self, action: PendingAction) -> bool:
        """Whether an approval of this reviewer would count: not given yet, and of the
        role the action's next step needs (N of M, a role, a chain)."""
        return may_move_forward(action, self.id, self.roles)

    def may_read_payloads(self) -> bool:
        """Whether the codec may open run payloads for this reviewer at all: a reviewer
        who may decide refunds, or an administrator."""
        return self.can_decide or self.is_admin

    def may_open_payload_of(self, tenant_id: str | None) -> bool:
        """Whether a payload sealed for `tenant_id` opens for this reviewer: their own
        tenant's; one sealed without a tenant, for an administrator only."""
        return self.is_admin if tenant_id is None else tenant_id == self.tenant_id


@dataclass(frozen=True)
class ReviewerAccount:
    """A reviewer as the store has them now, for the face that signs them in."""

    reviewer: SignedInReviewer
    active: bool
    # The password hash the sign-in checked: `open_session` binds the session to it.
    _checked_password: str | None = field(default=None, repr=False, compare=False)


@dataclass(frozen=True)
class TokenProof:
    """The reviewer an API token proves, or why it proves no one (what to do)."""

    reviewer: SignedInReviewer | None
    problem: str | None = None


def signed_in(row: Reviewer) -> SignedInReviewer:
    return SignedInReviewer(
        id=row.id,
        tenant_id=row.tenant_id,
        display_name=row.display_name,
        roles=tuple(row.role_list),
    )


def _account(row: Reviewer) -> ReviewerAccount:
    return ReviewerAccount(signed_in(row), row.active, row.password_hash)


def password_account(store: Store, name: str, password: str) -> ReviewerAccount | None:
    """The reviewer named `name` if `password` is theirs (`accounts.password_holder`:
    the same slow work for an unknown name); None otherwise."""
    row = password_holder(store, name, password)
    return _account(row) if row is not None else None


def named_account(store: Store, reviewer_id: str) -> ReviewerAccount | None:
    """The reviewer with this id or name, as the store has them; None if unknown."""
    row = get_reviewer(store, reviewer_id)
    return _account(row) if row is not None else None


def session_holder(store: Store, session_id: str) -> SignedInReviewer | None:
    """The active reviewer of an open, unexpired session; None otherwise."""
    row = session_reviewer(store, session_id)
    return signed_in(row) if row is not None else None


def token_holder(store: Store, token: str, now: datetime) -> TokenProof:
    proof = check_token(store, token, now)
    if proof.reviewer is None:
        return TokenProof(None, proof.problem)
    return TokenProof(signed_in(proof.reviewer))


def open_session(store: Store, account: ReviewerAccount, lifetime: timedelta) -> str | None:
    """A session for the account a password sign-in proved; None when the reviewer was
    disabled or given another password since (the sign-in must start again)."""
    return start_session(store, account.reviewer.id, account._checked_password, lifetime)


class AccessRefused(Exception):
    """A credential that proves no one, or proves a reviewer of another tenant: the
    message says which, and what to do."""


def tenant_member(store: Store, credential: Credential, tenant_id: str) -> SignedInReviewer:
    """The active reviewer `credential` proves, if they belong to `tenant_id` (who asks
    for a run of that tenant). Raises AccessRefused."""
    proof = authenticated(store, credential)
    if proof.reviewer is None:
        raise AccessRefused(str(proof.problem))
    if proof.reviewer.tenant_id != tenant_id:
        raise AccessRefused(
            f"Reviewer '{proof.reviewer.id}' belongs to tenant '{proof.reviewer.tenant_id}', "
            f"not '{tenant_id}'."
        )
    return signed_in(proof.reviewer)
