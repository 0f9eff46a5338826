"""The store hashes reviewers' passwords with argon2id at pwdlib's recommended cost.

A test process hashes at argon2id's lowest cost (tests/password_cost.py); this test takes
the store's own hasher back and holds it to the product's cost.
"""

from __future__ import annotations

from activities.store.passwords import hash_password, verify_password

RECOMMENDED = "$argon2id$v=19$m=65536,t=3,p=4$"


def test_a_password_is_hashed_with_argon2id_at_the_recommended_cost(
    production_password_cost: None,
) -> None:
    hashed = hash_password("correct horse battery")
    assert hashed.startswith(RECOMMENDED)
    assert verify_password("correct horse battery", hashed)
    assert not verify_password("correct horse battery!", hashed)


def test_the_tests_own_hashes_are_argon2id_that_the_store_verifies() -> None:
    hashed = hash_password("correct horse battery")
    assert hashed.startswith("$argon2id$v=19$m=1024,t=1,p=1$")
    assert verify_password("correct horse battery", hashed)
