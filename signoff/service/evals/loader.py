"""Reading scenario files and folders: every problem names the file and the field path.

A folder means every `*.yaml` / `*.yml` file in it, recursively, in name order; a
folder named `scripts` is skipped (scenario scripts live there, as JSON anyway).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from signoff.service.evals.scenario import (
    CrossTenantApproval,
    LoadedScenario,
    Scenario,
    ScenarioError,
    StaleApproval,
    scenario_name,
)

SUFFIXES = (".yaml", ".yml")


def scenario_files(paths: list[Path]) -> list[Path]:
    files: list[Path] = []
    for path in paths:
        if path.is_dir():
            found = sorted(
                candidate
                for candidate in path.rglob("*")
                if candidate.suffix in SUFFIXES and candidate.is_file()
            )
            if not found:
                raise ScenarioError(f"{path}: no scenario files (*.yaml) in this folder.")
            files.extend(found)
        elif path.is_file():
            files.append(path)
        else:
            raise ScenarioError(f"{path}: no such file or folder.")
    return files


def load_scenarios(paths: list[Path]) -> list[LoadedScenario]:
    loaded = [load_scenario(path) for path in scenario_files(paths)]
    seen: dict[str, Path] = {}
    for item in loaded:
        if item.name in seen:
            raise ScenarioError(
                f"{item.path}: scenario name '{item.name}' is also {seen[item.name]}'s; "
                "rename one file."
            )
        seen[item.name] = item.path
    return loaded


def load_scenario(path: Path) -> LoadedScenario:
    try:
        document: Any = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise ScenarioError(f"{path}: cannot be read ({error.strerror}).") from None
    except UnicodeDecodeError:
        raise ScenarioError(f"{path}: is not UTF-8 text.") from None
    except yaml.YAMLError as error:
        where = getattr(error, "problem_mark", None)
        line = f" at line {where.line + 1}" if where is not None else ""
        raise ScenarioError(f"{path}: is not valid YAML{line}: {error}") from None
    if not isinstance(document, dict):
        raise ScenarioError(f"{path}: a scenario is a mapping (tenants, run, expect, ...).")
    try:
        scenario = Scenario.model_validate(document)
    except ValidationError as error:
        problems = "; ".join(
            f"{'.'.join(str(part) for part in item['loc']) or 'scenario'}: {item['msg']}"
            for item in error.errors(include_url=False)
        )
        raise ScenarioError(f"{path}: {problems}") from None
    problem = cross_reference_problem(scenario)
    if problem is not None:
        raise ScenarioError(f"{path}: {problem}")
    return LoadedScenario(name=scenario_name(path), path=path, scenario=scenario)


def cross_reference_problem(scenario: Scenario) -> str | None:
    """Names that must point at something the scenario declares."""
    for index, tenant in enumerate(scenario.tenants):
        orders = {order.id for order in tenant.orders}
        for position, ticket in enumerate(tenant.tickets):
            if ticket.order is not None and ticket.order not in orders:
                return (
                    f"tenants.{index}.tickets.{position}.order: '{ticket.order}' is not "
                    f"an order of tenant '{tenant.id}'"
                )
        for position, refund in enumerate(tenant.refunds):
            if refund.order not in orders:
                return (
                    f"tenants.{index}.refunds.{position}.order: '{refund.order}' is not "
                    f"an order of tenant '{tenant.id}'"
                )
    run_tenant = scenario.tenant(scenario.run.tenant)
    if run_tenant is None:
        return f"run.tenant: '{scenario.run.tenant}' is not one of the scenario's tenants"
    if scenario.run.ticket not in {ticket.id for ticket in run_tenant.tickets}:
        return f"run.ticket: '{scenario.run.ticket}' is not a ticket of '{run_tenant.id}'"
    reviewers = {reviewer.id for reviewer in run_tenant.reviewers}
    for index, step in enumerate(scenario.reviewers):
        if step.reviewer not in reviewers:
            return f"reviewers.{index}.as: '{step.reviewer}' is not a reviewer of '{run_tenant.id}'"
    fault = scenario.fault
    if isinstance(fault, CrossTenantApproval):
        other = scenario.tenant(fault.tenant)
        if other is None or other is run_tenant:
            return f"fault.tenant: '{fault.tenant}' must be another tenant of the scenario"
        if fault.reviewer not in {reviewer.id for reviewer in other.reviewers}:
            return f"fault.reviewer: '{fault.reviewer}' is not a reviewer of '{other.id}'"
    if isinstance(fault, StaleApproval) and fault.reviewer not in reviewers:
        return f"fault.reviewer: '{fault.reviewer}' is not a reviewer of '{run_tenant.id}'"
    return None
