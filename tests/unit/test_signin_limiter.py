"""The sign-in rate limit, on a clock the test moves: no waiting, no timing."""

from __future__ import annotations

import pytest

from approvals_ui.signin_limiter import Backoff, SignInRateLimiter, address_key
from signoff.config.settings import Settings


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def limiter(clock: Clock, max_keys: int = 1000) -> SignInRateLimiter:
    return SignInRateLimiter(
        per_name_and_address=Backoff(
            free_failures=3, first_delay=10, max_delay=40, forget_after=100
        ),
        per_address=Backoff(free_failures=6, first_delay=10, max_delay=40, forget_after=100),
        max_keys=max_keys,
        clock=clock,
    )


def test_a_flood_from_one_address_never_locks_the_name_out_elsewhere() -> None:
    clock = Clock()
    limit = limiter(clock)
    for _ in range(200):
        limit.failed("alice", "10.0.0.1")
        clock.now += 1
    assert limit.retry_after("alice", "10.0.0.1") > 0
    assert limit.retry_after("bob", "10.0.0.1") > 0  # the address itself is slowed
    assert limit.retry_after("alice", "10.0.0.2") == 0


def test_delays_grow_from_the_first_to_the_max() -> None:
    clock = Clock()
    limit = limiter(clock)
    for _ in range(3):
        assert limit.retry_after("alice", "10.0.0.1") == 0
        limit.failed("alice", "10.0.0.1")
    waits = []
    for _ in range(4):
        wait = limit.retry_after("alice", "10.0.0.1")
        waits.append(wait)
        clock.now += wait
        assert limit.retry_after("alice", "10.0.0.1") == 0
        limit.failed("alice", "10.0.0.1")
    assert waits == [10, 20, 40, 40]


def test_failures_are_forgotten_a_window_after_the_wait() -> None:
    clock = Clock()
    limit = limiter(clock)
    for _ in range(3):
        limit.failed("alice", "10.0.0.1")
    clock.now += 10 + 99
    limit.failed("alice", "10.0.0.1")  # still remembered: a fourth failure, a longer wait
    assert limit.retry_after("alice", "10.0.0.1") == 20
    clock.now += 20 + 100
    limit.failed("alice", "10.0.0.1")  # forgotten: this is a first failure again
    assert limit.retry_after("alice", "10.0.0.1") == 0


def test_success_clears_the_name_but_not_the_address() -> None:
    clock = Clock()
    limit = limiter(clock)
    for name in ("alice", "bob", "carol", "dave", "erin", "alice"):
        assert limit.begin(name, "10.0.0.1") == 0  # each counted as it starts
    assert limit.retry_after("fred", "10.0.0.1") > 0  # six from the address
    limit.succeeded("alice", "10.0.0.1")  # alice's last attempt was right
    assert limit.retry_after("fred", "10.0.0.1") == 0  # her own count taken back: five left
    assert limit.begin("fred", "10.0.0.1") == 0
    assert limit.retry_after("fred", "10.0.0.1") > 0  # the address kept the five others


def test_an_attempt_counts_when_it_starts() -> None:
    """Attempts in flight count: a burst from one address is limited like a sequence."""
    clock = Clock()
    limit = limiter(clock)
    started = [limit.begin("alice", "10.0.0.1") for _ in range(10)]
    assert started.count(0) == 3  # the free attempts; the rest wait and are not counted
    assert all(wait > 0 for wait in started[3:])


def test_memory_is_bounded_by_evicting_the_oldest() -> None:
    clock = Clock()
    limit = limiter(clock, max_keys=50)
    for number in range(1000):
        limit.failed("alice", f"10.1.{number // 256}.{number % 256}")
    assert limit.tracked_keys() == 50
    # The newest are kept: the last address still counts its failure.
    for _ in range(2):
        limit.failed("alice", "10.1.3.231")
    assert limit.retry_after("alice", "10.1.3.231") == 10


@pytest.mark.parametrize(
    ("host", "key"),
    [
        ("10.0.0.1", "10.0.0.1"),
        ("2001:db8:1:2::1", "2001:db8:1:2::/64"),
        ("2001:db8:1:2:ffff::9", "2001:db8:1:2::/64"),
        ("::ffff:10.0.0.1", "10.0.0.1"),
        ("testclient", "testclient"),
    ],
)
def test_addresses_are_counted_ipv6_by_its_slash_64(host: str, key: str) -> None:
    assert address_key(host) == key


def test_the_settings_make_a_limiter_with_both_rules() -> None:
    settings = Settings(ui_signin_attempts=2, ui_signin_attempts_per_address=4)
    limit = SignInRateLimiter.from_settings(settings, clock=Clock())
    limit.failed("alice", "10.0.0.1")
    limit.failed("alice", "10.0.0.1")
    assert limit.retry_after("alice", "10.0.0.1") == settings.ui_signin_delay_seconds
    limit.failed("bob", "10.0.0.1")
    assert limit.retry_after("carol", "10.0.0.1") == 0
    limit.failed("carol", "10.0.0.1")
    assert limit.retry_after("erin", "10.0.0.1") == settings.ui_signin_delay_seconds


def test_a_long_name_key_is_kept_short() -> None:
    clock = Clock()
    limit = limiter(clock)
    long_key = "\u0635\u0644\u0649" * 1000  # what NFKC makes of a few hundred U+FDFA
    for _ in range(3):
        limit.failed(long_key, "10.0.0.1")
    assert limit.retry_after(long_key, "10.0.0.1") == 10
    assert max(len(part) for key in limit._failures for part in key) == 255
