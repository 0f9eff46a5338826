"""Which tenants refund through Stripe, and each one's secret key.

The keys file (SIGNOFF_STRIPE_KEYS_FILE, JSON) maps a tenant to where its key is: a
file (`key_file`, mode 0600, as every secret file here) or an environment variable
(`key_env`), never to the key itself, so the mapping can sit in a repository and the
key in a secret store. A key is read when a connector is built, in the process that
calls Stripe (the worker, `signoff reconcile`); it never enters an activity's input, a
workflow's history or a log line (`logs.py` blanks it).

Beside its key source, a tenant may say how long an approved refund may wait while
Stripe is unavailable (`give_up_after`, a duration such as "2h"); by default it waits
until the approval expires (workflows/effect_waits.py).
"""

from __future__ import annotations

import json
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path

from pydantic_core import PydanticCustomError

from signoff.config.settings import Settings
from signoff.payments.registry import PaymentSetupProblem
from workflows.profile_values import parse_duration

# An entry's optional field beside its key source (see the module note).
GIVE_UP_AFTER = "give_up_after"
# A secret key (sk_) or a restricted key (rk_), test or live mode.
KEY_PATTERN = re.compile(r"^(sk|rk)_(test|live)_[A-Za-z0-9_]{8,}$")


class StripeKeyProblem(PaymentSetupProblem):
    """The keys file or a key in it is unusable; the message says what to fix."""


@dataclass(frozen=True)
class KeySource:
    tenant_id: str
    key_file: Path | None = None
    key_env: str | None = None
    # How long an approved refund may wait for Stripe; None: until its approval expires.
    give_up_after_seconds: int | None = None

    def where(self) -> str:
        return f"file {self.key_file}" if self.key_file else f"variable {self.key_env}"


def stripe_tenants(settings: Settings) -> dict[str, KeySource]:
    """Each Stripe tenant and where its key is; empty when no keys file is set."""
    path = settings.stripe_keys_file
    if path is None:
        return {}
    try:
        mapping = json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise StripeKeyProblem(
            f"SIGNOFF_STRIPE_KEYS_FILE={path} cannot be read ({error.strerror}). "
            "Give a JSON file mapping each tenant to its key_file or key_env."
        ) from None
    except ValueError:
        raise StripeKeyProblem(
            f"{path} is not JSON. Write it as "
            '{"TENANT": {"key_file": "/path/to/key"}} or {"TENANT": {"key_env": "VAR"}}.'
        ) from None
    if not isinstance(mapping, dict):
        raise StripeKeyProblem(
            f"{path} must hold a JSON object of tenant -> key source, e.g. "
            '{"TENANT": {"key_file": "/path/to/key"}}.'
        )
    return {tenant: _source(path, tenant, entry) for tenant, entry in mapping.items()}


def _source(path: Path, tenant: str, entry: object) -> KeySource:
    given = dict(entry) if isinstance(entry, dict) else None
    give_up = None if given is None else given.pop(GIVE_UP_AFTER, None)
    if given is None or len(given) != 1:
        raise StripeKeyProblem(
            f"{path}: tenant '{tenant}' needs exactly one of key_file or key_env, "
            'e.g. {"key_file": "/run/secrets/stripe"}, and may add "give_up_after": "2h".'
        )
    ((kind, value),) = given.items()
    seconds = None if give_up is None else _give_up_seconds(path, tenant, give_up)
    if kind == "key_file" and isinstance(value, str) and value:
        where = Path(value)
        return KeySource(
            tenant,
            key_file=where if where.is_absolute() else path.parent / where,
            give_up_after_seconds=seconds,
        )
    if kind == "key_env" and isinstance(value, str) and value:
        return KeySource(tenant, key_env=value, give_up_after_seconds=seconds)
    raise StripeKeyProblem(
        f"{path}: tenant '{tenant}' names '{kind}'; use key_file (a path) or key_env "
        "(a variable name)."
    )


def _give_up_seconds(path: Path, tenant: str, value: object) -> int:
    try:
        return int(parse_duration(value).total_seconds())
    except PydanticCustomError as error:
        raise StripeKeyProblem(f"{path}: tenant '{tenant}': {GIVE_UP_AFTER}: {error}.") from None


def read_key(source: KeySource) -> str:
    """The tenant's secret key. Raises StripeKeyProblem, which never quotes the key."""
    if source.key_file is not None:
        key = _read_private(source.key_file)
    else:
        assert source.key_env is not None
        key = os.environ.get(source.key_env, "").strip()
        if not key:
            raise StripeKeyProblem(
                f"The Stripe key of tenant '{source.tenant_id}' is read from the variable "
                f"{source.key_env}, which is unset or empty. Set it in the worker's environment."
            )
    if not KEY_PATTERN.match(key):
        raise StripeKeyProblem(
            f"The Stripe key of tenant '{source.tenant_id}' ({source.where()}) is not a "
            "Stripe secret or restricted key (sk_... or rk_...). Copy it again from the "
            "Stripe dashboard."
        )
    return key


def key_values(settings: Settings) -> list[str]:
    """Every Stripe key the settings name, for the log filter; unreadable ones skipped."""
    try:
        sources = stripe_tenants(settings)
    except StripeKeyProblem:
        return []
    found = []
    for source in sources.values():
        try:
            found.append(read_key(source))
        except (StripeKeyProblem, OSError):
            continue
    return found


def _read_private(path: Path) -> str:
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
        if mode & 0o077:
            raise StripeKeyProblem(
                f"{path} can be read or written by other users (mode {mode:o}). Run "
                f"`chmod 600 {path}`, and roll the key in Stripe if someone may have read it."
            )
        return path.read_text(encoding="utf-8").strip()
    except OSError as error:
        raise StripeKeyProblem(
            f"The Stripe key file {path} cannot be read ({error.strerror})."
        ) from None
