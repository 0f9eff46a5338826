"""The few HTTP requests the CLI sends to the decision service, on the standard library.

Design note. `approve` and `reject` are typed all day, and a new process pays for every
import: httpx loads click, rich and pygments for its own command line (two thirds of a
second on a busy 2-core machine), more than the rest of `approve`. The CLI needs JSON in
and out, a timeout and a status code: `http.client` does that. One connection a request
(`Connection: close`): a connection kept while the reviewer reads the list and confirms
would be closed by the server meanwhile, and a request is never sent twice. TLS
verifies the server against the system's trust store (`SSL_CERT_FILE` and `SSL_CERT_DIR`
as OpenSSL reads them).

Proxies are the environment's, as urllib and curl read them: `HTTPS_PROXY` (or
`https_proxy`) for an https service, `HTTP_PROXY` for http, `NO_PROXY` for the hosts to
reach directly. An https request goes through the proxy's CONNECT tunnel, so the proxy
never sees the reviewer's credential; an http one is sent to the proxy in absolute form.
`urllib.request` reads those variables, and is imported only when one of them is set.
"""

from __future__ import annotations

import base64
import http.client
import json
import os
import ssl
from dataclasses import dataclass
from typing import Any
from urllib.parse import SplitResult, unquote, urlencode, urlsplit

JSON_TYPE = "application/json"
NOT_FOUND = 404
PROXY_VARIABLES = ("https_proxy", "HTTPS_PROXY", "http_proxy", "HTTP_PROXY")
DEFAULT_PROXY_PORT = 80


def proxy_for(scheme: str, host: str) -> SplitResult | None:
    """The environment's proxy for `scheme` to `host`, or None (none set, or NO_PROXY)."""
    if not any(os.environ.get(name) for name in PROXY_VARIABLES):
        return None  # nothing to read: urllib.request is not imported
    import urllib.request

    proxy = urllib.request.getproxies().get(scheme)
    if not proxy or urllib.request.proxy_bypass(host):
        return None
    return urlsplit(proxy if "://" in proxy else f"http://{proxy}")


def _proxy_authorization(proxy: SplitResult) -> dict[str, str]:
    if proxy.username is None:
        return {}
    pair = f"{unquote(proxy.username)}:{unquote(proxy.password or '')}".encode()
    return {"Proxy-Authorization": f"Basic {base64.b64encode(pair).decode()}"}


class TransportError(Exception):
    """Nothing answered: refused, reset, timed out or an unreadable address."""


@dataclass(frozen=True)
class Answer:
    status_code: int
    body: bytes

    @property
    def is_success(self) -> bool:
        return 200 <= self.status_code < 300

    def json(self) -> Any:
        """The body as JSON; ValueError when it is not."""
        return json.loads(self.body)


class ServiceHttp:
    """Requests to `base_url`, each sending `headers`."""

    def __init__(self, base_url: str, headers: dict[str, str], timeout: float) -> None:
        parts = urlsplit(base_url)
        try:
            port = parts.port
        except ValueError as error:
            raise TransportError(str(error)) from None
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise TransportError(f"not an http(s) URL: {base_url}")
        self._secure = parts.scheme == "https"
        self._host, self._port, self._timeout = parts.hostname, port, timeout
        self._prefix = parts.path.rstrip("/")
        self._headers = {"Accept": JSON_TYPE, "Connection": "close", **headers}
        self._proxy = proxy_for(parts.scheme, parts.hostname)
        if self._proxy is not None and not self._proxy.hostname:
            raise TransportError(f"not a proxy URL: {self._proxy.geturl()}")

    def __enter__(self) -> ServiceHttp:
        return self

    def __exit__(self, *_exc: object) -> None:
        return None

    def _connect(self) -> http.client.HTTPConnection:
        if self._proxy is not None:
            return self._through_proxy(self._proxy)
        if self._secure:
            context = ssl.create_default_context()
            return http.client.HTTPSConnection(
                self._host, self._port, timeout=self._timeout, context=context
            )
        return http.client.HTTPConnection(self._host, self._port, timeout=self._timeout)

    def _through_proxy(self, proxy: SplitResult) -> http.client.HTTPConnection:
        address = (proxy.hostname or "", proxy.port or DEFAULT_PROXY_PORT)
        if not self._secure:  # the request goes to the proxy, naming the service
            return http.client.HTTPConnection(*address, timeout=self._timeout)
        # A tunnel: TLS with the service itself, end to end, through CONNECT.
        context = ssl.create_default_context()
        connection = http.client.HTTPSConnection(*address, timeout=self._timeout, context=context)
        connection.set_tunnel(self._host, self._port, headers=_proxy_authorization(proxy))
        return connection

    def _target(self, path: str) -> str:
        """The request's target: its path, or its whole URL to an http proxy."""
        if self._proxy is None or self._secure:
            return self._prefix + path
        port = f":{self._port}" if self._port else ""
        return f"http://{self._host}{port}{self._prefix}{path}"

    def get(self, path: str, params: dict[str, str | int] | None = None) -> Answer:
        query = f"?{urlencode(params)}" if params else ""
        return self.request("GET", path + query)

    def post(self, path: str, json: dict[str, Any]) -> Answer:
        return self.request("POST", path, json=json)

    def request(self, method: str, path: str, json: dict[str, Any] | None = None) -> Answer:
        """`method` on `path` (under the base URL's path), with `json` as its body."""
        return self._send(method, path, json)

    def _send(self, method: str, path: str, document: dict[str, Any] | None) -> Answer:
        headers = dict(self._headers)
        if self._proxy is not None and not self._secure:
            headers.update(_proxy_authorization(self._proxy))
        body = None
        if document is not None:
            body = _dumps(document)
            headers["Content-Type"] = JSON_TYPE
        connection = self._connect()
        try:
            connection.request(method, self._target(path), body=body, headers=headers)
            response = connection.getresponse()
            return Answer(response.status, response.read())
        except (OSError, http.client.HTTPException) as error:
            raise TransportError(str(error)) from None
        finally:
            connection.close()


def _dumps(document: dict[str, Any]) -> bytes:
    return json.dumps(document).encode()
