"""signoff reaches Temporal over TLS and mutual TLS, with certificates named by settings.

The dev server cannot serve TLS itself (`temporal server start-dev --help` has no TLS
flag), so a TLS proxy with a self-signed CA's certificate stands in front of it
(`tls_proxy.py`): the client does a real handshake and checks a real chain. Then what
must fail does: a server the CA does not vouch for, a missing client certificate, and
settings that name files that are not there.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.service import TLSConfig
from temporalio.testing import WorkflowEnvironment
from typer.testing import CliRunner

from signoff.config.settings import Settings, get_settings
from signoff.config.temporal_client import connect
from signoff.config.temporal_tls import TemporalSettingsError, connection_security
from signoff.wiring.app import app
from tests.conftest import venv_binary
from tests.deploy.certificates import CLIENT_NAME, Certificates, make_certificates
from tests.deploy.tls_proxy import tls_proxy

pytestmark = pytest.mark.devserver


@pytest.fixture(scope="module")
async def dev_server() -> AsyncIterator[WorkflowEnvironment]:
    env = await WorkflowEnvironment.start_local(
        data_converter=pydantic_data_converter,
        dev_server_existing_path=venv_binary("temporal"),
    )
    try:
        yield env
    finally:
        await env.shutdown()


@pytest.fixture
def certificates(tmp_path: Path) -> Certificates:
    return make_certificates(tmp_path)


def tls_settings(address: str, certificates: Certificates, **extra: object) -> Settings:
    values: dict[str, object] = {
        "temporal_address": address,
        "temporal_tls_server_ca_file": certificates.ca,
        "temporal_tls_client_cert_file": certificates.client_cert,
        "temporal_tls_client_key_file": certificates.client_key,
    }
    values.update(extra)
    return Settings.model_validate(values)


async def test_mutual_tls_through_a_self_signed_chain(
    dev_server: WorkflowEnvironment, certificates: Certificates
) -> None:
    upstream = dev_server.client.service_client.config.target_host
    async with tls_proxy(upstream, certificates, require_client_cert=True) as proxy:
        client = await connect(tls_settings(proxy.address, certificates))
        count = await client.count_workflows()
    assert count.count >= 0
    assert CLIENT_NAME in proxy.client_names  # the proxy checked our certificate


async def test_the_server_name_setting_is_what_the_certificate_is_checked_against(
    dev_server: WorkflowEnvironment, certificates: Certificates
) -> None:
    upstream = dev_server.client.service_client.config.target_host
    async with tls_proxy(upstream, certificates, require_client_cert=True) as proxy:
        good = tls_settings(proxy.address, certificates, temporal_tls_server_name="localhost")
        await (await connect(good)).count_workflows()
        wrong = tls_settings(
            proxy.address, certificates, temporal_tls_server_name="temporal.example.com"
        )
        with pytest.raises(RuntimeError):
            await connect(wrong)


async def test_a_server_outside_the_trusted_ca_is_refused(
    dev_server: WorkflowEnvironment, certificates: Certificates, tmp_path: Path
) -> None:
    other = make_certificates(tmp_path / "other")  # a CA that did not sign the server
    upstream = dev_server.client.service_client.config.target_host
    async with tls_proxy(upstream, certificates, require_client_cert=False) as proxy:
        with pytest.raises(RuntimeError):
            await connect(tls_settings(proxy.address, other))
        assert proxy.client_names == []  # no handshake completed


async def test_mutual_tls_without_a_client_certificate_is_refused(
    dev_server: WorkflowEnvironment, certificates: Certificates
) -> None:
    upstream = dev_server.client.service_client.config.target_host
    async with tls_proxy(upstream, certificates, require_client_cert=True) as proxy:
        settings = Settings(
            temporal_address=proxy.address, temporal_tls_server_ca_file=certificates.ca
        )
        with pytest.raises(RuntimeError):
            await (await connect(settings)).count_workflows()


def test_no_tls_setting_means_plain_grpc_as_on_the_dev_server() -> None:
    security = connection_security(Settings())
    assert (security.tls, security.api_key) == (False, None)


def test_an_api_key_turns_tls_on_with_the_system_roots(tmp_path: Path) -> None:
    key_file = tmp_path / "api-key"
    key_file.write_text("cloud-key-123\n")
    security = connection_security(Settings(temporal_api_key_file=key_file))
    assert security.api_key == "cloud-key-123"
    assert isinstance(security.tls, TLSConfig)
    assert security.tls.server_root_ca_cert is None


def test_the_files_are_read_into_the_tls_config(certificates: Certificates) -> None:
    security = connection_security(tls_settings("temporal:7233", certificates))
    assert isinstance(security.tls, TLSConfig)
    assert security.tls.server_root_ca_cert == certificates.ca.read_bytes()
    assert security.tls.client_cert == certificates.client_cert.read_bytes()
    assert security.tls.client_private_key == certificates.client_key.read_bytes()


@pytest.mark.parametrize(
    ("field", "variable"),
    [
        ("temporal_tls_server_ca_file", "SIGNOFF_TEMPORAL_TLS_SERVER_CA_FILE"),
        ("temporal_tls_client_cert_file", "SIGNOFF_TEMPORAL_TLS_CLIENT_CERT_FILE"),
        ("temporal_tls_client_key_file", "SIGNOFF_TEMPORAL_TLS_CLIENT_KEY_FILE"),
        ("temporal_api_key_file", "SIGNOFF_TEMPORAL_API_KEY_FILE"),
    ],
)
def test_a_missing_file_is_named_with_its_variable(
    certificates: Certificates, tmp_path: Path, field: str, variable: str
) -> None:
    missing = tmp_path / "nowhere" / "file.pem"
    settings = tls_settings("temporal:7233", certificates, **{field: missing})
    with pytest.raises(TemporalSettingsError) as raised:
        connection_security(settings)
    assert str(raised.value).startswith(f"{variable} names {missing}, which does not exist")


def test_a_file_that_is_not_pem_is_refused(certificates: Certificates, tmp_path: Path) -> None:
    der = tmp_path / "ca.der"
    der.write_bytes(b"\x30\x82\x01\x0a")
    with pytest.raises(TemporalSettingsError, match="holds no PEM block"):
        connection_security(
            tls_settings("temporal:7233", certificates, temporal_tls_server_ca_file=der)
        )


def test_a_client_certificate_without_its_key_is_refused(certificates: Certificates) -> None:
    settings = Settings(temporal_tls_client_cert_file=certificates.client_cert)
    with pytest.raises(TemporalSettingsError, match="go together"):
        connection_security(settings)


def test_two_api_keys_are_refused(tmp_path: Path) -> None:
    key_file = tmp_path / "api-key"
    key_file.write_text("from-a-file")
    settings = Settings.model_validate(
        {"temporal_api_key": "from-the-env", "temporal_api_key_file": key_file}
    )
    with pytest.raises(TemporalSettingsError, match="keep one"):
        connection_security(settings)


@pytest.mark.parametrize("command", [["status", "run-demo-x"], ["worker"], ["ui"]])
def test_commands_name_a_bad_tls_path_instead_of_blaming_the_server(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: list[str]
) -> None:
    missing = tmp_path / "ca.pem"
    monkeypatch.setenv("SIGNOFF_HOME", str(tmp_path))
    monkeypatch.setenv("SIGNOFF_TEMPORAL_TLS_SERVER_CA_FILE", str(missing))
    get_settings.cache_clear()
    try:
        result = CliRunner().invoke(app, command)
    finally:
        get_settings.cache_clear()
    assert result.exit_code == 2
    assert f"SIGNOFF_TEMPORAL_TLS_SERVER_CA_FILE names {missing}" in result.stderr
    assert "Cannot reach Temporal" not in result.stderr
