"""The reviewer web app, assembled: settings, store, Temporal, middleware, routers."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import Depends, FastAPI
from fastapi.staticfiles import StaticFiles

from approvals_ui import errors
from approvals_ui.deps import TemporalConnect, TemporalProvider
from approvals_ui.password_checks import PasswordChecks
from approvals_ui.routers import (
    admin_rules,
    api,
    api_audit,
    api_batch,
    api_rules,
    approvals,
    audit,
    auth,
    batch,
    codec,
    email_links,
    insight,
    intake,
    intake_replies,
    language,
    metrics,
    passkeys,
    run_events,
    runs,
    slack,
    slack_link,
)
from approvals_ui.security import SecurityHeadersMiddleware, csrf_protect
from approvals_ui.sessions import SessionMiddleware, load_secret
from approvals_ui.signin_limiter import SignInRateLimiter
from approvals_ui.tracing import trace_requests
from signoff.config.decision_keys import ensure_key_ring
from signoff.config.passkey_policy import PasskeyPolicy
from signoff.config.payload_codec import payload_codec
from signoff.config.profiles import load_profiles
from signoff.config.settings import Settings
from signoff.service.metrics import refresh_in_background, watch_store
from signoff.service.run_connection import connect
from signoff.service.store import Store, close_store, open_store

STATIC_DIR = Path(__file__).parent / "static"
API_DESCRIPTION = (
    "The reviewer UI's reads and the decision, for integrations. Authentication: the "
    "UI's session cookie (`signoff_session`, from `POST /signin`), whose POSTs also carry "
    "the session's CSRF token in `X-CSRF-Token` (read it from `GET /api/me`); or, with "
    "`SIGNOFF_AUTH=proxy`, the reviewer named in the header the auth proxy sets; or, in "
    "either mode, a reviewer's personal token (`signoff user token NAME`) in "
    "`Authorization: Bearer <token>`, which needs no CSRF token; or, in session mode, the "
    "reviewer's name and password as `Authorization: Basic` (what `signoff approve` sends; "
    "rate-limited like the sign-in page, no CSRF token). Errors "
    'are `{"detail": "..."}`; 503 when Temporal or a worker does not answer.'
)


def create_app(
    settings: Settings,
    temporal_connect: TemporalConnect = connect,
    engine: Store | None = None,
) -> FastAPI:
    own_engine = engine is None
    store = engine if engine is not None else open_store(settings)

    # Read once here, then in the background: a scrape never queries the store.
    gauges = watch_store(store)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        refreshing = refresh_in_background(gauges, settings.metrics_refresh_seconds)
        try:
            yield
        finally:
            refreshing.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await refreshing
            if own_engine:
                close_store(store)

    # Only the JSON API is in the schema; no docs page (it would need a CDN and inline
    # script, which the CSP forbids): tools read /api/openapi.json.
    app = FastAPI(
        title="signoff reviewer API",
        description=API_DESCRIPTION,
        version="1",
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
        openapi_url="/api/openapi.json",
    )
    app.state.settings = settings
    # This server is the decision service: the only process with a private decision key.
    # Its key ring is made at first start; refused here, at start, when others can read
    # it or it is damaged (DecisionKeyError, a WeakSecret).
    app.state.decision_signer = ensure_key_ring(settings)
    app.state.engine = store
    # The profiles the workers judge by, read once at start (a bad profile file stops the
    # server here): when an approval needs the reviewer's passkey, and each tool's card.
    profiles = load_profiles(settings).profiles
    app.state.profiles = profiles
    app.state.passkey_policy = PasskeyPolicy.of(profiles, settings.passkey_above)
    # The codec endpoint's keys (SIGNOFF_PAYLOAD_KEYS), checked here, at start; None: off.
    app.state.payload_codec = payload_codec(settings)
    app.state.temporal = TemporalProvider(settings, temporal_connect)
    app.state.signin_limiter = SignInRateLimiter.from_settings(settings)
    # At most this many password hashes at once (argon2: about 64 MiB each).
    app.state.password_checks = PasswordChecks(settings.ui_signin_concurrent_checks)
    errors.install(app)
    csrf = [Depends(csrf_protect)]
    # batch before approvals: /approvals/batch/... is not a run named "batch".
    pages = (
        auth,
        batch,
        approvals,
        runs,
        run_events,
        audit,
        passkeys,
        slack_link,
        email_links,
        language,
        admin_rules,
        insight,
    )
    for page in pages:
        app.include_router(page.router, dependencies=csrf, include_in_schema=False)
    app.include_router(api.router)  # its POST has its own CSRF rule (security.py)
    app.include_router(api_batch.router)  # the same CSRF rule as api's POST
    app.include_router(api_audit.router)
    app.include_router(api_rules.router)  # standing rules: the same CSRF rule as api's POST
    app.include_router(intake.router)  # helpdesk webhooks: the signature is the credential
    app.include_router(intake_replies.router)  # the customers' answers, signed the same way
    app.include_router(slack.router)  # Slack's button presses: the signature, as above
    app.include_router(codec.router)  # Temporal's remote codec protocol, its own CORS rule
    app.include_router(metrics.router)  # GET /metrics, for Prometheus (its own token)
    app.state.store_gauges = gauges
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
    # Outermost last: headers go on every answer, including errors and static files.
    app.add_middleware(
        SessionMiddleware,
        secret=load_secret(settings),
        max_age_seconds=int(settings.ui_session_hours * 3600),
    )
    app.add_middleware(SecurityHeadersMiddleware)
    trace_requests(app)
    return app
