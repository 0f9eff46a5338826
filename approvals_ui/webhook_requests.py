"""What the signed webhooks share (a helpdesk's tickets, Slack's button presses): the
body read no further than a limit, and a refusal as JSON naming its `reason`."""

from __future__ import annotations

from fastapi import Request
from fastapi.responses import JSONResponse


async def limited_body(request: Request, limit: int) -> bytes | None:
    """The body, read no further than `limit` bytes; None when it is longer."""
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
    return b"".join(chunks)


def refusal(status_code: int, reason: str, detail: str) -> JSONResponse:
    return JSONResponse({"detail": detail, "reason": reason}, status_code=status_code)
