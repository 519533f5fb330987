"""A real browser (Debian's Chromium through Playwright) drives the page:
settings, Start, the plot and a sample appear, then a chat reply."""
import re

from tests.conftest import (  # noqa: F401 (other modules import them here)
    ARGS,
    CHROMIUM,
    HANG,
    HANG_MS,
    wait_for,
)
from tests.conftest import field as _field
from tests.conftest import set_field as _set


def test_train_from_the_page_then_chat(page, live_app, tiny_model_dir, tmp_path):
    from playwright.sync_api import expect
    _set(page, "Model", tiny_model_dir)
    _set(page, "Max steps", 4)
    _set(page, "Batch size per device", 2)
    _set(page, "Gradient accumulation steps", 3)
    _set(page, "Max length (tokens)", 64)
    _set(page, "Sample every N steps", 2)
    _set(page, "Sample length (tokens)", 8)
    expect(page.locator("#effective-batch")).to_contain_text("Effective batch: 6")
    page.get_by_role("button", name="Start").click()
    expect(page.locator("#run-status")).to_contain_text("done", timeout=HANG_MS)
    expect(page.locator("#run-progress")).to_contain_text("Step 4/4")
    # The samples table shows steps 4, 2 and 0.
    # The loss plot's legend appears only when its series are drawn; the log has the steps.
    expect(page.locator("#loss-plot")).to_contain_text("train (smoothed)")
    expect(page.locator("#run-progress")).to_contain_text("tokens/s")
    expect(page.locator("#run-log textarea")).to_have_value(re.compile(r"step 4: loss"))
    samples = page.locator("#samples")
    expect(samples).to_contain_text("What is the capital of Italy?")
    page.screenshot(path=str(tmp_path / "train.png"), full_page=True)

    page.get_by_role("tab", name="Chat").click()
    _field(page, "Message").fill("Who are you?")
    page.get_by_role("button", name="Send").click()
    bot = page.locator(".message.bot, [data-testid='bot']").last
    expect(bot).to_be_visible(timeout=HANG_MS)
    wait_for(lambda: bot.inner_text().strip(), timeout=HANG)
    assert live_app[1].latest_finished() is not None


def test_bad_input_shows_a_message_in_the_page(page):
    from playwright.sync_api import expect
    page.get_by_role("tab", name="Train").click()
    _set(page, "Batch size per device", 0)
    page.get_by_role("button", name="Start").click()
    notice = page.locator("#start-notice")
    expect(notice).to_contain_text("Cannot start")
    expect(notice).to_contain_text("per_device_train_batch_size) must be at least 1")
    page.wait_for_timeout(2500)  # the live view's timer must not wipe the message
    expect(notice).to_contain_text("Cannot start")


def test_upload_and_preview_show_the_loss_mask_and_bad_files(page, tmp_path):
    from playwright.sync_api import expect
    page.get_by_role("tab", name="Train").click()
    good = tmp_path / "qa.jsonl"
    good.write_text('{"prompt": "Say hi.", "completion": " Hi!"}\n'
                    '{"prompt": "Say bye.", "completion": " Bye!"}\n')
    page.locator("#data-upload input[type=file]").set_input_files(str(good))
    summary = page.locator("#data-summary")
    expect(summary).to_contain_text("Format: prompt/completion", timeout=HANG_MS)
    expect(summary).to_contain_text("2 to train on")
    # The box shows the file's name, not the server's path (.../uploads/ab12cd/qa.jsonl):
    # that stays the setting's value, which the preview above read.
    expect(page.locator("#cfg-dataset_name input")).to_have_value("qa.jsonl")
    tokens = page.locator("#data-preview .example").first.locator(".tok")
    masked, counted = tokens.locator("xpath=self::*[contains(@class,'masked')]"), \
        tokens.locator("xpath=self::*[contains(@class,'loss')]")
    assert masked.count() > 0 and counted.count() > 0
    assert "".join(counted.all_inner_texts()).startswith(" Hi!")
    page.locator("#data-examples").screenshot(path=str(tmp_path / "preview.png"))
    bad = tmp_path / "broken.jsonl"
    bad.write_text('{"text": "fine"}\n{"text": oops}\n')
    dataset = page.locator("#cfg-dataset_name input")
    dataset.fill(str(bad))
    dataset.press("Tab")
    page.locator("#preview-data").click()
    expect(summary).to_contain_text("Cannot preview", timeout=HANG_MS)
    expect(summary).to_contain_text("broken.jsonl: line 2 is not valid JSON")
    page.screenshot(path=str(tmp_path / "preview-error.png"), full_page=True)


def test_show_code_for_the_settings_in_the_page(page):
    from playwright.sync_api import expect
    page.get_by_role("tab", name="Train").click()
    _set(page, "Batch size per device", 3)
    processes = _field(page, "Processes").first  # the accelerate settings follow it
    processes.fill("2")
    processes.press("Enter")
    page.get_by_text("Save, load, show code").click()
    page.locator("#show-code").click()
    expect(page.locator("#code-python")).to_contain_text("args = SFTConfig(", timeout=HANG_MS)
    expect(page.locator("#code-python")).to_contain_text("per_device_train_batch_size=3")
    expect(page.locator("#code-yaml")).to_contain_text("per_device_train_batch_size: 3")
    expect(page.locator("#code-trl")).to_contain_text("trl sft")
    expect(page.locator("#code-accelerate")).to_contain_text("num_processes: 2")
    expect(page.locator("#code-accelerate")).to_contain_text("distributed_type: MULTI_GPU")
