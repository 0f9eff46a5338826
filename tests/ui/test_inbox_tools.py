"""The inbox, the batch summary and the API for every kind of tool, from the store's
read model (no Temporal): the refund with its money and order, a tool whose policy
declares its money with it, and a tool without exposure (a reply, an MCP tool whose
string argument is named `amount`) by its name and arguments, never "None" and never
an amount; the API carries each action's `exposure`, null without one."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from activities.store import write_transaction
from activities.store.waiting_actions import new_row
from approvals_ui.main import create_app
from signoff.config.settings import Settings
from tests.conftest import fresh_demo_store
from tests.exposures import voucher_exposure
from tests.ui.test_waiting_tenants import action, sign_in, unreachable_connect
from workflows.actions import PendingAction

FRENCH = {"Accept-Language": "fr"}


def every_kind() -> dict[str, PendingAction]:
    refund = action("demo", 8)  # 90.00 EUR on order X-1

    def other(tool: str, arguments: dict[str, str], index: int) -> PendingAction:
        return action("demo", index).model_copy(
            update={"tool": tool, "arguments": arguments, "exposure": None}
        )

    voucher = other("issue_voucher", {"value": "15"}, 1)
    return {
        "run-refund": refund,
        "run-voucher": voucher.model_copy(update={"exposure": voucher_exposure()}),
        "run-mcp": other("shop__issue_voucher", {"amount": '"15.00"'}, 2),
        "run-reply": other("send_reply", {"text": "Hello, thank you for writing."}, 3),
    }


@pytest.fixture
def ui(tmp_path: Path, demo_store_template: Path) -> Iterator[TestClient]:
    engine = fresh_demo_store(demo_store_template, tmp_path / "signoff.db")
    with write_transaction(engine) as session:
        for run_id, pending in every_kind().items():
            session.add(new_row("demo", run_id, "T-1", pending, pending.requested_at))
    engine.dispose()
    app = create_app(Settings(home=tmp_path), temporal_connect=unreachable_connect)
    with TestClient(app, follow_redirects=False) as client:
        sign_in(client, "alice")
        yield client


def card_of(page: str, run_id: str) -> str:
    return page.split(f'data-run-id="{run_id}"')[1].split("</li>")[0]


def test_the_inbox_shows_each_tool_and_money_only_where_declared(ui: TestClient) -> None:
    page = ui.get("/approvals").text
    assert "None" not in page
    assert 'Refund 90.00 EUR on order <bdi class="id">X-1</bdi>' in card_of(page, "run-refund")
    assert '<span lang="en">issue_voucher</span> 15.00 EUR' in card_of(page, "run-voucher")
    mcp = card_of(page, "run-mcp")
    assert "shop__issue_voucher: <bdi>amount=&#34;15.00&#34;</bdi>" in mcp and "EUR" not in mcp
    reply = card_of(page, "run-reply")
    assert "send_reply: <bdi>text=Hello, thank you for writing.</bdi>" in reply
    french = ui.get("/approvals", headers=FRENCH).text
    assert "None" not in french
    assert "15,00" in card_of(french, "run-voucher")
    assert "EUR" not in card_of(french, "run-mcp") and "€" not in card_of(french, "run-mcp")


def test_the_batch_summary_adds_declared_money_and_counts_the_rest_by_tool(
    ui: TestClient,
) -> None:
    hashes = {run_id: pending.action_hash for run_id, pending in every_kind().items()}
    selected = [("selected", f"{run_id}/{digest}") for run_id, digest in hashes.items()]
    summary = ui.get("/approvals/batch/summary", params=selected).text
    assert "None" not in summary
    assert "105.00" in summary  # the refund's 90.00 and the voucher's 15.00, both EUR
    assert '1 <span lang="en">shop__issue_voucher</span>' in summary
    assert '1 <span lang="en">send_reply</span>' in summary


def test_the_api_carries_each_actions_exposure_and_null_without_one(ui: TestClient) -> None:
    answer = ui.get("/api/approvals")
    assert answer.status_code == 200, answer.text
    exposures = {item["run_id"]: item["action"]["exposure"] for item in answer.json()["items"]}
    assert exposures["run-voucher"] == voucher_exposure().model_dump()
    assert exposures["run-refund"]["order_id"] == "X-1"
    assert exposures["run-mcp"] is None and exposures["run-reply"] is None
