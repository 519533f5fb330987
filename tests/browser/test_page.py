"""The page as a first-time user meets it, in a real browser: the Train tab in about two
screens with Start and the live view always in sight (desktop and phone); lists that
keep themselves current; a bad upload after a good one; and the buttons that only unit
tests covered (Fit, Measure speed, Apply suggestion, YAML save and load, Compare and
Compare all). Figures are printed. The page while runs train: test_page_runs.py."""
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
    # in the data panel, which keeps it, not in a toast, which goes by itself
    expect(page.locator("[data-testid=toast-body]", has_text="photo.png")).to_have_count(0)
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
