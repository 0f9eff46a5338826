"""The `match_standing_rule` activity: which standing rule covers an action that starts
to wait (activities/store/rule_grants.py). Its answer is a proposal to its own run
only; the effect checks the rule again before it acts.

A read, safe to retry; a store error that will repeat is non-retryable (the run then
lets a reviewer decide: workflows/standing_rules.py).
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

from sqlalchemy import Engine
from temporalio import activity

from activities.caller import only_its_own
from activities.refunds import non_retryable
from activities.store.errors import StoreError
from activities.store.rule_grants import match_rules
from signoff.config.decision_signatures import VerificationKeys
from workflows.rule_contracts import MATCH_STANDING_RULE_ACTIVITY, RuleMatch, RuleMatchRequest


class StandingRuleActivities:
    """`keys` (public only) verify a rule's signature before it is proposed."""

    def __init__(self, engine: Engine, keys: VerificationKeys) -> None:
        self._engine = engine
        self._keys = keys

    @activity.defn(name=MATCH_STANDING_RULE_ACTIVITY)
    async def match_standing_rule(self, request: RuleMatchRequest) -> RuleMatch:
        only_its_own(request.run_id)  # a rule's grant is proposed to its own run only
        try:
            return await asyncio.to_thread(
                match_rules, self._engine, request, self._keys, datetime.now(UTC)
            )
        except StoreError as error:
            raise non_retryable(error) from None
