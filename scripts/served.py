"""The app served as its own process, its API over plain HTTP, and a headless Chromium on
it: what the scripts that drive the page (screenshots, the page's benches) and the tests'
fixtures (tests/conftest.py) share. Knows how to start and find things in the page,
nothing of what they mean.
"""
from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# The ceiling of every wait, in seconds: tests and scripts wait for an event (a state, a
# text, a file), never for a time, and this only turns a hang into a failure. Playwright's
# own waits (expect, clicks) get it too.
HANG = 600
HANG_MS = HANG * 1000

CHROMIUM = os.environ.get("SFT_UI_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]


def wait_for(predicate, timeout=HANG, interval=0.25):
    """Poll until predicate() returns something truthy; fail the test on timeout. A poll
    over HTTP that timed out (httpx's TimeoutException: a loaded machine answered late)
    is a poll to repeat, as a page repeats it: only `timeout` ends the wait."""
    import httpx
    end, late = time.time() + timeout, None
    while time.time() < end:
        try:
            value = predicate()
        except httpx.TimeoutException as e:
            value, late = None, e
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout}s waiting for {predicate}"
                         + (f" (its last poll over HTTP timed out: {late!r})" if late else "")
                         ) from late


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def gradio_events(web, url: str, name: str, data: list):
    """(event, data) of endpoint `name` of the app at `url` asked with `data` over plain
    HTTP, as curl asks (Gradio's /gradio_api/call/<name>, then its event stream; `web`: an
    httpx.Client): each output as it comes ("generating"), until "complete" or "error"."""
    answer = web.post(f"{url}gradio_api/call/{name}", json={"data": data})
    answer.raise_for_status()
    event = ""
    with web.stream("GET", f"{url}gradio_api/call/{name}/{answer.json()['event_id']}") \
            as stream:
        for line in stream.iter_lines():
            if line.startswith("event:"):
                event = line.split(":", 1)[1].strip()
            elif line.startswith("data:") and event in ("generating", "complete", "error"):
                yield event, json.loads(line.split(":", 1)[1])
                if event != "generating":
                    return


@contextmanager
def serve(runs: Path, log: Path, port: int | None = None):
    """The app as its own process (`python -m sft_ui serve`) on `port` (else a free one);
    yields the process and a client connected to it."""
    from gradio_client import Client
    port = port or free_port()
    env = {**os.environ, "SFT_UI_RUNS_DIR": str(runs), "GRADIO_ANALYTICS_ENABLED": "False"}
    with open(log, "ab") as out:
        proc = subprocess.Popen([sys.executable, "-m", "sft_ui", "serve", "--host", "127.0.0.1",
                                 "--port", str(port)], cwd=ROOT, env=env, stdout=out,
                                stderr=subprocess.STDOUT, start_new_session=True)
    try:
        def connect():
            assert proc.poll() is None, f"the app exited; see {log}"
            try:
                return Client(f"http://127.0.0.1:{port}/", verbose=False)
            except Exception:
                return None
        client = wait_for(connect, interval=0.5)
        try:
            yield proc, client
        finally:
            client.close()
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)


def open_panels(page):
    """Open the Train tab's closed settings panels (the page opens only the first)."""
    page.locator(".gr-accordion.settings").first.wait_for(state="attached")  # page loaded
    closed = page.locator(".gr-accordion.settings > button.label-wrap:not(.open)")
    for _ in range(50):
        if not closed.count():
            return
        closed.first.click()


def field(page, label):
    """A settings field by its label (Gradio puts the help text into the name too), its
    panel opened first."""
    found = page.get_by_label(re.compile(rf"^\s*{re.escape(label)}(\s|$)"))
    try:
        found.first.wait_for(state="attached", timeout=3000)  # the page may still load
    except Exception:  # playwright's TimeoutError: not in the page, or in a closed panel
        open_panels(page)
    return found


def set_field(page, label, value):
    box = field(page, label)
    box.fill(str(value))
    box.press("Tab")
