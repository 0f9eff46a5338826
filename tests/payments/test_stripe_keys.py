"""The Stripe keys file and each tenant's key: where a key may come from, what is refused
(with what to do, never quoting the key), and the log filter that blanks it."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from activities.payments.connector import PaymentRefused
from activities.payments.registry import PaymentConnectors
from signoff.config.logs import settings_secrets
from signoff.config.settings import Settings
from signoff.config.stripe_keys import StripeKeyProblem, read_key, stripe_tenants
from tests.payments.localstripe import TEST_KEY


def keys_file(tmp_path: Path, mapping: object) -> Settings:
    path = tmp_path / "stripe-keys.json"
    path.write_text(json.dumps(mapping))
    return Settings(home=tmp_path, stripe_keys_file=path)


def key_file(tmp_path: Path, text: str, mode: int = 0o600) -> Path:
    path = tmp_path / "acme.key"
    path.write_text(text + "\n")
    os.chmod(path, mode)
    return path


def test_no_keys_file_means_every_tenant_on_the_ledger(tmp_path: Path) -> None:
    payments = PaymentConnectors(Settings(home=tmp_path))
    assert stripe_tenants(Settings(home=tmp_path)) == {}
    assert payments.for_tenant("demo") is None


def test_a_private_key_file_is_read_and_blanked_from_log_lines(tmp_path: Path) -> None:
    key_file(tmp_path, TEST_KEY)
    settings = keys_file(tmp_path, {"acme": {"key_file": "acme.key"}})
    (source,) = stripe_tenants(settings).values()
    assert read_key(source) == TEST_KEY
    assert TEST_KEY in settings_secrets(settings)
    assert PaymentConnectors(settings).for_tenant("acme") is not None
    assert PaymentConnectors(settings).for_tenant("demo") is None


def test_a_key_from_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ACME_STRIPE_KEY", TEST_KEY)
    settings = keys_file(tmp_path, {"acme": {"key_env": "ACME_STRIPE_KEY"}})
    assert read_key(stripe_tenants(settings)["acme"]) == TEST_KEY
    assert TEST_KEY in settings_secrets(settings)


def test_a_key_file_others_can_read_is_refused(tmp_path: Path) -> None:
    key_file(tmp_path, TEST_KEY, mode=0o644)
    settings = keys_file(tmp_path, {"acme": {"key_file": "acme.key"}})
    with pytest.raises(PaymentRefused) as refused:
        PaymentConnectors(settings).for_tenant("acme")
    assert "chmod 600" in str(refused.value)
    assert TEST_KEY not in str(refused.value)


def test_what_is_not_a_stripe_key_is_refused_unquoted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ACME_STRIPE_KEY", "pk_live_a-publishable-key-by-mistake")
    settings = keys_file(tmp_path, {"acme": {"key_env": "ACME_STRIPE_KEY"}})
    with pytest.raises(StripeKeyProblem) as problem:
        read_key(stripe_tenants(settings)["acme"])
    assert "sk_... or rk_..." in str(problem.value)
    assert "pk_live" not in str(problem.value)


def test_an_unset_variable_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ACME_STRIPE_KEY", raising=False)
    settings = keys_file(tmp_path, {"acme": {"key_env": "ACME_STRIPE_KEY"}})
    with pytest.raises(StripeKeyProblem, match="ACME_STRIPE_KEY, which is unset"):
        read_key(stripe_tenants(settings)["acme"])


@pytest.mark.parametrize(
    "mapping",
    [["acme"], {"acme": "sk_test_the_key_itself"}, {"acme": {"key": "x"}}],
    ids=["not-an-object", "the-key-itself", "unknown-source"],
)
def test_a_malformed_keys_file_says_what_to_write(tmp_path: Path, mapping: object) -> None:
    with pytest.raises(StripeKeyProblem) as problem:
        stripe_tenants(keys_file(tmp_path, mapping))
    assert "key_file" in str(problem.value)
    assert "sk_test_the_key_itself" not in str(problem.value)


def test_a_keys_file_that_is_not_json(tmp_path: Path) -> None:
    path = tmp_path / "stripe-keys.json"
    path.write_text("acme = sk_test_x\n")
    with pytest.raises(StripeKeyProblem, match="is not JSON"):
        stripe_tenants(Settings(home=tmp_path, stripe_keys_file=path))


def test_a_tenant_may_say_how_long_an_approved_refund_waits_for_stripe(tmp_path: Path) -> None:
    key_file(tmp_path, TEST_KEY)
    mapping = {
        "acme": {"key_file": "acme.key", "give_up_after": "90m"},
        "globex": {"key_env": "GLOBEX_STRIPE_KEY"},
    }
    payments = PaymentConnectors(keys_file(tmp_path, mapping))
    assert payments.give_up_after("acme") == 90 * 60
    assert payments.give_up_after("globex") is None  # until the approval expires
    assert payments.give_up_after("demo") is None  # the ledger never waits


@pytest.mark.parametrize(
    ("entry", "said"),
    [
        ({"key_file": "acme.key", "give_up_after": 5400}, 'e.g. "24h" (5400 given)'),
        ({"key_file": "acme.key", "give_up_after": "0m"}, "give_up_after"),
        ({"give_up_after": "2h"}, 'may add "give_up_after": "2h"'),
    ],
    ids=["a-bare-number", "zero", "no-key-source"],
)
def test_a_give_up_after_that_is_no_duration_is_refused(
    tmp_path: Path, entry: dict[str, object], said: str
) -> None:
    with pytest.raises(StripeKeyProblem) as problem:
        stripe_tenants(keys_file(tmp_path, {"acme": entry}))
    assert said in str(problem.value) and "tenant 'acme'" in str(problem.value)
