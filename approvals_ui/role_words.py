"""Roles, approval modes and who asked for a run, in the words of support staff.

The policy and the store name them as codes (`refund_approver`, `confirm`,
`service:signoff`): the CLI, the JSON API, the profiles and the operators' pages keep
the codes, which are what a person types there. A reviewer's page says what they mean,
in its language, as every other code a page shows is read (`run_words.said`). A role
a team invented (a chain's `support_lead`) has no entry here and reads as its words,
`support lead`. A sentence the core writes names its roles as `Role` values
(workflows/wording.py), which `approvals_ui/words.py` reads here.
"""

from __future__ import annotations

from gettext import NullTranslations

from signoff.service.accounts import ADMIN_ROLE
from workflows.actions import REFUND_APPROVER_ROLE
from workflows.wording import N_ as N_  # approvals_ui.words reads this module: no cycle
from workflows.wording import THEN

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


def role_text(role: str, words: NullTranslations) -> str:
    """`refund approver`; a role without a label, as its words (`support lead`)."""
    label = ROLE_LABELS.get(role)
    return role.replace("_", " ") if label is None else words.gettext(label)


def roles_text(roles: list[str] | tuple[str, ...], words: NullTranslations) -> str:
    """`refund approver or administrator`: the roles any of which will do."""
    return words.gettext(" or ").join(role_text(role, words) for role in roles)


def in_order_text(roles: list[str] | tuple[str, ...], words: NullTranslations) -> str:
    """A chain's roles, `refund approver, then finance lead`."""
    return words.gettext(THEN).join(role_text(role, words) for role in roles)


def asked_by(actor_id: str | None, words: NullTranslations) -> str:
    """Who asked for a run: a reviewer by name, the deployment's service in words."""
    if not actor_id:
        return words.gettext("not recorded")
    if actor_id.startswith(SERVICE_PREFIX):
        return words.gettext(SERVICE_ACTOR)
    return actor_id
