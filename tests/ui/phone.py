"""What a page must be on a phone (issue 42), read in the browser at 375 CSS px:

- no sideways scroll: the page is no wider than the screen (a table may scroll in a
  box of its own);
- every target (link, button, field, choice, disclosure's summary) at least 44 by 44
  CSS px: WCAG 2.5.5, Target Size (Enhanced, AAA), with its "Inline" exception only: a
  link inside a sentence (its block has at least three words of its own text, outside
  links and nested blocks) has the height of its line. Links that stand alone
  (navigation, a card's title, the CSV download, a run in a table) get no pass;
- text at least 16 CSS px: the UI's body size, and the size below which Safari on an
  iPhone zooms the page into a form field the reviewer taps.

Elements off-screen until focused (the skip link) or not shown (a closed disclosure's
body) are no targets and no text while hidden.
"""

from __future__ import annotations

from playwright.sync_api import Page

PHONE_WIDTH = 375
PHONE = {"viewport": {"width": PHONE_WIDTH, "height": 740}, "is_mobile": True, "has_touch": True}
MIN_TARGET_PX = 44
MIN_TEXT_PX = 16

PHONE_PROBLEMS = """([minTarget, minText]) => {
  const problems = [];
  const what = el => el.outerHTML.slice(0, 80);
  const root = document.documentElement;
  if (root.scrollWidth > innerWidth)
    problems.push(`page scrolls sideways: ${root.scrollWidth} > ${innerWidth}`);
  const shown = el => {
    const box = el.getBoundingClientRect();
    return box.width > 0 && box.height > 0 && box.right > 0
      && getComputedStyle(el).visibility !== "hidden";
  };
  const blockOf = node => {
    let el = node.parentElement;
    while (el && getComputedStyle(el).display.startsWith("inline")) el = el.parentElement;
    return el;
  };
  const inSentence = link => {
    const block = blockOf(link);
    const walker = document.createTreeWalker(block, NodeFilter.SHOW_TEXT);
    let words = 0;
    while (walker.nextNode()) {
      const text = walker.currentNode;
      if (text.parentElement.closest("a") || blockOf(text) !== block) continue;
      words += text.textContent.split(/\\s+/).filter(word => /\\w/.test(word)).length;
    }
    return words >= 3;
  };
  const targets = "a[href], button, input:not([type=hidden]), select, textarea, summary";
  for (const el of document.querySelectorAll(targets)) {
    if (!shown(el) || (el.matches("a") && inSentence(el))) continue;
    const box = el.getBoundingClientRect();
    if (box.width < minTarget || box.height < minTarget)
      problems.push(`target ${Math.round(box.width)}x${Math.round(box.height)}: ${what(el)}`);
  }
  const small = new Set();
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const parent = walker.currentNode.parentElement;
    if (!walker.currentNode.textContent.trim() || !shown(parent)) continue;
    const size = parseFloat(getComputedStyle(parent).fontSize);
    if (size < minText) small.add(`text ${size}px: ${what(parent)}`);
  }
  return problems.concat([...small]);
}"""


def phone_problems(page: Page) -> list[str]:
    """What keeps the open page from reading well on a phone, one line each; empty when
    nothing does. Read at the page's current viewport: set it to the phone's first."""
    found: list[str] = page.evaluate(PHONE_PROBLEMS, [MIN_TARGET_PX, MIN_TEXT_PX])
    return found
