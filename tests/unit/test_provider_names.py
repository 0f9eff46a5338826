"""No per-provider branch outside the provider's own modules (issue 43).

A model provider is declared once (signoff/models/NAME_provider.py) and its adapter
lives in activities/models/NAME*.py; a payment platform is declared once
(signoff/payments/NAME_platform.py), with its connector in activities/payments/NAME*.py
and its configuration in signoff/config/NAME*.py; a kind of helpdesk is declared once
(signoff/helpdesks/NAME_kind.py), with its delivery in activities/connectors/NAME*.py;
an intake source is declared, and its deliveries read, in signoff/intake/NAME_source.py.
Every other module asks the registries. This reads the product's syntax trees for
what would be a branch on one: its name as a string (`provider == "openai"`), one of
its settings (`settings.anthropic_api_key`), its classes, or an import of its SDK or
its modules.
"""

from __future__ import annotations

import ast
from pathlib import Path

from signoff.helpdesks import known_kinds
from signoff.intake import known_sources
from signoff.models import known_providers
from signoff.payments import known_platforms

ROOT = Path(__file__).parents[2]
PRODUCT = ("workflows", "activities", "signoff", "approvals_ui")
# Names that are no branch: the one provider the core knows (it defines the name, and
# the scripted declaration takes it), and modules of inbound webhooks in general.
CORE = {
    ("workflows/model_contracts.py", "scripted"),
    ("approvals_ui/intake_delivery.py", "webhook"),
    ("approvals_ui/routers/intake.py", "webhook"),
    ("approvals_ui/routers/intake_replies.py", "webhook"),
    ("approvals_ui/routers/slack.py", "webhook"),
}
# Python's own names that merely start as a provider's would: typing.Generic is not
# the generic intake source's.
NOT_CLASSES_OF_PROVIDERS = {"Generic"}
# Known and not yet moved, each with what moves it; this test fails when one is gone, so
# that its entry goes with it.
PENDING: dict[tuple[str, str], str] = {}


def own_module(relative: str, provider: str) -> bool:
    """Whether `relative` is one of the modules of `provider`, of whichever registry
    names it (`zendesk` is both a kind of helpdesk and an intake source)."""
    path = Path(relative)
    owned = []
    if provider in known_kinds():
        owned.append(relative == f"signoff/helpdesks/{provider}_kind.py")
        owned.append(
            path.parent == Path("activities/connectors") and path.name.startswith(provider)
        )
    if provider in known_sources():
        owned.append(relative == f"signoff/intake/{provider}_source.py")
    if provider in known_platforms():
        owned.append(relative == f"signoff/payments/{provider}_platform.py")
        owned.append(
            path.parent in (Path("activities/payments"), Path("signoff/config"))
            and path.name.startswith(provider)
        )
    if provider in known_providers():
        owned.append(relative == f"signoff/models/{provider}_provider.py")
        owned.append(path.parent == Path("activities/models") and path.name.startswith(provider))
    return any(owned)


def mentions(source: str, provider: str) -> list[int]:
    """The lines of `source` that name `provider` as a branch would."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Constant) and node.value == provider:
            lines.append(node.lineno)
        elif isinstance(node, ast.Attribute) and node.attr.startswith(f"{provider}_"):
            lines.append(node.lineno)
        elif isinstance(node, ast.Name) and class_of(node.id, provider):
            lines.append(node.lineno)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            modules = [alias.name for alias in node.names]
            if isinstance(node, ast.ImportFrom) and node.module:
                modules.append(node.module)
            parts = [part for module in modules for part in module.split(".")]
            if any(part.startswith(provider) for part in parts):
                lines.append(node.lineno)
    return lines


def class_of(name: str, provider: str) -> bool:
    """A class of the provider's by its CapWords name: StripeKeyProblem, AnthropicModel."""
    if name in NOT_CLASSES_OF_PROVIDERS:
        return False
    return name[:1].isupper() and not name.isupper() and name.lower().startswith(provider)


def found() -> dict[tuple[str, str], list[int]]:
    hits: dict[tuple[str, str], list[int]] = {}
    for folder in PRODUCT:
        for path in sorted((ROOT / folder).rglob("*.py")):
            relative = path.relative_to(ROOT).as_posix()
            source = path.read_text()
            names = [*known_providers(), *known_platforms(), *known_kinds(), *known_sources()]
            for provider in dict.fromkeys(names):
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
    assert mentions("try:\n    pass\nexcept StripeKeyProblem:\n    pass\n", "stripe") == [3]
    assert mentions("from signoff.config.stripe_keys import x\n", "stripe") == [1]
    assert mentions('if signer.source == "generic":\n    pass\n', "generic") == [1]
    assert mentions("class Page(Generic[Item]):\n    pass\n", "generic") == []


def test_each_built_in_provider_is_declared_in_its_own_module() -> None:
    for name in ("anthropic", "openai", "scripted"):
        assert known_providers()[name].name == name
        assert (ROOT / f"signoff/models/{name}_provider.py").is_file()
    assert known_platforms()["stripe"].name == "stripe"
    assert (ROOT / "signoff/payments/stripe_platform.py").is_file()
    for kind in ("webhook", "zendesk"):
        assert known_kinds()[kind].name == kind
        assert (ROOT / f"signoff/helpdesks/{kind}_kind.py").is_file()
    for source in ("generic", "zendesk"):
        assert known_sources()[source].name == source
        assert (ROOT / f"signoff/intake/{source}_source.py").is_file()
