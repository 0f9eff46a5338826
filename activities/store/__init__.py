"""The shop's records: tenants, orders, tickets, the refund ledger and reviewers
(SQLAlchemy, SQLite or PostgreSQL)."""

from __future__ import annotations

from activities.store.account_admin import ADMIN_ROLE, LastAdministrator, NotAdministrator
from activities.store.api_tokens import Proof, check_token, token_reviewer, tokens_of
from activities.store.credentials import Credential, prove
from activities.store.database import (
    make_engine,
    session_factory,
    use_session,
    write_transaction,
)
from activities.store.errors import (
    EmptyTicketText,
    StoreError,
    TicketTextTooLong,
    UnknownOrder,
    UnknownTenant,
)
from activities.store.passwords import WeakPassword, hash_password, verify_password
from activities.store.refunds import (
    execute_refund,
    list_refunds,
    read_action_state,
    refund_by_key,
)
from activities.store.reviewer_accounts import (
    FirstAccountNotAdministrator,
    add_reviewer,
    change_roles,
    set_active,
    set_password,
)
from activities.store.reviewer_names import reviewer_name_key
from activities.store.reviewers import ReviewerExists, UnknownReviewer, get_reviewer
from activities.store.rule_schema import StandingRule  # in Base.metadata
from activities.store.schema import Order, Refund, Reviewer, Tenant, Ticket
from activities.store.seed import SeedReport, demo_password, seed_demo, seed_store
from activities.store.slack_schema import EmailLink, SlackLink  # in Base.metadata
from activities.store.tickets import (
    add_ticket,
    get_order,
    get_order_for_ticket,
    get_ticket,
    get_tickets,
    tenant_exists,
)
from activities.store.token_admin import UnknownToken, issue_token, revoke_token, revoke_tokens
from activities.store.ui_sessions import end_session, session_reviewer, start_session

__all__ = [
    "ADMIN_ROLE",
    "Credential",
    "EmailLink",
    "FirstAccountNotAdministrator",
    "LastAdministrator",
    "NotAdministrator",
    "Proof",
    "StandingRule",
    "UnknownToken",
    "check_token",
    "prove",
    "SlackLink",
    "revoke_tokens",
    "tokens_of",
    "EmptyTicketText",
    "Order",
    "Refund",
    "Reviewer",
    "ReviewerExists",
    "SeedReport",
    "StoreError",
    "Tenant",
    "Ticket",
    "TicketTextTooLong",
    "UnknownOrder",
    "UnknownReviewer",
    "UnknownTenant",
    "WeakPassword",
    "add_reviewer",
    "add_ticket",
    "change_roles",
    "end_session",
    "execute_refund",
    "get_order",
    "get_order_for_ticket",
    "demo_password",
    "get_reviewer",
    "get_ticket",
    "get_tickets",
    "hash_password",
    "issue_token",
    "list_refunds",
    "make_engine",
    "read_action_state",
    "refund_by_key",
    "reviewer_name_key",
    "revoke_token",
    "seed_demo",
    "seed_store",
    "session_factory",
    "session_reviewer",
    "set_active",
    "set_password",
    "start_session",
    "tenant_exists",
    "token_reviewer",
    "use_session",
    "verify_password",
    "write_transaction",
]
