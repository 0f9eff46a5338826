"""`signoff rules add|list|revoke`: an administrator's standing rules (docs/standing-rules.md).

The CLI holds no decision key, and a rule is signed by the decision service: like
`approve`, these commands send the administrator's credential (`--as ADMIN`: their
API token from SIGNOFF_TOKEN or --token-stdin, else their password, asked or from
--password-stdin) and the request to the service's JSON API, which checks that they
administer the tenant, signs and stores. Bad input is exit 2 with what to change; a
refusal by the service is exit 2 with its words; a service that does not answer, 1.
"""

from __future__ import annotations

from http import HTTPStatus
from typing import Annotated, Any, NoReturn

import typer

from signoff.cli.decision_service import (
    NotThatReviewer,
    ServiceCredential,
    ServiceRefused,
    answer_of,
    service_session,
)
from signoff.cli.service_http import TransportError
from signoff.cli.service_proof import ServiceProof
from signoff.cli.support import (
    EXIT_RUN_FAILED,
    AsPasswordStdin,
    AsTokenStdin,
    JsonOption,
    emit_json,
    fail,
    say,
    settings,
)
from workflows.rule_ids import RULE_ID

rules = typer.Typer(
    help="Standing rules: approve a tool's actions ahead, bounded in time and uses."
)

AdminName = Annotated[
    str,
    typer.Option(
        "--as",
        help="The administrator (role `admin` of the tenant): their API token from "
        "SIGNOFF_TOKEN or --token-stdin, else their password (asked, or --password-stdin).",
    ),
]


def register(app: typer.Typer) -> None:
    app.add_typer(rules, name="rules")


@rules.command("add")
def add_command(
    admin: AdminName,
    tool: Annotated[str, typer.Option(help="The tool the rule approves, e.g. refund.")],
    lifetime: Annotated[str, typer.Option(help="How long it lives: 30m, 12h, 7d.")],
    max_uses: Annotated[int, typer.Option(help="How many actions it may approve.")],
    tenant: Annotated[
        str | None, typer.Option(help="The tenant (the administrator's own when left out).")
    ] = None,
    max_amount: Annotated[
        str | None, typer.Option(help="The largest amount it approves, e.g. 50.00.")
    ] = None,
    currency: Annotated[str | None, typer.Option(help="The amount's currency, e.g. EUR.")] = None,
    customer: Annotated[
        str | None, typer.Option(help="Only this customer's tickets (as the store names them).")
    ] = None,
    category: Annotated[
        str | None,
        typer.Option(
            help="Only actions whose category is this: the argument the tool's policy "
            "names in `category_argument`."
        ),
    ] = None,
    shadow: Annotated[
        bool, typer.Option("--shadow", help="Only record what it would have approved.")
    ] = False,
    password_stdin: AsPasswordStdin = False,
    token_stdin: AsTokenStdin = False,
    json_output: JsonOption = False,
) -> None:
    """Make a standing rule, signed by the decision service, as an administrator."""
    if max_uses < 1:
        fail(f"--max-uses must be at least 1, not {max_uses}. Nothing was changed.")
    body: dict[str, Any] = {
        "tool": tool,
        "tenant_id": tenant,
        "max_amount": max_amount,
        "currency": currency,
        "customer": customer,
        "category": category,
        "lifetime": lifetime,
        "max_uses": max_uses,
        "shadow": shadow,
    }
    rule = _ask(admin, ServiceProof(password_stdin, token_stdin), "POST", "/api/rules", body)
    if json_output:
        emit_json(rule)
        return
    say(f"{rule['id']} made: {_line(rule)}")
    say(f"`signoff rules revoke {rule['id']} --as {admin}` ends it at once.")


@rules.command("list")
def list_command(
    admin: AdminName,
    everything: Annotated[
        bool, typer.Option("--all", help="Revoked, expired and used-up rules too.")
    ] = False,
    password_stdin: AsPasswordStdin = False,
    token_stdin: AsTokenStdin = False,
    json_output: JsonOption = False,
) -> None:
    """List the tenant's standing rules, newest first (active ones unless --all)."""
    path = "/api/rules?all=true" if everything else "/api/rules"
    found = _ask(admin, ServiceProof(password_stdin, token_stdin), "GET", path)
    if json_output:
        emit_json(found)
        return
    if not found:
        say("No standing rules." if everything else "No active standing rules (--all shows all).")
    for rule in found:
        say(f"{rule['id']}  {rule['state']:<8}  {_line(rule)}")


def checked_rule_id(rule_id: str) -> str:
    """A typer callback: the rule's id in its own case, or a refusal before anything is
    asked (its password, the decision service)."""
    canonical = rule_id.strip().upper()
    if RULE_ID.fullmatch(canonical) is None:
        fail(
            f"{rule_id!r} is not a standing rule's id: one is SR- and ten hex digits, as "
            "`signoff rules list` shows it, e.g. SR-1A2B3C4D5E. Nothing was changed."
        )
    return canonical


@rules.command("revoke")
def revoke_command(
    rule_id: Annotated[
        str,
        typer.Argument(
            metavar="RULE",
            help="The rule's id, as `signoff rules list` shows it, e.g. SR-1A2B3C4D5E.",
            callback=checked_rule_id,
        ),
    ],
    admin: AdminName,
    password_stdin: AsPasswordStdin = False,
    token_stdin: AsTokenStdin = False,
    json_output: JsonOption = False,
) -> None:
    """Revoke a standing rule at once: it approves nothing from now on."""
    path = f"/api/rules/{rule_id}/revoke"
    rule = _ask(admin, ServiceProof(password_stdin, token_stdin), "POST", path, {})
    if json_output:
        emit_json(rule)
        return
    say(f"{rule['id']} revoked after {rule['uses']} of {rule['max_uses']} use(s).")


def _ask(
    admin: str, proof: ServiceProof, method: str, path: str, body: dict[str, Any] | None = None
) -> Any:
    current = settings()
    credential = proof.read(admin, current, "changed")
    url = current.resolved_decision_service_url
    try:
        with service_session(url, credential) as http:
            response = http.request(method, path, json=body)
            if response.is_success and isinstance(response.json(), list):
                return response.json()
            return answer_of(response)
    except NotThatReviewer:
        fail(f"That API token is not '{admin}''s (or was revoked). Nothing was changed.")
    except TransportError:
        fail(
            f"The decision service at {url} did not answer. Nothing was changed. Start it "
            "(`make demo`, or `signoff ui`), or set SIGNOFF_DECISION_SERVICE_URL.",
            EXIT_RUN_FAILED,
        )
    except ServiceRefused as refused:
        _refused(refused, credential)


def _refused(refused: ServiceRefused, credential: ServiceCredential) -> NoReturn:
    if refused.status_code == HTTPStatus.UNAUTHORIZED and not credential.is_token:
        fail(
            f"Wrong password for '{credential.reviewer_id}', or no such reviewer with a "
            "password. Nothing was changed."
        )
    if refused.status_code == HTTPStatus.TOO_MANY_REQUESTS or refused.status_code >= 500:
        fail(refused.detail, EXIT_RUN_FAILED)
    fail(refused.detail)


def _line(rule: dict[str, Any]) -> str:
    amount = f" up to {rule['max_amount']} {rule['currency']}" if rule["max_amount"] else ""
    scope = "".join(f" for {name} {rule[name]}" for name in ("customer", "category") if rule[name])
    mode = " (shadow)" if rule["shadow"] else ""
    return (
        f"{rule['tool']}{amount}{scope}, {rule['uses']}/{rule['max_uses']} use(s), until "
        f"{rule['expires_at']}, by {rule['created_by']}{mode}"
    )
