"""The words of the decision page that name things the run and the store hold as codes:
a rejection's category, an order's status, a run's status, and what a decision did.

Each is marked for the catalog here (`N_`) and translated on the page. The categories'
English labels are the ones every face shows (`workflows.reject_reasons.LABELS`;
tests/ui/test_locale_units.py holds the two together). A code without words here (an
order status a shop invented) is shown as the store has it.
"""

from __future__ import annotations

from collections.abc import Mapping
from gettext import NullTranslations

from approvals_ui.role_words import roles_text
from approvals_ui.words import N_
from signoff.service.languages import SOURCE_LANGUAGE
from workflows.actions import REFUND_APPROVER_ROLE, DecisionResult, PendingAction

REJECT_LABELS: dict[str, str] = {  # keyed by RejectCategory
    "wrong_amount": N_("wrong amount"),
    "not_eligible": N_("not eligible"),
    "needs_more_information": N_("needs more information"),
    "suspected_fraud": N_("suspected fraud"),
    "other": N_("other"),
}

ORDER_STATUSES = {
    "paid": N_("paid"),
    "shipped": N_("shipped"),
    "delivered": N_("delivered"),
    "cancelled": N_("cancelled"),
    "refunded": N_("refunded"),
}

RUN_STATUSES = {
    "running": N_("running"),
    "waiting_for_approval": N_("waiting for approval"),
    "waiting_for_customer": N_("waiting for the customer"),
    "retrying": N_("retrying"),
    "completed": N_("completed"),
    "failed": N_("failed"),
    "cancelled": N_("cancelled"),
}

# What a decision did, by the run's typed answer (DecisionResult.status).
RESULTS = {
    "approved": N_("Approved. It is carried out once, after a last check."),
    "rejected": N_("Rejected. It will not happen, and the agent is told why."),
    "responded": N_(
        "Sent to the agent. The request does not happen as proposed; the agent reads your "
        "words as your instruction."
    ),
    "approval_recorded": N_(
        "Your approval is recorded. A second, different reviewer must approve before it happens."
    ),
    "edited": N_(
        "Approved with changes. The edited action is checked again and carried out once; if "
        "it still needs four eyes, a second reviewer must approve the edited version."
    ),
}


def translated(codes: Mapping[str, str], words: NullTranslations) -> dict[str, str]:
    return {code: words.gettext(label) for code, label in codes.items()}


def result_notice(result: DecisionResult, words: NullTranslations, language: str) -> str:
    """The notice after a decision: the run's own sentence in English (it names the
    tool and the threshold), the catalog's sentence for its status in another language."""
    if language == SOURCE_LANGUAGE:
        return result.message
    return words.gettext(RESULTS[result.status])


def no_role_refusal(words: NullTranslations, action: PendingAction | None) -> str:
    """Why a reviewer without the action's approver role cannot decide on it (the page's
    words for lookups.no_role_message, which the API answers with the roles' codes)."""
    if action is None or action.tool == "refund":
        message = words.gettext(
            "You do not have the %(role)s role, so you cannot decide on refunds. Ask an "
            "administrator if you should."
        )
        return message % {"role": roles_text([REFUND_APPROVER_ROLE], words)}
    message = words.gettext(
        "You do not have the %(role)s role, so you cannot decide on %(tool)s. Ask an "
        "administrator if you should."
    )
    return message % {"role": roles_text(action.approver_roles, words), "tool": action.tool}
