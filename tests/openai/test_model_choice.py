"""Choosing `openai:MODEL_ID`: parsing, settings, price, and the worker's dispatch."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path

import pytest
from pydantic import SecretStr
from temporalio.exceptions import ApplicationError
from typer.testing import CliRunner

from activities.model_turn import ModelTurns, build_model_turns
from activities.models.scripted import SCRIPTS_DIR, ScriptedModel
from signoff.config.settings import ModelChoiceError, Settings, get_settings, parse_model
from signoff.wiring.app import app
from signoff.wiring.local_stack import free_port
from tests.openai.chat_server import FakeChatApi, assistant, completion
from tests.openai.test_adapter import model_request
from workflows.contracts import ModelPrice, ModelRef, RunRequest
from workflows.model_contracts import PROVIDER_NAME_PATTERN

QWEN = ModelRef(provider="openai", model_id="qwen3:4b")


@pytest.fixture
def settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Settings:
    for name in ("OPENAI_API_KEY", "SIGNOFF_OPENAI_API_KEY", "SIGNOFF_MODEL_PRICES"):
        monkeypatch.delenv(name, raising=False)
    return Settings(home=tmp_path)


@pytest.mark.parametrize(
    ("text", "model_id"),
    [
        ("openai:qwen3:4b", "qwen3:4b"),  # split on the first ':' only
        ("openai:gpt-4o-mini", "gpt-4o-mini"),
        ("  openai:hf.co/org/model:Q4_K_M ", "hf.co/org/model:Q4_K_M"),
    ],
)
def test_openai_takes_the_rest_as_the_model_id(
    settings: Settings, text: str, model_id: str
) -> None:
    model = parse_model(text, settings)
    assert model == ModelRef(provider="openai", model_id=model_id)
    assert model.label() == f"openai:{model_id}" and not model.scripted


@pytest.mark.parametrize("text", ["openai", "openai:", "openai:  "])
def test_openai_without_a_model_id_says_what_to_write(settings: Settings, text: str) -> None:
    with pytest.raises(ModelChoiceError, match="'openai:qwen3:4b'"):
        parse_model(text, settings)


def test_the_default_model_may_be_a_local_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SIGNOFF_MODEL", "openai:qwen3:4b")
    monkeypatch.setenv("SIGNOFF_OPENAI_BASE_URL", "http://localhost:11434/v1")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-the-sdk-variable")
    settings = Settings(home=tmp_path)
    assert settings.default_model() == QWEN
    assert settings.openai_base_url == "http://localhost:11434/v1"
    assert settings.openai_api_key == SecretStr("sk-from-the-sdk-variable")
    # Ours wins over the SDK's variable.
    monkeypatch.setenv("SIGNOFF_OPENAI_API_KEY", "sk-ours")
    assert Settings(home=tmp_path).openai_api_key == SecretStr("sk-ours")


def test_a_local_model_is_free_unless_the_table_prices_it(
    settings: Settings, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    assert settings.price_of(QWEN) == ModelPrice()
    # Claude without a price stays unknown: `signoff run` warns about it.
    assert settings.price_of(ModelRef(provider="anthropic", model_id="unknown")) is None
    monkeypatch.setenv("SIGNOFF_MODEL_PRICES", '{"gpt-4o-mini": {"input": "0.15"}}')
    priced = Settings(home=tmp_path)
    gpt = ModelRef(provider="openai", model_id="gpt-4o-mini")
    assert priced.price_of(gpt) == ModelPrice(input=Decimal("0.15"))


def test_the_model_ref_round_trips_as_json() -> None:
    # What crosses the workflow boundary: the new provider in a request's payload.
    assert ModelRef.model_validate_json(QWEN.model_dump_json()) == QWEN
    # The provider is a name the registry checks at the edge, not a list in the contract:
    # a provider installed later crosses it unchanged.
    schema = RunRequest.model_json_schema()["$defs"]["ModelRef"]["properties"]["provider"]
    assert "enum" not in schema and schema["pattern"] == PROVIDER_NAME_PATTERN


async def test_the_worker_sends_its_key_to_its_base_url(api: FakeChatApi, tmp_path: Path) -> None:
    from activities.models.openai_adapter import OpenAIModel

    settings = Settings(
        home=tmp_path, openai_base_url=api.base_url, openai_api_key=SecretStr("sk-worker")
    )
    turns = build_model_turns(settings)
    request = model_request()
    adapter = turns.adapter_for(request)
    assert isinstance(adapter, OpenAIModel)
    assert turns.adapter_for(request) is adapter  # built once
    api.reply(completion(assistant("Done."), "stop"))
    try:
        await adapter.complete(request)
    finally:
        await adapter.close()
    assert api.requests[0].headers["authorization"] == "Bearer sk-worker"


def test_a_hand_built_worker_without_the_adapter_says_so_without_retrying() -> None:
    turns = ModelTurns({"scripted": lambda: ScriptedModel(SCRIPTS_DIR)})
    with pytest.raises(ApplicationError, match="has no model provider 'openai'") as raised:
        turns.adapter_for(model_request())
    assert (raised.value.type, raised.value.non_retryable) == ("ModelBadRequest", True)


# Slow: a fresh interpreter imports the worker and the OpenAI SDK.
@pytest.mark.slow
def test_a_worker_loads_the_openai_sdk_only_for_an_openai_turn() -> None:
    # Workers that never run a local model never import it (nor pay its import time).
    program = (
        "import sys\n"
        "from activities.model_turn import build_model_turns\n"
        "from signoff.config.settings import Settings\n"
        "from workflows.contracts import ModelRef, ModelRequest\n"
        "turns = build_model_turns(Settings())\n"
        "assert 'openai' not in sys.modules, 'loaded at start'\n"
        "ref = ModelRef(provider='openai', model_id='qwen3:4b')\n"
        "turns.adapter_for(ModelRequest(model=ref, system='', messages=[], tools=[],"
        " max_tokens=16))\n"
        "assert 'openai' in sys.modules, 'not loaded for an openai turn'\n"
    )
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, "-c", program], cwd=root, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr


@pytest.fixture
def cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[CliRunner]:
    monkeypatch.setenv("SIGNOFF_HOME", str(tmp_path))
    # Nothing listens there: the run cannot start, which is not what these tests read.
    monkeypatch.setenv("SIGNOFF_TEMPORAL_ADDRESS", f"127.0.0.1:{free_port()}")
    monkeypatch.delenv("SIGNOFF_MODEL_PRICES", raising=False)
    get_settings.cache_clear()
    yield CliRunner()
    get_settings.cache_clear()


def test_signoff_run_refuses_openai_without_a_model_id(cli: CliRunner) -> None:
    cli.invoke(app, ["seed"])
    result = cli.invoke(app, ["run", "--ticket", "T-4512", "--model", "openai"])
    assert result.exit_code == 2
    assert "'openai' needs the id of the model to run" in result.stderr


def test_signoff_run_on_a_local_model_does_not_warn_about_its_price(cli: CliRunner) -> None:
    cli.invoke(app, ["seed"])
    result = cli.invoke(app, ["run", "--ticket", "T-4512", "--model", "openai:qwen3:4b"])
    # The request was built and checked; only the (absent) Temporal server stopped it.
    assert result.exit_code == 2
    assert result.stderr.startswith("error: Cannot reach Temporal")
    assert "no price is known" not in result.stderr
