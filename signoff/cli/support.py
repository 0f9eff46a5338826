"""What every command shares: errors turned into messages and exit codes, JSON output.

Exit codes: 0 success, 1 the run failed or was cancelled, 2 bad usage or bad input
(including a Temporal server or database that cannot be reached: the fix is the
user's configuration). No stack trace reaches the user.
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
from collections.abc import Coroutine
from typing import TYPE_CHECKING, Annotated, Any, NoReturn, TypeVar

import typer
from pydantic import BaseModel, ValidationError

from signoff.cli.terminal_text import in_json, shown
from signoff.config.settings import Settings, get_settings
from workflows.contract_base import IDENTIFIER_PATTERN, TENANT_ID_PATTERN

if TYPE_CHECKING:
    # Loaded by the commands that make a Client: `signoff status` reads a run without
    # one (signoff/config/temporal_service.py).
    from signoff.config.temporal_service import TemporalService
    from signoff.service.run_control import Runs

# What each pattern asks, in words, for the messages that refuse a value.
PATTERN_WORDS = {
    IDENTIFIER_PATTERN: (
        "must start with a letter or a digit and hold only letters, digits, '.', '_', ':' "
        "and '-', at most 128 characters"
    ),
    TENANT_ID_PATTERN: (
        "must start with a letter or a digit and hold only letters, digits, '.', '_' and "
        "':' (no '-'), at most 128 characters"
    ),
}

# Options several commands share: one definition, one help text.
JsonOption = Annotated[bool, typer.Option("--json", help="Print one JSON document on stdout.")]
TicketOption = Annotated[str, typer.Option("--ticket", help="The ticket id, e.g. T-4512.")]
TenantOption = Annotated[str, typer.Option(help="The tenant the ticket belongs to.")]
ModelOption = Annotated[
    str | None,
    typer.Option(
        help="scripted, scripted:SCRIPT, anthropic:MODEL_ID, openai:MODEL_ID (a local "
        "model, e.g. openai:qwen3:4b) or an installed provider's PROVIDER[:MODEL_ID]; "
        "default: auto."
    ),
]
RequestIdOption = Annotated[
    str | None,
    typer.Option(help="Idempotency: the same request id twice gives the one run."),
]
AsPersonOption = Annotated[
    str | None,
    typer.Option(
        "--as",
        help="The reviewer asking for this run, proven by their password (asked, or "
        "--password-stdin) or API token (SIGNOFF_TOKEN): that person cannot approve its "
        "refunds. Without it the run is the deployment's own (SIGNOFF_SERVICE_ACTOR).",
    ),
]
# Every command that takes `--as NAME` reads NAME's password from stdin with this one
# option (signoff/cli/credentials.py), so that a script passes it the same way to each.
AsPasswordStdin = Annotated[
    bool,
    typer.Option(
        "--password-stdin", help="With --as: read that person's password from stdin (one line)."
    ),
]
# `approve`, `reject` and `rules` also take that person's API token from stdin.
AsTokenStdin = Annotated[
    bool,
    typer.Option(
        "--token-stdin",
        help="With --as: read that person's API token (`signoff user token`) from stdin "
        "instead of a password: for deployments where reviewers sign in through an auth proxy.",
    ),
]
AfterOption = Annotated[
    str | None,
    typer.Option(help="Continue after this cursor: the `next` the previous page printed."),
]


def stdin_secret(name: str, what: str, doing: str) -> str:
    """One line of stdin: NAME's `what` (password, API token) for `--password-stdin` and
    `--token-stdin` alike; a clean exit, saying nothing was `doing`, when it is empty."""
    secret = sys.stdin.readline().rstrip("\r\n")
    if not secret:
        fail(f"Nothing on stdin: give {name}'s {what} on one line. Nothing was {doing}.")
    return secret


EXIT_OK = 0
EXIT_RUN_FAILED = 1
EXIT_BAD_INPUT = 2

T = TypeVar("T")


def fail(message: str, code: int = EXIT_BAD_INPUT) -> NoReturn:
    """Say what was wrong (and what to do) on stderr, then exit with `code`."""
    typer.echo(f"error: {shown(message)}", err=True)
    raise typer.Exit(code)


# A run's id (`run_id_for`, workflows/contracts.py): `run-` or `triage-`, a tenant and a
# request id, identifiers all. Checked before anything is asked of Temporal.
RUN_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:-]{0,299}")


def checked_run_id(run_id: str | None) -> str | None:
    """A typer callback: the run id as given, or a refusal that says what one looks like."""
    if run_id is not None and RUN_ID.fullmatch(run_id) is None:
        fail(
            f"{run_id!r} is not a run id. A run id starts with a letter or a digit and holds "
            "only letters, digits, '.', '_', ':' and '-', as `signoff run` printed it and "
            "`signoff list` shows it (run-TENANT-REQUEST)."
        )
    return run_id


def checked_run_ids(run_ids: list[str] | None) -> list[str] | None:
    for run_id in run_ids or ():
        checked_run_id(run_id)
    return run_ids


def run_async(coroutine: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(coroutine)


def settings() -> Settings:
    try:
        return get_settings()
    except ValidationError as error:
        fail(f"Invalid SIGNOFF_* setting: {validation_message(error)}")


async def client_for(current: Settings, *, worker: bool = False, traced: bool = True) -> Runs:
    """The connection the service's run functions take, or a clean exit; `traced` as in
    `temporal_client.connect`, `worker` for the connection a worker polls with (its
    runtime serves the SDK's metrics when the settings ask)."""
    from signoff.config.metrics_port import MetricsPortUnavailable
    from signoff.config.temporal_tls import TemporalSettingsError
    from signoff.service.run_connection import connect, worker_runtime

    # Before the connection, and not one of its failures: a metrics port taken is not
    # "Temporal unreachable".
    try:
        runtime = worker_runtime(current) if worker else None
    except MetricsPortUnavailable as error:
        fail(f"The worker will not start: {error}")
    try:
        return await connect(current, runtime, traced=traced)
    except TemporalSettingsError as error:
        fail(str(error))
    except Exception:  # connect raises plain RuntimeErrors for every network failure
        _unreachable(current)


async def service_for(current: Settings) -> TemporalService:
    """The bare service, for a command that only reads a run; as `client_for` fails."""
    from signoff.config.temporal_service import connect_service
    from signoff.config.temporal_tls import TemporalSettingsError

    try:
        return await connect_service(current)
    except TemporalSettingsError as error:
        fail(str(error))
    except Exception:  # as connect: plain RuntimeErrors for every network failure
        _unreachable(current)


def _unreachable(current: Settings) -> NoReturn:
    fail(
        f"Cannot reach Temporal at {current.temporal_address} (namespace "
        f"'{current.temporal_namespace}'). Start it with `make demo` (or `signoff dev`), "
        "or point SIGNOFF_TEMPORAL_ADDRESS at a running server."
    )


def validation_message(error: ValidationError) -> str:
    """`field: what is wrong`, or, for a check on the whole value, what is wrong alone.
    A value that does not match one of our identifier patterns is told what the pattern
    asks, in words, and what it was."""
    parts = []
    for item in error.errors(include_url=False):
        where = ".".join(str(part) for part in item["loc"])
        what = str(item["msg"]).removeprefix("Value error, ")
        words = PATTERN_WORDS.get(str(item.get("ctx", {}).get("pattern", "")))
        if item["type"] == "string_pattern_mismatch" and words is not None:
            what = f"{words}; got {item['input']!r}"
        parts.append(f"{where}: {what}" if where else what)
    return "; ".join(parts)


def emit_json(document: BaseModel | dict[str, Any] | list[Any]) -> None:
    if isinstance(document, BaseModel):
        text = document.model_dump_json(indent=2)
    else:
        text = json.dumps(document, indent=2, default=str)
    typer.echo(in_json(text))


def say(text: str, *, err: bool = False) -> None:
    """Print a line (or lines) for a person: control and bidi characters from data come
    out as visible escapes (terminal_text.py)."""
    typer.echo(shown(text), err=err)
