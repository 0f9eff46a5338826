"""The reviewers' webhook for the tests (testkit/webhook_receiver.py)."""

from __future__ import annotations

from testkit.webhook_receiver import Received, Receiver, webhook_receiver

__all__ = ["Received", "Receiver", "webhook_receiver"]
