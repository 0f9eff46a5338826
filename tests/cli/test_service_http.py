"""The CLI's HTTP client of the decision service (signoff/cli/service_http.py), against a
real HTTP server on a free port: the base URL's path prefixes every request, JSON goes
both ways with the credential's header, a status comes back as it was sent, and nothing
listening is a TransportError (the commands' "did not answer", nothing decided)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from signoff.cli.service_http import ServiceHttp, TransportError
from signoff.wiring.local_stack import free_port


class Echo(BaseHTTPRequestHandler):
    """Answers with what it got: method, path, header and body; 404 under /missing."""

    def _answer(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length)) if length else None
        seen = {
            "method": self.command,
            "path": self.path,
            "authorization": self.headers.get("Authorization"),
            "body": body,
        }
        text = json.dumps(seen).encode()
        self.send_response(404 if self.path.startswith("/prefix/missing") else 200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(text)))
        self.end_headers()
        self.wfile.write(text)

    do_GET = do_POST = do_DELETE = _answer

    def log_message(self, *_: object) -> None:
        return None


@pytest.fixture
def base_url() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Echo)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/prefix"
    finally:
        server.shutdown()
        server.server_close()


def test_requests_go_under_the_base_path_with_the_header_and_json(base_url: str) -> None:
    http = ServiceHttp(base_url, {"Authorization": "Bearer t"}, timeout=5)
    got = http.get("/api/approvals", params={"limit": 2, "after": "x y"})
    assert got.is_success and got.json() == {
        "method": "GET",
        "path": "/prefix/api/approvals?limit=2&after=x+y",
        "authorization": "Bearer t",
        "body": None,
    }
    posted = http.post("/api/approvals/r/decision", json={"verdict": "approve"}).json()
    assert posted["body"] == {"verdict": "approve"} and posted["method"] == "POST"
    assert http.request("DELETE", "/api/rules/1").json()["method"] == "DELETE"


def test_an_error_status_comes_back_as_sent(base_url: str) -> None:
    answer = ServiceHttp(base_url, {}, timeout=5).get("/missing")
    assert answer.status_code == 404 and not answer.is_success


def test_nothing_listening_is_a_transport_error() -> None:
    http = ServiceHttp(f"http://127.0.0.1:{free_port()}", {}, timeout=5)
    with pytest.raises(TransportError):
        http.get("/api/me")


class Proxy(Echo):
    """A forward proxy that answers itself: what it got, in absolute form; and a CONNECT
    refused (403) after recording whom it was asked to reach, and with what."""

    tunnels: list[tuple[str, str | None]] = []

    def _answer(self) -> None:
        self.path = f"proxied {self.path} {self.headers.get('Proxy-Authorization')}"
        super()._answer()

    do_GET = do_POST = _answer

    def do_CONNECT(self) -> None:  # noqa: N802 (http.server's naming)
        Proxy.tunnels.append((self.path, self.headers.get("Proxy-Authorization")))
        self.send_response(403)
        self.end_headers()


@pytest.fixture
def proxy_url(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    for name in ("http_proxy", "https_proxy", "no_proxy", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.upper(), raising=False)
    server = ThreadingHTTPServer(("127.0.0.1", 0), Proxy)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://ann:s%40fe@127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_an_http_service_is_reached_through_http_proxy(
    base_url: str, proxy_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HTTP_PROXY", proxy_url)
    got = ServiceHttp(base_url, {}, timeout=5).get("/api/me").json()
    # Basic ann:s@fe, the proxy URL's user and (unquoted) password.
    assert got["path"] == f"proxied {base_url}/api/me Basic YW5uOnNAZmU="


def test_no_proxy_reaches_the_service_directly(
    base_url: str, proxy_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HTTP_PROXY", proxy_url)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    assert ServiceHttp(base_url, {}, timeout=5).get("/api/me").json()["path"] == "/prefix/api/me"


def test_an_https_service_is_tunnelled_through_https_proxy(
    proxy_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HTTPS_PROXY", proxy_url)
    Proxy.tunnels.clear()
    with pytest.raises(TransportError):  # this proxy refuses every tunnel
        ServiceHttp("https://signoff.example:8443", {}, timeout=5).get("/api/me")
    assert Proxy.tunnels == [("signoff.example:8443", "Basic YW5uOnNAZmU=")]
