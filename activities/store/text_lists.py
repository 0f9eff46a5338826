"""Lists kept in one text column (a reviewer's roles, a refund's approvers), comma-separated:
an identifier never holds a comma (IDENTIFIER_PATTERN), and a value that would is refused."""

from __future__ import annotations


def split_list(text: str) -> list[str]:
    return [item.strip() for item in text.split(",") if item.strip()]


def join_list(items: list[str]) -> str:
    for item in items:
        if "," in item or not item.strip():
            raise ValueError(f"{item!r} cannot be stored in a comma-separated list")
    return ",".join(items)
