"""The words of the e-mail link and Slack link pages that Python writes: why a link is
refused, and what a decision from a link did.

An e-mail link's refusal has a code (`EmailLinkRefused.reason`), translated here by
code. A Slack link code's refusal, and a refusal the run or the decision service gave,
has only its sentence: the page shows it in the page's language when the catalog holds
that sentence (`shown`), else in English, marked `lang="en"`.
"""

from __future__ import annotations

from gettext import NullTranslations

from approvals_ui.decision_words import RESULTS
from approvals_ui.words import N_, shown
from signoff.service.languages import SOURCE_LANGUAGE
from workflows.wording import Wording

EMAIL_REFUSALS = {  # keyed by activities.store.email_links.RefusalReason
    "unknown": N_(
        "This decision link is not one we sent. Open the request from the inbox instead."
    ),
    "other_reviewer": N_(
        "This decision link was sent to another reviewer: it cannot decide for you. Open the "
        "request from your inbox instead."
    ),
    "used": N_(
        "This decision link was used already: a link decides once. Open the request from the "
        "inbox to see where it stands."
    ),
    "expired": N_("This decision link has expired. Open the request from the inbox to decide."),
}
NEEDS_WHY = N_("To reject, choose why and write your reason: the agent is told both.")

# The store's refusals of a Slack link code (activities/store/slack_links.py), word for
# word, so that the page finds them in the catalog; tests/ui/test_page_languages.py
# checks that each is the store's.
SLACK_REFUSALS = (
    N_(
        "This link is for a Slack workspace of another tenant than yours: nothing was linked. "
        "Sign in as the reviewer the Slack account belongs to."
    ),
    N_("This link code is not one we gave out. Press a button in Slack again to get a new link."),
    N_("This link was used already. Press a button in Slack again to get a new one."),
    N_("This link has expired. Press a button in Slack again to get a new one."),
)
# The service's refusal to show another tenant's code (signoff/service/slack_accounts.py),
# word for word as well.
OTHER_TENANT = N_("This link is for a Slack workspace of another tenant than yours.")


def email_refusal(reason: str, message: str, words: NullTranslations) -> str:
    """The refusal of an e-mail link in the page's language (its sentence, by its code)."""
    known = EMAIL_REFUSALS.get(reason)
    return message if known is None else words.gettext(known)


def decision_told(
    status: str | None, message: str | Wording, words: NullTranslations, language: str
) -> tuple[str, str]:
    """What a decision from a link did, and the language it is said in: the catalog's
    sentence for the run's answer, else the run's own words (English)."""
    if language != SOURCE_LANGUAGE and status in RESULTS:
        return words.gettext(RESULTS[status]), language
    return shown(message, words, language)
