"""signoff reaches Temporal over TLS and mutual TLS, with certificates named by settings.

The dev server cannot serve TLS itself (`temporal server start-dev --help` has no TLS
flag), so a TLS proxy with a self-signed CA's certificate stands in front of it
(`tls_proxy.py`): the client does a real handshake and checks a real chain. Then what
must fail does: a server the CA does not vouch for, a missing client certificate, and
settings that name files that are not there (test_temporal_settings.py).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from temporalio.testing import WorkflowEnvironment

from signoff.config.data_converter import data_converter
from signoff.config.settings import Settings
from signoff.config.temporal_client import connect
from signoff.config.temporal_service import connect_service
from signoff.service.run_reading import RunNotFound, describe_run
from tests.conftest import venv_binary
from tests.deploy.certificates import CLIENT_NAME, Certificates, make_certificates, tls_settings
from tests.deploy.tls_proxy import tls_proxy

pytestmark = pytest.mark.devserver


@pytest.fixture(scope="module")
async def dev_server() -> AsyncIterator[WorkflowEnvironment]:
    env = await WorkflowEnvironment.start_local(
        data_converter=data_converter,
        dev_server_existing_path=venv_binary("temporal"),
    )
    try:
        yield env
    finally:
        await env.shutdown()


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


async def test_status_reads_through_the_same_mutual_tls(
    dev_server: WorkflowEnvironment, certificates: Certificates, tmp_path: Path
) -> None:
    # `signoff status` connects with the bare service (signoff/config/temporal_service.py):
    # the same settings give it the same handshake, and the same refusals.
    upstream = dev_server.client.service_client.config.target_host
    async with tls_proxy(upstream, certificates, require_client_cert=True) as proxy:
        temporal = await connect_service(tls_settings(proxy.address, certificates))
        with pytest.raises(RunNotFound):  # an answer from the server, through the proxy
            await describe_run(temporal, "run-demo-nope")
        other = make_certificates(tmp_path / "other")
        with pytest.raises(RuntimeError):
            await connect_service(tls_settings(proxy.address, other))
    assert CLIENT_NAME in proxy.client_names
