"""What a decision must name, and how long it may wait for the run.

Its own module: the CLI's client of the decision service (`signoff approve`) checks the
hash and waits a little longer than the service does, without importing the Temporal
client and the store that `decisions.py` and `pending.py` decide with.
"""

from __future__ import annotations

from datetime import timedelta

# How long a reviewer's decision may wait for the run's answer: a worker that took
# longer is busy or gone, and the face says so rather than spin.
DECIDE_RPC_TIMEOUT = timedelta(seconds=30)

INVALID_HASH = "That is not a valid action hash: copy the full 64-character hash shown."
