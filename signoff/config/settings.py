"""One Settings class: the worker and every command read the same environment.

Pointing signoff at another Temporal server or database is one environment variable
(`SIGNOFF_TEMPORAL_ADDRESS`, `SIGNOFF_DATABASE_URL`). Secrets (the model keys) are
read here, in the worker's process, and never travel in activity inputs.
"""

from __future__ import annotations

from decimal import Decimal
from functools import lru_cache
from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit, urlunsplit

from pydantic import AliasChoices, Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from signoff.config.model_prices import DEFAULT_PRICES
from signoff.models.registry import (
    AUTO,
    ModelChoiceError,
    ModelProvider,
    choices,
    known_providers,
    provider_named,
)
from workflows.approval_policy import DEFAULT_APPROVAL_TTL
from workflows.contract_base import TASK_QUEUE
from workflows.model_contracts import ModelPrice, ModelRef
from workflows.policy import MAX_STEP_BUDGET, POLICY_VERSION
from workflows.profile_values import Money

DEV_ADDRESS = "127.0.0.1:7233"  # `signoff dev`'s Temporal server, by default
DEV_HTTP_ADDRESS = "127.0.0.1:7243"  # and its HTTP API
# The most items one page of a listing may hold (inbox, API, `signoff pending`, `list`).
MAX_PAGE_SIZE = 1000


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="SIGNOFF_", extra="ignore")

    home: Path = Field(default=Path(".signoff"), description="Local state: databases, logs.")
    temporal_address: str = DEV_ADDRESS
    temporal_namespace: str = "default"
    task_queue: str = TASK_QUEUE
    temporal_ui_port: int = 8233
    # The frontend's HTTP API (HOST:PORT): `signoff status` reads a run through it without
    # loading the gRPC client, and `signoff dev` serves it there. Unset: 127.0.0.1:7243
    # with the default gRPC address (`signoff dev`'s server), else none.
    temporal_http_address: str | None = None
    database_url: str | None = Field(
        default=None, description="SQLAlchemy URL; default: a SQLite file under home."
    )
    # The store's owner role, for `signoff store migrate` alone (docs/operating/
    # postgresql.md): it runs the migrations and grants the runtime role (the user of
    # database_url) exactly what the code needs. Unset: database_url migrates (SQLite,
    # where there are no roles, or a single-role PostgreSQL).
    migration_database_url: SecretStr | None = None
    # False on processes whose role may not change the schema (the runtime role): they
    # refuse a store that `signoff store migrate` has not brought to their revision.
    migrate_at_start: bool = True
    # `signoff dev --postgres` (or this set true): the store on a PostgreSQL cluster of
    # the dev stack's own, data in home/postgres, on this port (signoff/wiring/dev_postgres.py).
    dev_postgres: bool = False
    dev_postgres_port: int = Field(default=55432, ge=1, le=65535)

    # Model selection: "auto" is anthropic when a key is set, the scripted demo otherwise.
    model: str = "auto"
    # Not one the installed SDK marks deprecated: the conformance tests (tests/anthropic)
    # run on this id with warnings as errors, so a deprecation fails them.
    anthropic_model: str = "claude-sonnet-4-6"
    anthropic_api_key: SecretStr | None = Field(
        default=None,
        validation_alias=AliasChoices("SIGNOFF_ANTHROPIC_API_KEY", "ANTHROPIC_API_KEY"),
    )
    anthropic_timeout_seconds: float = 120.0
    # Extended thinking for agent runs on Claude: a token budget (at least 1024, below
    # max_tokens), or None for none.
    anthropic_thinking_budget: int | None = Field(default=None, ge=1024)
    # Any server speaking the Chat Completions API, for `openai:MODEL_ID`: Ollama
    # (http://localhost:11434/v1), vLLM, llama.cpp's server or OpenAI. Unset: the SDK's
    # default (OPENAI_BASE_URL, else api.openai.com). A local server needs no key: the
    # adapter then sends a placeholder. Longer than Claude's timeout: a small model on a
    # CPU is slow, and the model turn's own timeout (5 minutes) still bounds it.
    openai_base_url: str | None = None
    openai_api_key: SecretStr | None = Field(
        default=None,
        validation_alias=AliasChoices("SIGNOFF_OPENAI_API_KEY", "OPENAI_API_KEY"),
    )
    openai_timeout_seconds: float = Field(default=240.0, gt=0)
    scripted_default_script: str = "demo"
    # Where `scripted:NAME` scripts live; default: the ones shipped in activities/scripts.
    # The worker reads no script outside it.
    scripts_dir: Path | None = None
    # The agent profiles (docs/configuration/profiles.md): a TOML file; default: the built-in one,
    # signoff/config/default_profiles.toml. A worker refuses to start on a bad file.
    profiles: Path | None = None

    # Budgets and limits of one run.
    # At most MAX_STEP_BUDGET: it keeps a run's history bounded (workflows/policy.py).
    step_budget: int = Field(default=8, ge=1, le=MAX_STEP_BUDGET)
    token_budget: int = Field(default=200_000, ge=1)
    # Long enough for a reviewer to decide: a pending approval never outlives the deadline.
    deadline_minutes: float = Field(default=48 * 60.0, gt=0)
    approval_ttl_hours: float = Field(default=DEFAULT_APPROVAL_TTL.total_seconds() / 3600, gt=0)
    max_tokens: int = Field(default=1024, ge=16)
    policy_version: str = POLICY_VERSION
    # US dollars per run; scripted runs cost nothing.
    cost_budget_usd: Decimal | None = Field(default=Decimal("2.00"), gt=0)
    # US dollars per million tokens; SIGNOFF_MODEL_PRICES takes JSON of the same shape.
    model_prices: dict[str, ModelPrice] = Field(default_factory=lambda: dict(DEFAULT_PRICES))

    # Items per page where a person reads a list: the inbox, GET /api/approvals, and
    # the default --limit of `signoff pending` and `signoff list`.
    page_size: int = Field(default=50, ge=1, le=MAX_PAGE_SIZE)
    # The inbox's read model (signoff/service/waiting_reconcile.py): every
    # worker mends it from Temporal's visibility when it starts, then this often (0:
    # only at start), listing only the runs closed since; every full_reconcile
    # seconds it lists every waiting run again. Rows younger than the grace are kept:
    # visibility lags behind.
    read_model_reconcile_seconds: float = Field(default=600.0, ge=0)
    read_model_full_reconcile_seconds: float = Field(default=3600.0, ge=0)
    read_model_grace_seconds: float = Field(default=60.0, ge=0)

    # The reviewer web UI (approvals_ui).
    ui_host: str = "127.0.0.1"
    ui_port: int = Field(default=8000, ge=1, le=65535)
    # Signs the session cookie; generated into `home/ui-secret` when unset.
    ui_secret: SecretStr | None = None
    ui_session_hours: float = Field(default=12.0, gt=0)
    # Sign-in failures allowed per (name, address) before delays begin; per address
    # alone more, since an office shares one. Then the wait doubles from the first delay
    # to the max; failures are forgotten a window after the last wait ends.
    ui_signin_attempts: int = Field(default=5, ge=1, description="Per name and address.")
    ui_signin_attempts_per_address: int = Field(default=20, ge=1)
    ui_signin_delay_seconds: float = Field(default=30.0, gt=0)
    ui_signin_max_delay_seconds: float = Field(default=900.0, gt=0)
    ui_signin_window_seconds: float = Field(default=300.0, gt=0)
    # Bounds the limiter's memory; the least recently failed key is forgotten first.
    # Password hashes (argon2, about 64 MiB each) the UI runs at once; more wait.
    ui_signin_concurrent_checks: int = Field(default=4, ge=1)
    ui_signin_tracked_keys: int = Field(default=10_000, ge=2)
    ui_inbox_refresh_seconds: int = Field(default=5, ge=1)
    # The run page's live stream (server-sent events): at most this many open at once,
    # and per reviewer; each closes after its lifetime and the browser reconnects, signed
    # in again, where it left off.
    ui_live_streams: int = Field(default=100, ge=1)
    ui_live_streams_per_reviewer: int = Field(default=8, ge=1)
    ui_live_stream_seconds: int = Field(default=300, ge=5)
    # Who the reviewer is: our own sign-in ("session"), or a header set by an auth proxy
    # in front ("proxy"). Proxy mode trusts that header blindly: the UI must then be
    # reachable only through that proxy.
    auth: Literal["session", "proxy"] = "session"
    auth_header: str = Field(default="X-Forwarded-User", pattern=r"^[A-Za-z0-9-]{1,64}$")

    # Payments (docs/connect-stripe.md). A tenant named in the Stripe keys file refunds
    # through Stripe; every other tenant through the embedded ledger. The file (JSON)
    # maps a tenant to where its secret key is, never to the key itself:
    # {"acme": {"key_file": "/run/secrets/acme-stripe"}} or {"acme": {"key_env": "VAR"}}.
    stripe_keys_file: Path | None = None
    # Another Stripe API address: localstripe or stripe-mock in tests and walk-throughs.
    stripe_api_base: str | None = Field(default=None, pattern=r"^https?://[^\s]+$")
    # One HTTP call to Stripe; a refund makes up to three within the refund activity's
    # 10 s (workflows/gate_store.py), and a timeout is an unknown outcome.
    stripe_timeout_seconds: float = Field(default=3.0, gt=0, le=30)

    # Decisions. The decision service (the reviewer UI/API server, which authenticates
    # reviewers) signs what a reviewer decided with an Ed25519 key from its key ring,
    # private and mode 0600 (default `home/decision-signing-keys.json`; only that host
    # may hold it). Workers and the ledger (the refund's own check) verify with the
    # public key set (default `home/decision-public-keys.json`): key id -> public key,
    # and the retired ids. `signoff keys` (docs/operating/decision-keys.md) manages both.
    decision_signing_keys_file: Path | None = None
    decision_public_keys_file: Path | None = None
    # The key ids (comma-separated) a verifier trusts; every other entry of the public
    # set is ignored. `signoff worker` needs it; unset elsewhere: the keys of this host's
    # own key ring, if it holds one (signoff/config/decision_keys.py).
    trusted_key_ids: str | None = None
    # Where `signoff approve` and `reject` send a decision: the decision service's URL;
    # default the local reviewer UI (http://ui_host:ui_port).
    decision_service_url: str | None = Field(default=None, pattern=r"^https?://[^\s]+$")
    # A signed decision older than this when it reaches the run counts for nothing.
    decision_max_age_seconds: float = Field(default=300.0, gt=0)
    # Who a run started by no person is asked for (`signoff run` without `--as`, a
    # deployment's own automation): the deployment's service identity, which no reviewer
    # is. A person starting a run proves who they are (`--as NAME`) and is its actor.
    service_actor: str = Field(
        default="service:signoff", pattern=r"^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$"
    )
    # The caller's own API token (`signoff user token`), for a command that needs a
    # credential (`--as NAME` on `signoff user ...` and `signoff run`, and the reviewer
    # of `signoff approve`/`reject`) without a password prompt. Per person, from the
    # environment: never a command-line option.
    token: SecretStr | None = None
    # How long a personal API token (`signoff user token`) counts after it is issued.
    token_ttl_days: int = Field(default=90, gt=0, le=3650)
    # The longest lifetime an administrator may give a standing rule (docs/standing-rules.md).
    rule_max_lifetime_days: int = Field(default=90, gt=0, le=3650)
    # Passkey step-up (docs/passkeys.md). Per tenant, JSON: an approval above this amount
    # (of any tool that needs approval) needs the reviewer's passkey, as a tool's own
    # `passkey_above` in the profile asks; the lower of the two applies.
    passkey_above: dict[str, Money] = Field(default_factory=dict)
    # The WebAuthn relying party: the reviewer UI's host name (an IP address is not
    # allowed), and the origins (comma-separated) the reviewers' browsers open it at.
    # The UI and every worker must be given the same.
    passkey_rp_id: str = Field(default="localhost", pattern=r"^[A-Za-z0-9.-]{1,253}$")
    passkey_origins: str = "http://localhost:8000"

    # A Temporal cluster beyond the dev server (signoff/config/temporal_tls.py). TLS is on
    # when asked for, or when a CA, a client certificate or an API key is given. Secrets
    # come from the environment or from files it names, never from a command line.
    temporal_tls: bool = False
    temporal_tls_server_ca_file: Path | None = None
    temporal_tls_client_cert_file: Path | None = None
    temporal_tls_client_key_file: Path | None = None
    # The name the server's certificate is checked against, when not the address's host.
    temporal_tls_server_name: str | None = None
    # Temporal Cloud: the key itself, or a file holding it (a mounted secret).
    temporal_api_key: SecretStr | None = None
    temporal_api_key_file: Path | None = None

    # Worker tuning; the defaults suit a worker with 2 cores (docs/operating/
    # temporal.md). Activities mostly wait on the model's API and the database, so many
    # fit; workflow tasks use the CPU (and the GIL), so few do.
    worker_max_concurrent_activities: int = Field(default=50, ge=1)
    worker_max_concurrent_workflow_tasks: int = Field(default=10, ge=2)
    # Runs kept in memory between their tasks (the sticky cache); evicted runs replay.
    worker_max_cached_workflows: int = Field(default=250, ge=0)
    worker_workflow_task_pollers: int = Field(default=4, ge=2)
    worker_activity_task_pollers: int = Field(default=4, ge=1)
    # On SIGTERM or Ctrl-C, how long in-flight activities may take to finish.
    worker_shutdown_seconds: float = Field(default=30.0, ge=0)
    # Touched every few seconds while the worker polls: a container's health check.
    worker_heartbeat_file: Path | None = None

    # Observability (docs/operating/observability.md). Traces go out over OTLP only when the
    # standard OTEL_EXPORTER_OTLP_ENDPOINT is set (the exporter reads its other OTEL_*
    # variables itself). The worker serves Prometheus /metrics only when metrics_port is
    # set, and Temporal's own SDK metrics on temporal_metrics_port; the UI serves
    # /metrics on its own port.
    otlp_endpoint: str | None = Field(
        default=None,
        validation_alias=AliasChoices("SIGNOFF_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_ENDPOINT"),
    )
    metrics_host: str = "127.0.0.1"
    # Every /metrics (the UI's route and the worker's port) asks for
    # `Authorization: Bearer <this>`; unset, the UI refuses every scrape.
    metrics_token: SecretStr | None = None
    # The store's gauges (pending refunds) are read this often in the background, never
    # by a scrape: a scraper cannot make the store count.
    metrics_refresh_seconds: float = Field(default=15.0, gt=0)
    metrics_port: int | None = Field(default=None, ge=1, le=65535)
    temporal_metrics_port: int | None = Field(default=None, ge=1, le=65535)
    log_format: Literal["text", "json"] = "text"
    # Default: INFO for json (one line per model turn, tool call, decision, run end),
    # WARNING for text, so that `signoff dev` stays quiet in a terminal.
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] | None = None

    # Reviewers are told when a refund waits, is about to expire, and expired: a JSON
    # POST (Slack and Teams incoming webhooks take its `text`) to this URL. Unset: no
    # notification. The base URL is where reviewers open the UI, for the link in it.
    notify_webhook_url: str | None = Field(default=None, pattern=r"^https?://\S+$")
    ui_base_url: str = Field(default="http://127.0.0.1:8000", pattern=r"^https?://\S+$")
    notify_timeout_seconds: float = Field(default=10.0, gt=0)
    # Deciding from Slack and e-mail links (docs/ui/slack.md): the notice's format, the
    # Slack apps file, where Slack's response_url may point, the codes' lives in minutes.
    notify_format: Literal["text", "slack_blocks"] = "text"
    slack_apps: Path | None = None
    slack_response_url_prefix: str = Field(default="https://hooks.slack.com/", min_length=8)
    # Slack's Web API: users.info names a Slack user, with the tenant's app's bot_token.
    slack_api_url: str = Field(default="https://slack.com/api/", pattern=r"^https?://\S+/$")
    slack_link_minutes: float = Field(default=10.0, gt=0, le=60)
    email_link_minutes: float = Field(default=15.0, gt=0, le=60)
    # How long one exchange with an MCP server may take (connect, list its tools, call
    # one); past it the server counts as down: Temporal retries, then the model is told.
    mcp_timeout_seconds: float = Field(default=30.0, gt=0)

    # Helpdesks (docs: "Connect your helpdesk"). The intake's signing secrets per tenant
    # and source, and the connector each tenant's replies go out through: JSON files,
    # mode 0600 (signoff/config/helpdesks.py). Unset: no intake; replies stay in the
    # built-in outbox.
    intake_secrets: Path | None = None
    helpdesk_connectors: Path | None = None
    # A delivery whose signed timestamp is further than this from our clock is stale.
    intake_max_skew_seconds: float = Field(default=300.0, gt=0)
    # A connector's own timeout_seconds wins; below the effect activity's own timeout.
    helpdesk_timeout_seconds: float = Field(default=10.0, gt=0, le=50)
    # Each write connector's circuit breaker (activities/connectors/breaker.py): this
    # many failures in a row open it for the cool-down; then one trial call decides. A
    # trial that never reports (its worker died) stops counting after its timeout.
    breaker_failures: int = Field(default=5, ge=1)
    breaker_cooldown_seconds: float = Field(default=60.0, gt=0)
    breaker_trial_timeout_seconds: float = Field(default=60.0, gt=0)

    # Payload encryption (signoff/config/payload_codec.py): "ID:BASE64_KEY,..." (32-byte
    # AES keys), the first encrypting, all decrypting. Unset: payloads go in clear.
    payload_keys: SecretStr | None = None
    # Origins (comma-separated) of the Temporal Web UI allowed to call the UI's codec
    # endpoint (/api/codec); the dev server's UI by default.
    codec_cors_origins: str = "http://localhost:8233,http://127.0.0.1:8233"

    @field_validator("home")
    @classmethod
    def _absolute_home(cls, value: Path) -> Path:
        return value.expanduser().resolve()

    @property
    def resolved_database_url(self) -> str:
        if self.database_url:
            return self.database_url
        return f"sqlite:///{self.home / 'signoff.db'}"

    @property
    def shown_database_url(self) -> str:
        """The store's URL for messages: its password, if any, as `***`."""
        url = self.resolved_database_url
        parts = urlsplit(url)
        if parts.password is None:
            return url
        user = parts.netloc.rpartition("@")[0].partition(":")[0]
        host = parts.netloc.rpartition("@")[2]
        return urlunsplit(parts._replace(netloc=f"{user}:***@{host}"))

    @property
    def resolved_temporal_http_address(self) -> str | None:
        if self.temporal_http_address:
            return self.temporal_http_address
        return DEV_HTTP_ADDRESS if self.temporal_address == DEV_ADDRESS else None

    @property
    def codec_origins(self) -> list[str]:
        return [origin.strip() for origin in self.codec_cors_origins.split(",") if origin.strip()]

    @property
    def passkey_origin_list(self) -> list[str]:
        return [origin.strip() for origin in self.passkey_origins.split(",") if origin.strip()]

    @property
    def signing_keys_path(self) -> Path:
        return self.decision_signing_keys_file or self.home / "decision-signing-keys.json"

    @property
    def public_keys_path(self) -> Path:
        return self.decision_public_keys_file or self.home / "decision-public-keys.json"

    @property
    def resolved_decision_service_url(self) -> str:
        return (self.decision_service_url or f"http://{self.ui_host}:{self.ui_port}").rstrip("/")

    def price_of(self, model: ModelRef) -> ModelPrice | None:
        """The table's price; else free or unknown (None), as the provider declares."""
        listed = self.model_prices.get(model.model_id)
        if listed is not None:
            return listed
        return ModelPrice() if provider_named(model.provider).unlisted_price == "free" else None

    def default_model(self) -> ModelRef:
        return parse_model(self.model, self)


def parse_model(text: str, settings: Settings) -> ModelRef:
    """`auto` (the ready provider of highest rank) or `PROVIDER[:MODEL_ID]` of the registry
    (signoff/models), which checks the id or gives its default. Split on the first ':'."""
    name, colon, given = text.strip().partition(":")
    if name == AUTO and not colon:
        provider = _auto_provider(settings)
        return ModelRef(provider=provider.name, model_id=_default_id(provider, settings))
    if name not in known_providers():
        raise ModelChoiceError(f"Unknown model '{text}'. Use {choices()}.")
    provider = provider_named(name)
    model_id = given.strip() or None
    problem = provider.id_problem(model_id)
    if problem is not None:
        raise ModelChoiceError(problem)
    return ModelRef(provider=provider.name, model_id=model_id or _default_id(provider, settings))


def _auto_provider(settings: Settings) -> ModelProvider:
    ready = [
        provider
        for provider in known_providers().values()
        if provider.auto_rank is not None and provider.auto_ready(settings)
    ]
    if not ready:
        raise ModelChoiceError(f"'auto' finds no model provider ready here; use {choices()}.")
    return max(ready, key=lambda provider: provider.auto_rank or 0)


def _default_id(provider: ModelProvider, settings: Settings) -> str:
    model_id = provider.default_id(settings)
    if not model_id:
        raise ModelChoiceError(f"'{provider.name}' needs a model id: {provider.usage}.")
    return model_id


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings()
