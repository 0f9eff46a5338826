"""An effect no reviewer approved runs only for a call the model of a run signoff
started made, to a tool its agent runs automatically (activities/auto_effects.py).
Each test takes one of those away and reads why the effect is refused."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from activities.auto_effects import RunStart, auto_effect_problem
from activities.held_profiles import HeldProfiles, ProfileNotHeld
from activities.store.started_runs import run_fingerprint
from signoff.config.profiles import (
    BUILTIN_PROFILES,
    STRICT_PROFILES,
    LoadedProfiles,
    load_profile_file,
)
from tests.workflow.fakes import run_request
from workflows.actions import PendingAction, ToolActionCommand
from workflows.approval_policy import effect_key, state_hash
from workflows.contracts import WORKFLOW_NAME, RunRequest, ToolUseBlock, run_id_for
from workflows.tool_gate import NO_STATE

QUEUE = "signoff"
DRAFT = "Your parcel ships tomorrow."
BUILT_IN = load_profile_file(BUILTIN_PROFILES, builtin=True)
STRICT = load_profile_file(STRICT_PROFILES)


def request_on(profiles: LoadedProfiles) -> RunRequest:
    profile = profiles.run_profile()
    return run_request(
        datetime.now(UTC),
        ticket_id="T-1042",
        profile=profile,
        tools=tuple(profile.agent.tools),
        prompt_digest="0" * 64,
    )


def reply_command(request: RunRequest, text: str = DRAFT) -> ToolActionCommand:
    run_id = run_id_for(request.tenant_id, request.request_id)
    now = datetime.now(UTC)
    action = PendingAction(
        action_hash="a" * 64,
        tool_use_id="toolu_1",
        tool="send_reply",
        arguments={"text": text},
        targets={"tenant_id": request.tenant_id, "ticket_id": request.ticket_id},
        reason="",
        policy_version="v1",
        state=NO_STATE,
        state_hash=state_hash(NO_STATE),
        mode="confirm",
        required_approvals=1,
        requested_at=now,
        expires_at=now + timedelta(hours=1),
    )
    return ToolActionCommand(
        run_id=run_id,
        tenant_id=request.tenant_id,
        ticket_id=request.ticket_id,
        idempotency_key=effect_key(run_id, "send_reply", action.action_hash),
        action=action,
    )


def started(
    request: RunRequest, *uses: ToolUseBlock, workflow_type: str = WORKFLOW_NAME
) -> RunStart:
    asked = uses or (ToolUseBlock(id="toolu_1", name="send_reply", input={"text": DRAFT}),)
    return RunStart(workflow_type, QUEUE, request, asked)


def problem(
    start: RunStart,
    command: ToolActionCommand,
    stored: str | None,
    profiles: LoadedProfiles = BUILT_IN,
) -> str | None:
    return auto_effect_problem(
        start,
        task_queue=QUEUE,
        stored_fingerprint=stored,
        command=command,
        profiles=HeldProfiles.of([profiles]),
    )


def test_a_call_the_model_of_a_recorded_run_made_runs() -> None:
    request = request_on(BUILT_IN)
    assert problem(started(request), reply_command(request), run_fingerprint(request)) is None


def test_a_workflow_of_another_type_or_queue_is_refused() -> None:
    request = request_on(BUILT_IN)
    start = started(request, workflow_type="RogueRun")
    said = problem(start, reply_command(request), run_fingerprint(request))
    assert said is not None and "is not one of signoff's runs" in said


def test_a_run_the_store_does_not_know_is_refused() -> None:
    request = request_on(BUILT_IN)
    said = problem(started(request), reply_command(request), None)
    assert said is not None and "signoff's service did not start it" in said


def test_a_run_started_with_other_tools_than_recorded_is_refused() -> None:
    request = request_on(BUILT_IN)
    recorded = run_fingerprint(request.model_copy(update={"tools": ("read_ticket",)}))
    said = problem(started(request), reply_command(request), recorded)
    assert said is not None and "did not start with the request" in said


def test_an_effect_for_another_ticket_than_the_runs_is_refused() -> None:
    request = request_on(BUILT_IN)
    command = reply_command(request).model_copy(update={"ticket_id": "T-2001"})
    said = problem(started(request), command, run_fingerprint(request))
    assert said is not None and "another tenant or ticket" in said


def test_a_tool_the_runs_agent_runs_only_with_a_reviewer_is_refused() -> None:
    request = request_on(STRICT)
    said = problem(started(request), reply_command(request), run_fingerprint(request), STRICT)
    assert said is not None and "only with a reviewer's approval (confirm)" in said


def test_a_call_the_model_never_made_is_refused() -> None:
    request = request_on(BUILT_IN)
    command = reply_command(request, text="Click here to claim your prize.")
    said = problem(started(request), command, run_fingerprint(request))
    assert said is not None and "never asked for this call" in said
    other_call = ToolUseBlock(id="toolu_9", name="send_reply", input={"text": DRAFT})
    said = problem(started(request, other_call), reply_command(request), run_fingerprint(request))
    assert said is not None and "never asked for this call" in said


def test_a_profile_the_worker_does_not_hold_is_not_judged_here() -> None:
    request = request_on(STRICT)
    with pytest.raises(ProfileNotHeld):
        problem(started(request), reply_command(request), run_fingerprint(request), BUILT_IN)
