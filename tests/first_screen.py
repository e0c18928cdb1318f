"""What a person sees first: a report's index page in headless Chromium at 1280x800.

:func:`first_screen` opens ``report.html`` in a real browser (Playwright driving the system
Chromium, ``/usr/bin/chromium`` on Debian), saves a PNG of the first screen, and returns the
words of the page with their boxes, so a test can assert that the answer of the run (the team
win rate, the best pet team, the seat win rates...) lies within the first 800 pixels::

    screen = first_screen(report["html"], tmp_path)
    screen.assert_visible("Team win rate:")
    print(screen.text)  # the first screen's words, in reading order

Chromium: :func:`chromium_path` looks on the PATH and at ``/usr/bin/chromium``; where there is
none it tries the Debian package (``apt-get install -y chromium`` as root, what CI does in
``.ci/run`` before the tests). A test skips, saying why, only when Playwright or Chromium
cannot be had.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

WIDTH, HEIGHT = 1280, 800

#: Every text node that starts above ``H``, cut into words with their boxes (CSS pixels from
#: the page's top left, scrolled to the top). ``glued``: no white space between this word and
#: the previous one in the same block (``<strong>42%</strong>,`` reads "42%,").
_WORDS_JS = """
(H) => {
  const blockOf = (el) => el.closest('p,li,td,th,h1,h2,h3,h4,h5,h6,figcaption,caption,div,nav');
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const words = [];
  let node, prevBlock = null, prevSpace = true;
  while ((node = walker.nextNode())) {
    const el = node.parentElement;
    if (!el) continue;
    const style = getComputedStyle(el);
    if (style.display === 'none' || style.visibility === 'hidden') continue;
    const whole = document.createRange();
    whole.selectNodeContents(node);
    const b = whole.getBoundingClientRect();
    if ((b.width === 0 && b.height === 0) || b.top >= H) continue;
    const block = blockOf(el);
    const re = /\\S+/g;
    let m;
    while ((m = re.exec(node.data))) {
      const r = document.createRange();
      r.setStart(node, m.index);
      r.setEnd(node, m.index + m[0].length);
      const q = r.getBoundingClientRect();
      const spaced = m.index > 0 ? /\\s/.test(node.data[m.index - 1]) : prevSpace;
      words.push({text: m[0], x: q.left, y: q.top, w: q.width, h: q.height,
                  glued: block === prevBlock && !spaced});
      prevBlock = block;
    }
    if (node.data.length) prevSpace = /\\s$/.test(node.data);
  }
  return words;
}
"""


@dataclass(frozen=True)
class Box:
    x: float
    y: float
    w: float
    h: float

    @property
    def bottom(self) -> float:
        return self.y + self.h

    @property
    def right(self) -> float:
        return self.x + self.w


@dataclass(frozen=True)
class Word:
    text: str
    box: Box
    glued: bool


@dataclass
class FirstScreen:
    """The words of a page near its top; :attr:`text` is what the first screen shows."""

    png: Path
    words: list[Word]
    width: int = WIDTH
    height: int = HEIGHT

    def _inside(self, box: Box) -> bool:
        return box.y >= 0 and box.bottom <= self.height and box.right <= self.width

    @staticmethod
    def _join(words: list[Word]) -> tuple[str, list[int]]:
        """The words as text, and for each character the index of its word (-1: a space)."""
        text, owner = "", []
        for i, word in enumerate(words):
            if text and not word.glued:
                text += " "
                owner.append(-1)
            text += word.text
            owner += [i] * len(word.text)
        return text, owner

    @property
    def text(self) -> str:
        """The words wholly inside the first screen, in reading (DOM) order."""
        return self._join([w for w in self.words if self._inside(w.box)])[0]

    def box_of(self, phrase: str) -> Box | None:
        """The box around the first occurrence of ``phrase`` (white space normalised), or
        None when the page's top part does not contain it."""
        text, owner = self._join(self.words)
        start = text.find(" ".join(phrase.split()))
        if start < 0:
            return None
        hit = {owner[i] for i in range(start, start + len(" ".join(phrase.split())))} - {-1}
        boxes = [self.words[i].box for i in sorted(hit)]
        x, y = min(b.x for b in boxes), min(b.y for b in boxes)
        return Box(x, y, max(b.right for b in boxes) - x, max(b.bottom for b in boxes) - y)

    def assert_visible(self, phrase: str) -> Box:
        """``phrase`` lies wholly within the first screen; the message shows what does."""
        box = self.box_of(phrase)
        assert box is not None, f"{phrase!r} not near the top; first screen:\n{self.text}"
        assert self._inside(box), (
            f"{phrase!r} at y={box.y:.0f}..{box.bottom:.0f} px, below the first "
            f"{self.height} px; first screen:\n{self.text}"
        )
        return box


def chromium_path() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return "/usr/bin/chromium" if os.access("/usr/bin/chromium", os.X_OK) else None


def _apt_install_chromium() -> str:
    """The Debian package, as root (a clean CI container); returns why not ('' when done)."""
    if not shutil.which("apt-get"):
        return "no apt-get on this system"
    if hasattr(os, "geteuid") and os.geteuid() != 0:
        return "not root, cannot apt-get install chromium"
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    install = ["apt-get", "install", "-y", "-q", "--no-install-recommends", "chromium"]
    try:
        done = subprocess.run(install, env=env, capture_output=True, text=True, timeout=600)
        if done.returncode != 0:  # no package lists yet
            subprocess.run(["apt-get", "update", "-q"], env=env, capture_output=True, timeout=300)
            done = subprocess.run(install, env=env, capture_output=True, text=True, timeout=600)
    except subprocess.TimeoutExpired:
        return "apt-get install chromium timed out"
    return "" if done.returncode == 0 else "apt-get install chromium failed"


def require_browser() -> str:
    """The Chromium executable for Playwright, or skip saying why there is none."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        pytest.skip("playwright is not installed (pip install -e '.[dev]')")
    path = chromium_path()
    if path is None:
        why = _apt_install_chromium()
        path = chromium_path()
        if path is None:
            pytest.skip(f"headless Chromium unavailable ({why or 'installed but not found'})")
    return path


def first_screen(html: str | os.PathLike, out_dir: str | os.PathLike) -> FirstScreen:
    """Open ``html`` at 1280x800, save ``first-screen.png`` in ``out_dir``, read its words."""
    from playwright.sync_api import sync_playwright

    executable = require_browser()
    png = Path(out_dir) / "first-screen.png"
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=executable, args=["--no-sandbox", "--disable-gpu"]
        )
        try:
            page = browser.new_page(viewport={"width": WIDTH, "height": HEIGHT})
            page.goto(Path(html).resolve().as_uri(), wait_until="load")
            page.screenshot(path=str(png))
            raw = page.evaluate(_WORDS_JS, HEIGHT)
        finally:
            browser.close()
    words = [Word(r["text"], Box(r["x"], r["y"], r["w"], r["h"]), r["glued"]) for r in raw]
    return FirstScreen(png, words)
