"""The pictures of the page in docs/ and the README: the served app (a fresh process) in
headless Chromium at 1280x720, a short LoRA run of the default model on the demo set with
sample answers started from the Train tab, then its top (docs/train-tab.png) and the run
view scrolled to the plots and samples, in English (docs/run-view.png) and in Japanese
(docs/run-view-ja.png).

    .venv/bin/python scripts/screenshots.py [--steps 8] [--out docs]

Needs the test tools (`make test-deps`: Playwright and Debian's Chromium).
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from scripts.served import ARGS, CHROMIUM, field, serve, set_field  # noqa: E402

RUN = {"Batch size per device": 2, "Gradient accumulation steps": 1, "Max length (tokens)": 128}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--steps", type=int, default=8)
    ap.add_argument("--out", default=str(ROOT / "docs"))
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright
    out, work = Path(args.out), Path(tempfile.mkdtemp(prefix="screenshots-"))
    with serve(work / "runs", work / "app.log") as (_, client):
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            for locale, name in (("en-US", "run-view.png"), ("ja-JP", "run-view-ja.png")):
                page = browser.new_context(viewport={"width": 1280, "height": 720},
                                           locale=locale).new_page()
                page.set_default_timeout(600_000)
                page.goto(client.src)
                if locale == "en-US":  # the run, from the page
                    for label, value in {**RUN, "Max steps": args.steps,
                                         "Sample every N steps": max(1, args.steps // 2)
                                         }.items():
                        set_field(page, label, value)
                    field(page, "Use LoRA").first.check()
                    page.get_by_role("button", name="Start").click()
                    page.locator("#run-status").get_by_text("done").wait_for()
                page.locator("#continue-also").wait_for(state="visible")
                page.locator("#samples").get_by_text("capital of Italy").first.wait_for()
                if locale == "en-US":
                    page.evaluate("window.scrollTo(0, 0)")
                    page.wait_for_timeout(1000)  # the scroll drawn
                    page.screenshot(path=str(out / "train-tab.png"))
                page.locator("#lr-plot").scroll_into_view_if_needed()
                page.evaluate("window.scrollBy(0, document.querySelector('#lr-plot')"
                              ".getBoundingClientRect().top - 230)")
                page.wait_for_timeout(1000)  # the scroll drawn
                page.screenshot(path=str(out / name))
                print(f"wrote {out / name}")
                page.close()
            browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
