"""A deterministic model that replays declared turns: the demo and the tests, no network.

`scripted:NAME` reads `<scripts_dir>/NAME.json`, `scripted:PATH.json` that file, a path
relative to the scripts directory and inside it (see `signoff/models/script_names.py`)::

    {"description": "what this script shows",
     "turns": [                               # turn N answers a conversation that already
       {"replies": [                          # holds N assistant messages
         {"when": [CONDITION, ...],           # optional: all must hold; first match wins
          "content": [                        # the reply's blocks, in order
            {"type": "text", "text": "Order {get_order.order_id} is {get_order.status}."},
            {"type": "tool_use", "name": "get_order", "input": {}}],
          "stop_reason": "end_turn",          # optional: tool_use if it calls a tool
          "usage": {"input_tokens": 10, "output_tokens": 5}}]}]}    # optional

A CONDITION reads the latest result of one tool (the tool_result answering the last
tool_use of that name); without such a result it does not hold::

    {"tool": "get_order", "field": "found", "equals": false}
    {"tool": "read_ticket", "contains": ["damaged", "broken"]}
    {"tool": "get_order", "is_error": true}

`field` is a dotted path into the result parsed as JSON (absent: the whole result).
`equals` compares JSON values; `contains` is a case-insensitive substring test on the
value as text, a list meaning "any of"; `is_error` tests the result's error flag. With
no test, a condition holds when the result (and the field) exists.

`{tool.field}` in a text, or in a string argument of a tool call, becomes that field of
the tool's latest result (`?` when missing, `none` when null). tool_use ids are
`toolu_s{turn}_{n}`, n counting the reply's tool calls from 0. Undeclared usage is 4
characters a token: budgets work as for real.
"""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Annotated, Any, Literal, NamedTuple

from pydantic import Field, ValidationError
from temporalio.exceptions import ApplicationError

from signoff.config.settings import Settings
from signoff.models.script_names import script_name_problem
from workflows.contract_base import Contract
from workflows.contracts import (
    Message,
    ModelReply,
    ModelRequest,
    ReplyBlock,
    StopReason,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
    Usage,
)

# The scripts shipped with signoff, read when SIGNOFF_SCRIPTS_DIR is unset.
SCRIPTS_DIR = Path(__file__).parent.parent / "scripts"
SCRIPT_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]*$")
TEMPLATE = re.compile(r"\{([A-Za-z0-9_-]+)\.([A-Za-z0-9_.-]+)\}")
CHARACTERS_PER_TOKEN = 4
_MISSING: Any = object()


def script_error(message: str) -> ApplicationError:
    # A script is a file on the worker: a retry reads the same file and fails the same way.
    return ApplicationError(message, type="ScriptError", non_retryable=True)


class ToolOutcome(NamedTuple):
    text: str
    value: Any  # the text parsed as JSON, or the text itself
    is_error: bool


class Condition(Contract):
    tool: str
    field: str | None = None
    equals: Any = None
    contains: str | list[str] | None = None
    is_error: bool | None = None

    def holds(self, results: dict[str, ToolOutcome]) -> bool:
        result = results.get(self.tool)
        if result is None or self.is_error not in (None, result.is_error):
            return False
        value = result.value if self.field is None else lookup(result.value, self.field)
        if value is _MISSING:
            return False
        # `equals: null` is a test too, so "was it given" is not "is it None".
        if "equals" in self.model_fields_set and not same_json(value, self.equals):
            return False
        if self.contains is not None:
            haystack = (result.text if self.field is None else as_text(value)).casefold()
            needles = [self.contains] if isinstance(self.contains, str) else self.contains
            return any(needle.casefold() in haystack for needle in needles)
        return True


class ScriptedToolUse(Contract):
    type: Literal["tool_use"]
    name: str
    input: dict[str, Any] = {}


class ScriptedReply(Contract):
    when: list[Condition] = []
    content: list[Annotated[TextBlock | ScriptedToolUse, Field(discriminator="type")]]
    stop_reason: StopReason | None = None
    usage: Usage | None = None


class ScriptedTurn(Contract):
    replies: Annotated[list[ScriptedReply], Field(min_length=1)]


class Script(Contract):
    description: str = ""
    turns: list[ScriptedTurn]


def lookup(value: Any, path: str) -> Any:
    for part in path.split("."):
        if not isinstance(value, dict) or part not in value:
            return _MISSING
        value = value[part]
    return value


def same_json(left: Any, right: Any) -> bool:
    # Python says True == 1; JSON does not.
    return left is right if isinstance(left, bool) or isinstance(right, bool) else left == right


def as_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def latest_results(messages: list[Message]) -> dict[str, ToolOutcome]:
    """The last result of each tool, keyed by tool name."""
    names: dict[str, str] = {}
    results: dict[str, ToolOutcome] = {}
    for message in messages:
        for block in message.content:
            if message.role == "assistant" and isinstance(block, ToolUseBlock):
                names[block.id] = block.name
            elif message.role == "user" and isinstance(block, ToolResultBlock):
                name = names.get(block.tool_use_id)
                if name is not None:
                    results[name] = ToolOutcome(block.content, parse(block.content), block.is_error)
    return results


def parse(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:  # plain text results are compared as text
        return text


def render(text: str, results: dict[str, ToolOutcome]) -> str:
    def replace(match: re.Match[str]) -> str:
        result = results.get(match[1])
        value = _MISSING if result is None else lookup(result.value, match[2])
        return "?" if value is _MISSING else "none" if value is None else as_text(value)

    return TEMPLATE.sub(replace, text)


def estimate_usage(request: ModelRequest, content: list[ReplyBlock]) -> Usage:
    def tokens(payload: Any) -> int:
        return max(1, len(json.dumps(payload)) // CHARACTERS_PER_TOKEN)

    messages = [message.model_dump(mode="json") for message in request.messages]
    return Usage(
        input_tokens=tokens({"system": request.system, "messages": messages}),
        output_tokens=tokens([block.model_dump(mode="json") for block in content]),
    )


class ScriptVersion(NamedTuple):
    """What identifies one content of a script file: an edited file is read again."""

    mtime_ns: int
    size: int


class ScriptedModel:
    def __init__(self, scripts_dir: Path) -> None:
        self._scripts_dir = scripts_dir
        # Every model turn of every run loads its script: read and validate each file
        # once, and again only when it changed. Errors are never cached, so a fixed file
        # is seen on the next attempt.
        self._loaded: dict[Path, tuple[ScriptVersion, Script]] = {}

    async def complete(self, request: ModelRequest) -> ModelReply:
        name = request.model.model_id
        script = await asyncio.to_thread(self.load, name)
        turn = sum(1 for message in request.messages if message.role == "assistant")
        if turn >= len(script.turns):
            raise script_error(
                f"script '{name}' has {len(script.turns)} turn(s); the run asks for turn {turn}. "
                "Add a turn, or end the script's last turn with an answer (end_turn)."
            )
        results = latest_results(request.messages)
        replies = script.turns[turn].replies
        chosen = next((r for r in replies if all(c.holds(results) for c in r.when)), None)
        if chosen is None:
            raise script_error(
                f"script '{name}', turn {turn}: no reply's conditions hold for this run. "
                "End the turn with a reply without 'when', to cover every other case."
            )
        content = build_content(chosen, turn, results)
        has_call = any(isinstance(block, ToolUseBlock) for block in content)
        return ModelReply(
            content=content,
            stop_reason=chosen.stop_reason or ("tool_use" if has_call else "end_turn"),
            usage=chosen.usage or estimate_usage(request, content),
            model_id=f"scripted:{name}",
        )

    def load(self, name: str) -> Script:
        path = self.path_of(name)
        try:
            status = path.stat()
        except OSError:
            status = None  # read_text below says why, in the usual words
        version = None if status is None else ScriptVersion(status.st_mtime_ns, status.st_size)
        cached = self._loaded.get(path)
        if cached is not None and version is not None and cached[0] == version:
            return cached[1]
        script = self.read(name, path)
        if version is not None:
            self._loaded[path] = (version, script)
        return script

    def read(self, name: str, path: Path) -> Script:
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as error:
            known = ", ".join(sorted(p.stem for p in self._scripts_dir.glob("*.json")))
            raise script_error(
                f"no script '{name}': {path} cannot be read ({error.strerror}). Scripts shipped: "
                f"{known}. Choose one with --model scripted:NAME, or a path ending in .json."
            ) from None
        try:
            script = Script.model_validate_json(text)
        except ValidationError as error:
            problems = "; ".join(
                f"{'.'.join(str(part) for part in item['loc']) or 'script'}: {item['msg']}"
                for item in error.errors(include_url=False, include_input=False)
            )
            raise script_error(
                f"script {path} is not a valid script ({problems}). The format is described "
                "in activities/models/scripted.py."
            ) from None
        return script

    def path_of(self, name: str) -> Path:
        # The name comes from whoever started the run: only files inside the scripts
        # directory may be read, symlinks resolved.
        problem = script_name_problem(name)
        if problem is not None:
            raise script_error(problem)
        if not name.endswith(".json"):
            if not SCRIPT_NAME.match(name):
                raise script_error(f"'{name}' is neither a script name nor a path ending in .json.")
            name = f"{name}.json"
        root = self._scripts_dir.resolve()
        path = (root / name).resolve()
        if not path.is_relative_to(root):
            raise script_error(f"'{name}' leads outside the scripts directory; it is refused.")
        return path


def build_content(
    reply: ScriptedReply, turn: int, results: dict[str, ToolOutcome]
) -> list[ReplyBlock]:
    content: list[ReplyBlock] = []
    for block in reply.content:
        if isinstance(block, TextBlock):
            content.append(TextBlock(text=render(block.text, results)))
        else:
            calls = sum(isinstance(earlier, ToolUseBlock) for earlier in content)
            tool_use_id = f"toolu_s{turn}_{calls}"
            arguments = {
                key: render(value, results) if isinstance(value, str) else value
                for key, value in block.input.items()
            }
            content.append(ToolUseBlock(id=tool_use_id, name=block.name, input=arguments))
    return content


def from_settings(settings: Settings) -> ScriptedModel:
    """The adapter of the `scripted` provider (signoff/models/scripted_provider.py): the
    scripts of SIGNOFF_SCRIPTS_DIR, else the ones shipped with signoff."""
    return ScriptedModel(settings.scripts_dir or SCRIPTS_DIR)
