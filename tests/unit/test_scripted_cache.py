"""The scripted model reads and validates a script once, and again only when it changed."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from temporalio.exceptions import ApplicationError

from activities.models.scripted import ScriptedModel
from workflows.contracts import Message, ModelRef, ModelReply, ModelRequest, TextBlock


def request(script: str) -> ModelRequest:
    return ModelRequest(
        model=ModelRef(provider="scripted", model_id=script),
        system="You are a support agent.",
        messages=[Message(role="user", content=[TextBlock(text="Hello")])],
        tools=[],
        max_tokens=1024,
    )


def write_answer(folder: Path, text: str, name: str = "cached") -> Path:
    path = folder / f"{name}.json"
    turns = [{"replies": [{"content": [{"type": "text", "text": text}]}]}]
    path.write_text(json.dumps({"turns": turns}), encoding="utf-8")
    return path


def answer_of(reply: ModelReply) -> str:
    [block] = reply.content
    assert isinstance(block, TextBlock)
    return block.text


async def test_an_unchanged_script_is_validated_once(tmp_path: Path) -> None:
    write_answer(tmp_path, "first")
    model = ScriptedModel(tmp_path)
    loaded = model.load("cached")
    # The very same validated object: the file was not parsed again.
    assert model.load("cached") is loaded
    assert model.load("cached.json") is loaded
    assert answer_of(await model.complete(request("cached"))) == "first"


async def test_an_edited_script_is_read_again(tmp_path: Path) -> None:
    path = write_answer(tmp_path, "first")
    model = ScriptedModel(tmp_path)
    assert answer_of(await model.complete(request("cached"))) == "first"
    write_answer(tmp_path, "second, longer")
    assert answer_of(await model.complete(request("cached"))) == "second, longer"
    # Same size, same content length: the modification time alone tells them apart.
    write_answer(tmp_path, "third, longer!")
    status = path.stat()
    os.utime(path, ns=(status.st_atime_ns, status.st_mtime_ns + 1_000_000_000))
    assert answer_of(await model.complete(request("cached"))) == "third, longer!"


async def test_a_broken_script_is_not_cached_and_its_fix_is_seen(tmp_path: Path) -> None:
    path = tmp_path / "cached.json"
    path.write_text("{not json", encoding="utf-8")
    model = ScriptedModel(tmp_path)
    with pytest.raises(ApplicationError, match="not a valid script"):
        await model.complete(request("cached"))
    write_answer(tmp_path, "fixed")
    assert answer_of(await model.complete(request("cached"))) == "fixed"


async def test_a_deleted_script_is_an_error_even_once_cached(tmp_path: Path) -> None:
    path = write_answer(tmp_path, "first")
    model = ScriptedModel(tmp_path)
    assert answer_of(await model.complete(request("cached"))) == "first"
    path.unlink()
    with pytest.raises(ApplicationError, match="no script 'cached'"):
        await model.complete(request("cached"))
