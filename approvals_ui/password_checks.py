"""At most N password checks at once in the whole UI process, whichever route asks.

argon2 is slow and memory-hard on purpose (about 64 MiB a check), so a burst of
passwords, through the sign-in form or `Authorization: Basic` on the API, must not run
them all at once. Both routes check through one `PasswordChecks`: a thread's check
waits for a slot (the form's runs off the event loop, the API's in FastAPI's thread
pool for sync dependencies). The sign-in limiter counts each attempt before it gets
here (signin_limiter.py), so a flood from one address is mostly refused before any
hashing.
"""

from __future__ import annotations

import threading

from signoff.service.reviewer_access import ReviewerAccount, password_account
from signoff.service.store import Store


class PasswordChecks:
    def __init__(self, slots: int) -> None:
        self.slots = slots
        self._slots = threading.BoundedSemaphore(slots)
        self._lock = threading.Lock()
        self._running = 0
        self.peak = 0  # the most checks that ever ran at once (metrics, tests)

    def holder(self, engine: Store, name: str, password: str) -> ReviewerAccount | None:
        """`password_account` once a slot is free (blocks this thread until then)."""
        with self._slots:
            with self._lock:
                self._running += 1
                self.peak = max(self.peak, self._running)
            try:
                return password_account(engine, name, password)
            finally:
                with self._lock:
                    self._running -= 1
