from __future__ import annotations

import json
from typing import Any

import pytest
from sqlalchemy import Engine
from temporalio.testing import ActivityEnvironment

from activities import tool_gateway
from activities.store.tickets import add_ticket
from activities.tool_gateway import TICKET_PROVENANCE, ToolGateway
from workflows.contracts import ToolCallInput, ToolResult
from workflows.policy import MAX_TOOL_RESULT_CHARS


def _call(
    name: str,
    ticket_id: str = "T-1042",
    tenant_id: str = "demo",
    arguments: dict[str, Any] | None = None,
) -> ToolCallInput:
    return ToolCallInput(
        run_id="run-1",
        tenant_id=tenant_id,
        ticket_id=ticket_id,
        tool_use_id="toolu_1",
        name=name,
        arguments=arguments or {},
        idempotency_key=f"run-1:{name}",
    )


async def _run(engine: Engine, call: ToolCallInput) -> ToolResult:
    return await ActivityEnvironment().run(ToolGateway(engine).run_tool, call)


async def test_read_ticket_has_provenance_and_raw_text(seeded: Engine) -> None:
    result = await _run(seeded, _call("read_ticket", "T-4512"))

    assert not result.is_error
    assert result.tool_use_id == "toolu_1"
    assert json.loads(result.content) == {
        "ticket_id": "T-4512",
        "provenance": TICKET_PROVENANCE,
        "customer_name": "Sam Lee",
        "text": "Where is my order 4512?",
    }


async def test_get_order_reads_the_tickets_own_order(seeded: Engine) -> None:
    result = await _run(seeded, _call("get_order", "T-4512"))

    assert not result.is_error
    assert json.loads(result.content) == {
        "found": True,
        "order_id": "4512",
        "status": "shipped",
        "amount_paid": "42.50",
        "currency": "EUR",
        "tracking": "TRK-88",
    }


async def test_get_order_money_is_a_two_decimal_string(seeded: Engine) -> None:
    result = await _run(seeded, _call("get_order", "T-1042"))
    assert json.loads(result.content)["amount_paid"] == "89.90"


async def test_ticket_without_order_is_found_false(seeded: Engine) -> None:
    result = await _run(seeded, _call("get_order", "T-9999"))

    assert not result.is_error
    payload = json.loads(result.content)
    assert payload["found"] is False
    assert "linked to no order" in payload["message"]


async def test_unknown_tool_is_a_readable_error(seeded: Engine) -> None:
    # The run offers its model only its own tools, so only a caller of the activity
    # itself asks for another: it is told why, and the refusal is on the audit.
    result = await _run(seeded, _call("refund_order"))

    assert result.is_error
    assert "The tool 'refund_order' is not offered to this run" in result.content
    assert "built-in catalog" in result.content


async def test_extra_arguments_are_a_readable_error(seeded: Engine) -> None:
    result = await _run(seeded, _call("get_order", arguments={"order_id": "G-7001"}))

    assert result.is_error
    assert "Invalid arguments for 'get_order'" in result.content
    assert "order_id" in result.content
    assert "G-7001" not in result.content


async def test_missing_ticket_is_an_error(seeded: Engine) -> None:
    result = await _run(seeded, _call("read_ticket", "T-NOPE"))
    assert result.is_error
    assert "T-NOPE" in result.content


async def test_huge_ticket_is_cut_and_stays_valid_json(seeded: Engine) -> None:
    # Quotes and newlines double in JSON: the bound must hold after escaping.
    text = ('He said "refund me"\n' * 1000)[:20_000]
    ticket_id = add_ticket(seeded, "demo", "4512", text)

    result = await _run(seeded, _call("read_ticket", ticket_id))

    assert not result.is_error
    assert len(result.content) <= MAX_TOOL_RESULT_CHARS
    payload = json.loads(result.content)
    assert payload["provenance"] == TICKET_PROVENANCE
    assert payload["text"].startswith('He said "refund me"\n')
    assert "[cut:" in payload["text"]
    assert "20000" in payload["text"]


async def test_internal_failure_is_safe_and_logged(
    seeded: Engine, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def explode(engine: Engine, call: ToolCallInput) -> str:
        raise RuntimeError("secret detail at /srv/signoff/db.py line 42")

    monkeypatch.setitem(tool_gateway.TOOL_FUNCTIONS, "get_order", explode)

    result = await _run(seeded, _call("get_order"))

    assert result.is_error
    assert result.content.startswith("The tool 'get_order' failed because of an internal error")
    assert "secret" not in result.content
    assert "/srv" not in result.content
    assert "RuntimeError" not in result.content
    reference = result.content.split("(reference ")[1].split(")")[0]
    assert any(reference in record.getMessage() for record in caplog.records)


async def test_tenant_isolation(seeded: Engine) -> None:
    for name in ("read_ticket", "get_order"):
        result = await _run(seeded, _call(name, "T-4512", tenant_id="globex"))
        assert result.is_error
        assert "Where is my order" not in result.content
        assert "TRK-88" not in result.content


async def test_other_tenant_reads_its_own_ticket(seeded: Engine) -> None:
    result = await _run(seeded, _call("get_order", "T-7001", tenant_id="globex"))
    assert json.loads(result.content)["order_id"] == "G-7001"
