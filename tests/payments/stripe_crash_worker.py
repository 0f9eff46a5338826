"""A worker process that dies the hard way right after Stripe accepted a refund.

Started as a subprocess by `test_stripe_crash.py`. It is the worker `signoff worker`
builds, with the settings of the test's home (the demo tenant refunds through
localstripe), except that the SDK's transport kills the process with SIGKILL as soon as
the answer to the refund's POST has arrived: Stripe holds the refund, signoff's store
holds no record of it, and Temporal never hears that the attempt finished.

Usage: python -m tests.payments.stripe_crash_worker TEMPORAL_ADDRESS TASK_QUEUE
       DATABASE_URL HOME STRIPE_KEYS_FILE STRIPE_API_BASE
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path
from typing import Any

import stripe
from temporalio.client import Client

from activities.payments.registry import PaymentConnectors
from activities.payments.stripe_connector import StripeConnector
from activities.refunds import RefundActivities
from activities.store import make_engine
from signoff.config.data_converter import data_converter
from signoff.config.settings import Settings
from signoff.config.stripe_keys import read_key
from signoff.payments.registry import TenantPlatform
from signoff.wiring.worker import build_worker
from tests.workflow.approvals import TEST_KEYS


class DiesAfterRefund(stripe.RequestsClient):
    def request(self, method: str, url: str, headers: Any, post_data: Any = None) -> Any:
        answer = super().request(method, url, headers, post_data)
        if method.lower() == "post" and url.rstrip("/").endswith("/v1/refunds"):
            os.kill(os.getpid(), signal.SIGKILL)
        return answer


class DyingConnectors(PaymentConnectors):
    def _connector(self, tenant: TenantPlatform) -> StripeConnector:
        return StripeConnector(
            read_key(tenant.source),
            api_base=self._settings.stripe_api_base,
            timeout_seconds=self._settings.stripe_timeout_seconds,
            http_client=DiesAfterRefund(timeout=self._settings.stripe_timeout_seconds),
        )


async def main(
    address: str, task_queue: str, database_url: str, home: str, keys: str, api_base: str
) -> None:
    settings = Settings(
        home=Path(home),
        temporal_address=address,
        task_queue=task_queue,
        database_url=database_url,
        stripe_keys_file=Path(keys),
        stripe_api_base=api_base,
        # No workflow cache: the next workflow task goes to the shared queue at once.
        worker_max_cached_workflows=0,
    )
    print("stripe crash worker connecting", address, flush=True)  # noqa: T201
    client = await Client.connect(address, data_converter=data_converter)
    engine = make_engine(database_url)
    refunds = RefundActivities(engine, TEST_KEYS, payments=DyingConnectors(settings))
    worker = build_worker(client, settings, engine, refunds=refunds)
    async with worker:
        print("stripe crash worker polling", task_queue, flush=True)  # noqa: T201
        await asyncio.Event().wait()


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:7]))
