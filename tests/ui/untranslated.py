"""Finds the English a page in another language still shows.

The visible text of a page (text nodes, the `title`, `aria-label` and `data-label`
attributes) is checked against the English msgids of the page's catalog whose
translation differs: a one-word msgid must not be a whole text node, and a run of two
words or more of any msgid must not appear anywhere. Data is left out: what sits in
`<pre>`, `<blockquote>` and `<code>` (ticket text, the agent's words, arguments, ids),
and whatever an element marks as another language (`lang="en"`: the run's own words).
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

from babel.messages.pofile import read_po

from approvals_ui.translations import catalog_path

DATA_TAGS = {"pre", "blockquote", "code", "script", "style"}
VOID_TAGS = {"meta", "link", "input", "br", "img", "hr"}
VISIBLE_ATTRIBUTES = {"title", "aria-label", "data-label", "placeholder"}
PLACEHOLDER = re.compile(r"%\(\w+\)s")
TAG = re.compile(r"<[^>]+>")


class _Visible(HTMLParser):
    def __init__(self, language: str) -> None:
        super().__init__(convert_charrefs=True)
        self.language = language
        self.stack: list[tuple[str, bool]] = []  # (tag, hidden from the check)
        self.texts: list[str] = []

    def _hidden(self) -> bool:
        return bool(self.stack) and self.stack[-1][1]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        lang = values.get("lang")
        hidden = (
            self._hidden()
            or tag in DATA_TAGS
            or (lang is not None and tag != "html" and lang != self.language)
        )
        if not hidden:
            self.texts += [value for name, value in attrs if name in VISIBLE_ATTRIBUTES and value]
        if tag not in VOID_TAGS:
            self.stack.append((tag, hidden))

    def handle_endtag(self, tag: str) -> None:
        while self.stack:
            if self.stack.pop()[0] == tag:
                break

    def handle_data(self, data: str) -> None:
        if not self._hidden() and data.strip():
            self.texts.append(data)


def visible_texts(html: str, language: str) -> list[str]:
    parser = _Visible(language)
    parser.feed(html)
    return [" ".join(text.split()) for text in parser.texts]


def english_fragments(language: str) -> tuple[set[str], set[str]]:
    """(one-word msgids, runs of two words or more) of the msgids `language` translates."""
    with catalog_path(language).open("rb") as source:
        catalog = read_po(source, locale=language)
    words, runs = set(), set()
    for message in catalog:
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        if not message.id or set(ids) <= set(strings):
            continue  # the same in both languages ("Audit", "Date")
        for msgid in ids:
            for piece in PLACEHOLDER.split(TAG.sub(" ", msgid)):
                piece = " ".join(piece.split()).strip(" .,:;()·")
                if len(piece.split()) >= 2:
                    runs.add(piece)
                elif piece and piece == " ".join(msgid.split()).strip(" .,:;()·"):
                    words.add(piece)
    return words, runs


def untranslated(html: str, language: str) -> list[str]:
    """The English the page shows, as (msgid piece) strings; empty for a page all in
    `language`."""
    texts = visible_texts(html, language)
    words, runs = english_fragments(language)
    whole = "\n".join(texts)
    found = sorted({text for text in texts if text.strip(" .,:;()·←") in words})
    found += sorted(run for run in runs if run in whole)
    return found
