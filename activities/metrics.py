"""The worker's Prometheus metrics: what runs, models, tools, reviewers and refunds did.

Recorded by the activities and by the worker's interceptor (`observe_interceptor.py`),
never by workflow code, which replays. Labels are low-cardinality on purpose: no run
id, tenant or reviewer (those are in traces and logs), so that a fleet's series stay
countable. Names are what docs/operating/observability.md alerts on.

Money is Decimal everywhere else; a Prometheus sample is a float, so cost becomes one
here, at the edge, and nowhere else.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta

from prometheus_client import REGISTRY, CollectorRegistry, Counter, Histogram
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector
from sqlalchemy import Engine

from activities.connectors.breaker import BreakerState, state_name
from activities.insight_metrics import InsightReading, insight_families, read_insight
from activities.store.connector_breakers import breaker_rows, state_of
from activities.store.pending_stats import PendingStats, pending_stats

logger = logging.getLogger(__name__)

RUNS = Counter(
    "signoff_runs",
    "Runs that ended, by workflow, final status and reason (RunOutcome.reason).",
    ["workflow", "status", "reason"],
)
REFUNDS_UNKNOWN = Counter(
    "signoff_refunds_unknown_outcome",
    "Refunds whose ledger never answered: `signoff reconcile RUN` must settle them.",
)
APPROVALS = Counter(
    "signoff_approvals",
    "Decision events by verdict (approved, first_approval, rejected, expired, voided, "
    "denied, cancelled, refused) and mode (confirm, review; none when not judged).",
    ["verdict", "mode"],
)
APPROVAL_WAIT = Histogram(
    "signoff_approval_wait_seconds",
    "Time from an action's pending to its decision (approved, rejected, expired, cancelled).",
    ["verdict", "mode"],
    buckets=(60, 300, 900, 1800, 3600, 4 * 3600, 8 * 3600, 24 * 3600, 48 * 3600),
)
MODEL_TURNS = Counter(
    "signoff_model_turns", "Model replies by model and stop reason.", ["model", "stop_reason"]
)
MODEL_TOKENS = Counter(
    "signoff_model_tokens",
    "Tokens by model and kind (input, output, cache_write, cache_read).",
    ["model", "kind"],
)
MODEL_COST = Counter("signoff_model_cost_usd", "US dollars spent, by model.", ["model"])
MODEL_ERRORS = Counter(
    "signoff_model_errors",
    "Model calls that raised (the attempt failed; Temporal may retry), by error type.",
    ["model", "error"],
)
TOOL_CALLS = Counter(
    "signoff_tool_calls", "Tool calls by tool and result (ok, error).", ["tool", "result"]
)
TOOL_ERRORS = Counter(
    "signoff_tool_errors", "Tool calls that gave the model an error result.", ["tool"]
)
REFUNDS = Counter(
    "signoff_refunds",
    "Refund executions by ledger answer (refunded, state_changed, approver_invalid, "
    "refused, error; unavailable: the payment platform could not take it now and the "
    "run waits for it; replayed: the refund its idempotency key had already made, not "
    "made again).",
    ["status"],
)
ACTIVITY_RETRIES = Counter(
    "signoff_activity_retries",
    "Activity attempts after the first (Temporal retried them), by activity.",
    ["activity"],
)
ACTIVITY_FAILURES = Counter(
    "signoff_activity_failures",
    "Activity attempts that raised, by activity and error type.",
    ["activity", "error"],
)


BREAKER_STATE_VALUES = {"closed": 0, "half_open": 1, "open": 2}
# The approval insight spans 30 days: read again at most once a minute, not at every
# refresh of the pending gauges, since its reads are the larger (insight_metrics.py).
INSIGHT_REFRESH = timedelta(minutes=1)


class StoreGauges(Collector):
    """Pending refunds and the connectors' breakers, as the store said at the last
    refresh (any worker or UI says the same). A scrape reads memory only: `refresh`
    runs in the background at an interval (`keep_fresh`), so that a scraper, however
    often it comes, never makes the store count. Before the first refresh the gauges
    are absent, never a made-up zero."""

    def __init__(
        self,
        engine: Engine,
        read: Callable[[Engine], PendingStats] = pending_stats,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self._engine = engine
        self._read = read
        self._clock = clock
        self._stats: PendingStats | None = None
        # Each write connector's breaker that has a row (the others are closed).
        self._breakers: list[tuple[str, BreakerState]] = []
        self._insight: InsightReading | None = None

    def use(self, engine: Engine) -> None:
        self._engine = engine

    def refresh(self) -> None:
        try:
            self._stats = self._read(self._engine)
            self._breakers = [(row.name, state_of(row)) for row in breaker_rows(self._engine)]
        except Exception:  # the store away for a moment: keep the last reading
            logger.warning("metrics: the store did not answer; pending gauges not refreshed")
        now = self._clock()
        if self._insight is not None and now - self._insight.at < INSIGHT_REFRESH:
            return
        try:
            self._insight = read_insight(self._engine, now)
        except Exception:  # as above: the last reading stays
            logger.warning("metrics: the store did not answer; insight gauges not refreshed")

    def collect(self) -> Iterator[GaugeMetricFamily]:
        stats = self._stats
        if stats is None:
            return
        yield GaugeMetricFamily(
            "signoff_pending_actions",
            "Refunds waiting for a decision now (not expired).",
            value=stats.count,
        )
        age = 0.0
        if stats.oldest_created_at is not None:
            age = max(0.0, (self._clock() - stats.oldest_created_at).total_seconds())
        yield GaugeMetricFamily(
            "signoff_oldest_pending_age_seconds",
            "How long the oldest refund still waiting has waited (0 when none waits).",
            value=age,
        )
        yield self._breaker_states()
        if self._insight is not None:
            yield from insight_families(self._insight, self._clock)

    def _breaker_states(self) -> GaugeMetricFamily:
        # One series per connector that ever failed: connectors are few (one per
        # configured helpdesk or payment account), unlike runs or reviewers.
        family = GaugeMetricFamily(
            "signoff_connector_breaker_state",
            "Each write connector's circuit breaker: 0 closed, 1 half_open (one trial "
            "call), 2 open (calls refused). `signoff connectors reset NAME` closes one.",
            labels=["connector"],
        )
        now = self._clock()
        for name, state in self._breakers:
            family.add_metric([name], BREAKER_STATE_VALUES[state_name(state, now)])
        return family


_store_gauges: dict[int, StoreGauges] = {}


def register_store_gauges(engine: Engine, registry: CollectorRegistry = REGISTRY) -> StoreGauges:
    """Once per registry: a worker and the UI in one process (`signoff dev`) share one,
    read through the engine registered last."""
    if id(registry) in _store_gauges:
        _store_gauges[id(registry)].use(engine)
        return _store_gauges[id(registry)]
    gauges = StoreGauges(engine)
    registry.register(gauges)
    _store_gauges[id(registry)] = gauges
    return gauges


async def keep_fresh(gauges: StoreGauges, interval_seconds: float) -> None:
    """Refresh `gauges` every `interval_seconds` until cancelled (the caller refreshes
    once before, at its start). The read runs in a thread: a slow store never stalls
    the event loop that polls Temporal or serves pages."""
    while True:
        await asyncio.sleep(interval_seconds)
        await asyncio.to_thread(gauges.refresh)
