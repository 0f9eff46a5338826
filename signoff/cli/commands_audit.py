"""`signoff audit list`, `verify`, `heads` and `prompt`: the store's decision audit, read
and checked from the command line, with no Temporal needed.

`verify` checks each reviewer decision's signature (`activities/store/audit_proofs.py`),
and that the order and amount its row shows are those of the action it signed
(`activities/store/audit_actions.py`), and walks each tenant's hash chain
(`activities/store/decision_chain.py`): exit 0 with a summary when every chain holds,
exit 1 naming, per broken tenant, the first row that was altered, deleted before, or
rewritten. `heads` exports each chain's head, signed with the decision key; `verify
--expect-heads FILE` also fails (exit 1) naming the tenant and seq of each saved head
the store no longer matches: a chain rewritten and rehashed by someone with write
access, or rows removed up to a head. `prompt` shows what a run's model was offered:
its prompt catalog, hashed again.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated

import typer

from signoff.cli.store import opened_store
from signoff.cli.support import EXIT_RUN_FAILED, JsonOption, emit_json, fail, say, settings
from signoff.cli.terminal_text import one_line
from signoff.config.decision_keys import (
    DecisionKeyError,
    load_audit_keys,
    load_signer,
    load_verification_keys,
)
from signoff.config.decision_signatures import AuditKeys, DecisionSigner, VerificationKeys
from signoff.config.settings import Settings
from signoff.service.audit import (
    AuditQuery,
    CatalogMissing,
    CatalogTampered,
    ChainReport,
    NoKeysToCheck,
    ProofReport,
    UnprovenDecision,
    audit_page,
    read_prompt_catalog,
    unproven_decisions,
    verify_chain,
)
from signoff.service.audit_heads import (
    ChainHead,
    HeadProblem,
    HeadsFileInvalid,
    HeadsSignatureInvalid,
    head_problems,
    read_heads_file,
    signed_heads,
)
from signoff.service.shop import tenant_exists
from signoff.service.store import Store

audit = typer.Typer(help="The decision audit: every decision, from the store, tamper-evident.")
TenantFilter = Annotated[str | None, typer.Option(help="Only this tenant (default: all).")]
LIST_DEFAULT = 50
# The amount column of a row whose shown order and amount are not its action's.
UNPROVEN = "unproven"


def register(app: typer.Typer) -> None:
    app.add_typer(audit, name="audit")


def _known(engine: Store, tenant: str) -> None:
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
                        # Why the order and amount above are not the signed action's.
                        "not_proven": row.values_problem,
                    }
                    for row in page.rows
                ],
            }
        )
        return
    say(f"{page.total} decision(s) of tenant {tenant}, newest first:")
    for row in page.rows:
        amount = f"{row.amount} {row.currency}" if row.amount is not None else "-"
        reason = one_line(row.reason)
        if row.values_problem is not None:
            # What the row shows is not what its decision names: never show it as decided.
            amount, reason = UNPROVEN, f"NOT PROVEN: {one_line(row.values_problem)}"
        say(
            f"{row.decided_at:%Y-%m-%d %H:%M:%S}  {row.kind:<14} {row.reviewer_id or '-':<12} "
            f"{amount:<12} {row.run_id}  {reason}"
        )


ExpectHeads = Annotated[
    Path | None,
    typer.Option(
        "--expect-heads",
        help="A file from `signoff audit heads`: also fail when a head it holds is no "
        "longer in the chain (rows rewritten and rehashed, or removed).",
    ),
]


NoSignatures = Annotated[
    bool,
    typer.Option(
        "--no-signatures",
        help="Check the hash chains only, not each reviewer decision's signature (for a "
        "host without the decision service's public keys).",
    ),
]


@audit.command("verify")
def verify_command(
    tenant: TenantFilter = None,
    expect_heads: ExpectHeads = None,
    no_signatures: NoSignatures = False,
    json_output: JsonOption = False,
) -> None:
    """Check the audit: the hash chains (exit 1 naming the first altered row) and each
    reviewer decision's signature (exit 1 naming each decision it does not prove)."""
    current = settings()
    saved = None if expect_heads is None else _saved_heads(current, expect_heads)
    keys = None if no_signatures else _audit_keys(current)
    with opened_store(current) as engine:
        if tenant is not None:
            _known(engine, tenant)
        report = verify_chain(engine, tenant)
        wanted = [head for head in saved or [] if tenant in (None, head.tenant_id)]
        problems = head_problems(engine, wanted, report)  # report: every tenant wanted
        proofs = None if no_signatures else _proofs(engine, keys, tenant)
    unproven = [] if proofs is None else proofs.unproven
    if json_output:
        emit_json(_as_json(report, problems, None if saved is None else len(wanted), proofs))
    elif report.intact and not problems and not unproven:
        counts = ", ".join(f"{name}: {count}" for name, count in sorted(report.rows.items()))
        say(
            f"audit intact: {sum(report.rows.values())} decision(s) in "
            f"{len(report.rows)} tenant chain(s)" + (f" ({counts})" if counts else "")
        )
        if saved is not None:
            say(f"every saved head holds: {len(wanted)} head(s) from {expect_heads}")
        if proofs is not None:
            say(f"every reviewer decision is signed: {proofs.checked} checked")
            if proofs.not_covered:
                say(_not_covered(proofs))
    else:
        for link in report.broken:
            say(
                f"audit broken: tenant {link.tenant_id}, row id {link.row_id} (seq {link.seq}, "
                f"decided {link.decided_at:%Y-%m-%d %H:%M:%S} UTC): {link.why}",
                err=True,
            )
        for problem in problems:
            say(f"saved head not matched: {problem.sentence()}", err=True)
        for row in unproven:
            say(
                f"decision not proven: tenant {row.tenant_id}, row id {row.row_id} (seq "
                f"{row.seq}, {row.kind} by {row.reviewer_id or '-'}, decided "
                f"{row.decided_at:%Y-%m-%d %H:%M:%S} UTC): {row.why}",
                err=True,
            )
    if not report.intact or problems or unproven:
        raise typer.Exit(EXIT_RUN_FAILED)


def _not_covered(proofs: ProofReport) -> str:
    seqs: dict[str, list[int]] = {}
    for row in proofs.not_covered:
        seqs.setdefault(row.tenant_id, []).append(row.seq)
    rows = "; ".join(
        f"tenant {tenant}: {len(found)} row(s), seq {min(found)} to {max(found)}"
        for tenant, found in sorted(seqs.items())
    )
    return (
        f"{len(proofs.not_covered)} of them not covered (written before decisions kept their "
        f"action: the order and amount they show are not proven): {rows}"
    )


@audit.command("heads")
def heads_command(
    tenant: TenantFilter = None,
    output: Annotated[
        Path | None,
        typer.Option(help="Write the signed heads here (default: print them on stdout)."),
    ] = None,
) -> None:
    """Export each tenant chain's head (seq, row hash), signed; keep it out of the database."""
    current = settings()
    signer = _decision_signer(current)
    with opened_store(current) as engine:
        if tenant is not None:
            _known(engine, tenant)
        report = verify_chain(engine, tenant)
    if not report.intact:
        # A head of a broken chain would vouch for the tampering: none is signed.
        for link in report.broken:
            say(f"audit broken: tenant {link.tenant_id}, seq {link.seq}: {link.why}", err=True)
        fail("No heads were exported: the audit is broken (see above).", EXIT_RUN_FAILED)
    text = json.dumps(signed_heads(report, datetime.now(UTC), signer), indent=2) + "\n"
    if output is None:
        typer.echo(text, nl=False)
        return
    try:
        output.write_text(text, encoding="utf-8")
    except OSError as error:
        fail(f"Cannot write {output}: {error.strerror}. Choose another --output.")
    say(f"{len(report.heads)} head(s) written to {output}")


def _decision_signer(current: Settings) -> DecisionSigner:
    """The decision service's signing key: heads are signed where decisions are."""
    try:
        return load_signer(current)
    except DecisionKeyError as error:
        fail(f"{error} Export the heads on the decision service's host (the reviewer UI's).")


def _audit_keys(current: Settings) -> AuditKeys | DecisionKeyError:
    try:
        return load_audit_keys(current)
    except DecisionKeyError as error:
        return error  # fatal only if there are decisions to check (_proofs)


def _proofs(
    engine: Store, keys: AuditKeys | DecisionKeyError | None, tenant: str | None
) -> ProofReport:
    try:
        return unproven_decisions(engine, None if isinstance(keys, Exception) else keys, tenant)
    except NoKeysToCheck:
        fail(f"{keys} Or pass --no-signatures to check the hash chains only.")


def _public_keys(current: Settings) -> VerificationKeys:
    try:
        return load_verification_keys(current)
    except DecisionKeyError as error:
        fail(str(error))


def _saved_heads(current: Settings, path: Path) -> list[ChainHead]:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        fail(f"Cannot read the heads file {path}. Give the file `signoff audit heads` wrote.")
    try:
        return read_heads_file(text, _public_keys(current))
    except HeadsFileInvalid as error:
        fail(f"{path}: {error}.")
    except HeadsSignatureInvalid as error:
        fail(f"{path}: {error}.", EXIT_RUN_FAILED)


def _as_json(
    report: ChainReport, problems: list[HeadProblem], saved: int | None, proofs: ProofReport | None
) -> dict[str, object]:
    unproven = [] if proofs is None else proofs.unproven
    return {
        "intact": report.intact and not problems and not unproven,
        "signatures_checked": None if proofs is None else proofs.checked,
        "not_covered": [] if proofs is None else [_row_json(row) for row in proofs.not_covered],
        "unproven_decisions": [_row_json(row) for row in unproven],
        "chains_intact": report.intact,
        "rows": report.rows,
        "heads": report.heads,
        "saved_heads_checked": saved,
        "saved_heads_not_matched": [
            {"tenant_id": problem.tenant_id, "seq": problem.seq, "why": problem.why}
            for problem in problems
        ],
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


def _row_json(row: UnprovenDecision) -> dict[str, object]:
    return {
        "row_id": row.row_id,
        "tenant_id": row.tenant_id,
        "seq": row.seq,
        "kind": row.kind,
        "reviewer_id": row.reviewer_id,
        "why": row.why,
    }


@audit.command("prompt")
def prompt_command(
    digest: Annotated[
        str, typer.Argument(help="A run's prompt_digest (in its request, the first history event).")
    ],
    json_output: JsonOption = False,
) -> None:
    """Show what a run's model was offered: the system prompt and the tools of its prompt
    catalog, from the store, checked against the digest (exit 1 when the row was changed)."""
    with opened_store(settings()) as store:
        try:
            catalog = read_prompt_catalog(store, digest)
        except CatalogTampered as error:
            say(str(error), err=True)
            raise typer.Exit(EXIT_RUN_FAILED) from None
        except CatalogMissing as error:
            fail(str(error))
    if json_output:
        emit_json({"digest": digest, **catalog.model_dump(mode="json")})
        return
    say(f"prompt catalog {digest}: the stored text hashes to it")
    say("system prompt:")
    say("\n".join(f"  {line}" for line in catalog.system.splitlines()))
    say(f"tools offered ({len(catalog.tools)}): {', '.join(catalog.names()) or 'none'}")
