"""Any irreversible tool but the refund: its inbox row while it waits
(`hold_waiting_action`), and its effect (`execute_tool_action`).

It trusts no caller (activities/store/tool_effects.py checks the proofs and claims the
key), then runs the tool's function with its idempotency key, and stores what it
returned. The policy it judges by is the worker's own profiles, never the command's
(`workflows/effect_requirements.py`).

Temporal retries it. A refusal is an `EffectResult`, never an exception: retrying
cannot change it. A tool that raises is retried with the same key (it must honour the
key); after the last attempt the run reports the effect as unknown, for a person to
check. A store that refuses outright (an unknown tenant) is non-retryable, having
written nothing.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Engine
from temporalio import activity
from temporalio.exceptions import ApplicationError

from activities.auto_effects import auto_effect_problem
from activities.caller import caller_run_id, only_its_own
from activities.connectors.replies import ConnectorClosed, HelpdeskReplies
from activities.held_profiles import HeldProfiles, ProfileNotHeld
from activities.hold_rules import rules_for
from activities.offered_tools import not_offered
from activities.refunds import non_retryable
from activities.rule_callers import only_signoffs_run, rule_caller_problem
from activities.run_provenance import CallerUnknown, caller_start
from activities.store import tool_effects as store
from activities.store.customer_replies import send_reply
from activities.store.effect_proofs import ProofCheck
from activities.store.errors import StoreError
from activities.store.passkey_proofs import NO_STEP_UP, PasskeyCheck
from activities.store.started_runs import started_run_fingerprint
from activities.store.waiting_actions import hold_waiting
from activities.tool_functions import call_tool_function
from activities.tool_output import as_tool_output
from signoff.config.decision_signatures import VerificationKeys
from signoff.config.profiles import LoadedProfiles
from signoff.tools import ToolContext, known_tools
from workflows.actions import (
    EXECUTE_TOOL_ACTION_ACTIVITY,
    HOLD_WAITING_ACTION_ACTIVITY,
    ActionHold,
    EffectResult,
    ToolActionCommand,
)
from workflows.contracts import ToolResult
from workflows.effect_requirements import declared_server, effect_requirements
from workflows.mcp_tools import restored_arguments, split_offered_name
from workflows.rule_grant import RuleMatch
from workflows.tool_arguments import restored
from workflows.tool_catalog import ASK_CUSTOMER, SEND_REPLY, SendReplyArguments, ToolDefinition

# As the setting's default (SIGNOFF_MCP_TIMEOUT_SECONDS); the worker passes its own.
DEFAULT_MCP_TIMEOUT_SECONDS = 30.0


class ToolEffects:
    """`keys` (public only) verify signed approvals; `profiles` are the worker's own."""

    def __init__(
        self,
        engine: Engine,
        keys: VerificationKeys,
        profiles: LoadedProfiles,
        mcp_timeout_seconds: float = DEFAULT_MCP_TIMEOUT_SECONDS,
        passkeys: PasskeyCheck = NO_STEP_UP,
        helpdesks: HelpdeskReplies | None = None,
    ) -> None:
        self._engine = engine
        self._passkeys = passkeys
        self._keys = keys
        self._profiles = profiles
        self._held = HeldProfiles.of([profiles])
        self._mcp_timeout = mcp_timeout_seconds
        # The tenants' helpdesk connectors for `send_reply`; None: the outbox alone.
        self._helpdesks = helpdesks

    @activity.defn(name=HOLD_WAITING_ACTION_ACTIVITY)
    async def hold_waiting_action(self, hold: ActionHold) -> RuleMatch:
        """The waiting action's row in the reviewers' inbox (its release is the refund's
        `release_pending_refund`, which takes any action's row away), and the standing
        rules' answer when the run asks (activities/hold_rules.py). Only signoff's own
        run lists its action: a workflow of someone else's would put a request of its
        making before the reviewers."""
        only_its_own(hold.run_id)
        await only_signoffs_run(
            "to list this action", "only a run's own gate lists its actions for the reviewers"
        )

        def held() -> RuleMatch:
            now = datetime.now(UTC)
            hold_waiting(self._engine, hold, now)
            return rules_for(self._engine, hold, self._keys, now)

        try:
            return await asyncio.to_thread(held)
        except StoreError as error:
            raise non_retryable(error) from None

    @activity.defn(name=EXECUTE_TOOL_ACTION_ACTIVITY)
    async def execute_tool_action(self, command: ToolActionCommand) -> EffectResult:
        not_offered_here = await self._not_offered_refusal(command)
        if not_offered_here is not None:
            return not_offered_here
        mcp = self._mcp_call(command)
        if mcp is not None:
            shown = command.action.arguments
            return await self._carried_out(command, mcp, lambda: restored_arguments(shown))
        tool = known_tools().get(command.action.tool)
        function = None if tool is None else self._function(tool)
        if tool is None or function is None or tool.risk != "irreversible_write":
            why = (
                f"'{command.action.tool}' is not an irreversible tool this worker carries out "
                "(the refund goes through the ledger's own effect). Nothing was done."
            )
            return EffectResult(status="refused", message=why)
        if self._through_helpdesk(tool, command.tenant_id):
            try:
                refusal = await self._helpdesk_refusal(command)
            except ConnectorClosed as closed:
                if command.proofs or command.action.rule_grant is not None:
                    # Nothing tried, nothing written: an approved reply waits for it.
                    return EffectResult(status="unavailable", message=str(closed), wait=closed.wait)
                # No one approved it (the tool runs `auto`): refused at once, on the
                # record, as a reply proposed while the helpdesk is out.
                return await self._refused(command, f"{closed}.")
            if refusal is not None:
                return EffectResult(status="refused", message=refusal)
        return await self._carried_out(
            command, function, lambda: restored(tool, command.action.arguments)
        )

    async def _carried_out(
        self, command: ToolActionCommand, function: Any, arguments: Callable[[], Any]
    ) -> EffectResult:
        """The proofs checked and the key claimed, then `function(arguments(), context)`
        once (again, with the same key, when a worker died before it was stored)."""
        requirements = effect_requirements(self._profiles.profiles, command.action.tool)
        refusal = await self._unproven_caller_refusal(command)
        if refusal is not None:
            return refusal
        rule_caller = await rule_caller_problem(self._engine, command)
        check = ProofCheck(self._keys, caller_run_id(), self._passkeys, rule_caller=rule_caller)
        try:
            claim = await asyncio.to_thread(
                store.claim_effect, self._engine, command, check, requirements
            )
        except StoreError as error:
            raise non_retryable(error) from None
        if claim.status == "done":
            return EffectResult(status="done", content=claim.output)
        if claim.status != "go":
            activity.logger.warning("effect %s refused: %s", command.idempotency_key, claim.message)
            return EffectResult(status=claim.status, message=claim.message)
        context = ToolContext(
            run_id=command.run_id,
            tenant_id=command.tenant_id,
            ticket_id=command.ticket_id,
            tool_use_id=command.action.tool_use_id,
            idempotency_key=command.idempotency_key,
        )
        output = await call_tool_function(function, arguments(), context)
        if isinstance(output, ToolResult) and output.is_error:
            # The tool answered that it did not act (an MCP tool's error result): on the
            # record as refused; its proofs stay spent on this attempt.
            message = await asyncio.to_thread(
                store.fail_effect, self._engine, command, output.content
            )
            return EffectResult(status="refused", message=message)
        text = output.content if isinstance(output, ToolResult) else as_tool_output(output)
        await asyncio.to_thread(store.finish_effect, self._engine, command, text)
        activity.logger.info("effect %s done (%s)", command.idempotency_key, command.action.tool)
        return EffectResult(status="done", content=text)

    async def _not_offered_refusal(self, command: ToolActionCommand) -> EffectResult | None:
        """A tool the run's agent, in the profile this worker holds by the command's
        hash, does not offer to the tenant: refused, on the record. A profile this worker
        does not hold is a retryable error (another worker may hold it)."""
        try:
            why = not_offered(
                self._held,
                command.profile_hash,
                command.agent_name,
                command.tenant_id,
                command.action.tool,
            )
        except ProfileNotHeld as error:
            raise ApplicationError(str(error), type="ProfileNotHeld") from None
        if why is None:
            return None
        return await self._refused(command, f"The tool is not offered to this run: {why}.")

    async def _refused(self, command: ToolActionCommand, why: str) -> EffectResult:
        """A refusal before the claim, on the record: nothing was done."""
        why = f"{why} Nothing was done."
        try:
            await asyncio.to_thread(
                store.refuse_effect, self._engine, command, why, caller_run_id()
            )
        except StoreError as error:
            raise non_retryable(error) from None
        activity.logger.warning("effect %s refused: %s", command.idempotency_key, why)
        return EffectResult(status="refused", message=why)

    async def _unproven_caller_refusal(self, command: ToolActionCommand) -> EffectResult | None:
        """An effect with no reviewer's proof and no rule's grant (a tool every agent
        runs `auto`, such as the built-in profile's `send_reply`) has nothing to verify
        but where the call came from: a run signoff's service started, whose agent runs
        the tool `auto`, whose model asked for this very call (activities/auto_effects.py).
        Anything else is refused, on the record."""
        if command.proofs or command.action.rule_grant is not None:
            return None
        if caller_run_id() != command.run_id:
            return None  # for another run: the claim refuses it, on the record
        try:
            start = await caller_start()
        except CallerUnknown:
            # Retryable: Temporal will say on a later attempt.
            raise ApplicationError(
                "Temporal could not say which workflow asked for this effect."
            ) from None
        stored = await asyncio.to_thread(started_run_fingerprint, self._engine, command.run_id)
        try:
            problem = auto_effect_problem(
                start,
                task_queue=activity.info().task_queue,
                stored_fingerprint=stored,
                command=command,
                profiles=self._held,
            )
        except ProfileNotHeld as error:
            # Retryable: during a rolling change of the profile file another worker may
            # hold it; Temporal's retry policy bounds the attempts.
            raise ApplicationError(str(error), type="ProfileNotHeld") from None
        if problem is None:
            return None
        return await self._refused(
            command,
            f"{problem}: an effect without a reviewer's approval runs only for a call the "
            "model of a run signoff started made, to a tool its agent runs automatically.",
        )

    def _mcp_call(self, command: ToolActionCommand) -> Callable[..., Any] | None:
        """The call of an MCP tool named by its offered name, to the server as the
        worker's own profiles declare it (never as the command says); None otherwise."""
        parts = split_offered_name(command.action.tool)
        if parts is None:
            return None
        server_name, tool = parts
        server = declared_server(self._profiles.profiles, server_name)
        if server is None:
            return None

        async def call(arguments: dict[str, Any], context: ToolContext) -> ToolResult:
            # The MCP SDK (about 30 MiB, with its HTTP server stack) loads only in a
            # worker whose profiles declare a server, at its first call.
            from activities.mcp.call import McpServerUnavailable, McpTarget, call_tool

            request = McpTarget(
                run_id=context.run_id,
                tool_use_id=context.tool_use_id,
                idempotency_key=context.idempotency_key,
                server_name=server_name,
                server=server,
                tool=tool,
                arguments=arguments,
            )
            try:
                return await call_tool(request, self._mcp_timeout)
            except McpServerUnavailable as error:
                raise ApplicationError(str(error), type="McpServerUnavailable") from None

        return call

    def _function(self, tool: ToolDefinition) -> Any:
        """A registered tool's function, or the built-in connector of a built-in tool
        (None for the refund, whose effect is the ledger's own activity)."""
        if tool.implementation is not None:
            return tool.implementation
        if tool.name == SEND_REPLY.name:
            return self._send_reply
        if tool.name == ASK_CUSTOMER.name:
            return self._ask_customer
        return None

    def _through_helpdesk(self, tool: ToolDefinition, tenant_id: str) -> bool:
        """The built-in `send_reply` or `ask_customer` of a tenant with a helpdesk
        connector."""
        return (
            tool.name in (SEND_REPLY.name, ASK_CUSTOMER.name)
            and tool.implementation is None
            and self._helpdesks is not None
            and self._helpdesks.connected(tenant_id)
        )

    async def _helpdesk_refusal(self, command: ToolActionCommand) -> str | None:
        assert self._helpdesks is not None
        refusal = await self._helpdesks.refusal(command)
        if refusal is not None:
            await asyncio.to_thread(
                store.refuse_effect, self._engine, command, refusal, caller_run_id()
            )
            activity.logger.warning("effect %s refused: %s", command.idempotency_key, refusal)
        return refusal

    async def _send_reply(self, arguments: Any, context: ToolContext) -> Any:
        if self._helpdesks is not None and self._helpdesks.connected(context.tenant_id):
            return await self._helpdesks.send(arguments, context)
        reply_id = await asyncio.to_thread(
            send_reply,
            self._engine,
            context.tenant_id,
            context.ticket_id,
            arguments.text,
            context.idempotency_key,
        )
        return {"status": "sent", "reply_id": reply_id}

    async def _ask_customer(self, arguments: Any, context: ToolContext) -> Any:
        """The question goes out as a reply does: the outbox under the effect's key,
        then the tenant's helpdesk. Intake finds the asking run by that key
        (activities/store/customer_questions.py)."""
        return await self._send_reply(SendReplyArguments(text=arguments.question), context)
