"""`BENCH_ONLY=page make bench`: the served app as a person meets it, in a real browser
(headless Chromium) on this machine, which often is the machine that trains:
- Start to the first loss in the page, default run: the first run after the app started
  (its base model's sample answers at step 0, generated ahead by the warm training
  process or at Start) and the next;
- the browser's CPU, in % of a core, showing the Train tab: idle, while a run trains,
  and with the finished run shown; the run's tokens/s with the page open.
Needs the test tools (`make test-deps`: Playwright and Debian's Chromium).
"""
from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
PORT = 7997
STEPS = 8
WINDOW = 10.0  # seconds of each CPU reading


def browser_cpu_seconds() -> float:
    """CPU seconds used so far by every Chromium process."""
    import psutil
    total = 0.0
    for proc in psutil.process_iter(["cmdline"]):
        try:
            if "chromium" in " ".join(proc.info["cmdline"] or []):
                times = proc.cpu_times()
                total += times.user + times.system
        except psutil.Error:
            pass
    return total


def browser_load(page) -> float:
    """% of a core the browser uses over the next WINDOW seconds."""
    used, start = browser_cpu_seconds(), time.time()
    page.wait_for_timeout(WINDOW * 1000)
    return 100 * (browser_cpu_seconds() - used) / (time.time() - start)


def log_text(page) -> str:
    return page.locator("#run-log textarea").input_value()


def start_to_first_loss(page) -> float:
    """Click Start; seconds until the page shows the new run's first loss."""
    shown = re.search(r"Run (\S+):", page.locator("#run-status").inner_text())
    started = time.time()
    page.get_by_role("button", name="Start").click()
    page.wait_for_function("""(before) => {
        const run = document.querySelector('#run-status').innerText.match(/Run (\\S+):/);
        const log = document.querySelector('#run-log textarea').value;
        return run && run[1] !== before && /step 1: loss/.test(log); }""",
                           arg=shown[1] if shown else "", timeout=600_000, polling=50)
    return time.time() - started


def page_figures() -> dict:
    from playwright.sync_api import expect, sync_playwright

    from scripts.served import ARGS, CHROMIUM, set_field
    work = Path(tempfile.mkdtemp())
    env = {**os.environ, "SFT_UI_RUNS_DIR": str(work / "runs"),
           "SFT_UI_CACHE": str(work / "cache"), "GRADIO_ANALYTICS_ENABLED": "False"}
    python = sys.executable
    # An empty cache (the base model's sample answers are not kept yet), the default model
    # prepared in it as `make run` does.
    subprocess.run([python, "-m", "sft_ui", "prepare-model"], cwd=ROOT, env=env, check=True,
                   capture_output=True)
    app = subprocess.Popen([python, "-m", "sft_ui", "serve", "--port", str(PORT)], cwd=ROOT,
                           env=env, stdout=open(work / "app.log", "w"),
                           stderr=subprocess.STDOUT, start_new_session=True)
    figures = {}
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            page.set_default_timeout(600_000)
            for _ in range(300):
                try:
                    page.goto(f"http://127.0.0.1:{PORT}/")
                    break
                except Exception:  # not serving yet
                    time.sleep(1)
            page.locator("#plan-summary").get_by_text("Plan:").wait_for()
            set_field(page, "Max steps", STEPS)
            page.wait_for_timeout(5000)  # a person picks settings; the app warms up
            figures["idle"] = browser_load(page)
            figures["first loss, first run"] = start_to_first_loss(page)
            page.wait_for_function("() => /step 2: loss/.test("
                                   "document.querySelector('#run-log textarea').value)")
            figures["training"] = browser_load(page)
            expect(page.locator("#run-status")).to_contain_text("done", timeout=600_000)
            page.wait_for_timeout(3000)  # the page draws the run's end
            figures["finished run shown"] = browser_load(page)
            speeds = re.findall(r"tokens_per_second ([\d.]+)", log_text(page))
            figures["tokens/s"] = float(speeds[-1])
            figures["first loss, next run"] = start_to_first_loss(page)
            expect(page.locator("#run-status")).to_contain_text("done", timeout=600_000)
            browser.close()
    finally:
        os.killpg(app.pid, signal.SIGKILL)
    return figures


def print_page() -> None:
    try:
        import playwright  # noqa: F401
    except ImportError:
        raise SystemExit("BENCH_ONLY=page needs Playwright and Chromium: run "
                         "`make test-deps` first.") from None
    f = page_figures()
    print(f"The served app in headless Chromium on this machine, default run, {STEPS} steps:")
    print(f"- Start to the first loss in the page: {f['first loss, first run']:.1f} s for the "
          f"first run after the app started, {f['first loss, next run']:.1f} s for the next")
    print(f"- the browser showing the Train tab, % of a core: idle {f['idle']:.0f}, while the "
          f"run trains {f['training']:.0f}, the finished run shown "
          f"{f['finished run shown']:.0f}; the run trained at {f['tokens/s']:.0f} tokens/s")
