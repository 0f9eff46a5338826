"""Which script files a private stack needs: `scripted:NAME` resolved beside each scenario.

A scenario's scripts live in a `scripts/` folder in its own folder or the nearest
ancestor that has one (so `evals/redteam/x.yaml` finds `evals/scripts/NAME.json`). A
private stack gets exactly these files as its scripts directory; an existing stack's
worker reads its own SIGNOFF_SCRIPTS_DIR.
"""

from __future__ import annotations

from pathlib import Path

from signoff.service.evals.scenario import LoadedScenario, ScenarioError
from workflows.model_contracts import SCRIPTED_PROVIDER

SCRIPTS_FOLDER = "scripts"
SCRIPTED = f"{SCRIPTED_PROVIDER}:"


def script_file(loaded: LoadedScenario, name: str) -> Path:
    for folder in loaded.path.resolve().parents:
        candidate = folder / SCRIPTS_FOLDER / f"{name}.json"
        if candidate.is_file():
            return candidate
    raise ScenarioError(
        f"{loaded.path}: run.model: no script '{name}.json' in a '{SCRIPTS_FOLDER}' folder "
        "beside this scenario or above it."
    )


def scenario_scripts(scenarios: list[LoadedScenario]) -> dict[str, Path]:
    """Script name -> file, for every scripted scenario; two files under one name: error."""
    scripts: dict[str, Path] = {}
    for loaded in scenarios:
        model = loaded.scenario.run.model
        if not model.startswith(SCRIPTED):
            continue
        name = model.removeprefix(SCRIPTED)
        path = script_file(loaded, name)
        if scripts.setdefault(name, path) != path:
            raise ScenarioError(
                f"{loaded.path}: run.model: script '{name}' is both {scripts[name]} and {path}; "
                "rename one."
            )
    return scripts
