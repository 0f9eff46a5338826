"""The shop's records: tenants, orders, tickets, the refund ledger and reviewers
(SQLAlchemy, SQLite or PostgreSQL).

Design note. Each name is imported from its module when first asked for (PEP 562), not
when the package is: importing one module of the store (`waiting_pages`, for `signoff
pending`) runs this file first, and importing every module here cost such a command
half its start (passkeys, cryptography, the refund ledger). The table below is the
package's whole surface; mypy reads the same names from the TYPE_CHECKING imports.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

# Loaded with the package, whatever else is not: the tables declared beside schema.py
# (reviewers' ways in, tools and connectors, standing rules, Slack and e-mail links) share
# its `Base`, and `Base.metadata` must hold every table whichever module of the store a
# process imports first (create_all, the runtime grants).
from activities.store import account_schema as _account_schema  # noqa: F401
from activities.store import connector_schema as _connector_schema  # noqa: F401
from activities.store import insight_schema as _insight_schema  # noqa: F401
from activities.store import prompt_catalogs as _prompt_catalogs  # noqa: F401
from activities.store import rule_schema as _rule_schema  # noqa: F401
from activities.store import slack_schema as _slack_schema  # noqa: F401
from activities.store import started_runs as _started_runs  # noqa: F401

if TYPE_CHECKING:
    from activities.store.account_admin import (
        ADMIN_ROLE,
        LastAdministrator,
        NotAdministrator,
    )
    from activities.store.api_tokens import (
        Proof,
        check_token,
        token_reviewer,
        tokens_of,
    )
    from activities.store.credentials import (
        Credential,
        prove,
    )
    from activities.store.database import (
        make_engine,
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
    from activities.store.passwords import (
        WeakPassword,
        hash_password,
        verify_password,
    )
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
    from activities.store.reviewer_names import (
        reviewer_name_key,
    )
    from activities.store.reviewers import (
        ReviewerExists,
        UnknownReviewer,
        get_reviewer,
    )
    from activities.store.rule_schema import (
        StandingRule,
    )
    from activities.store.schema import (
        Order,
        Refund,
        Reviewer,
        Tenant,
        Ticket,
    )
    from activities.store.seed import (
        SeedReport,
        demo_password,
        seed_demo,
        seed_store,
    )
    from activities.store.slack_schema import (
        EmailLink,
        SlackLink,
    )
    from activities.store.tickets import (
        add_ticket,
        get_order,
        get_ticket,
        get_tickets,
        tenant_exists,
    )
    from activities.store.token_admin import (
        UnknownToken,
        issue_token,
        listed_tokens,
        revoke_token,
        revoke_tokens,
    )
    from activities.store.ui_sessions import (
        end_session,
        session_reviewer,
        start_session,
    )

# Where each name lives.
_HOMES = {
    "ADMIN_ROLE": "activities.store.account_admin",
    "LastAdministrator": "activities.store.account_admin",
    "NotAdministrator": "activities.store.account_admin",
    "Proof": "activities.store.api_tokens",
    "check_token": "activities.store.api_tokens",
    "token_reviewer": "activities.store.api_tokens",
    "tokens_of": "activities.store.api_tokens",
    "Credential": "activities.store.credentials",
    "prove": "activities.store.credentials",
    "make_engine": "activities.store.database",
    "use_session": "activities.store.database",
    "write_transaction": "activities.store.database",
    "EmptyTicketText": "activities.store.errors",
    "StoreError": "activities.store.errors",
    "TicketTextTooLong": "activities.store.errors",
    "UnknownOrder": "activities.store.errors",
    "UnknownTenant": "activities.store.errors",
    "WeakPassword": "activities.store.passwords",
    "hash_password": "activities.store.passwords",
    "verify_password": "activities.store.passwords",
    "execute_refund": "activities.store.refunds",
    "list_refunds": "activities.store.refunds",
    "read_action_state": "activities.store.refunds",
    "refund_by_key": "activities.store.refunds",
    "FirstAccountNotAdministrator": "activities.store.reviewer_accounts",
    "add_reviewer": "activities.store.reviewer_accounts",
    "change_roles": "activities.store.reviewer_accounts",
    "set_active": "activities.store.reviewer_accounts",
    "set_password": "activities.store.reviewer_accounts",
    "reviewer_name_key": "activities.store.reviewer_names",
    "ReviewerExists": "activities.store.reviewers",
    "UnknownReviewer": "activities.store.reviewers",
    "get_reviewer": "activities.store.reviewers",
    "StandingRule": "activities.store.rule_schema",
    "Order": "activities.store.schema",
    "Refund": "activities.store.schema",
    "Reviewer": "activities.store.schema",
    "Tenant": "activities.store.schema",
    "Ticket": "activities.store.schema",
    "SeedReport": "activities.store.seed",
    "demo_password": "activities.store.seed",
    "seed_demo": "activities.store.seed",
    "seed_store": "activities.store.seed",
    "EmailLink": "activities.store.slack_schema",
    "SlackLink": "activities.store.slack_schema",
    "add_ticket": "activities.store.tickets",
    "get_order": "activities.store.tickets",
    "get_ticket": "activities.store.tickets",
    "get_tickets": "activities.store.tickets",
    "tenant_exists": "activities.store.tickets",
    "UnknownToken": "activities.store.token_admin",
    "issue_token": "activities.store.token_admin",
    "listed_tokens": "activities.store.token_admin",
    "revoke_token": "activities.store.token_admin",
    "revoke_tokens": "activities.store.token_admin",
    "end_session": "activities.store.ui_sessions",
    "session_reviewer": "activities.store.ui_sessions",
    "start_session": "activities.store.ui_sessions",
}

__all__ = [
    "ADMIN_ROLE",
    "Credential",
    "EmailLink",
    "EmptyTicketText",
    "FirstAccountNotAdministrator",
    "LastAdministrator",
    "NotAdministrator",
    "Order",
    "Proof",
    "Refund",
    "Reviewer",
    "ReviewerExists",
    "SeedReport",
    "SlackLink",
    "StandingRule",
    "StoreError",
    "Tenant",
    "Ticket",
    "TicketTextTooLong",
    "UnknownOrder",
    "UnknownReviewer",
    "UnknownTenant",
    "UnknownToken",
    "WeakPassword",
    "add_reviewer",
    "add_ticket",
    "change_roles",
    "check_token",
    "demo_password",
    "end_session",
    "execute_refund",
    "get_order",
    "get_reviewer",
    "get_ticket",
    "get_tickets",
    "hash_password",
    "issue_token",
    "list_refunds",
    "listed_tokens",
    "make_engine",
    "prove",
    "read_action_state",
    "refund_by_key",
    "reviewer_name_key",
    "revoke_token",
    "revoke_tokens",
    "seed_demo",
    "seed_store",
    "session_reviewer",
    "set_active",
    "set_password",
    "start_session",
    "tenant_exists",
    "token_reviewer",
    "tokens_of",
    "use_session",
    "verify_password",
    "write_transaction",
]


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(home), name)
    globals()[name] = value  # found once; the next look-up is a plain global
    return value
