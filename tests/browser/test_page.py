"""The page as a first-time user meets it, in a real browser: the Train tab in about two
screens with Start and the live view always in sight (desktop and phone); lists that
keep themselves current; the loss plot's legend and axes; the log at its newest line;
Stop within a step; the Export tab's card image, merge choice and GGUF files; a bad
upload after a good one; and the buttons that only unit tests covered (Fit, Measure speed, Apply
suggestion, YAML save and load, Compare and Compare all). Figures are printed."""
import json
import re
import time

from tests.conftest import HANG_MS, open_panels, set_field, wait_for

DESKTOP, PHONE = {"width": 1400, "height": 900}, {"width": 420, "height": 900}
# The ancestors whose overflow would hide part of an element (empty: all of it shows).
CLIPPED_BY = """(el) => {
  const box = el.getBoundingClientRect(), out = [];
  for (let a = el.parentElement; a; a = a.parentElement) {
    const s = getComputedStyle(a);
    if (s.overflowX === 'visible' && s.overflowY === 'visible') continue;
    const r = a.getBoundingClientRect();
    if (box.left < r.left - 1 || box.right > r.right + 1 || box.top < r.top - 1 ||
        box.bottom > r.bottom + 1) out.push(a.tagName + '#' + a.id + '.' + a.className);
  }
  return out;
}"""


def _open(browser, url, viewport=DESKTOP):
    page = browser.new_page(viewport=viewport)
    page.set_default_timeout(HANG_MS)
    page.goto(url)
    page.locator("#plan-summary").get_by_text("Plan:").wait_for()  # loaded, plan made
    return page


def _in_view(page, locator) -> bool:
    box = locator.bounding_box()
    view = page.viewport_size
    return box is not None and box["y"] >= 0 and box["y"] + box["height"] <= view["height"]


def _finished(manager, run_id):
    run = manager.get(run_id)
    return run if run.state in ("done", "stopped", "failed") else None


def test_train_tab_fits_two_screens_and_start_stays_in_sight(browser, live_app):
    for viewport, name in ((DESKTOP, "desktop"), (PHONE, "phone")):
        page = _open(browser, live_app[0], viewport)
        start = page.get_by_role("button", name="Start")
        height = page.evaluate("document.documentElement.scrollHeight")
        print(f"\nTrain tab at {viewport['width']}x{viewport['height']}: {height} px "
              f"({height / viewport['height']:.1f} screens)")
        if name == "desktop":
            assert height <= 2 * viewport["height"], height
        for y in range(0, height, 300):
            page.evaluate(f"window.scrollTo(0, {y})")
            page.wait_for_timeout(50)
            assert _in_view(page, start), (name, y)
            assert _in_view(page, page.locator("#run-progress")), (name, y)
        page.close()


def test_the_model_field_shows_the_whole_id_on_a_phone(browser, live_app):
    """At 390 px the default model's whole Hub id is in its field's view (it was cut to
    'SmolLM2-135M-Instru' under the arrow): the page's margins and the field's font are
    a phone's."""
    page = _open(browser, live_app[0], {"width": 390, "height": 844})
    box = page.locator("#cfg-model_name_or_path input")
    wide = box.evaluate("""e => { const c = document.createElement('canvas').getContext('2d');
        c.font = getComputedStyle(e).font;
        const box = e.getBoundingClientRect(), arrow = e.closest('.wrap').querySelector('svg');
        const right = arrow ? Math.min(box.right, arrow.getBoundingClientRect().left) : box.right;
        return [c.measureText('HuggingFaceTB/SmolLM2-135M-Instruct').width, right - box.left,
                e.value]; }""")
    assert wide[2].startswith("HuggingFaceTB/SmolLM2-135M-Instruct"), wide
    assert wide[0] <= wide[1], wide  # the id's width, the field's left of its arrow
    page.close()


def test_an_idle_page_draws_ten_times_a_second_not_sixty(browser, live_app):
    """Gradio's loading status keeps asking for animation frames on an idle page (60 a
    second for each status whose event it saw pending, to count an elapsed time shown in
    tenths); the script the app puts first in the page lets it ask 10 times a second.
    Frames asked in a 3 s window once the page is idle: at most 15 a second (a status
    still counting an event of the page's load adds its own, so up to 10 windows are
    tried; before, every window had 60 a second or more)."""
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    page.set_default_timeout(HANG_MS)
    page.add_init_script("""(() => { const frame = window.requestAnimationFrame.bind(window);
        window.__frames = 0;
        window.requestAnimationFrame = (f) => { window.__frames++; return frame(f); }; })();""")
    page.goto(live_app[0])
    page.locator("#plan-summary").get_by_text("Plan:").wait_for()
    counted = []
    for _ in range(10):
        before = page.evaluate("window.__frames")
        page.wait_for_timeout(3000)  # a window to count in, not a wait for an event
        counted.append(page.evaluate("window.__frames") - before)
        if counted[-1] <= 3 * 15:
            break
    assert counted[-1] <= 3 * 15, f"frames in each 3 s window: {counted}"
    page.close()


def test_help_is_one_line_with_the_rest_behind_it(browser, live_app):
    """One line of help per field; hovering it gives the whole text as its tooltip,
    clicking it opens it in place; focusing a field moves nothing."""
    page = _open(browser, live_app[0])
    open_panels(page)
    info = page.locator("#cfg-learning_rate .info-text")
    line = float(info.evaluate("e => parseFloat(getComputedStyle(e).lineHeight)"))
    assert info.bounding_box()["height"] <= line * 1.5  # one line
    page.locator("#cfg-learning_rate input, #cfg-learning_rate textarea").first.focus()
    assert info.bounding_box()["height"] <= line * 1.5
    info.hover()
    assert "how far each step moves the weights" in info.get_attribute("title")
    info.click()
    assert info.bounding_box()["height"] > line * 1.5  # the whole text
    page.close()


def test_lists_keep_themselves_current(browser, live_app, tiny_cfg):
    """A run that ends, is renamed or deleted shows in Chat, Compare, Export and Runs
    without Refresh."""
    url, manager = live_app
    page = _open(browser, url)
    run_id = manager.start({**tiny_cfg, "sample_steps": 0})
    wait_for(lambda: _finished(manager, run_id))
    manager.rename(run_id, "listed by itself")
    started = time.time()
    page.get_by_role("tab", name="Chat").click()
    page.locator("#chat-model input").click()
    option = page.locator("#chat-model").get_by_role(
        "option", name=re.compile("listed by itself .*final model"))
    option.first.wait_for(timeout=HANG_MS)
    print(f"\nChat's list had the renamed run {time.time() - started:.1f} s later")
    page.keyboard.press("Escape")
    from playwright.sync_api import expect
    expect(page.locator("#chat-latest")).to_contain_text("listed by itself")
    page.get_by_role("tab", name="Export").click()
    page.locator("#export-run input").click()
    page.locator("#export-run").get_by_role(
        "option", name=re.compile("listed by itself")).first.wait_for()
    page.keyboard.press("Escape")
    page.get_by_role("tab", name="Runs").click()
    table = page.locator("#runs-table")
    expect(table).to_contain_text("listed by itself")
    manager.delete(run_id)
    expect(table).not_to_contain_text("listed by itself", timeout=HANG_MS)
    page.close()


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


def test_a_bad_upload_after_a_good_one_says_why_and_clears(browser, live_app, tmp_path):
    from playwright.sync_api import expect
    page = _open(browser, live_app[0])
    good = tmp_path / "qa.jsonl"
    good.write_text('{"prompt": "Say hi.", "completion": " Hi!"}\n' * 3)
    upload = page.locator("#data-upload input[type=file]")
    dataset = page.locator("#cfg-dataset_name input")
    upload.set_input_files(str(good))
    expect(dataset).to_have_value(re.compile(r"qa\.jsonl$"), timeout=HANG_MS)
    summary = page.locator("#data-summary")
    expect(summary).to_contain_text("3 to train on")
    box = dataset.bounding_box()
    assert box["height"] < 60, "the path runs over several lines"
    picture = tmp_path / "photo.png"
    picture.write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * 64)
    page.locator("#data-upload button[aria-label*='Clear'], #data-upload .label-clear-button"
                 ).first.click()
    expect(dataset).to_have_value("demo")  # a cleared upload leaves no path behind
    upload = page.locator("#data-upload input[type=file]")
    upload.set_input_files(str(picture))
    expect(summary).to_contain_text("Cannot use this file", timeout=HANG_MS)
    expect(summary).to_contain_text("photo.png: unsupported file type '.png'")
    expect(summary).not_to_contain_text("3 to train on")
    expect(dataset).to_have_value("demo")
    expect(page.locator("#data-examples")).not_to_contain_text("Say hi.")
    page.wait_for_timeout(16_000)  # not a toast: still there after a toast would be gone
    expect(summary).to_contain_text("photo.png")
    # The person picks other data from the list: the earlier file's error goes with it.
    dataset.click()
    page.get_by_role("option", name="demo", exact=True).click()
    expect(summary).not_to_contain_text("photo.png")
    page.close()


def test_fit_measure_and_apply_suggestion_buttons(browser, live_app, tiny_cfg, monkeypatch,
                                                 tmp_path):
    from playwright.sync_api import expect

    from sft_ui.config import RunConfig
    monkeypatch.setattr("sft_ui.plan.speed.speed_file", lambda: tmp_path / "speed.json")
    url, manager = live_app
    page = _open(browser, url)
    set_field(page, "Model", tiny_cfg["model_name_or_path"])
    set_field(page, "Max length (tokens)", 64)
    set_field(page, "Batch size per device", 64)
    page.locator("#plan-fit").click()
    notice = page.locator("#plan-notice")
    expect(notice).not_to_be_empty(timeout=HANG_MS)
    batch = page.locator("#cfg-per_device_train_batch_size input")
    from sft_ui.plan.planner import fit_to_machine
    fitted, said = fit_to_machine(RunConfig(model_name_or_path=tiny_cfg["model_name_or_path"],
                                            max_length=64, per_device_train_batch_size=64))
    expect(batch).to_have_value(str(fitted.per_device_train_batch_size))  # what Fit chose
    expect(page.locator("#cfg-gradient_accumulation_steps input")).to_have_value(
        str(fitted.gradient_accumulation_steps))
    assert said.split(":")[0] in notice.inner_text()
    page.locator("#plan-measure").click()
    expect(notice).to_contain_text("tokens/s", timeout=HANG_MS)
    expect(page.locator("#plan")).to_contain_text("measured on")
    # A run that ran out of memory leaves a suggestion; Apply fills it into the page.
    helper_run = manager.start({**tiny_cfg, "max_steps": 1, "sample_steps": 0})
    run = wait_for(lambda: _finished(manager, helper_run))
    run.state, run.suggestion = "failed", {"per_device_train_batch_size": 1,
                                           "gradient_accumulation_steps": 8}
    page.locator("#plan-apply").click()
    expect(notice).to_contain_text("Press Start")
    assert batch.input_value() == "1"
    assert page.locator("#cfg-gradient_accumulation_steps input").input_value() == "8"
    run.state = "done"
    assert RunConfig().per_device_train_batch_size != 1  # the page changed, not the default
    page.close()


def test_yaml_save_then_load_in_the_page(browser, live_app, tmp_path):
    from playwright.sync_api import expect
    page = _open(browser, live_app[0])
    set_field(page, "Max steps", 17)
    page.get_by_text("Save, load, show code").click()
    page.get_by_role("button", name="Save settings as YAML").click()
    link = page.locator("a[download='sft.yaml']")
    link.wait_for()
    with page.expect_download() as download:
        link.click()
    saved = tmp_path / "saved.yaml"
    download.value.save_as(saved)
    assert "max_steps: 17" in saved.read_text()
    saved.write_text(saved.read_text().replace("max_steps: 17", "max_steps: 23"))
    set_field(page, "Max steps", 5)
    page.locator("#load-yaml input[type=file]").set_input_files(str(saved))
    expect(page.locator("#code-notice")).to_contain_text("Loaded saved.yaml")
    expect(page.locator("#cfg-max_steps input")).to_have_value("23")
    page.close()


def test_compare_and_compare_all(browser, live_app, tiny_cfg):
    from playwright.sync_api import expect
    url, manager = live_app
    run_id = manager.start({**tiny_cfg, "sample_steps": 0})
    wait_for(lambda: _finished(manager, run_id))
    page = _open(browser, url)
    page.get_by_role("tab", name="Compare").click()
    page.locator("#compare-a input").click()
    page.locator("#compare-a").get_by_role("option", name=re.compile(r"base model")).first.click()
    page.get_by_label("Prompt", exact=True).fill("Say hi.")
    page.get_by_role("button", name="Compare", exact=True).click()
    for side in ("#answer-a", "#answer-b"):
        expect(page.locator(f"{side} textarea")).not_to_have_value("", timeout=HANG_MS)
    page.get_by_role("button", name="Compare all").click()
    table = page.locator("#compare-table")
    expect(table).to_contain_text("What is the capital of Italy?", timeout=HANG_MS)
    from sft_ui.config.fields import DEFAULT_SAMPLE_PROMPTS
    # The table fills model A's answers first (the notice says model B is answering),
    # then model B's, and the notice goes.
    expect(page.locator("#compare-notice")).not_to_contain_text("Model", timeout=HANG_MS)
    # Gradio's table is virtual: a grid whose rows carry their index, one per prompt.
    expect(table.locator("[role=grid]")).to_have_attribute(
        "aria-rowcount", str(len(DEFAULT_SAMPLE_PROMPTS) + 1))
    # Model B is the latest run: its greedy answers, as the chat service gives them here.
    from sft_ui.chat import LATEST, ChatService, GenSettings
    latest = ChatService(manager).compare_batch(DEFAULT_SAMPLE_PROMPTS, LATEST, LATEST,
                                                GenSettings().max_new_tokens)
    for prompt, expected in zip(DEFAULT_SAMPLE_PROMPTS, latest):
        row = table.get_by_role("row").filter(has_text=prompt)
        cells = [c.strip() for c in row.get_by_role("gridcell").all_inner_texts()]
        assert len(cells) == 3 and cells[0] == prompt, cells
        assert cells[2] == expected["b"].strip() and cells[1] != cells[2], cells
    page.close()


def test_small_findings_in_the_page(browser, live_app):
    """A learning rate typed as text stays in its box and the message names the field;
    the disabled Stop looks disabled; the empty upload box shows its whole text."""
    from playwright.sync_api import expect
    page = _open(browser, live_app[0])
    set_field(page, "Learning rate", "fast")
    page.get_by_role("button", name="Start").click()
    notice = page.locator("#start-notice")
    expect(notice).to_contain_text("Learning rate (learning_rate) must be a number")
    assert page.locator("#cfg-learning_rate").get_by_role("textbox").input_value() == "fast"
    stop = page.get_by_role("button", name="Stop")
    assert stop.is_disabled()
    assert float(stop.evaluate("b => getComputedStyle(b).opacity")) < 0.6
    # The text's own box (a range over its characters) lies inside the upload block.
    inside = page.locator("#data-upload").evaluate("""(block) => {
      const walker = document.createTreeWalker(block, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        if (!node.textContent.includes('Click to Upload')) continue;
        const range = document.createRange();
        range.selectNodeContents(node);
        const r = range.getBoundingClientRect(), b = block.getBoundingClientRect();
        return r.height > 0 && r.top >= b.top && r.bottom <= b.bottom;
      }
      return false;
    }""")
    assert inside, "'Click to Upload' is cut off"
    page.close()


def test_time_budget_in_the_first_panel_shows_in_the_plan(browser, live_app):
    """The quick path's third choice sits beside model and data, and the plan says what the
    budget chose before Start."""
    from playwright.sync_api import expect
    page = _open(browser, live_app[0])
    set_field(page, "Time budget (minutes)", 5)
    expect(page.locator("#plan-summary")).to_contain_text("time budget 5 min",
                                                          timeout=HANG_MS)
    open_panels(page)
    expect(page.locator("#plan")).to_contain_text("Time budget, 5 min,")
    expect(page.locator("#plan")).to_contain_text("LoRA: 248 rows are few")
    page.close()


def test_long_names_get_a_row_of_their_own():
    """The model and the dataset hold long names (a Hub id, a path): each alone in its
    row, so the whole name shows; the other settings stay two to a row, in order."""
    from sft_ui.ui.train_tab import _rows
    assert _rows(["model_name_or_path", "stage", "dataset_name", "time_budget_minutes"]) == \
        [["model_name_or_path"], ["stage", "time_budget_minutes"], ["dataset_name"]]
    assert _rows(["a", "b", "c"]) == [["a", "b"], ["c"]]


def test_events_with_many_outputs_show_their_status_on_one_component(tmp_path):
    """Each message of any event has the page redraw the loading status of every component
    an event showed one on since the page opened: an event whose outputs are the settings
    (Continue, a preset, Fit's Apply, a stage, a YAML file) shows it on one component, or
    every look at a training run redraws them all (following a run cost 0.8x its speed)."""
    from sft_ui.runs import RunManager
    from sft_ui.ui import build_app
    app = build_app(RunManager(tmp_path))
    many = [d for d in app.config["dependencies"] if len(d["outputs"]) > 10]
    assert len(many) >= 7  # preset, stage, Apply, both Continues, YAML load, a language switch
    assert [(d["api_name"], d["targets"]) for d in many if not d["show_progress_on"]] == []
    assert all(len(d["show_progress_on"]) == 1 for d in many)


def test_no_trigger_sets_off_two_events_that_wait_for_their_last(tmp_path):
    """Gradio's page runs an "always_last" event again, once it ends, by dispatching the
    trigger it waited on anew: every event of that trigger runs again. Two such events on
    one trigger, one waiting while the other runs, set each other off without end (a page
    whose kept settings were put back sent 8 events a second for minutes). So each
    trigger has at most one; the others run on each trigger ("multiple", in order: one
    at a time per event)."""
    import collections

    from sft_ui.runs import RunManager
    from sft_ui.ui import build_app
    app = build_app(RunManager(tmp_path))
    waiting = collections.defaultdict(list)
    for d in app.config["dependencies"]:
        if d["trigger_mode"] == "always_last":
            for target in d["targets"]:
                waiting[tuple(target)].append(d["id"])
    assert len(waiting) > 50  # (the settings' changes)
    assert {t: ids for t, ids in waiting.items() if len(ids) > 1} == {}
