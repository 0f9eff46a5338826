"""A throwaway certificate authority for TLS tests, made at test time with `cryptography`.

One CA signs a server certificate (for localhost and 127.0.0.1) and a client certificate
(for mutual TLS); each is written as PEM beside its key.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from signoff.config.settings import Settings

VALIDITY = timedelta(days=1)
CLIENT_NAME = "signoff-worker"


@dataclass(frozen=True)
class Certificates:
    ca: Path
    server_cert: Path
    server_key: Path
    client_cert: Path
    client_key: Path


def _name(common_name: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])


def _write_key(key: ec.EllipticCurvePrivateKey, path: Path) -> None:
    path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    path.chmod(0o600)


def _write_cert(cert: x509.Certificate, path: Path) -> None:
    path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))


def _leaf(
    ca_key: ec.EllipticCurvePrivateKey,
    ca_name: x509.Name,
    common_name: str,
    usage: x509.ObjectIdentifier,
    names: list[x509.GeneralName],
) -> tuple[x509.Certificate, ec.EllipticCurvePrivateKey]:
    key = ec.generate_private_key(ec.SECP256R1())
    now = datetime.now(UTC)
    builder = (
        x509.CertificateBuilder()
        .subject_name(_name(common_name))
        .issuer_name(ca_name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - timedelta(minutes=5))
        .not_valid_after(now + VALIDITY)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([usage]), critical=False)
    )
    if names:
        builder = builder.add_extension(x509.SubjectAlternativeName(names), critical=False)
    return builder.sign(ca_key, hashes.SHA256()), key


def make_certificates(folder: Path) -> Certificates:
    folder.mkdir(parents=True, exist_ok=True)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = _name("signoff test CA")
    now = datetime.now(UTC)
    ca = (
        x509.CertificateBuilder()
        .subject_name(ca_name)
        .issuer_name(ca_name)
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - timedelta(minutes=5))
        .not_valid_after(now + VALIDITY)
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                key_cert_sign=True,
                crl_sign=True,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .sign(ca_key, hashes.SHA256())
    )
    server, server_key = _leaf(
        ca_key,
        ca_name,
        "localhost",
        ExtendedKeyUsageOID.SERVER_AUTH,
        [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))],
    )
    client, client_key = _leaf(ca_key, ca_name, CLIENT_NAME, ExtendedKeyUsageOID.CLIENT_AUTH, [])
    paths = Certificates(
        ca=folder / "ca.pem",
        server_cert=folder / "server.pem",
        server_key=folder / "server-key.pem",
        client_cert=folder / "client.pem",
        client_key=folder / "client-key.pem",
    )
    _write_cert(ca, paths.ca)
    _write_cert(server, paths.server_cert)
    _write_key(server_key, paths.server_key)
    _write_cert(client, paths.client_cert)
    _write_key(client_key, paths.client_key)
    return paths


def tls_settings(address: str, certificates: Certificates, **extra: object) -> Settings:
    """Mutual TLS to `address` with the test CA's client certificate."""
    values: dict[str, object] = {
        "temporal_address": address,
        "temporal_tls_server_ca_file": certificates.ca,
        "temporal_tls_client_cert_file": certificates.client_cert,
        "temporal_tls_client_key_file": certificates.client_key,
    }
    values.update(extra)
    return Settings.model_validate(values)
