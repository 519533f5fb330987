"""The page while runs train, in a real browser: the live view asks the server only while a
run trains (started from the page or elsewhere); the loss plot's legend and axes, the log at
its newest line and Stop within a step; the Export tab's card image, merge choice and GGUF
files after two runs."""
import json
import re
import time

from tests.browser.test_page import CLIPPED_BY, _finished, _open
from tests.conftest import HANG_MS, set_field, wait_for


def _live_view_requests(page) -> list[float]:
    """The times at which the page asks the server for the live view (the Train tab's
    timer), from now on."""
    tick = page.evaluate("""() => window.gradio_config.dependencies
                             .find((d) => d.api_name === 'ui_tick').id""")
    asked = []
    page.on("request", lambda r: asked.append(time.time()) if "queue/join" in r.url and
            json.loads(r.post_data or "{}").get("fn_index") == tick else None)
    return asked


def _falls_quiet(page, asked: list, window_ms: int = 4000, tries: int = 6) -> bool:
    """Whether the page stops asking: a whole window (two of the live view's steady
    ticks) passes with no request. A late last tick on a busy machine only costs another
    window; a page that keeps asking fails every one."""
    for _ in range(tries):
        before = len(asked)
        page.wait_for_timeout(window_ms)
        if len(asked) == before:
            return True
    return False


def test_the_live_view_asks_only_while_a_run_trains(browser, live_app, tiny_cfg):
    """An open page sends no live-view requests with no run; a run started elsewhere (the
    API, another page) wakes it and shows in it, even one that ended between two looks;
    once the run's end shows, it stops asking; Start from the page wakes it again."""
    from playwright.sync_api import expect
    url, manager = live_app
    page = _open(browser, url)
    asked = _live_view_requests(page)
    page.wait_for_timeout(3500)
    assert asked == [], f"{len(asked)} requests with no run"
    run_id = manager.start({**tiny_cfg, "max_steps": 6, "sample_steps": 0})
    status = page.locator("#run-status")
    expect(status).to_contain_text(run_id, timeout=HANG_MS)  # woken by the page's lists
    expect(status).to_contain_text("done", timeout=HANG_MS)
    expect(page.locator("#run-progress")).to_contain_text("Step 6/6")
    assert asked and _falls_quiet(page, asked)  # it asked while the run trained, not after
    # A page opened after the run ended shows it too (the latest run, as a reload would).
    later = _open(browser, url)
    expect(later.locator("#run-status")).to_contain_text(f"Run {run_id}: done")
    later.close()
    set_field(page, "Model", tiny_cfg["model_name_or_path"])
    for label, value in (("Max steps", 2), ("Sample every N steps", 0),
                         ("Max length (tokens)", 64)):
        set_field(page, label, value)
    page.get_by_role("button", name="Start").click()
    expect(page.locator("#run-progress")).to_contain_text("Step 2/2", timeout=HANG_MS)
    expect(status).not_to_contain_text(run_id)  # the new run
    page.close()


def test_plot_legend_axes_log_and_stop_within_a_step(browser, live_app, tiny_cfg,
                                                     monkeypatch):
    """Trained from the page with slow steps: the loss plot's legend entries are visible
    and its axes named with whole-number steps; the log shows its newest line; Stop
    ends the run at most one step after the step it was clicked in."""
    from playwright.sync_api import expect

    from sft_ui.train.callbacks import StudioCallback
    url, manager = live_app
    original = StudioCallback.on_step_end

    def slow(self, args, state, control, **kwargs):
        if state.global_step > 8:  # the run waits at its 9th step until Stop reaches it
            wait_for(lambda: manager.active().stop_requested(), interval=0.05)
        return original(self, args, state, control, **kwargs)
    monkeypatch.setattr(StudioCallback, "on_step_end", slow)
    page = _open(browser, url)
    set_field(page, "Model", tiny_cfg["model_name_or_path"])
    for label, value in (("Max steps", 200), ("Batch size per device", 2),
                         ("Gradient accumulation steps", 1), ("Max length (tokens)", 64),
                         ("Sample every N steps", 0)):
        set_field(page, label, value)
    page.get_by_role("button", name="Start").click()
    def training_at_8():
        run = manager.active()
        return run if run and run.state == "running" and run.step >= 8 else None
    run = wait_for(training_at_8)
    clicked_at = run.step
    page.get_by_role("button", name="Stop").click()
    expect(page.locator("#run-status")).to_contain_text("stopped", timeout=HANG_MS)
    print(f"\nStop clicked at step {clicked_at}, the run ended at step {run.step}")
    assert run.step <= clicked_at + 1
    # The legend's entries are drawn inside the page, not cut off.
    legend = page.locator("#loss-plot .role-legend-label")
    expect(legend.first).to_be_visible()
    for n in range(legend.count()):  # inside every box that could clip it
        clipped = legend.nth(n).evaluate(CLIPPED_BY)
        assert clipped == [], (legend.nth(n).text_content(), clipped)
    assert {legend.nth(n).text_content() for n in range(legend.count())} >= {
        "train", "train (smoothed)"}
    text = page.locator("#loss-plot").inner_text()
    assert "step" in text and "loss" in text and "value" not in text
    ticks = page.locator("#loss-plot").evaluate("""(plot) => {
      for (const axis of plot.querySelectorAll('.role-axis')) {
        const title = axis.querySelector('.role-axis-title');
        if (title && title.textContent.trim() === 'step')
          return Array.from(axis.querySelectorAll('.role-axis-label text'),
                            (t) => t.textContent);
      }
      return null;
    }""")
    assert ticks and all(re.fullmatch(r"\d+", t) for t in ticks), ticks  # whole steps
    assert len(set(ticks)) == len(ticks), ticks  # each once (not "1 2 2 3 3")
    # The log follows its end: once the live view's last ticks landed (however long a busy
    # machine takes), it rests scrolled to the bottom.
    page.wait_for_function("""() => {
      const t = document.querySelector('#run-log textarea');
      return t && t.value.includes('Saved the model')
             && t.scrollHeight - t.scrollTop - t.clientHeight <= 2;
    }""", timeout=HANG_MS)
    page.close()


def test_export_shows_the_cards_image_and_merge_only_for_lora(browser, live_app, tiny_cfg):
    from playwright.sync_api import expect
    url, manager = live_app
    full = manager.start({**tiny_cfg, "sample_steps": 0})
    wait_for(lambda: _finished(manager, full))
    manager.rename(full, "full fine-tune")
    lora = manager.start({**tiny_cfg, "sample_steps": 0, "use_peft": True})
    wait_for(lambda: _finished(manager, lora))
    manager.rename(lora, "lora run")
    page = _open(browser, url)
    page.get_by_role("tab", name="Export").click()
    # The tab starts ready: the latest finished run chosen.
    expect(page.locator("#export-run input")).to_have_value(re.compile("lora run"))
    merge = page.get_by_label("Merge the LoRA adapter into the base model")
    for name, merge_shown in (("full fine-tune", False), ("lora run", True)):
        page.locator("#export-run input").click()
        page.locator("#export-run").get_by_role("option", name=re.compile(name)).first.click()
        if merge_shown:
            expect(merge).to_be_visible()
        else:
            expect(merge).to_be_hidden()
    page.get_by_role("button", name="Export", exact=True).click()
    expect(page.locator("#export-notice")).to_contain_text("Exported to", timeout=HANG_MS)
    page.get_by_role("button", name=re.compile(r"^Model card")).click()
    image = page.locator("#export-card img").first
    expect(image).to_be_visible()
    assert image.get_attribute("src").startswith("data:image/png;base64,")
    assert image.evaluate("i => i.complete && i.naturalWidth > 0"), "a broken image"
    # The same run as one GGUF file with its Modelfile, both offered for download.
    page.get_by_role("button", name="Export GGUF").click()
    expect(page.locator("#export-notice")).to_contain_text("GGUF written to",
                                                           timeout=HANG_MS)
    files = page.locator("#export-gguf")
    expect(files).to_contain_text(re.compile(r"-q8_0\s*\.gguf"))  # name, then extension
    expect(files).to_contain_text("Modelfile")
    page.close()
