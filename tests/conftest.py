"""Shared fixtures: a tiny random model with the real tokenizer, a run manager
writing into tmp_path, a live app on a free loopback port, and a real browser on it."""
from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")

ROOT = Path(__file__).resolve().parent.parent

CHROMIUM = os.environ.get("SFT_UI_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]


@pytest.fixture(autouse=True)
def _speeds_of_this_test(tmp_path_factory, monkeypatch):
    """Each test remembers training speeds in a file of its own: a run (which remembers
    its speed) or a measurement in one test must not change the plan another one sees."""
    from sft_ui.plan import speed
    path = tmp_path_factory.mktemp("speeds") / "speed.json"
    monkeypatch.setattr(speed, "speed_file", lambda: path)


@pytest.fixture(scope="session")
def tiny_model_dir(tmp_path_factory):
    """2 layers, width 32, SmolLM2's tokenizer and chat template; trains in a second."""
    import torch
    from transformers import AutoTokenizer, LlamaConfig, LlamaForCausalLM

    from sft_ui.models import prepare_default_model
    tok = AutoTokenizer.from_pretrained(prepare_default_model())
    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=len(tok), hidden_size=32, intermediate_size=64,
                         num_hidden_layers=2, num_attention_heads=2, num_key_value_heads=2,
                         max_position_embeddings=512, tie_word_embeddings=True,
                         bos_token_id=tok.bos_token_id, eos_token_id=tok.eos_token_id,
                         pad_token_id=tok.pad_token_id)
    model = LlamaForCausalLM(config)
    # Zero the special tokens' (tied) embeddings so greedy decoding of the random
    # model yields visible text instead of an immediate end-of-turn token.
    with torch.no_grad():
        model.get_input_embeddings().weight[list(tok.added_tokens_decoder)] = 0
    out = tmp_path_factory.mktemp("tiny-model")
    model.save_pretrained(out)
    tok.save_pretrained(out)
    return str(out)


@pytest.fixture
def tiny_cfg(tiny_model_dir):
    """RunConfig fields for a quick run on the tiny model."""
    return {"model_name_or_path": tiny_model_dir, "max_steps": 2,
            "per_device_train_batch_size": 2, "gradient_accumulation_steps": 1,
            "max_length": 64, "sample_steps": 1, "sample_max_new_tokens": 8,
            "learning_rate": 1e-3}


def wait_for(predicate, timeout=120.0, interval=0.25):
    """Poll until predicate() returns something truthy; fail the test on timeout."""
    end = time.time() + timeout
    while time.time() < end:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout}s waiting for {predicate}")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def serve(runs: Path, log: Path):
    """The app as its own process (`python -m sft_ui serve`) on a free port; yields the
    process and a client connected to it."""
    from gradio_client import Client
    port = free_port()
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
        client = wait_for(connect, timeout=120, interval=0.5)
        try:
            yield proc, client
        finally:
            client.close()
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)


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
    page.set_default_timeout(60_000)
    page.goto(live_app[0])
    yield page
    page.close()


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
