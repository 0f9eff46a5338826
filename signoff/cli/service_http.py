"""The few HTTP requests the CLI sends to the decision service, on the standard library.

Design note. `approve` and `reject` are typed all day, and a new process pays for every
import: httpx loads click, rich and pygments for its own command line (two thirds of a
second on a busy 2-core machine), more than the rest of `approve`. The CLI needs JSON in
and out, a timeout and a status code: `http.client` does that. One connection a request
(`Connection: close`): a connection kept while the reviewer reads the list and confirms
would be closed by the server meanwhile, and a request is never sent twice. TLS
verifies the server against the system's trust store (`SSL_CERT_FILE` and `SSL_CERT_DIR`
as OpenSSL reads them).
"""

from __future__ import annotations

import http.client
import json
import ssl
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode, urlsplit

JSON_TYPE = "application/json"
NOT_FOUND = 404


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

    def __enter__(self) -> ServiceHttp:
        return self

    def __exit__(self, *_exc: object) -> None:
        return None

    def _connect(self) -> http.client.HTTPConnection:
        if self._secure:
            context = ssl.create_default_context()
            return http.client.HTTPSConnection(
                self._host, self._port, timeout=self._timeout, context=context
            )
        return http.client.HTTPConnection(self._host, self._port, timeout=self._timeout)

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
        body = None
        if document is not None:
            body = _dumps(document)
            headers["Content-Type"] = JSON_TYPE
        connection = self._connect()
        try:
            connection.request(method, self._prefix + path, body=body, headers=headers)
            response = connection.getresponse()
            return Answer(response.status, response.read())
        except (OSError, http.client.HTTPException) as error:
            raise TransportError(str(error)) from None
        finally:
            connection.close()


def _dumps(document: dict[str, Any]) -> bytes:
    return json.dumps(document).encode()
