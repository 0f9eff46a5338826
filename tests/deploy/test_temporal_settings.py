"""The TLS and API key settings become the connection's options, or a clear refusal that
names the variable: no server needed (the live handshakes are in test_temporal_tls.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from temporalio.service import TLSConfig
from typer.testing import CliRunner

from signoff.config.settings import Settings, get_settings
from signoff.config.temporal_tls import TemporalSettingsError, connection_security
from signoff.wiring.app import app
from tests.deploy.certificates import Certificates, tls_settings


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


@pytest.mark.parametrize("command", [["status", "run-demo-x"], ["worker"], ["ui"], ["list"]])
def test_commands_name_a_bad_payload_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: list[str]
) -> None:
    monkeypatch.setenv("SIGNOFF_HOME", str(tmp_path))
    monkeypatch.setenv("SIGNOFF_TEMPORAL_ADDRESS", "127.0.0.1:9")
    monkeypatch.setenv("SIGNOFF_PAYLOAD_KEYS", "k1:c2hvcnQ=")  # 5 bytes, not 32
    get_settings.cache_clear()
    try:
        result = CliRunner().invoke(app, command)
    finally:
        get_settings.cache_clear()
    assert result.exit_code == 2, result.output
    assert "SIGNOFF_PAYLOAD_KEYS entry 1 ('k1') is 5 bytes" in result.stderr
    assert "c2hvcnQ" not in result.stderr and "Cannot reach Temporal" not in result.stderr
