"""The standing rules' match the hold brings (activities/hold_rules.py): asked by the run
when an action starts to wait, for an action a rule may approve, and never the hold's
failure when the store cannot answer it (on SQLite and PostgreSQL)."""

from __future__ import annotations

from sqlalchemy import Engine, create_engine

from activities.hold_rules import rules_for
from tests.clock import clock_now
from tests.rules import make_rule
from tests.store.proofs import PROOF_KEYS, PROOF_SIGNER, RUN_ID, proven_action
from workflows.actions import ActionHold, PendingAction
from workflows.rule_grant import RuleMatch

# Order C-2210 (ticket T-2210) was paid 45.00 EUR; the rule covers up to 50.00.
TICKET = "T-2210"


def hold_of(action: PendingAction, *, match_rules: bool) -> ActionHold:
    return ActionHold(
        run_id=RUN_ID, tenant_id="demo", ticket_id=TICKET, action=action, match_rules=match_rules
    )


def test_the_hold_answers_the_rules_only_when_the_run_asks(store: Engine) -> None:
    rule = make_rule(store, PROOF_SIGNER, max_amount="50.00")
    action = proven_action(store, 2000, ticket_id=TICKET)

    asked = rules_for(store, hold_of(action, match_rules=True), PROOF_KEYS, clock_now())
    escalated = rules_for(store, hold_of(action, match_rules=False), PROOF_KEYS, clock_now())

    assert asked.grant is not None and asked.grant.rule_id == rule.id
    assert escalated == RuleMatch()


def test_an_edit_an_approved_action_or_one_for_two_reviewers_is_never_matched(
    store: Engine,
) -> None:
    make_rule(store, PROOF_SIGNER, max_amount="50.00")
    action = proven_action(store, 2000, ticket_id=TICKET)
    edit = action.model_copy(update={"supersedes": "a" * 64})
    four_eyes = action.model_copy(update={"mode": "review", "required_approvals": 2})

    for unmatched in (edit, four_eyes):
        held = hold_of(unmatched, match_rules=True)
        assert rules_for(store, held, PROOF_KEYS, clock_now()) == RuleMatch()


def test_a_store_that_cannot_answer_the_match_leaves_the_action_to_a_reviewer(
    store: Engine,
) -> None:
    action = proven_action(store, 2000, ticket_id=TICKET)
    # A database without the rules' tables: the match's read fails.
    bare = create_engine("sqlite://")
    try:
        answer = rules_for(bare, hold_of(action, match_rules=True), PROOF_KEYS, clock_now())
    finally:
        bare.dispose()

    assert answer == RuleMatch()
