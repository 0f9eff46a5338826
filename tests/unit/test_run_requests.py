"""The one RunRequest factory: what a run gets from the settings."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from decimal import Decimal
from pathlib import Path

import pytest
from pydantic import ValidationError
from sqlalchemy import text

from activities.store import make_engine
from activities.store.prompt_catalogs import read_catalog
from signoff.config.profiles import load_profile_file
from signoff.config.settings import Settings
from signoff.service.handles import Store, engine_of
from signoff.service.run_requests import new_run_request
from signoff.service.triage_start import triage_request
from tests.clock import clock_now
from workflows.contracts import ModelRef
from workflows.triage_contracts import TriageRequest

NOW = clock_now()


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    """The store the factory writes each run's prompt catalog to."""
    engine = make_engine(f"sqlite:///{tmp_path / 'catalogs.db'}")
    yield Store(engine)
    engine.dispose()


CLAUDE = ModelRef(provider="anthropic", model_id="claude-sonnet-4-6")


def test_budgets_deadline_ttl_and_price_come_from_the_settings(
    tmp_path: Path, store: Store
) -> None:
    settings = Settings(
        home=tmp_path, step_budget=5, approval_ttl_hours=2, service_actor="svc:nightly"
    )
    request = new_run_request(
        settings, store, tenant_id="demo", ticket_id="T-1042", model=CLAUDE, now=NOW
    )
    assert request.step_budget == 5 and request.token_budget == settings.token_budget
    assert request.deadline == NOW + timedelta(minutes=settings.deadline_minutes)
    assert request.approval_ttl_seconds == 2 * 3600
    assert request.price.input == Decimal("3") and request.cost_budget_usd == Decimal("2.00")
    # No person named: the deployment's service identity (SIGNOFF_SERVICE_ACTOR).
    assert request.actor_id == "svc:nightly"
    assert Settings(home=tmp_path).service_actor == "service:signoff"


def test_a_caller_may_shorten_the_ttl_never_lengthen_it(tmp_path: Path, store: Store) -> None:
    settings = Settings(home=tmp_path)
    shorter = new_run_request(
        settings, store, tenant_id="demo", ticket_id="T-1", model=CLAUDE, approval_ttl_seconds=600
    )
    longer = new_run_request(
        settings, store, tenant_id="demo", ticket_id="T-1", model=CLAUDE, approval_ttl_seconds=10**7
    )
    assert shorter.approval_ttl_seconds == 600
    assert longer.approval_ttl_seconds == int(settings.approval_ttl_hours * 3600)


def test_a_run_records_its_profile_and_the_tools_its_tenant_is_offered(
    tmp_path: Path, store: Store
) -> None:
    team = Path(__file__).parents[1] / "tools" / "team_profile.toml"
    settings = Settings(home=tmp_path, profiles=team)
    loaded = load_profile_file(team)
    demo = new_run_request(settings, store, tenant_id="demo", ticket_id="T-1", model=CLAUDE)
    assert demo.profile is not None
    assert (demo.profile.profile_name, demo.profile.content_hash) == ("team", loaded.content_hash)
    assert list(demo.tools) == list(loaded.profiles.agent().tools)
    # globex has not enabled refunds in this profile: its runs are never offered one.
    globex = new_run_request(settings, store, tenant_id="globex", ticket_id="T-1", model=CLAUDE)
    assert "refund" not in list(globex.tools)
    with pytest.raises(KeyError):
        new_run_request(
            settings, store, tenant_id="demo", ticket_id="T-1", model=CLAUDE, agent="nobody"
        )


def test_the_prompt_is_stored_once_by_its_hash_and_the_run_carries_only_that(
    tmp_path: Path, store: Store
) -> None:
    team = Path(__file__).parents[1] / "tools" / "team_profile.toml"
    settings = Settings(home=tmp_path, profiles=team)
    agent = load_profile_file(team).profiles.agent()
    first = new_run_request(settings, store, tenant_id="demo", ticket_id="T-1", model=CLAUDE)
    again = new_run_request(settings, store, tenant_id="demo", ticket_id="T-2", model=CLAUDE)
    globex = new_run_request(settings, store, tenant_id="globex", ticket_id="T-1", model=CLAUDE)
    assert first.prompt_digest is not None and first.prompt_digest == again.prompt_digest
    assert globex.prompt_digest != first.prompt_digest  # another tool list, another catalog
    # What an auditor reads back from the store alone: the prompt and the tools offered.
    offered = read_catalog(engine_of(store), first.prompt_digest)
    assert offered.system == agent.system_prompt
    assert offered.names() == first.tools
    assert all(tool.description and tool.input_schema for tool in offered.tools)
    # The run's request carries neither the prompt nor any tool's description.
    payload = first.model_dump_json()
    assert agent.system_prompt not in payload
    assert offered.tools[0].description not in payload
    with engine_of(store).connect() as connection:
        rows = connection.execute(text("SELECT count(*) FROM prompt_catalogs")).scalar_one()
    assert rows == 2


def test_the_actors_roles_narrow_the_tools_it_is_offered(tmp_path: Path, store: Store) -> None:
    team = Path(__file__).parents[1] / "tools" / "team_profile.toml"
    narrowed = tmp_path / "team.toml"
    narrowed.write_text(
        team.read_text() + '\n[agents.support.roles.trainee]\ndeny_tools = ["issue_voucher"]\n'
    )
    settings = Settings(home=tmp_path, profiles=narrowed)
    trainee = new_run_request(
        settings, store, tenant_id="demo", ticket_id="T-1", model=CLAUDE, actor_roles=["trainee"]
    )
    lead = new_run_request(
        settings, store, tenant_id="demo", ticket_id="T-1", model=CLAUDE, actor_roles=["lead"]
    )
    assert "issue_voucher" not in trainee.tools
    assert "issue_voucher" in lead.tools


def lean_profile(tmp_path: Path) -> Path:
    """The team profile, its agent on `scripted:reply`, with a budget below the settings'."""
    team = (Path(__file__).parents[1] / "tools" / "team_profile.toml").read_text()
    lean = team.replace('provider = "scripted"', 'provider = "scripted"\nmodel_id = "reply"')
    lean = lean.replace(
        'steps = 8\ntokens = 200000\ndeadline = "48h"',
        ('steps = 3\ntokens = 50000\ncost_usd = "0.50"\ndeadline = "2h"'),
    )
    assert lean != team
    path = tmp_path / "lean.toml"
    path.write_text(lean.replace('name = "team"', 'name = "lean"'))
    return path


def test_a_run_gets_its_agents_model_and_budget_within_the_settings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, store: Store
) -> None:
    monkeypatch.delenv("SIGNOFF_MODEL", raising=False)
    profile = lean_profile(tmp_path)
    settings = Settings(home=tmp_path, profiles=profile, step_budget=5, deadline_minutes=600)
    request = new_run_request(settings, store, tenant_id="demo", ticket_id="T-1", now=NOW)
    assert request.model == ModelRef(provider="scripted", model_id="reply")
    assert (request.step_budget, request.token_budget) == (3, 50_000)  # the agent's, lower
    assert request.cost_budget_usd == Decimal("0.50")
    assert request.deadline == NOW + timedelta(hours=2)
    # The settings still cap an agent that asks more.
    tight = Settings(home=tmp_path, profiles=profile, step_budget=2, deadline_minutes=30)
    capped = new_run_request(tight, store, tenant_id="demo", ticket_id="T-1", now=NOW)
    assert capped.step_budget == 2 and capped.deadline == NOW + timedelta(minutes=30)
    # SIGNOFF_MODEL, when set, overrides every agent's model; a model given wins over both.
    monkeypatch.setenv("SIGNOFF_MODEL", "scripted:demo")
    overridden = Settings(home=tmp_path, profiles=profile)
    assert (
        new_run_request(overridden, store, tenant_id="demo", ticket_id="T-1").model.model_id
        == "demo"
    )
    given = new_run_request(overridden, store, tenant_id="demo", ticket_id="T-1", model=CLAUDE)
    assert given.model == CLAUDE


KINDS_PROFILE = """
[agents.support]
system_prompt = "You answer one support ticket. Use the tools, never guesses."
tools = ["read_ticket", "get_order", "refund"]
model = { provider = "scripted" }

[agents.support.budgets.default]
steps = 6
tokens = 100000
deadline = "24h"

[agents.support.budgets.refund]
steps = 3
deadline = "2h"

[agents.support.tool_policy.refund]
risk = "irreversible"
approval = "confirm"
approver_roles = ["refund_approver"]
"""


def test_a_kind_of_task_takes_its_own_budget_and_the_rest_from_default(
    tmp_path: Path, store: Store
) -> None:
    path = tmp_path / "kinds.toml"
    path.write_text(KINDS_PROFILE, encoding="utf-8")
    settings = Settings(home=tmp_path, profiles=path)
    refund = new_run_request(
        settings, store, tenant_id="demo", ticket_id="T-1", model=CLAUDE, kind="refund", now=NOW
    )
    assert (refund.step_budget, refund.token_budget) == (3, 100000)
    assert refund.deadline == NOW + timedelta(hours=2)
    # A kind the agent does not name takes its default budget.
    other = new_run_request(
        settings, store, tenant_id="demo", ticket_id="T-1", model=CLAUDE, kind="tracking", now=NOW
    )
    assert (other.step_budget, other.deadline) == (6, NOW + timedelta(hours=24))


def test_triage_hands_its_refund_run_the_profile_tools_and_refund_budget(
    tmp_path: Path, store: Store
) -> None:
    path = tmp_path / "kinds.toml"
    path.write_text(KINDS_PROFILE, encoding="utf-8")
    settings = Settings(home=tmp_path, profiles=path)
    request = triage_request(settings, store, "demo", "T-1042", "req-1", actor_id="ops-1")
    agent = request.agent
    assert agent.step_budget == 3 and agent.request_id == "req-1-agent"
    assert agent.profile is not None and agent.profile.profile_name == "kinds"
    assert list(agent.tools) == ["read_ticket", "get_order", "refund"]
    assert (agent.tenant_id, agent.actor_id, agent.trace_id) == ("demo", "ops-1", request.trace_id)


def test_a_triage_request_cannot_hand_another_tickets_run(tmp_path: Path, store: Store) -> None:
    request = triage_request(Settings(home=tmp_path), store, "demo", "T-1042", "req-1")
    other = request.agent.model_copy(update={"ticket_id": "T-9"})
    with pytest.raises(ValidationError, match="not the triage's"):
        TriageRequest.model_validate({**request.model_dump(), "agent": other.model_dump()})
