"""`GET /metrics`: the process's Prometheus registry, for the scraper.

No sign-in: a scraper has none, and nothing here names a tenant, a run, a reviewer or
any text (labels are verdicts, modes, models, tools, reasons). A deployment that does
not want counts on the public port blocks `/metrics` at its proxy (README,
"Operating signoff").
"""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import Response

from signoff.service.metrics import exposition

router = APIRouter(tags=["metrics"])


@router.get("/metrics", include_in_schema=False)
def metrics() -> Response:
    body, content_type = exposition()
    return Response(content=body, media_type=content_type)
