"""The scripted model: declared turns replayed deterministically from a JSON script
(activities/models/scripted.py); every outcome says so. `scripted:NAME` reads
`NAME.json` from SIGNOFF_SCRIPTS_DIR (default: the scripts shipped in
activities/scripts).
"""

from __future__ import annotations

from signoff.models.registry import ModelProvider
from signoff.models.script_names import script_name_problem
from workflows.model_contracts import SCRIPTED_PROVIDER

# The scripted demo is what `auto` falls back on: lowest rank, always ready.
AUTO_RANK = 0

SCRIPTED = ModelProvider(
    name=SCRIPTED_PROVIDER,
    adapter="activities.models.scripted:from_settings",
    usage="scripted[:SCRIPT]",
    id_problem=lambda script: None if script is None else script_name_problem(script),
    default_id=lambda settings: settings.scripted_default_script,
    # The GenAI conventions have no name for it: ours.
    telemetry_name="signoff.scripted",
    unlisted_price="free",
    auto_rank=AUTO_RANK,
    # A triage on the default script classifies with the triage script (`signoff triage`).
    triage_model_id="triage",
)
