"""The fixtures that serve the app and open it in a browser, for any test that takes them
(tests/conftest.py registers this module as a plugin): `connect` (gradio_client Clients,
closed when the test ends), the module's `live_app` on loopback, its `browser` (Debian's
Chromium through Playwright) and a `page` of it on the app; and Playwright's expect waiting
as long as the suite's other waits."""
from __future__ import annotations

import os
import shutil
from contextlib import contextmanager

import pytest

from scripts.served import ARGS, CHROMIUM, HANG_MS, free_port


@pytest.fixture(scope="session", autouse=True)
def _playwright_waits_for_a_hang():
    """Playwright's expect waits as long as the suite's other waits (its own default is
    5 s, which a loaded machine can take to draw a change)."""
    try:
        from playwright.sync_api import expect
    except ImportError:  # the browser tests say what is missing
        return
    expect.set_options(timeout=HANG_MS)


@pytest.fixture
def connect():
    """Clients of an app's API (gradio_client: connect(url, headers=...)) for this test,
    closed when it ends (each keeps a heartbeat thread while open)."""
    from gradio_client import Client
    made = []

    def client(url: str, **options):
        made.append(Client(url, verbose=False, **options))
        return made[-1]
    yield client
    for made_client in made:
        made_client.close()


@pytest.fixture(scope="module")
def live_app(tmp_path_factory):
    """The real app on loopback; yields (url, manager)."""
    from sft_ui.runs import RunManager
    from sft_ui.ui import build_app
    manager = RunManager(tmp_path_factory.mktemp("runs"))
    app = build_app(manager)
    port = free_port()
    app.queue().launch(server_name="127.0.0.1", server_port=port, prevent_thread_lock=True,
                       quiet=True)
    yield f"http://127.0.0.1:{port}/", manager
    app.close()


@pytest.fixture(scope="module")
def browser():
    """Debian's Chromium through Playwright, for the module's tests."""
    from playwright.sync_api import sync_playwright
    assert shutil.which(CHROMIUM) or os.path.exists(CHROMIUM), \
        "Chromium is missing: run `make test-deps` (scripts/install_chromium.sh)."
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


@pytest.fixture(scope="module")
def page(live_app, browser):
    """A page of the module's browser on the module's live app."""
    page = browser.new_page(viewport={"width": 1400, "height": 1600})
    page.set_default_timeout(HANG_MS)
    page.goto(live_app[0])
    yield page
    page.close()


@contextmanager
def japanese_page(url: str, width: int, height: int):
    """A page of a Chromium of its own in Japanese (locale ja-JP) on `url`, at that size."""
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        context = browser.new_context(locale="ja-JP", viewport={"width": width,
                                                                "height": height})
        page = context.new_page()
        page.set_default_timeout(HANG_MS)
        page.goto(url)
        yield page
        browser.close()
