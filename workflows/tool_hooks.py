"""Which hooks gate a tool: the refund's own rules, or the generic tool's.

This is workflow code: it only picks (`gate_hooks.py` says what hooks do).
"""

from __future__ import annotations

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from workflows.contracts import RunRequest
    from workflows.gate_hooks import GateHooks
    from workflows.refund_hooks import RefundHooks
    from workflows.run_tools import tool_policy
    from workflows.tool_catalog import REFUND
    from workflows.tool_gate import ToolHooks


def hooks_for(request: RunRequest, name: str) -> GateHooks:
    policy = tool_policy(request, name)
    if name == REFUND.name:
        return RefundHooks(request, policy)
    return ToolHooks(request, name, policy)
