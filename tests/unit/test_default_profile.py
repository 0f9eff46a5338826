"""The built-in profile is today's support agent: every value is the code's own, so that
`make demo` and the docs' first run work unchanged once runs take their profile."""

from __future__ import annotations

import tomllib
from decimal import Decimal
from fnmatch import fnmatch
from pathlib import Path

from activities.store.schema import DEFAULT_REFUND_REVIEW_THRESHOLD_MINOR
from signoff.config.profiles import (
    BUILTIN_PROFILES,
    STRICT_PROFILES,
    load_profile_file,
    model_ref,
)
from signoff.config.run_limits import SECONDS_PER_MINUTE
from signoff.config.settings import Settings
from workflows.actions import REFUND_APPROVER_ROLE
from workflows.approval_policy import DEFAULT_APPROVAL_TTL
from workflows.known_tools import profile_risk
from workflows.policy import SYSTEM_PROMPT
from workflows.tool_catalog import ASK_CUSTOMER, CATALOG

REPO = Path(__file__).resolve().parents[2]


def test_the_built_in_agent_is_todays_support_agent() -> None:
    loaded = load_profile_file(BUILTIN_PROFILES)
    agent = loaded.profiles.agent()
    assert loaded.profiles.default_agent == "support"
    assert agent.system_prompt == SYSTEM_PROMPT
    # Every built-in tool but `ask_customer`, which a team turns on in its own profile
    # once its helpdesk sends the customers' answers to the intake.
    offered = {name: tool for name, tool in CATALOG.items() if name != ASK_CUSTOMER.name}
    assert list(agent.tools) == list(offered)
    for name, tool in offered.items():
        assert agent.policy(name).risk == profile_risk(tool)
    assert agent.tenants == {} and agent.roles == {}


def test_its_budgets_are_the_settings_defaults() -> None:
    settings = Settings()
    budget = load_profile_file(BUILTIN_PROFILES).profiles.agent().budget()
    assert budget.steps == Settings.model_fields["step_budget"].default
    assert budget.tokens == Settings.model_fields["token_budget"].default
    assert budget.cost_usd == Settings.model_fields["cost_budget_usd"].default
    deadline_minutes = Settings.model_fields["deadline_minutes"].default
    assert budget.deadline.total_seconds() == deadline_minutes * SECONDS_PER_MINUTE
    assert model_ref(load_profile_file(BUILTIN_PROFILES).profiles.agent(), settings) == (
        settings.default_model()
    )


def test_its_refund_policy_is_todays_gate() -> None:
    refund = load_profile_file(BUILTIN_PROFILES).profiles.agent().policy("refund")
    assert refund.approval == "confirm"  # one reviewer; two above the threshold
    assert refund.four_eyes_above == Decimal(DEFAULT_REFUND_REVIEW_THRESHOLD_MINOR) / 100
    assert refund.approval_ttl == DEFAULT_APPROVAL_TTL
    assert refund.approver_roles == (REFUND_APPROVER_ROLE,)
    assert refund.editable == ("amount",)


def test_it_sends_replies_without_a_reviewer_and_the_strict_profile_with_one() -> None:
    built_in = load_profile_file(BUILTIN_PROFILES).profiles.agent()
    reply = built_in.policy("send_reply")
    assert (reply.risk, reply.approval) == ("irreversible", "auto")
    strict = load_profile_file(STRICT_PROFILES).profiles.agent()
    assert strict.policy("send_reply").approval == "confirm"
    assert strict.policy("send_reply").approver_roles == (REFUND_APPROVER_ROLE,)
    # Nothing else differs: the strict agent is the built-in one with a gated reply.
    relaxed = strict.model_copy(update={"tool_policy": {**strict.tool_policy, "send_reply": reply}})
    assert relaxed == built_in


def test_a_clean_install_ships_the_files() -> None:
    setuptools = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]
    package = BUILTIN_PROFILES.parent.relative_to(REPO).as_posix().replace("/", ".")
    patterns = setuptools["package-data"].get(package, [])
    for shipped in (BUILTIN_PROFILES, STRICT_PROFILES):
        assert any(fnmatch(shipped.name, pattern) for pattern in patterns)
