"""`signoff audit list` and `signoff audit verify`: the store's decision audit, read and
checked from the command line, with no Temporal needed.

`verify` walks each tenant's hash chain (`activities/store/decision_chain.py`): exit 0
with a summary when every chain holds, exit 1 naming, per broken tenant, the first row
that was altered, deleted before, or rewritten.
"""

from __future__ import annotations

from typing import Annotated

import typer

from signoff.cli.store import opened_store
from signoff.cli.support import EXIT_RUN_FAILED, JsonOption, emit_json, fail, say, settings
from signoff.service.audit import AuditQuery, ChainReport, audit_page, verify_chain
from signoff.service.shop import tenant_exists
from signoff.service.store import Engine

audit = typer.Typer(help="The decision audit: every decision, from the store, tamper-evident.")
TenantFilter = Annotated[str | None, typer.Option(help="Only this tenant (default: all).")]
LIST_DEFAULT = 50


def register(app: typer.Typer) -> None:
    app.add_typer(audit, name="audit")


def _known(engine: Engine, tenant: str) -> None:
    if not tenant_exists(engine, tenant):
        fail(f"Tenant '{tenant}' does not exist. Check --tenant.")


@audit.command("list")
def list_command(
    tenant: Annotated[str, typer.Option(help="The tenant whose decisions to list.")],
    limit: Annotated[int, typer.Option(min=1, help="How many, newest first.")] = LIST_DEFAULT,
    json_output: JsonOption = False,
) -> None:
    """List a tenant's newest decisions from the store's audit."""
    with opened_store(settings()) as engine:
        _known(engine, tenant)
        page = audit_page(engine, AuditQuery(tenant), limit=limit)
    if json_output:
        emit_json(
            {
                "total": page.total,
                "items": [
                    {
                        "id": row.id,
                        "seq": row.seq,
                        "kind": row.kind,
                        "decided_at": row.decided_at.isoformat(),
                        "reviewer_id": row.reviewer_id,
                        "run_id": row.run_id,
                        "action_hash": row.action_hash,
                        "amount": None if row.amount is None else str(row.amount),
                        "currency": row.currency,
                        "order_id": row.order_id,
                        "refund_id": row.refund_id,
                        "reason": row.reason,
                    }
                    for row in page.rows
                ],
            }
        )
        return
    say(f"{page.total} decision(s) of tenant {tenant}, newest first:")
    for row in page.rows:
        amount = f"{row.amount} {row.currency}" if row.amount is not None else "-"
        say(
            f"{row.decided_at:%Y-%m-%d %H:%M:%S}  {row.kind:<14} {row.reviewer_id or '-':<12} "
            f"{amount:<12} {row.run_id}  {row.reason}"
        )


@audit.command("verify")
def verify_command(tenant: TenantFilter = None, json_output: JsonOption = False) -> None:
    """Check the audit's hash chains: exit 0 when intact, 1 naming the first altered row."""
    with opened_store(settings()) as engine:
        if tenant is not None:
            _known(engine, tenant)
        report = verify_chain(engine, tenant)
    if json_output:
        emit_json(_as_json(report))
    elif report.intact:
        counts = ", ".join(f"{name}: {count}" for name, count in sorted(report.rows.items()))
        say(
            f"audit intact: {sum(report.rows.values())} decision(s) in "
            f"{len(report.rows)} tenant chain(s)" + (f" ({counts})" if counts else "")
        )
    else:
        for link in report.broken:
            say(
                f"audit broken: tenant {link.tenant_id}, row id {link.row_id} (seq {link.seq}, "
                f"decided {link.decided_at:%Y-%m-%d %H:%M:%S} UTC): {link.why}",
                err=True,
            )
    if not report.intact:
        raise typer.Exit(EXIT_RUN_FAILED)


def _as_json(report: ChainReport) -> dict[str, object]:
    return {
        "intact": report.intact,
        "rows": report.rows,
        "heads": report.heads,
        "broken": [
            {
                "row_id": link.row_id,
                "tenant_id": link.tenant_id,
                "seq": link.seq,
                "decided_at": link.decided_at.isoformat(),
                "why": link.why,
            }
            for link in report.broken
        ],
    }
