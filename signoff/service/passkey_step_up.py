"""The decision service's side of the passkey step-up: a decision the policy says needs the
reviewer's passkey is signed only with a valid one attached.

Design note. The browser asks for the challenge of the decision it is about to make
(`passkey_request`): the decision service drafts it (issued-at, nonce, key id) and
answers with the hash of its signed document (`signoff/config/passkey_challenge.py`)
and the draft's issued-at and nonce. The browser's authenticator signs that hash; the
browser sends the assertion back with the same issued-at and nonce, and the service
drafts the same decision again, verifies the assertion against the reviewer's stored
key, counts its use (a replayed assertion's counter is not past the stored one), and
only then signs. Nothing of the ceremony is kept between the two requests: the draft
is rebuilt from what comes back, and any change to it changes the challenge.

Where the policy asks for a passkey and none comes, `PasskeyRequired`: the CLI,
which cannot do a passkey, says so (exit 2). The effect checks all of it again.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from activities.store.passkeys import count_use
from signoff.config.passkey_challenge import decision_challenge
from signoff.config.passkey_policy import PasskeyPolicy
from signoff.config.passkeys import RelyingParty, verify_assertion
from signoff.config.settings import Settings
from signoff.service.handles import Store, engine_of
from workflows.actions import Decision, PasskeyAssertion, PendingAction, Verdict
from workflows.decision_proof import CLOCK_SKEW
from workflows.wording import N_

# Marked N_ for the reviewer UI's catalog, which shows them in the page's language.
NEEDS_PASSKEY = N_(
    "Nothing was decided: this decision needs a passkey: decide it in the reviewer UI, "
    "where you approve it with your passkey."
)
STALE_PASSKEY = N_(
    "The passkey request is too old or not yet valid. Nothing was decided: reload the page "
    "and approve again."
)
NO_PASSKEY_CHECK = N_("This server cannot check passkeys. Nothing was decided.")


class PasskeyRequired(Exception):
    """The policy asks for the reviewer's passkey and none came; nothing was sent."""

    def __init__(self, message: str = NEEDS_PASSKEY) -> None:
        super().__init__(message)
        self.message = message


class PasskeyRefused(Exception):
    """The passkey answer does not hold (wrong key, replayed, stale); nothing was sent."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass(frozen=True)
class PasskeyAnswer:
    """What the browser sends back: the draft's issued-at and nonce, and the assertion."""

    issued_at: datetime
    nonce: str
    assertion: PasskeyAssertion


@dataclass(frozen=True)
class StepUp:
    """The step-up of one decision: whether the policy requires it, and the answer."""

    required: bool = False
    answer: PasskeyAnswer | None = None
    store: Store | None = None
    relying_party: RelyingParty | None = None
    max_age: timedelta = timedelta(minutes=5)

    def applied(self, run_id: str, draft: Decision, now: datetime) -> Decision:
        """The draft with its verified passkey; raises PasskeyRequired or PasskeyRefused."""
        if self.answer is None:
            if self.required:
                raise PasskeyRequired()
            return draft
        if self.store is None or self.relying_party is None:
            raise PasskeyRefused(NO_PASSKEY_CHECK)
        issued_at = self.answer.issued_at
        if issued_at > now + CLOCK_SKEW or now - issued_at > self.max_age:
            raise PasskeyRefused(STALE_PASSKEY)
        assertion = self.answer.assertion
        challenge = decision_challenge(draft, run_id)
        relying_party = self.relying_party

        def check(public_key: str, sign_count: int) -> tuple[str | None, int]:
            verified = verify_assertion(assertion, challenge, public_key, relying_party, sign_count)
            return verified.problem, verified.sign_count

        problem = count_use(
            engine_of(self.store), draft.reviewer_id, assertion.credential_id, check
        )
        if problem is not None:
            raise PasskeyRefused(
                f"The passkey does not prove this decision: {problem}. Nothing was decided."
            )
        return draft.model_copy(update={"passkey": assertion})


NO_STEP_UP = StepUp()


def step_up_for(
    policy: PasskeyPolicy,
    settings: Settings,
    store: Store,
    action: PendingAction | None,
    verdict: Verdict,
    answer: PasskeyAnswer | None,
) -> StepUp:
    """The step-up a face applies to one decision (`action` None: the run refuses it)."""
    return StepUp(
        required=action is not None and policy.needs_passkey(action, verdict),
        answer=answer,
        store=store,
        relying_party=RelyingParty.of(settings),
        max_age=timedelta(seconds=settings.decision_max_age_seconds),
    )
