"""The `match_standing_rule` activity: which standing rule covers an action that starts
to wait (activities/store/rule_grants.py). Its answer is a proposal to its own run
only; the effect checks the rule again before it acts, and checks then that the run
is one signoff's service started whose model asked for the action
(activities/rule_callers.py says why the match does not read the run's history too).

A read, safe to retry; a store error that will repeat is non-retryable (the run then
lets a reviewer decide: workflows/standing_rules.py).
"""

from __future__ import annotations

from concurrent.futures import Executor
from datetime import UTC, datetime

from sqlalchemy import Engine
from temporalio import activity

from activities.caller import only_in_its_worker
from activities.local_lane import in_thread
from activities.refunds import non_retryable
from activities.store.errors import StoreError
from activities.store.rule_grants import match_rules
from signoff.config.decision_signatures import VerificationKeys
from workflows.rule_contracts import MATCH_STANDING_RULE_ACTIVITY, RuleMatch, RuleMatchRequest


class StandingRuleActivities:
    """`keys` (public only) verify a rule's signature before it is proposed; `threads`:
    where its store calls run (the worker's local lane, activities/local_lane.py)."""

    def __init__(
        self, engine: Engine, keys: VerificationKeys, threads: Executor | None = None
    ) -> None:
        self._engine = engine
        self._keys = keys
        self._threads = threads

    @activity.defn(name=MATCH_STANDING_RULE_ACTIVITY)
    async def match_standing_rule(self, request: RuleMatchRequest) -> RuleMatch:
        # A rule's grant is proposed to its own run only, from its own workflow task.
        only_in_its_worker(request.run_id)
        try:
            return await in_thread(
                self._threads, match_rules, self._engine, request, self._keys, datetime.now(UTC)
            )
        except StoreError as error:
            raise non_retryable(error) from None
