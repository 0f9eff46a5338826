"""Refund policies of N of M, chains and escalation, on the built-in profile, and the
reviewers who hold the roles they name (added to the seeded store).
"""

from __future__ import annotations

import re
from pathlib import Path

from sqlalchemy import Engine

from activities.store.database import write_transaction
from activities.store.schema import Reviewer
from signoff.config.profiles import BUILTIN_PROFILES, LoadedProfiles, load_profile_file

REFUND_BLOCK = re.compile(
    r"\[agents\.support\.tool_policy\.refund\].*?(?=\[agents\.support\.tool_policy\.send_reply\])",
    re.S,
)
THREE_WITH_FINANCE = """
approval = "review"
approvals = 3
one_from = "finance"
approver_roles = ["refund_approver"]
"""
CHAIN = """
approval = "review"
chain = ["support_lead", "finance"]
approver_roles = ["refund_approver"]
"""
ESCALATES = """
approval = "confirm"
approval_ttl = "2h"
approver_roles = ["refund_approver"]
on_expiry = "escalate"
escalate_to = "support_lead"
escalation_ttl = "4h"
max_escalations = 1
"""
# Who holds which role, beside the seeded alice and bob (refund_approver).
TEAM = {
    "erin": "refund_approver,finance",
    "frank": "support_lead",
    "gina": "finance",
    "hank": "refund_approver",
}


def refund_policy(tmp_path: Path, policy: str) -> LoadedProfiles:
    """The built-in profile with `policy` as the refund's (its keys, without a table)."""
    text = BUILTIN_PROFILES.read_text(encoding="utf-8")
    block = f'[agents.support.tool_policy.refund]\nrisk = "irreversible"\n{policy}\n'
    path = tmp_path / "team_profiles.toml"
    path.write_text(REFUND_BLOCK.sub(lambda _: block, text), encoding="utf-8")
    return load_profile_file(path)


def add_team(engine: Engine) -> None:
    with write_transaction(engine) as session:
        for reviewer_id, roles in TEAM.items():
            session.add(
                Reviewer(
                    id=reviewer_id,
                    tenant_id="demo",
                    display_name=reviewer_id.title(),
                    roles=roles,
                    password_hash=None,
                )
            )
