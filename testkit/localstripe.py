"""localstripe, a stateful fake Stripe server no one here wrote, in a process of its own
(for the tests and the chaos bench alike).

Its facts (measured, see the module notes of activities/payments/stripe_connector.py):
it keeps refunds and their metadata, but honours no idempotency key and does not bound a
refund by what was paid; signoff's connector checks both itself. A charge is made as a
shop makes one: a customer, a card payment method, a PaymentIntent confirmed at once.

`pause` and `resume` stop and continue the process (SIGSTOP, SIGCONT): a request sent
meanwhile reaches the kernel's socket and waits unanswered, as a request to a Stripe
that went silent after receiving it; the server carries it out once resumed.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import stripe

from activities.payments.stripe_connector import METADATA_KEY
from signoff.wiring.local_stack import free_port

READY_SECONDS = 30.0
POLL_SECONDS = 0.05
# Any key of the right shape: localstripe checks none. Long enough to grep for.
TEST_KEY = "sk_test_signoffLocalStripeKey0123456789abcdefABCDEF"


@dataclass
class LocalStripe:
    process: subprocess.Popen[bytes]
    url: str

    def client(self) -> stripe.StripeClient:
        return stripe.StripeClient(
            TEST_KEY, base_addresses={"api": self.url}, max_network_retries=0
        )

    def paid_charge(self, amount_minor: int, currency: str = "eur") -> tuple[str, str]:
        """A card payment of `amount_minor`: its PaymentIntent id and charge id."""
        api = self.client().v1
        customer = api.customers.create(params={"email": "customer@example.com"})
        method = api.payment_methods.create(
            params={
                "type": "card",
                "card": {
                    "number": "4242424242424242",
                    "exp_month": 12,
                    "exp_year": 2040,
                    "cvc": "123",
                },
            }
        )
        intent = api.payment_intents.create(
            params={
                "amount": amount_minor,
                "currency": currency,
                "customer": customer.id,
                "payment_method": method.id,
                "confirm": True,
            }
        ).to_dict()
        charge = intent["latest_charge"]
        return str(intent["id"]), str(charge["id"] if isinstance(charge, dict) else charge)

    def refunds(self, charge_id: str) -> list[dict[str, Any]]:
        listed = self.client().v1.refunds.list(params={"charge": charge_id, "limit": 100})
        return [refund.to_dict() for refund in listed.data]

    def all_refunds(self) -> list[dict[str, Any]]:
        listed = self.client().v1.refunds.list(params={"limit": 100})
        return [refund.to_dict() for refund in listed.data]

    def refunds_under(self, charge_id: str, key: str) -> list[dict[str, Any]]:
        return [r for r in self.refunds(charge_id) if r["metadata"].get(METADATA_KEY) == key]

    def pause(self) -> None:
        os.kill(self.process.pid, signal.SIGSTOP)

    def resume(self) -> None:
        os.kill(self.process.pid, signal.SIGCONT)


@contextmanager
def running_localstripe() -> Iterator[LocalStripe]:
    port = free_port()
    process = subprocess.Popen(
        # From scratch: it keeps its state in one file for the whole machine, which
        # another test's server writes too.
        [str(Path(sys.executable).parent / "localstripe"), "--port", str(port), "--from-scratch"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    server = LocalStripe(process, f"http://127.0.0.1:{port}")
    try:
        _wait_ready(server)
        yield server
    finally:
        os.kill(process.pid, signal.SIGCONT)  # a paused one must wake to die
        process.terminate()
        process.wait(timeout=READY_SECONDS)


def _wait_ready(server: LocalStripe) -> None:
    deadline = time.monotonic() + READY_SECONDS
    while True:
        if server.process.poll() is not None:
            raise RuntimeError(f"localstripe exited with {server.process.returncode}")
        try:
            with urllib.request.urlopen(f"{server.url}/js.stripe.com/v3/", timeout=1):
                return
        except OSError:
            if time.monotonic() > deadline:
                raise RuntimeError(f"localstripe did not answer within {READY_SECONDS} s") from None
            time.sleep(POLL_SECONDS)
