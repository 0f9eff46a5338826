"""Roles, approval modes and who asked for a run, in the words of support staff.

The policy and the store name them as codes (`refund_approver`, `confirm`,
`service:signoff`): the CLI, the JSON API, the profiles and the operators' pages keep
the codes, which are what a person types there. A reviewer's page says what they mean,
in its language (`said`, the same reading as every other code a page shows). A role a
team invented (a chain's `support_lead`) has no entry here and reads as its words,
`support lead`.
"""

from __future__ import annotations

from gettext import NullTranslations

from approvals_ui.run_words import said
from approvals_ui.words import N_
from signoff.service.accounts import ADMIN_ROLE
from workflows.actions import REFUND_APPROVER_ROLE

ROLE_LABELS = {
    REFUND_APPROVER_ROLE: N_("refund approver"),
    ADMIN_ROLE: N_("administrator"),
}

# A waiting action's mode (PendingAction.mode), as a card and the inbox's filter say it.
MODE_LABELS = {
    "confirm": N_("one reviewer"),
    "review": N_("four eyes"),
}

# A run no person asked for is the deployment's own: its actor is a service identity
# (SIGNOFF_SERVICE_ACTOR, `service:signoff` by default), never a reviewer's name.
SERVICE_PREFIX = "service:"
SERVICE_ACTOR = N_("signoff itself (started automatically, by no person)")


def roles_text(roles: list[str] | tuple[str, ...], words: NullTranslations) -> str:
    """`refund approver or administrator`: the roles any of which will do."""
    return words.gettext(" or ").join(said(role, ROLE_LABELS, words) for role in roles)


def asked_by(actor_id: str | None, words: NullTranslations) -> str:
    """Who asked for a run: a reviewer by name, the deployment's service in words."""
    if not actor_id:
        return words.gettext("not recorded")
    if actor_id.startswith(SERVICE_PREFIX):
        return words.gettext(SERVICE_ACTOR)
    return actor_id
