"""The sign-in rate limit: failures per (name, address) and per address, growing delays.

Design note. Failures are counted per (normalized name, address) and per address,
never per name alone: a count per name lets anyone lock a reviewer out (five wrong
passwords for `alice` from anywhere, and pending refunds expire while she waits). So a
flood on `alice` from one address blocks that address, and `alice` still signs in from
hers. The price: guesses spread over many addresses are slowed per address only, which
argon2 and the password rules must bear.

After `free_failures` a key waits `first_delay`, doubling with each further failure up
to `max_delay`; failures are forgotten `forget_after` seconds after the wait ends. An
attempt refused for waiting is not checked and not counted.

An attempt is counted as a failure when it starts (`begin`), before its password is
hashed, and a success takes that count back (`succeeded`). Counted only once the hash
answered, 200 wrong passwords sent at once from one address were all checked: each
passed the check before any had failed. Counted at the start, the sixth finds five
attempts in flight and waits. The hashing itself runs under a cap on how many at
once, whichever route asks (password_checks.py): argon2 takes about 64 MiB per check.

Memory is bounded: at most `max_keys` keys, the least recently failed evicted first.
A key is made only by a failure that passed both checks, so filling the table to evict
a locked key takes failures from as many addresses, each limited on its own. IPv6
addresses count per /64, the block one subscriber usually holds.

One process's memory: several UI replicas would each count on their own.
"""

from __future__ import annotations

import ipaddress
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from signoff.config.settings import Settings

MAX_DOUBLINGS = 30  # 2**30 times any first delay is past any max delay
# A name key can be far longer than the name typed (NFKC expands some characters 18
# times); a prefix this long tells reviewers apart and bounds each key's memory.
MAX_NAME_KEY_CHARS = 255


@dataclass(frozen=True)
class Backoff:
    free_failures: int
    first_delay: float
    max_delay: float
    forget_after: float

    def delay(self, failures: int) -> float:
        """Seconds to wait after the latest of `failures` failures."""
        if failures < self.free_failures:
            return 0.0
        doublings = min(failures - self.free_failures, MAX_DOUBLINGS)
        return float(min(self.max_delay, self.first_delay * 2**doublings))


@dataclass
class _Failures:
    count: int
    last: float


def address_key(host: str) -> str:
    """The address a client is counted under: IPv4 as is, IPv6 by its /64."""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host  # not an IP (a test client, a Unix socket): counted by its name
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.ip_network(f"{address}/64", strict=False))
    return str(address)


class SignInRateLimiter:
    def __init__(
        self,
        per_name_and_address: Backoff,
        per_address: Backoff,
        max_keys: int,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._rules = {"name": per_name_and_address, "address": per_address}
        self._max_keys = max_keys
        self._clock = clock
        self._failures: OrderedDict[tuple[str, ...], _Failures] = OrderedDict()

    @classmethod
    def from_settings(
        cls, settings: Settings, clock: Callable[[], float] = time.monotonic
    ) -> SignInRateLimiter:
        def backoff(free_failures: int) -> Backoff:
            return Backoff(
                free_failures=free_failures,
                first_delay=settings.ui_signin_delay_seconds,
                max_delay=settings.ui_signin_max_delay_seconds,
                forget_after=settings.ui_signin_window_seconds,
            )

        return cls(
            per_name_and_address=backoff(settings.ui_signin_attempts),
            per_address=backoff(settings.ui_signin_attempts_per_address),
            max_keys=settings.ui_signin_tracked_keys,
            clock=clock,
        )

    def retry_after(self, name_key: str, address: str) -> float:
        """Seconds until this name may try again from this address; 0 when it may now."""
        now = self._clock()
        return max(self._wait(key, now) for key in self._keys(name_key, address))

    def begin(self, name_key: str, address: str) -> float:
        """An attempt starts: the seconds it must wait (refused, not counted), or 0 when
        it may be checked, counted as a failure until `succeeded` takes it back."""
        wait = self.retry_after(name_key, address)
        if wait == 0:
            self.failed(name_key, address)
        return wait

    def failed(self, name_key: str, address: str) -> None:
        now = self._clock()
        for key in self._keys(name_key, address):
            self._wait(key, now)  # forgets an old record first
            record = self._failures.pop(key, None) or _Failures(count=0, last=now)
            record.count += 1
            record.last = now
            self._failures[key] = record  # at the end: the most recent
        while len(self._failures) > self._max_keys:
            self._failures.popitem(last=False)

    def succeeded(self, name_key: str, address: str) -> None:
        """A begun attempt signed in: the name's failures go, and the address loses the
        one count its own attempt added. The address keeps its other failures: signing in
        to one's own account must not reset the count of the address another name is
        guessed from."""
        name, where = self._keys(name_key, address)
        self._failures.pop(name, None)
        record = self._failures.get(where)
        if record is not None:
            record.count -= 1
            if record.count <= 0:
                del self._failures[where]

    def tracked_keys(self) -> int:
        return len(self._failures)

    def _keys(self, name_key: str, address: str) -> tuple[tuple[str, ...], ...]:
        where = address_key(address)
        return ("name", name_key[:MAX_NAME_KEY_CHARS], where), ("address", where)

    def _wait(self, key: tuple[str, ...], now: float) -> float:
        record = self._failures.get(key)
        if record is None:
            return 0.0
        wait_ends = record.last + self._rules[key[0]].delay(record.count)
        if now >= wait_ends + self._rules[key[0]].forget_after:
            del self._failures[key]
            return 0.0
        return max(0.0, wait_ends - now)
