"""The codec endpoint: Temporal's remote codec protocol, so that a reviewer reads
encrypted payloads (SIGNOFF_PAYLOAD_KEYS) in the Temporal Web UI.

`POST /api/codec/decode` and `/api/codec/encode` take and answer `{"payloads": [...]}`,
each payload in protobuf's JSON form (base64 metadata values and data), as the Web UI
and `temporal --codec-endpoint` send them. The keys never leave this process; what
leaves is the clear text of the payloads sent, to whoever may read it:
- a signed-in reviewer who may decide refunds (`refund_approver`): the session cookie
  (the Web UI's "include cross-origin credentials") or a personal API token in
  `Authorization: Bearer` (`temporal --codec-auth`);
- from this site, or from an origin listed in SIGNOFF_CODEC_CORS_ORIGINS (the Temporal
  Web UI's); the browser asks first (a preflight), and only those origins are answered;
- for this deployment's namespace, when the caller names one (`X-Namespace`);
- only the payloads of the reviewer's own tenant: a run's payloads are sealed with its
  tenant (signoff/config/payload_keys.py), so another tenant's ciphertext, seen in the
  Temporal UI, stays closed here (403), and relabelling it makes it fail to open. A
  payload sealed with no tenant (no run's) opens for an administrator only. What
  `/encode` seals is sealed with the reviewer's tenant. The service decides this and
  does the work (signoff/service/codec_payloads.py); this router checks the request.
"""

from __future__ import annotations

from typing import Literal
from urllib.parse import urlsplit

from fastapi import APIRouter, HTTPException, Request, status
from fastapi.responses import JSONResponse, Response

from approvals_ui.deps import CurrentReviewer, SettingsDep
from signoff.config.payload_codec import EncryptionCodec
from signoff.config.settings import Settings
from signoff.service.codec_payloads import (
    PayloadBodyInvalid,
    PayloadDecryptError,
    PayloadRefused,
    decode_payloads,
    encode_payloads,
)

router = APIRouter(prefix="/api/codec", include_in_schema=False)
CORS_HEADERS = "content-type, x-namespace, authorization"
PREFLIGHT_MAX_AGE = "600"


def allowed_origin(request: Request, settings: Settings) -> str | None:
    """The caller's origin when it may read the answer; raises 403 for another site."""
    origin = request.headers.get("origin")
    if origin is None or urlsplit(origin).netloc == request.url.netloc:
        return None  # same site, or not a browser
    if origin in settings.codec_origins:
        return origin
    raise HTTPException(
        status.HTTP_403_FORBIDDEN,
        f"The origin {origin} may not use the codec endpoint: add it to "
        "SIGNOFF_CODEC_CORS_ORIGINS if it is your Temporal Web UI.",
    )


def cors_headers(origin: str | None) -> dict[str, str]:
    if origin is None:
        return {}
    return {
        "access-control-allow-origin": origin,
        "access-control-allow-credentials": "true",
        "vary": "Origin",
    }


@router.options("/{action}")
def preflight(action: str, request: Request, settings: SettingsDep) -> Response:
    origin = allowed_origin(request, settings)
    headers = cors_headers(origin)
    if origin is not None:
        headers["access-control-allow-methods"] = "POST"
        headers["access-control-allow-headers"] = CORS_HEADERS
        headers["access-control-max-age"] = PREFLIGHT_MAX_AGE
    return Response(status_code=status.HTTP_204_NO_CONTENT, headers=headers)


@router.post("/decode")
async def decode(request: Request, reviewer: CurrentReviewer, settings: SettingsDep) -> Response:
    return await _run(request, reviewer, settings, "decode")


@router.post("/encode")
async def encode(request: Request, reviewer: CurrentReviewer, settings: SettingsDep) -> Response:
    return await _run(request, reviewer, settings, "encode")


async def _run(
    request: Request,
    reviewer: CurrentReviewer,
    settings: Settings,
    action: Literal["encode", "decode"],
) -> Response:
    origin = allowed_origin(request, settings)
    if not reviewer.may_read_payloads():
        raise HTTPException(
            status.HTTP_403_FORBIDDEN,
            "Only a reviewer who may decide refunds, or an administrator, may read payloads.",
        )
    namespace = request.headers.get("x-namespace")
    if namespace is not None and namespace != settings.temporal_namespace:
        raise HTTPException(
            status.HTTP_400_BAD_REQUEST,
            f"This codec serves the namespace {settings.temporal_namespace}, not {namespace}.",
        )
    codec: EncryptionCodec | None = request.app.state.payload_codec
    if codec is None:
        raise HTTPException(
            status.HTTP_404_NOT_FOUND,
            "Payload encryption is off here (SIGNOFF_PAYLOAD_KEYS is unset): nothing to decode.",
        )
    body = await _json_body(request)
    try:
        if action == "decode":
            answer = await decode_payloads(codec, body, reviewer)
        else:
            answer = encode_payloads(codec, body, reviewer)
    except PayloadRefused as refused:
        raise HTTPException(status.HTTP_403_FORBIDDEN, str(refused)) from None
    except (PayloadBodyInvalid, PayloadDecryptError) as error:
        raise HTTPException(status.HTTP_400_BAD_REQUEST, str(error)) from None
    return JSONResponse(answer, headers=cors_headers(origin))


async def _json_body(request: Request) -> bytes:
    media_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if media_type != "application/json":  # also: another site cannot send it unasked
        raise HTTPException(
            status.HTTP_415_UNSUPPORTED_MEDIA_TYPE,
            "Send the body as JSON, with Content-Type: application/json.",
        )
    return await request.body()
