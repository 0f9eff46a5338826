"""The passwords the tests hash in their own process: argon2id at its lowest cost.

argon2id at pwdlib's recommended cost (64 MiB, 3 passes, 4 lanes) takes about 0.2 s of
CPU for each hash and each check, on purpose. The tests hash and check hundreds of
passwords in their own processes (the demo store each process seeds, `signoff seed`
through CliRunner, sign-ins through TestClient, account changes): a third of the unit
and store tests' CPU, and a tenth of the rest. So in a test process the store's hasher
is argon2id at 1 MiB and one pass: the same hashes (`$argon2id$...`, verified by the
same code), a thousand times cheaper. What a test starts as a process of its own
(`signoff dev`, the CLI as a command, a worker) hashes at the product's cost, as a
deployment does, unless a fixture hashes its demo reviewers anew here (the UI tests'
shared stack, `cheap_demo_passwords`); `production_password_cost` gives a test that
cost back.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from pwdlib import PasswordHash
from pwdlib.hashers.argon2 import Argon2Hasher
from sqlalchemy import Engine

from activities.store import demo_password, passwords, write_transaction
from activities.store.schema import Reviewer
from activities.store.seed import demo_rows

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


def cheap_demo_passwords(engine: Engine) -> None:
    """The demo reviewers' passwords in a store a stack seeded, hashed anew by this
    process: a stack the tests sign in to a hundred times a run then checks each
    sign-in at the tests' cost, in the tests' process and in its own."""
    names = {row.id for row in demo_rows() if isinstance(row, Reviewer)}
    with write_transaction(engine) as session:
        for name in names:
            reviewer = session.get(Reviewer, name)
            if reviewer is not None:
                reviewer.password_hash = passwords.hash_password(demo_password(name))
