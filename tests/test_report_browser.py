"""report.html in a real headless Chromium: every embedded image decodes, tables have rows.

Chromium comes from the Debian package. When ``chromium`` is not on the PATH, the
session fixture installs it (``apt-get install -y chromium``, as root, with a timeout; CI
runs as root in a clean Debian container). The tests skip, saying why, only where it cannot
be installed. The page itself (templates/report.html) sets ``data-images-ok``,
``data-images`` and ``data-tables`` on ``<body>`` in its load handler; ``--dump-dom``
prints the DOM after the load event.
"""

from __future__ import annotations

import re
import subprocess
from html.parser import HTMLParser

import pytest
from fake_runs import FakeSpec, write_fake_run
from first_screen import _apt_install_chromium, chromium_path

from bnb_sim.analysis.report import write_report

FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="session")
def chromium() -> str:
    path = chromium_path()
    if path is None:
        why = _apt_install_chromium()
        path = chromium_path()
        if path is None:
            pytest.skip(f"headless Chromium unavailable ({why or 'installed but not found'})")
    return path


@pytest.fixture(scope="module")
def report_html(tmp_path_factory):
    base = tmp_path_factory.mktemp("browser")
    write_fake_run(base / "run", FakeSpec(n_games=400, chunk_size=200, seed=2))
    return write_report(base / "run", base / "out")


def _chromium(chromium, tmp_path, *args, timeout=60):
    cmd = [chromium, *FLAGS, f"--user-data-dir={tmp_path / 'profile'}", *args]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


class _Tables(HTMLParser):
    """Rows per <table> and the attributes of <body>."""

    def __init__(self):
        super().__init__()
        self.rows: list[int] = []
        self.body: dict[str, str] = {}
        self.images = 0

    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self.rows.append(0)
        elif tag == "tr" and self.rows:
            self.rows[-1] += 1
        elif tag == "body":
            self.body = dict(attrs)
        elif tag == "img":
            self.images += 1


def test_report_renders_in_headless_chromium(chromium, report_html, tmp_path):
    url = report_html["html"].resolve().as_uri()
    dom = _chromium(chromium, tmp_path, "--dump-dom", url)
    page = _Tables()
    page.feed(dom)
    n_figures = len(report_html["figures"])
    assert page.images == n_figures >= 8
    assert page.body.get("data-images") == f"{n_figures}/{n_figures}", page.body
    assert page.body.get("data-images-ok") == "yes"
    tables = page.body.get("data-tables", "0/1").split("/")
    assert tables[0] == tables[1] and int(tables[0]) >= 10
    assert all(rows >= 2 for rows in page.rows)  # a header row and at least one data row
    assert re.search(r'class="warning"', dom) and "Estimated component values" in dom


def test_a_broken_image_is_detected(chromium, report_html, tmp_path):
    """The self-check can fail: corrupt one embedded PNG and the page reports it."""
    page = report_html["html"].read_text()
    broken = re.sub(
        r"data:image/png;base64,[A-Za-z0-9+/=]{40}", "data:image/png;base64,AAAA", page, count=1
    )
    target = tmp_path / "broken.html"
    target.write_text(broken)
    dom = _chromium(chromium, tmp_path, "--dump-dom", target.as_uri())
    parsed = _Tables()
    parsed.feed(dom)
    n = len(report_html["figures"])
    assert parsed.body.get("data-images") == f"{n - 1}/{n}"
    assert parsed.body.get("data-images-ok") == "no"


def test_screenshot_is_a_png(chromium, report_html, tmp_path):
    shot = tmp_path / "shot.png"
    _chromium(
        chromium,
        tmp_path,
        f"--screenshot={shot}",
        "--window-size=1100,1400",
        "--hide-scrollbars",
        report_html["html"].resolve().as_uri(),
    )
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000


def test_key_findings_fill_the_first_screen(chromium, report_html, tmp_path):
    """At 1400x900 the key findings (answers with intervals and n, then the caveats) end
    above the fold, nothing makes the page scroll sideways, and a screenshot is taken (kept
    next to the report as first-screen.png to look at)."""
    url = report_html["html"].resolve().as_uri()
    dom = _chromium(chromium, tmp_path, "--dump-dom", "--window-size=1400,900", url)
    page = _Tables()
    page.feed(dom)
    assert page.body.get("data-viewport", "").startswith("1400"), page.body
    bottom = int(page.body["data-findings-bottom"])
    assert 200 < bottom <= 900, bottom
    assert page.body.get("data-page-overflow") == "no"
    first = dom.index('id="key-findings"')
    assert first < dom.index('class="toc"') < dom.index('id="overview"')
    findings = dom[first : dom.index("</section>", first)]
    # "best" only when the gap excludes 0 (statistics review N2), a tie otherwise
    best = "wins most often" in findings or "No detectable difference at the top" in findings
    assert best and "First-player advantage" in findings
    assert re.search(r"\[\d+\.\d, \d+\.\d\]", findings) and "n = " in findings
    assert "Estimated component values" in findings  # the caveat is up front, not last
    shot = report_html["html"].parent / "first-screen.png"
    _chromium(
        chromium, tmp_path, f"--screenshot={shot}", "--window-size=1400,900",
        "--hide-scrollbars", url,
    )  # fmt: skip
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
