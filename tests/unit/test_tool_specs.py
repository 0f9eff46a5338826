"""Tool specs are constants: built once per process, identical to a fresh build."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from workflows.tool_catalog import REFUND, offered_tools, tool_spec


def test_each_spec_is_built_once_and_shared() -> None:
    for tool in offered_tools():
        assert tool.spec() is tool.spec()


def test_the_cached_spec_is_what_a_fresh_build_gives() -> None:
    for tool in offered_tools():
        fresh = tool_spec.__wrapped__(tool)
        assert fresh is not tool.spec()
        assert fresh == tool.spec()
    refund = REFUND.spec().input_schema
    assert refund["additionalProperties"] is False
    assert sorted(refund["required"]) == ["amount", "reason"]
    assert "title" not in refund


def test_a_shared_spec_cannot_be_reassigned() -> None:
    with pytest.raises(ValidationError, match="frozen"):
        REFUND.spec().name = "refund_everything"  # type: ignore[misc]
