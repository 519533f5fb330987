"""The whole page as a contract, in English and in Japanese (Chromium at 1366x768), on the app
served as its own process (`python -m sft_ui serve`, its log read): every tab, every option of
every list a person picks from (in Japanese: the English page's lists are the same events),
and the buttons that need no run, before any run; then a run
training with another queued, a sweep done and its best used; then the server killed with
kill -9 mid-sweep and started again. After each: no traceback in the server's log, no
Gradio error toast, in Japanese no English word outside names, numbers, paths and data or
model text (sft_ui/i18n/scan.py's english_left and the short list below), and no notice that
speaks of a state that has changed."""
import json
import os
import re
import signal
from contextlib import ExitStack
from types import SimpleNamespace

import pytest

from sft_ui.i18n.scan import english_left
from tests.browser.test_browser import ARGS, CHROMIUM
from tests.browser.test_browser_languages import SHOWN, _code_words
from tests.conftest import HANG, HANG_MS, fresh, serve, wait_for

TABS = {"en": ("Train", "Chat", "Compare", "Evaluate", "Runs", "Export"),
        "ja": ("学習", "チャット", "比較", "評価", "実行履歴", "エクスポート")}
LOCALES = {"en": "en-US", "ja": "ja-JP"}
# English a Japanese page keeps: product and format names (reviewed; keep it short).
ALLOWED = {"LoRA", "QLoRA", "GGUF", "Ollama", "Hugging", "Face", "Hub", "Space", "Spaces",
           "JSON", "JSONL", "YAML", "Python", "TRL", "SFT", "DPO", "ORPO", "KTO", "GRPO",
           "Optuna", "Chromium", "llama", "cpp", "ROUGE", "tokens", "Modelfile", "Jobs"}
# Lists not walked option by option: the language (switches the page; its own tests) and
# the model (each Hub model would be fetched: offline, a message the model tests cover).
NOT_WALKED = ("language", "cfg-model_name_or_path")
# Buttons that need no run and start none.
SAFE_BUTTONS = ("preview-data", "show-code", "plan-fit", "runs-refresh", "test-rewards")


class Log:
    """The served app's log, read from where the last look ended."""

    def __init__(self, path):
        self.path, self.seen = path, 0

    def tracebacks(self) -> list[str]:
        text = self.path.read_text(errors="replace") if self.path.exists() else ""
        new, self.seen = text[self.seen:], len(text)
        return [part[:600] for part in new.split("Traceback (most recent call last)")[1:]]


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """The app as its own process on a runs folder of the module, its log read as `log`
    (the last test kills it and serves again on the same folder and log)."""
    folder = tmp_path_factory.mktemp("contract")
    runs, log = folder / "runs", folder / "app.log"
    with ExitStack() as stack:
        app = SimpleNamespace(runs=runs, log=Log(log), folder=folder)

        def start():
            proc, client = stack.enter_context(serve(runs, log))
            app.proc, app.client = proc, client
            port = re.search(r":(\d+)/", client.src).group(1)
            app.url = f"http://127.0.0.1:{port}/"
        start()
        yield app


@pytest.fixture(scope="module")
def pages(served):
    """One Chromium, a page at 1366x768 for each language."""
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        made = {}
        for lang, locale in LOCALES.items():
            context = browser.new_context(locale=locale, viewport={"width": 1366, "height": 768})
            made[lang] = context.new_page()
            made[lang].events = Events(made[lang])
            made[lang].set_default_timeout(HANG_MS)
        yield made
        browser.close()


class Events:
    """The page's requests to the app's event queue (a join, and the stream of its answers
    while any event is pending), counted open until they finish."""

    def __init__(self, page):
        self.open = set()
        page.on("request", self._sent)
        page.on("requestfinished", lambda request: self.open.discard(request))
        page.on("requestfailed", lambda request: self.open.discard(request))

    def _sent(self, request):
        if "/queue/" in request.url:
            self.open.add(request)


def settled(page):
    """Once the page's events have all been answered (seen twice in a row: an event an
    answer set off is sent at once)."""
    events, quiet = page.events, []

    def idle():
        page.evaluate("0")  # (lets Playwright hear the page's requests)
        quiet.append(not events.open)
        return quiet[-2:] == [True, True]
    wait_for(idle, timeout=HANG)


def _open(page, url, lang, first_visit=False):
    """The app opened (on a first visit: no settings kept, conftest.fresh)."""
    from playwright.sync_api import expect
    if first_visit:
        fresh(page, url)
    else:
        page.goto(url)
    expect(page.locator("#plan-summary")).to_contain_text(
        "実効バッチサイズ" if lang == "ja" else "effective batch")


def _toasts(page) -> list[str]:
    found = page.locator("[data-testid=toast-body]")
    return [found.nth(i).inner_text() for i in range(found.count())]


def _english(page) -> list[str]:
    text = re.sub(r"\b\w+:<[^>]*>", " ", page.locator(".tabitem:visible").first.evaluate(SHOWN))
    return sorted({w for w in english_left(text) if w not in _code_words() | ALLOWED})


def _tab(page, lang, number):
    from playwright.sync_api import expect
    page.get_by_role("tab", name=TABS[lang][number], exact=True).click()
    panel = page.locator(".tabitem:visible").first
    expect(panel).to_be_visible()
    for closed in panel.locator("button.label-wrap:not(.open)").all():
        if closed.is_visible():
            closed.click()
    return panel


def look(page, lang, served, where: str, tabs=None) -> list[str]:
    """Every tab (or those numbered `tabs`), its panels opened: what breaks the contract,
    each as a line."""
    found = []
    for number in range(len(TABS[lang])) if tabs is None else tabs:
        _tab(page, lang, number)
        if lang == "ja":
            found += [f"{where}, {TABS[lang][number]}: English {w!r}" for w in _english(page)]
    found += [f"{where}: toast {t!r}" for t in _toasts(page)]
    found += [f"{where}: traceback {t}" for t in served.log.tracebacks()]
    return found


def _lists(panel):
    """The visible, enabled lists of a panel, by their element ids."""
    boxes = panel.locator("input[role=combobox]:visible:enabled")
    ids = []
    for i in range(boxes.count()):
        owner = boxes.nth(i).evaluate("(el) => el.closest('[id]') && el.closest('[id]').id")
        if owner and not owner.startswith(NOT_WALKED):
            ids.append(owner)
    return ids


def _pick(page, owner, number):
    """The list's option `number` picked (as its mousedown picks it: the list flies in)."""
    box = page.locator(f"#{owner} input[role=combobox]")
    box.evaluate("(el) => el.blur()")  # (its list opens as it takes the focus)
    box.click()
    option = page.locator(f"#{owner} [role=option][data-index='{number}']")
    option.wait_for()
    option.dispatch_event("mousedown")


def _walk(page, owner) -> list[str]:
    """Each option of the list, picked in turn (then the one it had again); the labels
    offered."""
    box = page.locator(f"#{owner} input[role=combobox]")
    if not box.is_visible():  # (hidden by an earlier pick: a stage's own settings)
        return []
    was = box.input_value()
    box.evaluate("(el) => el.blur()")
    box.click()
    settled(page)
    options = page.locator(f"#{owner} [role=option]")
    if not options.count():  # (an empty list: the sweep's settings before a sweep)
        page.keyboard.press("Escape")
        return []
    labels = [text.replace("✓", "").strip() for text in options.all_inner_texts()]
    page.keyboard.press("Escape")
    vary = page.locator("#sweep-vary textarea")
    for number, label in enumerate(labels):
        before = vary.input_value()
        _pick(page, owner, number)
        if owner == "sweep-add":  # a line for the setting, the list empty again
            wait_for(lambda: vary.input_value() != before, timeout=HANG, interval=0.05)
            settled(page)  # (its list offered again, less the setting added)
        else:  # (a setting's options one after another, as a person quick with them)
            wait_for(lambda: box.input_value() == label, timeout=HANG, interval=0.05)
    if was in labels and owner != "sweep-add":  # (the page as it was: the next lists as a
        _pick(page, owner, labels.index(was))   # person meets them)
        wait_for(lambda: box.input_value() == was, timeout=HANG, interval=0.05)
    settled(page)
    return labels


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_before_any_run_every_list_option_and_button_holds(served, pages, lang):
    """Nothing run yet: each tab read, each option of each list picked (the settings of
    every stage, Add a setting to vary with each setting it offers), the buttons that
    start nothing pressed: no traceback, no error toast, no English in Japanese. The
    English page's lists are the same lists (the same events, other words): walked in
    Japanese only, where their words are checked too."""
    page, found = pages[lang], []
    _open(page, served.url, lang)
    found += look(page, lang, served, "at load")
    for number in range(len(TABS[lang])):
        panel = _tab(page, lang, number)
        for owner in _lists(panel) if lang == "ja" else ():
            found += [f"list {owner}: English option {w!r}" for label in _walk(page, owner)
                      for w in english_left(label) if w not in _code_words() | ALLOWED]
        for button in SAFE_BUTTONS:
            if panel.locator(f"#{button}:visible").count():
                panel.locator(f"#{button}").click()
        found += look(page, lang, served, f"after the lists of {TABS[lang][number]}", [number])
    found += look(page, lang, served, "after the lists of every tab")
    assert not found, "\n".join(found)


def _set(page, name, value):
    """A setting typed into its box (by its element id: the page is Japanese)."""
    box = page.locator(f"#cfg-{name}").locator("input, textarea").first
    box.fill(str(value))
    box.press("Tab")


def _runs(served) -> list[dict]:
    return served.client.predict(api_name="/list_runs")


def _sweep(served) -> dict:
    files = sorted((served.runs / "sweeps").glob("sweep-*.json"))
    return json.loads(files[-1].read_text()) if files else {}


def test_a_run_a_queued_run_and_a_sweep_in_japanese(served, pages, tiny_model_dir):
    """A run training with one queued, then a sweep of two trials done and its best used:
    each tab in Japanese; the queue's notice gone once its run started; the trials' runs
    named for the sweep, its best first in Chat's list."""
    from playwright.sync_api import expect
    page = pages["ja"]
    _open(page, served.url, "ja", first_visit=True)  # (a person new to the page)
    _tab(page, "ja", 0)  # (its panels opened)
    for name, value in (("model_name_or_path", tiny_model_dir), ("max_length", 64),
                        ("sample_steps", 0), ("max_steps", 100000)):
        _set(page, name, value)
    settled(page)
    page.get_by_role("button", name="開始", exact=True).click()
    wait_for(lambda: any(r["state"] == "running" for r in _runs(served)), timeout=HANG)
    _set(page, "max_steps", 3)
    settled(page)
    page.locator("#queue-add").click()
    notice = page.locator("#start-notice")
    expect(notice).to_contain_text("としてキューに入れました")
    found = look(page, "ja", served, "a run training, one queued")
    _tab(page, "ja", 0)
    page.get_by_role("button", name="停止", exact=True).click()
    wait_for(lambda: [r["state"] for r in _runs(served)] == ["done", "stopped"], timeout=HANG)
    expect(notice).not_to_contain_text("キューに入れました")  # (its run has run since)
    _tab(page, "ja", 0)
    page.locator("#sweep-vary textarea").fill("learning_rate: 0.001, 0.01")
    page.locator("#sweep-budget input").fill("4")
    page.locator("#sweep-budget input").press("Tab")
    settled(page)
    page.locator("#sweep-start").click()
    wait_for(lambda: _sweep(served).get("state") == "done", timeout=HANG)
    expect(page.locator("#sweep-notice")).to_contain_text("完了")
    page.locator("#sweep-best").click()
    settled(page)
    found += look(page, "ja", served, "a sweep done, its best used")
    _tab(page, "ja", 0)
    page.screenshot(path=str(served.folder / "sweep-done.png"), full_page=True)
    best = _sweep(served)["best"]["run_id"]
    names = {r["run_id"]: r["name"] for r in _runs(served)}
    assert names[best].startswith("sweep-") and names[best].endswith("★"), names
    _tab(page, "ja", 1)
    box = page.locator("#chat-model input[role=combobox]")

    def best_first():  # (after "latest finished run" and the base; the lists follow the
        box.evaluate("(el) => el.blur()")  # runs' names within seconds: ui/lists.py)
        box.click()
        offered = page.locator("#chat-model [role=option]").all_inner_texts()
        page.keyboard.press("Escape")
        return len(offered) > 2 and "★" in offered[2]
    wait_for(best_first, timeout=HANG)
    assert not found, "\n".join(found)


def test_after_a_kill_mid_sweep_the_page_shows_what_is_on_disk(served, pages,
                                                               tiny_model_dir):
    """kill -9 of the server while a sweep's trial trains, and a new server on the same
    folder and address: the page shows the latest run (not "No run yet"), the settings the
    person left (kept in the browser), the sweep interrupted with its Resume, its form as
    the person filled it, no trial still "training"; in Japanese, with no traceback."""
    from playwright.sync_api import expect
    page = pages["ja"]
    _open(page, served.url, "ja")
    _tab(page, "ja", 0)
    _set(page, "model_name_or_path", tiny_model_dir)
    _set(page, "max_length", 64)
    _set(page, "max_steps", 100000)
    vary = "learning_rate: 0.001, 0.002, 0.003"
    page.locator("#sweep-vary textarea").fill(vary)
    page.locator("#sweep-budget input").fill("6")
    page.locator("#sweep-budget input").press("Tab")
    settled(page)
    page.locator("#sweep-start").click()
    wait_for(lambda: any(t["state"] == "running" for t in _sweep(served).get("trials", [])),
             timeout=HANG)
    os.killpg(served.proc.pid, signal.SIGKILL)
    served.proc.wait(timeout=30)
    # Gradio's own notice of it, in the page's language (ui/lang.py's FIXED_WORDS)
    expect(page.locator("[data-testid=toast-body]").first).to_contain_text(
        "サーバーとの接続が切れました")
    port = int(re.search(r":(\d+)/", served.url).group(1))
    with serve(served.runs, served.log.path, port) as (_, client):  # (the same address:
        served.client = client  # the settings the browser kept are the address's)
        _open(page, served.url, "ja")
        _tab(page, "ja", 0)
        for name, value in (("model_name_or_path", tiny_model_dir), ("max_length", "64"),
                            ("max_steps", "100000")):
            expect(page.locator(f"#cfg-{name} input").first).to_have_value(value)
        expect(page.locator("#sweep-notice")).to_contain_text("中断")
        expect(page.locator("#sweep-resume")).to_be_visible()
        expect(page.locator("#sweep-vary textarea")).to_have_value(vary)
        expect(page.locator("#sweep-table")).not_to_contain_text("学習中")
        expect(page.locator("#live-column")).not_to_contain_text("まだ実行はありません")
        found = look(page, "ja", served, "after a restart")
        _tab(page, "ja", 0)
        page.screenshot(path=str(served.folder / "after-restart.png"), full_page=True)
        assert not found, "\n".join(found)
