"""How long an approved effect waits for its connector between tries, when it gives up,
and how `signoff status` says it waits (workflows/effect_waits.py)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

from approvals_ui.run_summary import summarize
from approvals_ui.translations import translations
from signoff.cli.render import state_lines
from tests.unit.test_auto_effects import BUILT_IN, reply_command, request_on
from workflows.connector_waits import ConnectorWait, EffectWaiting
from workflows.contracts import ModelRef, RunState, Usage
from workflows.effect_waits import FIRST_WAIT, LONGEST_WAIT, gives_up_at, next_wait

NOW = datetime.now(UTC)


def test_the_wait_doubles_up_to_the_longest_and_never_beats_the_cool_down() -> None:
    waits = [next_wait(tries, None) for tries in range(8)]
    assert waits[:3] == [FIRST_WAIT, FIRST_WAIT * 2, FIRST_WAIT * 4]
    assert max(waits) == LONGEST_WAIT and waits[-1] == LONGEST_WAIT
    cool_down = ConnectorWait(connector="payments:demo", retry_after_seconds=600)
    assert next_wait(0, cool_down) == timedelta(minutes=10)
    assert next_wait(30, None) == LONGEST_WAIT  # no overflow after many tries


def test_it_gives_up_at_the_approvals_end_or_the_connectors_limit_whichever_is_first() -> None:
    action = reply_command(request_on(BUILT_IN)).action
    assert gives_up_at(action, NOW, None) == action.expires_at
    short = ConnectorWait(connector="payments:demo", give_up_after_seconds=600)
    assert gives_up_at(action, NOW, short) == NOW + timedelta(minutes=10)
    long = ConnectorWait(connector="payments:demo", give_up_after_seconds=10**7)
    assert gives_up_at(action, NOW, long) == action.expires_at


WAITING = EffectWaiting(
    action_hash="a" * 64,
    tool="refund",
    connector="payments:demo",
    since=datetime(2026, 12, 7, 9, 30, tzinfo=UTC),
    next_try_at=datetime(2026, 12, 7, 9, 32, tzinfo=UTC),
    give_up_at=datetime(2026, 12, 8, 9, 0, tzinfo=UTC),
    tries=2,
)


def waiting_state() -> RunState:
    return RunState(
        run_id="run-demo-1",
        tenant_id="demo",
        ticket_id="T-1042",
        status="running",
        turns_used=1,
        usage=Usage(),
        step_budget=8,
        token_budget=200_000,
        deadline=NOW + timedelta(hours=1),
        model=ModelRef(provider="scripted", model_id="demo"),
        tool_calls=[],
        events=[],
        cost_usd=Decimal(0),
        effects_waiting=[WAITING],
    )


def test_the_run_page_says_what_the_run_waits_for_in_the_pages_language() -> None:
    for language, expected in (
        ("en", "Approved; waiting for payments:demo since 2026-12-07 09:30 UTC."),
        ("fr", "Approuvé ; en attente de payments:demo depuis le 2026-12-07 09:30 UTC."),
    ):
        summary = summarize(waiting_state(), None, None, NOW, translations(language), language)
        assert summary.decided == expected


def test_status_says_what_the_run_waits_for_since_when() -> None:
    state = waiting_state()
    assert (
        "waiting:  refund: approved; waiting for payments:demo since 2026-12-07 09:30 UTC "
        "(next try 09:32:00 UTC, gives up 2026-12-08 09:00 UTC)"
    ) in state_lines(state)
