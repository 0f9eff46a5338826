"""Standing rules in the store: who may make and revoke one, what its signature covers,
and the effect's own check of a rule's grant, with the use it spends (on SQLite and
PostgreSQL)."""

from __future__ import annotations

import threading
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

import pytest
from sqlalchemy import Engine, select, update
from sqlalchemy.orm import Session

from activities.store.decision_queries import AuditQuery, audit_rows
from activities.store.effect_proofs import ProofCheck
from activities.store.refunds import answer_refund, list_refunds
from activities.store.rule_grants import match_rules
from activities.store.rule_schema import StandingRule, StandingRuleUse
from activities.store.schema import Reviewer
from signoff.service.handles import Store
from signoff.service.standing_rules import (
    InvalidRule,
    RuleAlreadyRevoked,
    RuleRefused,
    UnknownRule,
    revoke,
    rule_request,
    rules_of,
)
from tests.clock import clock_now
from tests.rules import LONGEST, add_admin, make_rule
from tests.store.proofs import PROOF_KEYS, PROOF_SIGNER, RUN_ID, proven_action, proven_command
from workflows.actions import PendingAction
from workflows.rule_contracts import RuleMatchRequest
from workflows.rule_grant import RuleGrant

# Order C-2210 (ticket T-2210, Lena Fischer) was paid 45.00 EUR; the threshold is 200.00.
TICKET = "T-2210"


def kinds(engine: Engine, tenant: str = "demo") -> list[str]:
    """The tenant's audit kinds, oldest first."""
    rows = audit_rows(engine, AuditQuery(tenant_id=tenant), batch=500)
    return [row.kind for row in reversed(rows)]


def granted(
    engine: Engine, amount_minor: int, rule_id: str, call: str = "call-1", ticket: str = TICKET
) -> PendingAction:
    """The action as the gate sends it after the match: carrying the rule's grant."""
    action = proven_action(engine, amount_minor, ticket_id=ticket, call_id=call)
    match = match_rules(
        engine,
        RuleMatchRequest(run_id=RUN_ID, tenant_id="demo", ticket_id=ticket, action=action),
        PROOF_KEYS,
        clock_now(),
    )
    assert match.grant is not None and match.grant.rule_id == rule_id, match
    return action.model_copy(update={"rule_grant": match.grant})


def effect(engine: Engine, action: PendingAction) -> tuple[str, str]:
    answer = answer_refund(engine, proven_command(action, []), ProofCheck(PROOF_KEYS, RUN_ID))
    return answer.result.status, answer.result.message


def test_an_administrator_makes_a_signed_rule_and_the_audit_says_so(store: Engine) -> None:
    rule = make_rule(store, PROOF_SIGNER)

    assert (rule.tool, rule.max_amount, rule.currency, rule.max_uses) == (
        "refund",
        "50.00",
        "EUR",
        5,
    )
    assert (rule.created_by, rule.state, rule.uses) == ("admin", "active", 0)
    assert [r.id for r in rules_of(Store(store), "demo")] == [rule.id]
    assert rules_of(Store(store), "globex") == []
    assert kinds(store)[-1] == "rule_created"


def test_a_reviewer_who_is_no_administrator_is_refused_and_the_attempt_is_audited(
    store: Engine,
) -> None:
    with pytest.raises(RuleRefused, match="'alice' is not an administrator"):
        make_rule(store, PROOF_SIGNER, admin="alice")

    assert rules_of(Store(store), "demo", everything=True) == []
    assert kinds(store)[-1] == "rule_refused"


def test_an_administrator_of_another_tenant_is_refused_in_the_rules_tenant(store: Engine) -> None:
    add_admin(store, "globex", "gadmin")

    with pytest.raises(RuleRefused, match="administrator of another tenant"):
        make_rule(store, PROOF_SIGNER, admin="gadmin")  # a rule of demo
    made = make_rule(store, PROOF_SIGNER, admin="admin")
    with pytest.raises(UnknownRule):  # demo's rule is not found from globex
        revoke(Store(store), "gadmin", "globex", made.id)
    with pytest.raises(RuleRefused):
        revoke(Store(store), "gadmin", "demo", made.id)

    assert [r.id for r in rules_of(Store(store), "demo")] == [made.id]
    assert kinds(store).count("rule_refused") == 2  # both attempts on demo, in demo's audit


def test_revoke_is_immediate_and_only_once(store: Engine) -> None:
    rule = make_rule(store, PROOF_SIGNER)
    with pytest.raises(RuleRefused):
        revoke(Store(store), "alice", "demo", rule.id)

    revoked = revoke(Store(store), "admin", "demo", rule.id)
    with pytest.raises(RuleAlreadyRevoked):
        revoke(Store(store), "admin", "demo", rule.id)

    assert (revoked.state, revoked.revoked_by) == ("revoked", "admin")
    assert rules_of(Store(store), "demo") == []
    assert [r.state for r in rules_of(Store(store), "demo", everything=True)] == ["revoked"]
    assert kinds(store)[-1] == "rule_revoked"


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"tool": "refnd"}, "not an irreversible tool"),
        ({"tool": "lookup_order"}, "not an irreversible tool"),
        ({"max_amount": None, "currency": None}, "needs a maximum amount"),
        ({"currency": None}, "needs its currency"),
        ({"currency": "euro"}, "'EURO' is not the ISO 4217 code of a currency in use"),
        ({"currency": "XXX"}, "'XXX' is not the ISO 4217 code"),
        ({"currency": "xts"}, "'XTS' is not the ISO 4217 code"),
        ({"currency": "XAU"}, "'XAU' is not the ISO 4217 code"),
        ({"customer": "Kim\x00"}, "The customer holds a NUL byte"),
        ({"category": "damaged\x00"}, "The category holds a NUL byte"),
        ({"max_amount": "12.345"}, "at most 2 decimals"),
        ({"max_amount": "-5"}, "more than zero"),
        ({"max_amount": "ten"}, "not an amount"),
        ({"lifetime": "7 weeks"}, "not a lifetime"),
        ({"lifetime": "0d"}, "not a lifetime"),
        ({"lifetime": "91d"}, "at most 90 day"),
        ({"max_uses": 0}, "at least 1"),
    ],
)
def test_bad_input_says_what_to_change(changes: dict[str, object], message: str) -> None:
    asked: dict[str, object] = {
        "tenant_id": "demo",
        "tool": "refund",
        "max_amount": "50.00",
        "currency": "EUR",
        "customer": None,
        "category": None,
        "lifetime": "7d",
        "max_uses": 5,
        "shadow": False,
    }
    asked.update(changes)
    with pytest.raises(InvalidRule, match=message):
        rule_request(**asked, now=clock_now(), longest_lifetime=LONGEST)  # type: ignore[arg-type]


def test_a_rule_approves_a_covered_refund_and_spends_one_use_with_it(store: Engine) -> None:
    rule = make_rule(store, PROOF_SIGNER, max_uses=1)

    first = granted(store, 2000, rule.id)
    status, message = effect(store, first)
    retried = effect(store, first)  # a retried activity: its use is spent already
    second = proven_action(store, 1000, ticket_id=TICKET, call_id="call-2")
    refused = effect(store, second.model_copy(update={"rule_grant": first.rule_grant}))

    assert status == "refunded", message
    assert retried[0] == "refunded" and "Already done" in retried[1]
    (row,) = list_refunds(store, "demo", "C-2210")
    assert (row.amount_minor, row.approver_list) == (2000, [f"rule:{rule.id}"])
    with Session(store) as session:
        stored = session.get(StandingRule, rule.id)
        assert stored is not None and stored.uses == 1
        assert session.scalars(select(StandingRuleUse.rule_id)).all() == [rule.id]
    assert refused[0] == "approver_invalid"
    assert "has used all its 1 use(s)" in refused[1] and "waits for a reviewer" in refused[1]
    assert kinds(store)[-3:] == ["rule_used", "executed", "refused"]


def test_a_rule_never_covers_more_than_its_amount_another_currency_or_customer(
    store: Engine,
) -> None:
    make_rule(store, PROOF_SIGNER, max_amount="10.00")
    make_rule(store, PROOF_SIGNER, max_amount="40.00", currency="USD")
    make_rule(store, PROOF_SIGNER, max_amount="40.00", customer="Marie Dupont")
    action = proven_action(store, 2000, ticket_id=TICKET)
    request = RuleMatchRequest(run_id=RUN_ID, tenant_id="demo", ticket_id=TICKET, action=action)

    assert match_rules(store, request, PROOF_KEYS, clock_now()).grant is None
    lena = make_rule(store, PROOF_SIGNER, max_amount="40.00", customer="lena fischer")
    match = match_rules(store, request, PROOF_KEYS, clock_now())
    assert match.grant is not None and match.grant.rule_id == lena.id


def test_a_rule_row_edited_in_the_database_no_longer_verifies(store: Engine) -> None:
    rule = make_rule(store, PROOF_SIGNER, max_amount="10.00")
    action = proven_action(store, 2000, ticket_id=TICKET)
    with Session(store) as session, session.begin():
        session.execute(
            update(StandingRule).where(StandingRule.id == rule.id).values(max_amount_minor=5000)
        )
    request = RuleMatchRequest(run_id=RUN_ID, tenant_id="demo", ticket_id=TICKET, action=action)

    assert match_rules(store, request, PROOF_KEYS, clock_now()).grant is None
    with Session(store) as session:
        row = session.get(StandingRule, rule.id)
        assert row is not None
        forged = RuleGrant(
            rule_id=row.id, created_by=row.created_by, key_id=row.key_id, signature=row.signature
        )
    status, message = effect(store, action.model_copy(update={"rule_grant": forged}))
    assert status == "approver_invalid"
    assert "does not verify: its row was changed" in message
    assert list_refunds(store, "demo", "C-2210") == []


def test_a_revoked_or_expired_rule_is_refused_at_the_effect(store: Engine) -> None:
    revoked = make_rule(store, PROOF_SIGNER)
    action = granted(store, 2000, revoked.id)
    revoke(Store(store), "admin", "demo", revoked.id)
    status, message = effect(store, action)
    assert status == "approver_invalid" and f"{revoked.id} was revoked by admin" in message

    past = clock_now() - timedelta(days=8)  # made 8 days ago for 7 days
    expired = make_rule(store, PROOF_SIGNER, now=past)
    request = RuleMatchRequest(
        run_id=RUN_ID,
        tenant_id="demo",
        ticket_id=TICKET,
        action=action.model_copy(update={"rule_grant": None}),
    )
    assert match_rules(store, request, PROOF_KEYS, clock_now()).grant is None
    with Session(store) as session:
        row = session.get(StandingRule, expired.id)
        assert row is not None
        grant = RuleGrant(
            rule_id=row.id, created_by=row.created_by, key_id=row.key_id, signature=row.signature
        )
    status, message = effect(store, action.model_copy(update={"rule_grant": grant}))
    assert status == "approver_invalid" and "expired" in message
    assert list_refunds(store, "demo", "C-2210") == []


def test_a_shadow_rule_is_listed_as_shadow_and_approves_nothing_at_the_effect(
    store: Engine,
) -> None:
    rule = make_rule(store, PROOF_SIGNER, shadow=True)
    action = proven_action(store, 2000, ticket_id=TICKET)
    request = RuleMatchRequest(run_id=RUN_ID, tenant_id="demo", ticket_id=TICKET, action=action)
    match = match_rules(store, request, PROOF_KEYS, clock_now())

    assert match.grant is None and [s.rule_id for s in match.shadows] == [rule.id]
    status, message = effect(store, action.model_copy(update={"rule_grant": match.shadows[0]}))
    assert status == "approver_invalid" and "shadow rule" in message


def test_a_grant_with_a_reviewer_approval_riding_along_is_refused(store: Engine) -> None:
    rule = make_rule(store, PROOF_SIGNER)
    action = granted(store, 2000, rule.id)
    command = proven_command(action, []).model_copy(update={"approvers": ["alice"]})

    answer = answer_refund(store, command, ProofCheck(PROOF_KEYS, RUN_ID))
    assert answer.result.status == "refused"
    assert "names the rule alone as approver" in answer.result.message


def test_an_administrator_disabled_since_voids_the_rules_they_made(store: Engine) -> None:
    rule = make_rule(store, PROOF_SIGNER)
    action = granted(store, 2000, rule.id)
    add_admin(store, "demo", "admin2")  # the last administrator cannot be disabled
    with Session(store) as session, session.begin():
        admin = session.get(Reviewer, "admin")
        assert admin is not None
        admin.active = False

    status, message = effect(store, action)
    assert status == "approver_invalid" and "no longer counts" in message


def test_refunds_of_three_orders_racing_for_a_rules_last_use_make_one(store: Engine) -> None:
    """Different orders take different order locks: only the rule's own row lock (and
    SQLite's one writer) keeps its last use from being spent twice."""
    rule = make_rule(store, PROOF_SIGNER, max_uses=1)
    tickets = ("T-1042", "T-2210", "T-3107")
    actions = [granted(store, 2000, rule.id, ticket=ticket) for ticket in tickets]
    start = threading.Barrier(len(actions))

    def contend(ticket: str, action: PendingAction) -> str:
        command = proven_command(action, [], ticket_id=ticket)
        start.wait()
        return answer_refund(store, command, ProofCheck(PROOF_KEYS, RUN_ID)).result.status

    with ThreadPoolExecutor(max_workers=len(actions)) as pool:
        statuses = Counter(pool.map(contend, tickets, actions))

    assert statuses == Counter({"refunded": 1, "approver_invalid": 2})
    with Session(store) as session:
        stored = session.get(StandingRule, rule.id)
        assert stored is not None and stored.uses == 1
        assert len(session.scalars(select(StandingRuleUse)).all()) == 1
