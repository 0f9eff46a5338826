"""Payments connectors: where a tenant's orders were paid and its refunds are made.

The embedded ledger (activities/store/refunds.py) is the default, and moves money in
its own transaction. A remote connector (Stripe) implements `PaymentsConnector`; the
refund activities pick one per tenant (`registry.py`), so the workflow and its
histories are the same whichever pays.
"""
