"""Reading a rendered page as a reviewer sees it, for the route tests of forms and words:
its visible text (no attribute, no script), and the groups of controls that hold more
than one primary action."""

from __future__ import annotations

from html.parser import HTMLParser

# A group whose controls sit together: a form, and the decision area, whose three forms
# stand side by side (approve, reject, edit).
GROUPS = ("form", "div.decide")
HIDDEN = {"script", "style", "title", "template"}
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source"}


class _Reader(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.text: list[str] = []
        self.open: list[tuple[str, str, list[int]]] = []  # tag, group name, primaries
        self.crowded: list[str] = []
        self.hidden = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in VOID:
            return
        named = dict(attrs)
        classes = (named.get("class") or "").split()
        group = next((g for g in GROUPS if _is(tag, classes, g)), "")
        label = f"{group}#{named.get('id') or named.get('action') or '?'}" if group else ""
        self.open.append((tag, label, [0]))
        if tag in HIDDEN:
            self.hidden += 1
        if tag == "button" and "primary" in classes:
            for _, name, count in self.open:
                if name:
                    count[0] += 1

    def handle_endtag(self, tag: str) -> None:
        # An end tag closes its element and any left open inside it (HTML's implied ends);
        # one with nothing open to close is ignored.
        if tag not in (opened for opened, _, _ in self.open):
            return
        while self.open:
            opened, name, count = self.open.pop()
            if opened in HIDDEN:
                self.hidden -= 1
            if name and count[0] > 1:
                self.crowded.append(f"{name}: {count[0]} primary buttons")
            if opened == tag:
                return

    def handle_data(self, data: str) -> None:
        if not self.hidden:
            self.text.append(data)


def _is(tag: str, classes: list[str], group: str) -> bool:
    name, _, wanted = group.partition(".")
    return tag == name and (not wanted or wanted in classes)


def read(html: str) -> _Reader:
    reader = _Reader()
    reader.feed(html)
    reader.close()
    return reader


def visible_text(html: str) -> str:
    """The page's words, whitespace folded: what a reviewer reads, never an attribute."""
    return " ".join(" ".join(read(html).text).split())


def crowded_groups(html: str) -> list[str]:
    """Each form (and decision area) that offers more than one primary button."""
    return read(html).crowded
