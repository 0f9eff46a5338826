"""The decision key: SIGNOFF_DECISION_KEY, or a key generated into SIGNOFF_HOME."""

from __future__ import annotations

from signoff.config.secret_files import load_secret
from signoff.config.settings import Settings

DECISION_KEY_FILE = "decision-key"


def load_decision_key(settings: Settings) -> bytes:
    """Raises WeakSecret, with what to do, for a short key or a file others can read."""
    path = settings.home / DECISION_KEY_FILE
    return load_secret(settings.decision_key, path, "SIGNOFF_DECISION_KEY").encode()
