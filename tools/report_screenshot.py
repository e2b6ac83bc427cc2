"""Write docs/report-explain.png, the README's picture of ``--report``: the explain report of the
README's example as headless Chromium draws it (its top: the answer, the matrix, the scores).

    python tools/report_screenshot.py        # needs Chromium (apt-get install chromium) and Playwright

Run it again when the report's look changes; the picture is kept small (< 200 KB).
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET = ROOT / "docs" / "report-explain.png"
COMMAND = ["explain", "fixtures/pods/web-deployment.yaml", "--cluster", "fixtures/cluster", "-q"]
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
WIDTH = 1100
MAX_BYTES = 200_000


def main() -> int:
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "explain.html"
        subprocess.run([sys.executable, "-m", "kschedctl", *COMMAND, "--report", str(report)], cwd=ROOT,
                       check=False, stdout=subprocess.DEVNULL)
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": WIDTH, "height": 800})
            page.goto(report.as_uri())
            page.wait_for_selector("body[data-ready=yes]")
            # down to the score chart: the part a reader decides from
            bottom = page.locator("svg[data-chart=scores]").bounding_box()
            height = int(bottom["y"] + bottom["height"] + 16)
            page.screenshot(path=str(TARGET), full_page=True, clip={"x": 0, "y": 0, "width": WIDTH, "height": height})
            browser.close()
    size = TARGET.stat().st_size
    print(f"wrote {TARGET.relative_to(ROOT)} ({size:,} bytes)")
    return 0 if size < MAX_BYTES else 1


if __name__ == "__main__":
    sys.exit(main())
