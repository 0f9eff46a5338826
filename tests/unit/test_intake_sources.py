"""The intake sources' registry judges what a source declares: header names the intake
can read, one source per signature header (it names the source of a delivery)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from signoff.entry_points import RegistrationError
from signoff.intake import registry
from signoff.intake.registry import IntakeSource, known_sources, reload_sources

READER = "acme_signoff.intake:read_ticket"


@pytest.fixture
def fresh() -> Iterator[None]:
    reload_sources()
    yield
    reload_sources()


def test_the_built_in_sources_are_the_registrys() -> None:
    generic, zendesk = known_sources()["generic"], known_sources()["zendesk"]
    assert generic.signature_header == "x-signoff-signature"
    assert zendesk.signature_header == "x-zendesk-webhook-signature"


@pytest.mark.parametrize(
    ("signature", "timestamp", "problem"),
    [
        ("X-Acme-Signature", "x-acme-timestamp", "not a header name in lower case"),
        ("x-acme signature", "x-acme-timestamp", "not a header name"),
        ("x-acme-signature", "x-acme-signature", "are the same"),
    ],
)
def test_a_source_whose_headers_cannot_be_read_is_refused(
    signature: str, timestamp: str, problem: str
) -> None:
    source = IntakeSource("acmedesk", signature, timestamp, READER)
    found = registry._problem("acmedesk", source)
    assert found is not None and problem in found


def test_two_sources_signing_with_one_header_are_refused(
    fresh: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    clash = IntakeSource("acmedesk", "x-signoff-signature", "x-acme-timestamp", READER)
    both = {"generic": known_sources()["generic"], "acmedesk": clash}
    monkeypatch.setattr(registry, "load_group", lambda *arguments: both)
    reload_sources()
    with pytest.raises(RegistrationError, match="'generic' and 'acmedesk'.*x-signoff-signature"):
        known_sources()
