"""`GET /metrics`: the process's Prometheus registry, for a scraper with the token.

The UI's port is the one reviewers reach, so a scrape must show
`Authorization: Bearer <SIGNOFF_METRICS_TOKEN>`; without the setting, every scrape is
refused (docs/operating/observability.md). A scrape reads memory only: the store's gauges
are refreshed in the background (signoff/service/metrics.py), so no scraper makes the
store count. Nothing here names a tenant, a run, a reviewer or any text (labels are
verdicts, modes, models, tools, reasons).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Header, HTTPException, status
from fastapi.responses import Response

from approvals_ui.deps import SettingsDep
from signoff.service.metrics import exposition, scrape_allowed

router = APIRouter(tags=["metrics"])


@router.get("/metrics", include_in_schema=False)
def metrics(
    settings: SettingsDep, authorization: Annotated[str | None, Header()] = None
) -> Response:
    token = settings.metrics_token
    if token is None:
        raise HTTPException(
            status.HTTP_403_FORBIDDEN,
            "Metrics are off on this UI: set SIGNOFF_METRICS_TOKEN and scrape with "
            "Authorization: Bearer <token>.",
        )
    if not scrape_allowed(authorization, token.get_secret_value()):
        raise HTTPException(
            status.HTTP_401_UNAUTHORIZED,
            "Send Authorization: Bearer <SIGNOFF_METRICS_TOKEN>.",
            headers={"WWW-Authenticate": "Bearer"},
        )
    body, content_type = exposition()
    return Response(content=body, media_type=content_type)
