"""The decision keys a test run gets with its first model turn.

`signoff worker` hands its public decision keys to every run with its limits
(activities/run_limits.py), and the `decide` validator checks signatures with them
(workflows/decision_keyring.py). A test that answers with limits of its own wraps them
here, so that its runs check decisions as production runs do.
"""

from __future__ import annotations

from datetime import timedelta

from activities.run_limits import LimitsSource, decision_keys
from signoff.config.decision_signatures import VerificationKeys
from workflows.run_limits import RunLimits, RunLimitsRequest


def keyed_limits(limits: LimitsSource, keys: VerificationKeys, max_age: timedelta) -> LimitsSource:
    """`limits` with `keys` and `max_age` beside them."""

    def with_keys(request: RunLimitsRequest) -> RunLimits:
        return limits(request).model_copy(
            update={
                "decision_keys": decision_keys(keys),
                "decision_max_age_seconds": max_age.total_seconds(),
            }
        )

    return with_keys
