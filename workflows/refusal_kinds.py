"""The kinds of a refused `decide`, as the update's error type names them.

Who keeps the record of a refusal depends on where it was refused. The validator's
refusals never reach the history (`DECISION_REFUSED`, `NOT_PENDING`, `UNKNOWN_ACTION`),
nor does the handler's second look at the gate after the store's check: the decision
service that sent the decision writes their `refused` audit row
(`signoff/service/decision_refusals.py`). The store's refusal (`REFUSED_ON_RECORD`) is
in the run's decision trail, which the audit already gets. A store that did not answer
(`UNCHECKED`) refused nobody: nothing is recorded, the reviewer decides again.
"""

from __future__ import annotations

# The decision breaks a rule the run checks itself (signature, freshness, the gate's rules).
DECISION_REFUSED = "DecisionRefused"
# The action was pending once: it was decided, expired, edited or voided since.
NOT_PENDING = "NotPending"
# The run never had an action with this hash.
UNKNOWN_ACTION = "UnknownAction"
# The store refused it (`verify_decision`); the run's trail and the audit hold it.
REFUSED_ON_RECORD = "DecisionRefusedOnRecord"
# The store did not answer while the decision was checked: nothing was decided.
UNCHECKED = "DecisionUnchecked"

# The refusals no run records: the sender's service writes their audit row.
UNRECORDED = frozenset({DECISION_REFUSED, NOT_PENDING, UNKNOWN_ACTION})
