"""The passwords the tests hash in their own process: argon2id at its lowest cost.

argon2id at pwdlib's recommended cost (64 MiB, 3 passes, 4 lanes) takes about 0.2 s of
CPU for each hash and each check, on purpose. The tests hash and check hundreds of
passwords in their own processes (the demo store each process seeds, `signoff seed`
through CliRunner, sign-ins through TestClient, account changes): a third of the unit
and store tests' CPU, and a tenth of the rest. So in a test process the store's hasher
is argon2id at 1 MiB and one pass: the same hashes (`$argon2id$...`, verified by the
same code), a thousand times cheaper. What a test starts as a process of its own
(`signoff dev`, the CLI as a command, a worker) hashes at the product's cost, as a
deployment does (a stack started on a home the tests seeded, `demo_home` in
tests/conftest.py, finds its reviewers hashed at the tests' cost);
`production_password_cost` gives a test the product's cost back.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from pwdlib import PasswordHash
from pwdlib.hashers.argon2 import Argon2Hasher

from activities.store import passwords

PRODUCTION_HASHER = passwords._hasher
CHEAP_HASHER = PasswordHash((Argon2Hasher(time_cost=1, memory_cost=1024, parallelism=1),))


def _cheap() -> PasswordHash:
    return CHEAP_HASHER


@pytest.fixture(scope="session", autouse=True)
def cheap_password_hashes() -> Iterator[None]:
    """Session-wide, so that the demo store template is seeded with cheap hashes too
    (every copy of it is signed in to)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(passwords, "_hasher", _cheap)
        yield


@pytest.fixture
def production_password_cost(monkeypatch: pytest.MonkeyPatch) -> None:
    """The store's own hasher for one test: where the cost itself is what is tested."""
    monkeypatch.setattr(passwords, "_hasher", PRODUCTION_HASHER)
