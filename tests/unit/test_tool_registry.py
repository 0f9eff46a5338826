"""Adding a tool as a Python function (signoff.tools): what registration refuses, what a
profile's `python_tools` load errors say, and how a gated tool's arguments are shown to
the reviewer and read back for the effect."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import BaseModel

from signoff.config.profiles import ProfileError, load_profile_file
from signoff.tools import ToolContext, ToolRegistrationError, known_tools, registry, tool
from workflows.tool_arguments import normalized, restored
from workflows.tool_catalog import ToolCallRejected

GOOD = (
    "Returns the parcel's carrier events for this run's order. Use it when the customer "
    "asks where a parcel is. Do not use it for payments. It returns JSON with the events."
)


def forget(name: str) -> None:
    """Take a throwaway tool out of the process's registry: the product never does."""
    registry._REGISTERED.pop(name, None)


class Where(BaseModel):
    depth: int
    carriers: list[str] = []
    note: str = ""


def test_a_registered_tool_is_known_with_its_model_and_risk() -> None:
    @tool(name="track_parcel", risk="read", description=GOOD)
    def track(arguments: Where, context: ToolContext) -> str:
        return "[]"

    try:
        found = known_tools()["track_parcel"]
        assert (found.arguments, found.risk, found.implementation) == (Where, "read", track)
    finally:
        forget("track_parcel")
    assert "track_parcel" not in known_tools()


def test_a_description_that_fails_the_linter_is_a_load_error() -> None:
    with pytest.raises(
        ToolRegistrationError,
        match=r"tool 'vague' \(.*vague\): its description fails the linter: .*'Use it when",
    ):

        @tool(name="vague", description="Does things.")
        def vague(arguments: Where, context: ToolContext) -> str:
            return ""


def test_a_built_in_name_a_second_registration_or_no_model_is_refused() -> None:
    with pytest.raises(ToolRegistrationError, match="built-in tool"):

        @tool(name="refund", description=GOOD)
        def refund(arguments: Where, context: ToolContext) -> str:
            return ""

    with pytest.raises(ToolRegistrationError, match="pydantic model"):

        @tool(name="untyped", description=GOOD)
        def untyped(arguments: dict, context: ToolContext) -> str:  # type: ignore[type-arg]
            return ""

    @tool(name="once", description=GOOD)
    def first(arguments: Where, context: ToolContext) -> str:
        return ""

    try:
        with pytest.raises(ToolRegistrationError, match="registered twice"):

            @tool(name="once", description=GOOD)
            def second(arguments: Where, context: ToolContext) -> str:
                return ""
    finally:
        forget("once")


def test_a_profile_naming_a_module_that_does_not_import_says_which(tmp_path: Path) -> None:
    path = tmp_path / "team.toml"
    path.write_text(
        'python_tools = ["no_such_team.tools"]\n'
        "[agents.a]\nsystem_prompt = 'x'\ntools = ['read_ticket']\n"
        "[agents.a.model]\nprovider = 'scripted'\n"
        "[agents.a.budgets.default]\nsteps = 2\ntokens = 100\ndeadline = '1h'\n"
    )
    with pytest.raises(ProfileError) as raised:
        load_profile_file(path)
    assert str(raised.value).startswith(
        f"{path}: python_tools[0]: cannot import 'no_such_team.tools'"
    )


def test_arguments_are_text_for_the_reviewer_and_the_model_again_for_the_effect() -> None:
    @tool(name="depth_probe", description=GOOD)
    def probe(arguments: Where, context: ToolContext) -> str:
        return ""

    try:
        definition = known_tools()["depth_probe"]
        shown = normalized(definition, {"depth": 3, "carriers": ["DHL", "UPS"], "note": "7"})
        assert shown == {"depth": "3", "carriers": '["DHL","UPS"]', "note": "7"}
        assert restored(definition, shown) == Where(depth=3, carriers=["DHL", "UPS"], note="7")
        with pytest.raises(ToolCallRejected, match="Invalid arguments for 'depth_probe': depth"):
            normalized(definition, {"depth": "deep"})
    finally:
        forget("depth_probe")
