"""Model adapters: each turns a neutral ModelRequest into a neutral ModelReply."""

from __future__ import annotations

from activities.models.base import ModelAdapter

__all__ = ["ModelAdapter"]
