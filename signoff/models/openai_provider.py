"""Any server that speaks the Chat Completions API (Ollama, vLLM, llama.cpp, OpenAI),
through activities/models/openai_adapter.py. Its model ids may hold ':' (`qwen3:4b`).

No default model: what a local server holds is the user's choice (`ollama list`).
"""

from __future__ import annotations

from signoff.models.registry import ModelProvider


def _id_problem(model_id: str | None) -> str | None:
    if model_id:
        return None
    return (
        "'openai' needs the id of the model to run, e.g. 'openai:qwen3:4b' on Ollama "
        "(with SIGNOFF_OPENAI_BASE_URL=http://localhost:11434/v1)."
    )


OPENAI = ModelProvider(
    name="openai",
    adapter="activities.models.openai_adapter:from_settings",
    usage="openai:MODEL_ID",
    id_problem=_id_problem,
    settings_secrets=lambda settings: (settings.openai_api_key,),
    # Mostly a local model, free to run: zero unless the price table lists it.
    unlisted_price="free",
)
