"""The CLI's client of the decision service: `approve` and `reject` sign nothing here.

Design note. Only the decision service (the reviewer UI/API server) holds a private
decision key, so a shell on a CLI host cannot sign as anyone. The CLI sends the
reviewer's credential (their password as HTTP Basic, or their API token as Bearer) and
the decision to the service's JSON API, which authenticates the reviewer, signs and
sends the update; the CLI prints its answer. One decision is one request: it names
the reviewer `--as` gave (`expected_reviewer`), and the service refuses it (403, before
the run is read) unless the credential proves that reviewer, so `--as alice` with bob's
token decides nothing. Asking `/api/me` whom a token proves first, as the CLI did,
cost a second request and round trip in every `approve` a reviewer types; a password
was never asked about (each check of it is argon2's deliberate work, about 0.15 s of
the service's CPU). A decision service older than this field refuses the body (422):
nothing is decided there either. Batches and rules still ask `/api/me` first
(`service_session`): they read before they send.
"""

from __future__ import annotations

import base64
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from signoff.cli.service_http import Answer, ServiceHttp, TransportError
from signoff.service.decision_limits import DECIDE_RPC_TIMEOUT
from workflows.actions import DecisionResult, Verdict

# The service may wait DECIDE_RPC_TIMEOUT for the run; the CLI waits a little longer.
REQUEST_SECONDS = DECIDE_RPC_TIMEOUT.total_seconds() + 15.0


@dataclass(frozen=True)
class ServiceCredential:
    reviewer_id: str
    secret: str
    is_token: bool

    def header(self) -> str:
        if self.is_token:
            return f"Bearer {self.secret}"
        pair = f"{self.reviewer_id}:{self.secret}".encode()
        return f"Basic {base64.b64encode(pair).decode()}"


class ServiceRefused(Exception):
    """The service answered with an error: its status code and its own words."""

    def __init__(self, status_code: int, detail: str) -> None:
        super().__init__(detail)
        self.status_code = status_code
        self.detail = detail


class NotThatReviewer(Exception):
    """The token is another reviewer's: nothing was sent."""


class ServiceUnreachable(Exception):
    """Nothing answered at the service's URL: nothing was decided."""

    def __init__(self, url: str) -> None:
        super().__init__(
            f"The decision service at {url} did not answer. Nothing was decided. Start it "
            "(`make demo`, or `signoff ui` where the decision keys are), or set "
            "SIGNOFF_DECISION_SERVICE_URL to its address."
        )


def send_to_service(
    url: str,
    credential: ServiceCredential,
    run_id: str,
    action_hash: str,
    verdict: Verdict,
    reason: str,
    category: str | None = None,
    edits: dict[str, str] | None = None,
) -> DecisionResult:
    """The service's result, in one request; raises ServiceRefused (an answer with an
    error, a 403 for a credential of someone else) or ServiceUnreachable. `category`
    goes with a rejection, `edits` with an approval with changes."""
    body: dict[str, Any] = {
        "action_hash": action_hash,
        "verdict": verdict,
        "reason": reason,
        # The service refuses the decision unless the credential proves this reviewer.
        "expected_reviewer": credential.reviewer_id,
    }
    if category is not None:
        body["category"] = category
    if edits is not None:
        body["edits"] = edits
    headers = {"Authorization": credential.header()}
    try:
        with ServiceHttp(url, headers, REQUEST_SECONDS) as http:
            decided = answer_of(http.post(f"/api/approvals/{run_id}/decision", json=body))
    except TransportError:
        raise ServiceUnreachable(url) from None
    return DecisionResult.model_validate(decided)


@contextmanager
def service_session(url: str, credential: ServiceCredential) -> Iterator[ServiceHttp]:
    """A client of the service that sends `credential`, for several requests (a batch,
    the rules); for a token, once the service said whom it proves (NotThatReviewer: a
    token of someone else; nothing else is sent then). A password names its reviewer
    itself: the first request checks it."""
    headers = {"Authorization": credential.header()}
    with ServiceHttp(url, headers, REQUEST_SECONDS) as http:
        if credential.is_token:  # a token proves whoever holds it
            me = answer_of(http.get("/api/me"))
            holder = str(me.get("id", ""))
            if holder.casefold() != credential.reviewer_id.casefold():
                raise NotThatReviewer(holder)
        yield http


def answer_of(response: Answer) -> dict[str, Any]:
    """The service's JSON answer; ServiceRefused with its own words when it refused."""
    try:
        document = response.json()
    except ValueError:
        document = {}
    if not isinstance(document, dict):
        document = {}
    if response.is_success:
        return document
    detail = document.get("detail")
    raise ServiceRefused(
        response.status_code,
        detail
        if isinstance(detail, str)
        else f"The decision service answered {response.status_code}.",
    )
