"""The scenario format: what loads, and what is refused with the file and the field named."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from signoff.service.evals.loader import load_scenario, load_scenarios
from signoff.service.evals.runner import model_ref
from signoff.service.evals.scenario import ScenarioError
from signoff.service.evals.scripts import scenario_scripts
from signoff.wiring.app import app

REPO_ROOT = Path(__file__).resolve().parents[2]
VALID = """
tenants:
  - id: shop
    orders: [{id: C-1, paid: "10.00"}]
    tickets: [{id: T-1, order: C-1, text: "Broken."}]
    reviewers: [{id: alice}]
run: {tenant: shop, ticket: T-1, model: "scripted:refund-full"}
reviewers: [{as: alice, verdict: approve}]
"""


def write(tmp_path: Path, text: str, name: str = "x.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_the_shipped_set_loads_and_finds_its_scripts() -> None:
    scenarios = load_scenarios([REPO_ROOT / "evals"])
    assert len(scenarios) >= 20
    scripts = scenario_scripts(scenarios)
    assert all(path.parent == REPO_ROOT / "evals" / "scripts" for path in scripts.values())


def test_a_valid_scenario_loads(tmp_path: Path) -> None:
    loaded = load_scenario(write(tmp_path, VALID))
    assert loaded.name == "x"
    assert loaded.scenario.reviewers[0].reviewer == "alice"
    assert loaded.scenario.expect.status == "completed"


@pytest.mark.parametrize(
    ("change", "said"),
    [
        (("verdict: approve", "verdict: maybe"), "reviewers.0.verdict: Input should be 'approve'"),
        (('paid: "10.00"', 'paid: "-1"'), "tenants.0.orders.0.paid: Input should be greater"),
        (("ticket: T-1,", "ticket: T-2,"), "run.ticket: 'T-2' is not a ticket of 'shop'"),
        (("order: C-1,", "order: C-9,"), "tenants.0.tickets.0.order: 'C-9' is not an order"),
        (("as: alice", "as: mallory"), "reviewers.0.as: 'mallory' is not a reviewer"),
        (("scripted:refund-full", "gpt-x"), "run.model: String should match pattern"),
        (("reviewers: [{as", "reviewrs: [{as"), "reviewrs: Extra inputs are not permitted"),
        (("id: shop", "id: my-shop"), "tenants.0.id: String should match pattern"),
    ],
)
def test_a_bad_field_is_named_with_the_file(
    tmp_path: Path, change: tuple[str, str], said: str
) -> None:
    path = write(tmp_path, VALID.replace(*change))
    with pytest.raises(ScenarioError) as raised:
        load_scenario(path)
    assert str(raised.value).startswith(f"{path}: ")
    assert said in str(raised.value)


def test_yaml_that_does_not_parse_says_where(tmp_path: Path) -> None:
    path = write(tmp_path, "tenants: [\n  - id: shop\n run: {")
    with pytest.raises(ScenarioError, match=r"x.yaml: is not valid YAML at line"):
        load_scenario(path)


def test_a_missing_script_is_bad_input(tmp_path: Path) -> None:
    loaded = load_scenario(write(tmp_path, VALID.replace("refund-full", "no-such-script")))
    with pytest.raises(ScenarioError, match="no script 'no-such-script.json'"):
        scenario_scripts([loaded])


def test_a_provider_the_workflows_do_not_know_is_refused_before_anything_runs() -> None:
    # Any `PROVIDER:ID` passes the file's format; the registry refuses what is not installed.
    assert model_ref("scripted:demo").provider == "scripted"
    with pytest.raises(ScenarioError, match="provider 'nonesuch' is not one evals can use"):
        model_ref("nonesuch:model-1")


def test_the_command_exits_2_on_bad_input(tmp_path: Path) -> None:
    path = write(tmp_path, VALID.replace("verdict: approve", "verdict: maybe"))
    result = CliRunner().invoke(app, ["eval", str(path)])
    assert result.exit_code == 2
    assert "reviewers.0.verdict" in result.output
    missing = CliRunner().invoke(app, ["eval", str(tmp_path / "nothing-here")])
    assert missing.exit_code == 2
    assert "no such file or folder" in missing.output
