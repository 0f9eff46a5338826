"""`signoff pending` and `signoff status`'s lines for every kind of tool: the refund
with its money and order, a tool whose policy declares its money with it, and a tool
without exposure (a reply, an MCP tool whose string argument is named `amount`) by its
name and its arguments shortened, never "None"; a tool whose review card has a title
(the built-in profile's reply) by that title, its name beside it; `--json` carries the
exposure, null for a tool without one."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from activities.store import make_engine, seed_demo
from activities.store.waiting_actions import put_waiting
from signoff.cli.render import pending_lines
from signoff.config.settings import get_settings
from signoff.wiring.app import app
from tests.clock import clock_now
from tests.exposures import voucher_exposure
from tests.store.test_waiting_actions import an_action
from workflows.actions import PendingAction

REPLY = "Hello, thank you for writing. A colleague looked at your order " * 4


def every_kind(refund: PendingAction) -> dict[str, PendingAction]:
    """The store tests' refund (49.90 EUR on order C-3107) and three other tools."""

    def other(tool: str, arguments: dict[str, str], digest: str) -> PendingAction:
        return refund.model_copy(
            update={"tool": tool, "arguments": arguments, "action_hash": digest, "exposure": None}
        )

    voucher = other("issue_voucher", {"value": "15"}, "b" * 64)
    return {
        "run-refund": refund,
        "run-voucher": voucher.model_copy(
            update={"exposure": voucher_exposure(), "editable": ["value"]}
        ),
        "run-mcp": other("shop__issue_voucher", {"amount": '"15.00"'}, "c" * 64),
        "run-reply": other("send_reply", {"text": REPLY}, "d" * 64),
    }


@pytest.fixture
def listed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, PendingAction]]:
    monkeypatch.setenv("SIGNOFF_HOME", str(tmp_path))
    get_settings.cache_clear()
    engine = make_engine(get_settings().resolved_database_url)
    seed_demo(engine)
    actions = every_kind(an_action(engine, "a" * 64, 4990))
    with engine.begin() as connection:
        for run_id, action in actions.items():
            put_waiting(connection, "demo", run_id, "T-3107", action, clock_now())
    engine.dispose()
    yield actions
    get_settings.cache_clear()


def line_of(stdout: str, run_id: str) -> str:
    (line,) = [line for line in stdout.splitlines() if line.startswith(f"{run_id} ")]
    return line


def test_pending_shows_each_tool_readably_and_money_only_where_declared(
    listed: dict[str, PendingAction],
) -> None:
    shown = CliRunner().invoke(app, ["pending", "--tenant", "demo"])
    assert shown.exit_code == 0, shown.output
    assert "None" not in shown.stdout
    assert "  refund 49.90 EUR on order C-3107  mode" in line_of(shown.stdout, "run-refund")
    assert "  issue_voucher 15.00 EUR  mode" in line_of(shown.stdout, "run-voucher")
    assert '  shop__issue_voucher amount="15.00"  mode' in line_of(shown.stdout, "run-mcp")
    reply = line_of(shown.stdout, "run-reply")
    assert (
        "  Send a reply to the customer (send_reply) text=Hello, thank you for writing. "
        "A colleag…  mode"
    ) in reply
    assert "on order" not in line_of(shown.stdout, "run-mcp") + reply


def test_a_profile_file_that_does_not_load_leaves_the_names(
    listed: dict[str, PendingAction], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    broken = tmp_path / "broken.toml"
    broken.write_text("name = [")
    monkeypatch.setenv("SIGNOFF_PROFILES", str(broken))
    get_settings.cache_clear()
    shown = CliRunner().invoke(app, ["pending", "--tenant", "demo"])
    assert shown.exit_code == 0, shown.output
    assert "  send_reply text=Hello, thank you for writing." in line_of(shown.stdout, "run-reply")


def test_pending_json_carries_the_exposure_and_null_without_one(
    listed: dict[str, PendingAction],
) -> None:
    document = json.loads(CliRunner().invoke(app, ["pending", "--json"]).stdout)
    rows = {row["run_id"]: row for row in document["items"]}
    assert rows["run-voucher"]["exposure"] == voucher_exposure().model_dump()
    assert (rows["run-refund"]["amount"], rows["run-refund"]["order"]) == ("49.90", "C-3107")
    for run_id in ("run-mcp", "run-reply"):
        row = rows[run_id]
        assert (row["exposure"], row["amount"], row["currency"], row["order"]) == (None,) * 4
        assert row["arguments"] == listed[run_id].arguments


def test_status_shows_each_waiting_action_as_pending_does(
    listed: dict[str, PendingAction],
) -> None:
    lines = pending_lines(list(listed.values()))
    waiting = [line for line in lines if line.startswith("waiting:")]
    assert waiting[0].startswith("waiting:  refund 49.90 EUR on order C-3107, 0/1 approvals")
    assert waiting[1].startswith("waiting:  issue_voucher 15.00 EUR, 0/1 approvals")
    assert waiting[2].startswith('waiting:  shop__issue_voucher amount="15.00", 0/1')
    assert waiting[3].startswith("waiting:  send_reply text=Hello, thank you for writing.")
    assert not any("None" in line for line in lines)
    titled = pending_lines([listed["run-reply"]], {"send_reply": "Send a reply to the customer"})
    assert titled[0].startswith(
        "waiting:  Send a reply to the customer (send_reply) text=Hello, thank you for"
    )
    # What `approve --set` may change, where the tool's policy lets a reviewer edit.
    assert [line.strip() for line in lines if "editable:" in line] == ["editable: value"]
