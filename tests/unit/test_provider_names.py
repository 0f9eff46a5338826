"""No per-provider branch outside the provider's own modules (issue 43).

A model provider is declared once (signoff/models/NAME_provider.py) and its adapter
lives in activities/models/NAME*.py; every other module asks the registry. This reads
the product's syntax trees for what would be a branch on one: the provider's name as a
string (`provider == "openai"`), one of its settings (`settings.anthropic_api_key`), or
an import of its SDK or its modules.
"""

from __future__ import annotations

import ast
from pathlib import Path

from signoff.models import known_providers

ROOT = Path(__file__).parents[2]
PRODUCT = ("workflows", "activities", "signoff", "approvals_ui")
# The one name the core knows: it defines it, and the scripted declaration takes it.
CORE = {("workflows/model_contracts.py", "scripted")}
# Known and not yet moved, each with what moves it; this test fails when one is gone, so
# that its entry goes with it. run_requests.py is another engineer's file this session.
PENDING = {
    ("signoff/service/run_requests.py", "anthropic"): (
        "thinking budget: provider_named(model.provider).thinking_budget(settings)"
    ),
}


def own_module(relative: str, provider: str) -> bool:
    path = Path(relative)
    return relative == f"signoff/models/{provider}_provider.py" or (
        path.parent == Path("activities/models") and path.name.startswith(provider)
    )


def mentions(source: str, provider: str) -> list[int]:
    """The lines of `source` that name `provider` as a branch would."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Constant) and node.value == provider:
            lines.append(node.lineno)
        elif isinstance(node, ast.Attribute) and node.attr.startswith(f"{provider}_"):
            lines.append(node.lineno)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            modules = [alias.name for alias in node.names]
            if isinstance(node, ast.ImportFrom) and node.module:
                modules.append(node.module)
            parts = [part for module in modules for part in module.split(".")]
            if any(part.startswith(provider) for part in parts):
                lines.append(node.lineno)
    return lines


def found() -> dict[tuple[str, str], list[int]]:
    hits: dict[tuple[str, str], list[int]] = {}
    for folder in PRODUCT:
        for path in sorted((ROOT / folder).rglob("*.py")):
            relative = path.relative_to(ROOT).as_posix()
            source = path.read_text()
            for provider in known_providers():
                lines = mentions(source, provider)
                if lines and not own_module(relative, provider):
                    hits[(relative, provider)] = lines
    return hits


def test_no_module_names_a_provider_outside_its_own() -> None:
    hits = {key: lines for key, lines in found().items() if key not in CORE}
    assert hits.keys() == PENDING.keys(), (
        "ask the registry (signoff/models) instead of naming a provider here: "
        f"{ {key: lines for key, lines in hits.items() if key not in PENDING} }; "
        f"moved since, drop from PENDING: {sorted(PENDING.keys() - hits.keys())}"
    )


def test_the_check_sees_each_kind_of_branch() -> None:
    assert mentions('if model.provider == "openai":\n    pass\n', "openai") == [1]
    assert mentions("key = settings.anthropic_api_key\n", "anthropic") == [1]
    assert mentions("from activities.models.scripted import ScriptedModel\n", "scripted") == [1]
    assert mentions("import anthropic\n", "anthropic") == [1]
    assert mentions('help = "scripted, anthropic:MODEL_ID"\n', "anthropic") == []


def test_each_built_in_provider_is_declared_in_its_own_module() -> None:
    for name in ("anthropic", "openai", "scripted"):
        assert known_providers()[name].name == name
        assert (ROOT / f"signoff/models/{name}_provider.py").is_file()
