"""The profile loader: a good file loads and hashes; each kind of bad file raises one
ProfileError whose message names the file, the key path, what is wrong and what is allowed."""

from __future__ import annotations

from pathlib import Path

import pytest

from signoff.config.profiles import (
    BUILTIN_PROFILES,
    ProfileError,
    load_profile_file,
    load_profiles,
)
from signoff.config.settings import Settings
from signoff.tools import known_tools
from workflows.tool_catalog import CATALOG

GOOD = """\
name = "shop"

[agents.support]
system_prompt_file = "prompts/support.md"
tools = ["read_ticket", "get_order", "refund"]

[agents.support.model]
provider = "scripted"
model_id = "demo"

[agents.support.budgets.default]
steps = 8
tokens = 200000
cost_usd = "2.00"
deadline = "48h"

[agents.support.budgets.refund]
steps = 4

[agents.support.tool_policy.refund]
approval = "confirm"
four_eyes_above = "200.00"
approval_ttl = "24h"
approver_roles = ["refund_approver"]
editable = ["amount"]

[agents.support.tenants.globex]
deny_tools = ["refund"]
"""


def write(folder: Path, text: str, prompt: str | None = "Answer the ticket.") -> Path:
    path = folder / "profiles.toml"
    path.write_text(text)
    if prompt is not None:
        (folder / "prompts").mkdir(exist_ok=True)
        (folder / "prompts" / "support.md").write_text(prompt)
    return path


def message(path: Path) -> str:
    with pytest.raises(ProfileError) as caught:
        load_profile_file(path)
    return str(caught.value)


def test_a_good_file_loads_with_its_prompt_file_read_in(tmp_path: Path) -> None:
    loaded = load_profile_file(write(tmp_path, GOOD))
    agent = loaded.profiles.agent()
    assert loaded.name == "shop" and not loaded.builtin
    assert agent.system_prompt == "Answer the ticket."
    assert agent.system_prompt_file == "prompts/support.md"
    assert agent.policy("get_order").risk == "read"  # the catalog's own class
    assert agent.budget("refund").steps == 4 and agent.budget("refund").tokens == 200000
    assert len(loaded.content_hash) == 64
    run = loaded.run_profile()
    # A run records the agent's rules; its prompt goes to the run's prompt catalog.
    assert (run.profile_name, run.agent_name, run.agent) == ("shop", "support", agent.rules())
    assert "system_prompt" not in run.model_dump()["agent"]


def test_the_name_defaults_to_the_files_stem(tmp_path: Path) -> None:
    loaded = load_profile_file(write(tmp_path, GOOD.replace('name = "shop"\n', "")))
    assert loaded.name == "profiles"


def test_the_hash_follows_what_agents_do_not_how_the_file_is_laid_out(tmp_path: Path) -> None:
    first = load_profile_file(write(tmp_path, GOOD)).content_hash
    relaid = "# a comment\n" + GOOD.replace("steps = 8", "steps   =   8  # per run")
    assert load_profile_file(write(tmp_path, relaid)).content_hash == first
    assert load_profile_file(write(tmp_path, GOOD, "Be brief.")).content_hash != first
    tighter = GOOD.replace('four_eyes_above = "200.00"', 'four_eyes_above = "100.00"')
    assert load_profile_file(write(tmp_path, tighter)).content_hash != first


def test_unknown_tool(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD.replace('"get_order", "refund"]', '"get_order", "refund", "wire"]'))
    # Every tool that exists: the built-in ones, and any a loaded module registered.
    allowed = ", ".join(sorted(known_tools()))
    assert "get_order, read_ticket, refund" in ", ".join(sorted(CATALOG))
    assert message(path) == f"{path}: agents.support.tools: unknown tool 'wire'; allowed: {allowed}"


def test_unknown_mode(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD.replace('approval = "confirm"', 'approval = "ask"'))
    assert message(path) == (
        f"{path}: agents.support.tool_policy.refund.approval: 'ask' is not allowed; "
        "allowed: auto, confirm, review, deny"
    )


def test_read_tool_given_an_approval_mode(tmp_path: Path) -> None:
    path = write(
        tmp_path, GOOD + '\n[agents.support.tool_policy.get_order]\napproval = "confirm"\n'
    )
    assert message(path) == (
        f"{path}: agents.support.tool_policy.get_order.approval: a read tool takes no "
        "approval mode ('confirm' given); allowed: auto"
    )


def test_unknown_key(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD.replace("editable = ", "editables = "))
    assert message(path) == (
        f"{path}: agents.support.tool_policy.refund.editables: unknown key; allowed: risk, "
        "approval, four_eyes_above, passkey_above, approval_ttl, approver_roles, editable, "
        "approvals, one_from, chain, on_expiry, escalate_to, escalation_ttl, max_escalations, "
        "keep_approvals, call_timeout, exposure, reason_argument, category_argument, card"
    )


def test_four_eyes_above_only_where_an_exposure_is_measured(tmp_path: Path) -> None:
    reply = GOOD.replace('"get_order", "refund"]', '"get_order", "refund", "send_reply"]') + (
        '\n[agents.support.tool_policy.send_reply]\nrisk = "irreversible"\n'
        'approval = "confirm"\nfour_eyes_above = "10.00"\napprover_roles = ["refund_approver"]\n'
    )
    path = write(tmp_path, reply)
    assert message(path) == (
        f"{path}: agents.support.tool_policy.send_reply.four_eyes_above: only refund has an "
        'exposure to compare; use approval = "review" for two reviewers'
    )


def test_policy_for_a_tool_not_offered(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD.replace('"get_order", "refund"]', '"get_order"]'))
    text = message(path)
    assert text.startswith(f"{path}: agents.support.tool_policy.refund: a policy for a tool")


def test_toml_syntax_error_names_the_line(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD.replace("steps = 4", "steps = = 4"))
    text = message(path)
    assert text.startswith(f"{path}: TOML syntax error: ")
    assert "(at line 18, column 9)" in text


def test_missing_prompt_file(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD, prompt=None)
    assert message(path) == (
        f"{path}: agents.support.system_prompt_file: cannot read 'prompts/support.md' "
        "(relative to this file): No such file or directory"
    )


def test_prompt_inline_and_from_a_file_is_refused(tmp_path: Path) -> None:
    path = write(
        tmp_path, GOOD.replace("[agents.support]\n", '[agents.support]\nsystem_prompt = "x"\n')
    )
    assert message(path) == (
        f"{path}: agents.support.system_prompt_file: give system_prompt or "
        "system_prompt_file, not both"
    )


def test_no_prompt_at_all(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD.replace('system_prompt_file = "prompts/support.md"\n', ""))
    assert message(path) == (
        f"{path}: agents.support.system_prompt: missing: give system_prompt (the text) or "
        "system_prompt_file (a file path, relative to this file)"
    )


def test_a_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "nowhere.toml"
    assert message(path) == f"{path}: cannot read the file: No such file or directory"


def test_a_script_name_that_leaves_the_scripts_folder(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD.replace('model_id = "demo"', 'model_id = "../secrets"'))
    assert message(path).startswith(
        f"{path}: agents.support.model.model_id: '../secrets' is not a script name"
    )


def test_every_problem_gets_its_own_line(tmp_path: Path) -> None:
    broken = GOOD.replace('approval = "confirm"', 'approval = "ask"').replace(
        'deadline = "48h"', "deadline = 48"
    )
    lines = message(write(tmp_path, broken)).splitlines()
    assert [line.split(": ")[1] for line in lines] == [
        "agents.support.tool_policy.refund.approval",
        "agents.support.budgets.default.deadline",
        "agents.support.budgets.refund.deadline",  # inherited from default
    ]


def test_the_setting_chooses_the_file_and_the_built_in_is_the_default(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD)
    assert load_profiles(Settings(profiles=path)).source == path
    builtin = load_profiles(Settings(profiles=None))
    assert builtin.builtin and builtin.source == BUILTIN_PROFILES and builtin.name == "builtin"
