"""localstripe for the tests (testkit/localstripe.py), and transports of the SDK that
make Stripe go silent, or lose a request, at the moment a refund is sent."""

from __future__ import annotations

from typing import Any

import stripe

from testkit.localstripe import TEST_KEY, LocalStripe, running_localstripe

__all__ = ["TEST_KEY", "LocalStripe", "LostOnRefund", "SilentOnRefund", "running_localstripe"]


class SilentOnRefund(stripe.RequestsClient):
    """The SDK's own transport, except that the server goes silent (paused) just before
    a refund is created: the request is sent, and no answer comes back in time."""

    def __init__(self, server: LocalStripe, timeout_seconds: float) -> None:
        super().__init__(timeout=timeout_seconds)
        self.server = server
        self.silenced = 0

    def request(self, method: str, url: str, headers: Any, post_data: Any = None) -> Any:
        if method.lower() == "post" and url.rstrip("/").endswith("/v1/refunds"):
            self.silenced += 1
            self.server.pause()
        return super().request(method, url, headers, post_data)


class LostOnRefund(stripe.RequestsClient):
    """The SDK's own transport, except that a refund's request is lost on the way: the
    connection drops before Stripe sees it, and signoff cannot tell."""

    def __init__(self, timeout_seconds: float) -> None:
        super().__init__(timeout=timeout_seconds)
        self.lost = 0

    def request(self, method: str, url: str, headers: Any, post_data: Any = None) -> Any:
        if method.lower() == "post" and url.rstrip("/").endswith("/v1/refunds"):
            self.lost += 1
            raise stripe.APIConnectionError("Connection aborted: the refund was lost.")
        return super().request(method, url, headers, post_data)
