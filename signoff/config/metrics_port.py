"""A metrics port a process cannot serve on: taken, or an address it cannot bind.

The worker serves two: our Prometheus registry (`SIGNOFF_METRICS_PORT`) and the SDK's
own (`SIGNOFF_TEMPORAL_METRICS_PORT`). Either failing is said the same way, naming the
address and the setting, by whichever process was starting (`signoff worker`, `signoff
dev`): never a traceback, never "Temporal unreachable".
"""

from __future__ import annotations


class MetricsPortUnavailable(RuntimeError):
    """The message says which port, why, and what to do."""

    def __init__(self, what: str, host: str, port: int, setting: str, detail: object) -> None:
        super().__init__(
            f"it cannot serve {what} on {host}:{port} ({detail}). Stop what holds the "
            f"port, or set {setting} to a free one."
        )
